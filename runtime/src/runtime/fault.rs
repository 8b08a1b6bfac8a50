//! How a fault inside a host kernel reaches the user: the reporter of the runtime's SIGSEGV and
//! SIGBUS handler (`sys/fault.rs`).
//!
//! A fault in a guard region of a host device's block (`device/host/guarded.rs`) is a kernel
//! that ran outside the sections it was given (or host code that touched a device address
//! outside its block): the report names the kernel's device and construct (a spread chunk's
//! range, or the `ident_t` location, kept with the kernel since it was enqueued:
//! `device/host/running.rs`), the address and its distance from the nearest section mapped in
//! the block, with the section's variable (clang names them with `-g`) and host range, and what
//! to check; then the process ends as libomptarget's fatal errors do (`omptarget fatal error 1`,
//! `abort`). A fault elsewhere on a thread that runs a kernel, which the default action will
//! end, gets the same report as a note before it goes on; every other fault goes on untouched.
//!
//! The report runs in the signal handler: it formats into a buffer on the stack, writes it
//! with write(2), only tries locks (the device's mapping table, for a tenth of a second), and
//! lets one faulting thread report while the others wait for the end.

use crate::device::registry::guarded::{self, Hit, Side};
use crate::device::registry::running::{self, Running};
use crate::runtime::mapping::table::MappingTable;
use crate::sys::access;
use crate::sys::fault::{self, Fault};
use std::fmt::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Makes this module the fault handler's reporter (the handler itself is installed with the
/// first guarded block).
pub fn register() {
    fault::set_reporter(report);
}

/// Addresses below this are no section's neighbours: null pointers (and x86's faults without an
/// address).
const NULL_PAGE: usize = 4096;

/// Set by the first thread that reports; the others wait for the process to end.
static REPORTING: AtomicBool = AtomicBool::new(false);

fn report(f: &Fault) {
    let hit = guarded::find(f.addr).filter(|h| h.side != Side::Inside);
    let kernel = match hit {
        Some(h) => kernel_for(Some(h.device)),
        None if f.fatal_otherwise => running::this_thread().map(|k| (k, 1)),
        None => None,
    };
    if hit.is_none() && kernel.is_none() {
        return; // not Spread's: the program's handler or the default action
    }
    if REPORTING.swap(true, Ordering::AcqRel) {
        loop {
            std::thread::sleep(std::time::Duration::from_secs(1));
        }
    }
    let mut out = Buf::new();
    let _ = compose(&mut out, f, hit, kernel.as_ref());
    out.push_line();
    fault::write_stderr(out.bytes());
    if hit.is_some() {
        let mut last = Buf::new();
        let _ = write!(
            last,
            "omptarget fatal error 1: a kernel accessed memory outside the data mapped on its device ({})",
            signal_name(f.signal)
        );
        last.push_line();
        fault::write_stderr(last.bytes());
        std::process::abort();
    }
    // Elsewhere: the default action ends the process once the handler returns.
    REPORTING.store(false, Ordering::Release);
}

/// The kernel to blame for a fault on the calling thread, and how many were candidates: the
/// thread's own, else one that runs on `device` (the faulting block's; a libomp worker thread
/// of a kernel carries no record), else the only one running at all.
fn kernel_for(device: Option<usize>) -> Option<(Running, usize)> {
    if let Some(k) = running::this_thread() {
        return Some((k, 1));
    }
    for d in [device, None] {
        let mut first = None;
        let mut n = 0;
        running::running_on(d, |k| {
            n += 1;
            first.get_or_insert_with(|| k.clone());
        });
        if let Some(k) = first.filter(|_| d.is_some() || n == 1) {
            return Some((k, n));
        }
    }
    None
}

/// The section nearest to a faulting address in one device's table.
struct Section {
    /// Device range.
    begin: usize,
    end: usize,
    /// Host range's start.
    host: usize,
    /// clang's name string (0 without `-g`).
    name: usize,
}

impl Section {
    /// How far `addr` is outside the section (0 inside).
    fn distance(&self, addr: usize) -> usize {
        if addr < self.begin {
            self.begin - addr
        } else {
            addr.saturating_sub(self.end.saturating_sub(1))
        }
    }
}

/// The mapped section nearest to `addr` among those of `table` whose device range lies in
/// `[lo, hi)`.
fn nearest(table: &MappingTable, addr: usize, lo: usize, hi: usize) -> Option<Section> {
    table
        .iter()
        .filter(|e| e.owns_memory && e.target_begin >= lo && e.target_begin + e.size() <= hi)
        .map(|e| Section {
            begin: e.target_begin,
            end: e.target_begin + e.size(),
            host: e.host_begin,
            name: e.name,
        })
        .min_by_key(|s| s.distance(addr))
}

