//! How failures and diagnostics reach the user, in libomptarget's words: a failed construct
//! under the mandatory policy prints its cause, the steps that gave up, where to look, the
//! source location, and ends the program, as libomptarget does.

use crate::error::{Error, ErrorKind};
use crate::info::{self, bits};
use crate::location::SourceLoc;
use crate::runtime::Runtime;

/// Prints the lines of a failed construct, then the final fatal line, and aborts.
///
/// On a thread racing with the program's exit, waits for the end instead (see
/// [`crate::exit::park_if_exiting`]).
pub fn fatal_construct(rt: &Runtime, err: &Error, loc: Option<&SourceLoc>) -> ! {
    crate::exit::park_if_exiting();
    print_error(err);
    if info::enabled(bits::DUMP_TABLE) {
        dump_all(rt, loc);
    } else {
        eprintln!("omptarget error: Consult https://openmp.llvm.org/design/Runtimes.html for debugging options.");
    }
    match (loc, crate::origin::current()) {
        (Some(l), _) => eprint!("{l}: "),
        // Inside a Spread construct the driver located: its line, though clang's is missing.
        (None, o) if o.site().is_some() => {
            eprintln!("omptarget error: in {o} (compile with -g or -gline-tables-only for the failing construct's own location)");
            if let Some(s) = o.site() {
                eprint!("{}:{}: ", s.file, s.line);
            }
        }
        (None, _) => eprintln!(
            "omptarget error: Source location information not present. Compile with -g or -gline-tables-only."
        ),
    }
    fatal(
        1,
        "failure of target construct while offloading is mandatory",
    )
}

/// Prints an error's cause and context lines.
pub fn print_error(err: &Error) {
    match err.kind {
        // A cause may take several of libomptarget's lines, one per line of the message.
        ErrorKind::Mapping | ErrorKind::Extension => {
            for line in err.message.lines() {
                eprintln!("omptarget message: {line}");
            }
        }
        _ => eprintln!("omptarget error: {}", err.message),
    }
    for c in &err.context {
        eprintln!("omptarget error: {c}");
    }
}

/// `omptarget fatal error N: ...` and abort, as libomptarget's FATAL_MESSAGE.
pub fn fatal(code: i64, msg: &str) -> ! {
    eprintln!("omptarget fatal error {code}: {msg}");
    std::process::abort()
}

/// A bad device number in an API call or construct: fatal, numbered by the device as in
/// libomptarget, with the source location in front when there is one.
pub fn fatal_device(err: &Error, device: i64, loc: Option<&SourceLoc>) -> ! {
    if let Some(l) = loc {
        eprint!("{l}: ");
    }
    fatal(device, &err.message)
}

/// Dumps every device's mapping table (after a construct, with `LIBOMPTARGET_INFO` 0x4).
pub fn dump_all(rt: &Runtime, loc: Option<&SourceLoc>) {
    let at = loc.map_or_else(|| "unknown:0:0".to_string(), |l| l.to_string());
    for d in &rt.devices {
        d.dump_table(&at, false);
    }
}