/// What the faulting address lies near on `device`: a mapped section in `[lo, hi)`, else an
/// `omp_target_alloc` block there (as a section without a host side).
fn section_near(device: usize, addr: usize, lo: usize, hi: usize) -> Option<Section> {
    let slot = crate::runtime::try_get()?.devices.get(device)?;
    for _ in 0..100 {
        if let Some(table) = slot.table.try_lock() {
            if let Some(s) = nearest(&table, addr, lo, hi) {
                return Some(s);
            }
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let allocations = slot.allocations.try_lock()?;
    let (&begin, &(_, size)) = allocations.range(lo..hi).next()?;
    Some(Section {
        begin,
        end: begin + size,
        host: 0,
        name: 0,
    })
}

/// Writes the report's line (without the newline).
fn compose(
    out: &mut Buf,
    f: &Fault,
    hit: Option<Hit>,
    kernel: Option<&(Running, usize)>,
) -> fmt::Result {
    out.write_str("spread: error: ")?;
    match (kernel, hit) {
        (Some((k, _)), Some(_)) => write!(out, "a kernel on host device {}", k.device)?,
        (Some((k, _)), None) => write!(
            out,
            "a kernel on host device {} faulted ({})",
            k.device,
            signal_name(f.signal)
        )?,
        (None, _) => out.write_str("host code (no kernel was running)")?,
    }
    write!(out, " accessed {:#x}", f.addr)?;
    if hit.is_none() && f.pc != 0 {
        // Not the guard's: where the kernel's code was is a clue (the section is not).
        write!(out, " (instruction at {:#x})", f.pc)?;
    }
    if hit.is_none() && f.addr < NULL_PAGE {
        // Not a section's neighbourhood: a null pointer, or an access the hardware refused
        // without an address (x86 reports a misaligned vector access, or a non-canonical
        // address, as a fault at 0).
        out.write_str(
            ": a null pointer, or an access the processor refused (a misaligned vector access reports address 0)",
        )?;
        if let Some((k, _)) = kernel {
            write!(out, ", in {}", k.origin)?;
        }
        return Ok(());
    }
    let (device, lo, hi) = match (hit, kernel) {
        (Some(h), _) => (h.device, h.data, h.data + h.data_len),
        (None, Some((k, _))) => (k.device, 0, usize::MAX),
        (None, None) => return Ok(()),
    };
    match section_near(device, f.addr, lo, hi) {
        Some(s) => {
            out.write_str(", ")?;
            distance(out, f.addr, &s)?;
            section(out, &s)?;
            if hit.is_none() {
                out.write_str(" (the nearest)")?;
            }
        }
        None => match hit {
            Some(h) => write!(
                out,
                ", in the guard region {} a block of host device {device} [{:#x}+{}) that holds no mapped section ({})",
                if h.side == Side::Before { "before" } else { "after" },
                h.data,
                h.data_len,
                if h.freed {
                    "it was freed"
                } else {
                    "a kernel's firstprivate copy, or the table was busy"
                }
            )?,
            None => write!(out, ", not near data mapped on host device {device}")?,
        },
    }
    if let Some((k, n)) = kernel {
        if k.device != device {
            write!(out, " on host device {device}")?;
        }
        write!(out, " mapped for {}", k.origin)?;
        if *n > 1 {
            write!(
                out,
                " (or another of the {n} kernels running on host device {device})"
            )?;
        }
    }
    out.write_str(": check the map clause's section bounds against the loop's accesses")?;
    if kernel.is_some_and(|(k, _)| k.origin.is_chunk()) {
        out.write_str(" (with collapse(2), is the spread loop the outer one?)")?;
    }
    Ok(())
}

/// `N bytes past the end of` / `just past the end of` / `N bytes before the start of`.
fn distance(out: &mut Buf, addr: usize, s: &Section) -> fmt::Result {
    if addr < s.begin {
        write!(out, "{} bytes before the start of", s.begin - addr)
    } else if addr == s.end {
        out.write_str("just past the end of")
    } else if addr > s.end {
        write!(out, "{} bytes past the end of", addr - s.end)
    } else {
        write!(out, "{} bytes into", addr - s.begin)
    }
}

/// ` the section of 'NAME' [host 0x..+SIZE)`, or the `omp_target_alloc` block.
fn section(out: &mut Buf, s: &Section) -> fmt::Result {
    let size = s.end - s.begin;
    if s.host == 0 {
        return write!(out, " the omp_target_alloc block [{:#x}+{size})", s.begin);
    }
    match variable(s.name) {
        Some(v) => write!(out, " the section of '{v}'")?,
        None => out.write_str(" a section (compile with -g for variable names)")?,
    }
    write!(out, " [host {:#x}+{size})", s.host)
}

/// The variable of clang's `;name;file;line;col;;` string: the name up to its first section
/// bracket or space (`f_old[(start - 1) * N:...]` is `f_old`).
fn variable(name: usize) -> Option<&'static str> {
    let bytes = access::entry_name_bytes(name)?;
    let s = std::str::from_utf8(bytes).ok()?;
    let first = s.strip_prefix(';')?.split(';').next()?;
    let var = first.split(['[', ' ']).next()?.trim();
    (!var.is_empty() && var != "unknown").then_some(var)
}

fn signal_name(signal: i32) -> &'static str {
    if signal == libc::SIGBUS {
        "SIGBUS"
    } else {
        "SIGSEGV"
    }
}

/// A line formatted on the stack (the report must not allocate); what does not fit is cut.
struct Buf {
    bytes: [u8; 2048],
    len: usize,
}

impl Buf {
    fn new() -> Self {
        Buf {
            bytes: [0; 2048],
            len: 0,
        }
    }

    fn bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// Ends the line (replacing the last byte when full).
    fn push_line(&mut self) {
        if self.len == self.bytes.len() {
            self.len -= 1;
        }
        self.bytes[self.len] = b'\n';
        self.len += 1;
    }
}

impl Write for Buf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = self.bytes.len() - self.len;
        let n = s.len().min(room);
        self.bytes[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::origin::Origin;
    use crate::runtime::mapping::table::Entry;

    fn entry(host: usize, target: usize, size: usize) -> Entry {
        let mut e = Entry::permanent(host, size, target);
        e.owns_memory = true;
        e.dyn_refs = 1;
        e
    }

    #[test]
    fn the_nearest_section_in_the_block_and_the_distance() {
        let mut t = MappingTable::new();
        t.insert(entry(0x5000, 0x10_0000, 0x2000));
        t.insert(entry(0x9000, 0x20_0000, 0x100));
        let s = nearest(&t, 0x10_2010, 0x10_0000, 0x10_3000).expect("in the block");
        assert_eq!((s.begin, s.end, s.host), (0x10_0000, 0x10_2000, 0x5000));
        let mut b = Buf::new();
        distance(&mut b, 0x10_2010, &s).expect("fits");
        assert_eq!(b.bytes(), b"16 bytes past the end of");
        let mut b = Buf::new();
        distance(&mut b, 0x10_2000, &s).expect("fits");
        assert_eq!(b.bytes(), b"just past the end of");
        let mut b = Buf::new();
        distance(&mut b, 0x0f_fff8, &s).expect("fits");
        assert_eq!(b.bytes(), b"8 bytes before the start of");
        assert_eq!(s.distance(0x0f_fff8), 8);
        assert_eq!(s.distance(0x10_2000), 1);
        // Sections outside the faulting block are not the block's.
        assert!(nearest(&t, 0x10_2010, 0x30_0000, 0x30_1000).is_none());
        // Over the whole device, the closer one wins.
        let s = nearest(&t, 0x20_0200, 0, usize::MAX).expect("some");
        assert_eq!(s.begin, 0x20_0000);
    }

    #[test]
    fn variables_are_named_without_their_section() {
        let name = c";f_old[(omp_spread_start - 1) * N:(omp_spread_size + 2) * N];jacobi.c;57;5;;";
        assert_eq!(variable(name.as_ptr() as usize), Some("f_old"));
        assert_eq!(variable(c";s.x;a.c;1;1;;".as_ptr() as usize), Some("s.x"));
        assert_eq!(variable(c";unknown;unknown;0;0;;".as_ptr() as usize), None);
        assert_eq!(variable(0), None);
        let s = Section {
            begin: 0x1000,
            end: 0x3000,
            host: 0x5000,
            name: 0,
        };
        let mut b = Buf::new();
        section(&mut b, &s).expect("fits");
        assert_eq!(
            std::str::from_utf8(b.bytes()).expect("utf8"),
            " a section (compile with -g for variable names) [host 0x5000+8192)"
        );
    }

    #[test]
    fn a_report_is_cut_to_its_buffer_and_ends_its_line() {
        let mut b = Buf::new();
        for _ in 0..300 {
            b.write_str("0123456789").expect("never fails");
        }
        b.push_line();
        assert_eq!(b.bytes().len(), 2048);
        assert_eq!(b.bytes()[2047], b'\n');
    }

    #[test]
    fn a_fault_report_names_construct_chunk_device_and_section() {
        let s = Section {
            begin: 0x10_0000,
            end: 0x10_2000,
            host: 0x5000,
            name: c";f_old[0:1024];jacobi.c;57;5;;".as_ptr() as usize,
        };
        let k = Running {
            device: 2,
            origin: Origin::Chunk(crate::origin::tests::site("jacobi.c", 57), 64, 128),
        };
        let mut b = Buf::new();
        b.write_str("x ").expect("fits");
        distance(&mut b, 0x10_2010, &s).expect("fits");
        section(&mut b, &s).expect("fits");
        write!(b, " mapped for {}", k.origin).expect("fits");
        assert_eq!(
            std::str::from_utf8(b.bytes()).expect("utf8"),
            "x 16 bytes past the end of the section of 'f_old' [host 0x5000+8192) mapped for target spread jacobi.c:57 chunk [64,128)"
        );
    }
}
