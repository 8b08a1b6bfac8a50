//! The driver proper: preprocess each C/C++ input, lower its spread constructs, and run clang
//! on the lowered files with Spread's flags.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::args::{self, Flavor, Input, Invocation, Lang};
use crate::diag::{self, Diagnostic, Loc};
use crate::lower;
use crate::offload;
use crate::paths::{self, Layout, RUNTIME_SONAME};
use crate::ppout::PpOutput;
use crate::remap;
use crate::source::{Locator, SourceFile};
use crate::splice;

/// Stack of the thread that lowers an input: statements nested [`crate::stmt::MAX_NESTING`]
/// deep fit.
const LOWERING_STACK: usize = 256 << 20;

/// Default offload target.
pub const DEFAULT_TARGET: &str = offload::HOST_TRIPLE;

/// Text decoded from bytes: UTF-8 when valid, else one char per byte (so that re-encoding
/// gives the same bytes back).
pub fn decode(bytes: Vec<u8>) -> (String, bool) {
    match String::from_utf8(bytes) {
        Ok(s) => (s, false),
        Err(e) => (e.into_bytes().iter().map(|&b| b as char).collect(), true),
    }
}

/// Inverse of [`decode`].
pub fn encode(s: &str, bytewise: bool) -> Vec<u8> {
    if !bytewise {
        return s.as_bytes().to_vec();
    }
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        if (c as u32) < 0x100 {
            out.push(c as u32 as u8);
        } else {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    out
}

/// Groups each argument with its separate value: `(start, len)`.
fn arg_groups(args: &[String]) -> Vec<(usize, usize)> {
    let mut g = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let n = if args::takes_separate_value(&args[i]) {
            2
        } else {
            1
        };
        let n = n.min(args.len() - i);
        g.push((i, n));
        i += n;
    }
    g
}

/// Whether a clang argument must not reach the preprocessing run.
fn drop_for_preprocessing(a: &str) -> bool {
    const EXACT: &[&str] = &[
        "-o",
        "-c",
        "-S",
        "-E",
        "-M",
        "-MM",
        "-MD",
        "-MMD",
        "-MF",
        "-MT",
        "-MQ",
        "-MP",
        "-MG",
        "-MJ",
        "-fsyntax-only",
        "-P",
        "-C",
        "-CC",
        "-dM",
        "-dD",
        "-dI",
        "-###",
        "-v",
        "-x",
        "-emit-llvm",
        "-save-temps",
        "-dependency-file",
        "-serialize-diagnostics",
        "-H",
        "-fpch-preprocess",
        // offloading: the directives are found in the host's view of the file (each device
        // compilation preprocesses the lowered file itself)
        "--offload-arch",
        "-Xopenmp-target",
    ];
    const PREFIX: &[&str] = &[
        "-MF",
        "-MT",
        "-MQ",
        "-MJ",
        "-x",
        "-save-temps=",
        "-o",
        "-fopenmp-targets=",
        "--offload-arch=",
        "-Xopenmp-target=",
        "--cuda-path=",
    ];
    EXACT.contains(&a) || PREFIX.iter().any(|p| a.starts_with(p))
}

/// Owns the temporary directory of the lowered files.
struct TempDir {
    path: PathBuf,
    keep: bool,
}

impl TempDir {
    fn new(keep: bool) -> std::io::Result<TempDir> {
        let base = std::env::temp_dir();
        let pid = std::process::id();
        for n in 0..1000u32 {
            let path = base.join(format!("spread-cc-{pid}-{n}"));
            match fs::create_dir(&path) {
                Ok(()) => return Ok(TempDir { path, keep }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(std::io::Error::other("cannot create a temporary directory"))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if !self.keep {
            let _ = fs::remove_dir_all(&self.path);
        }
    }
}

/// What lowering one input produced.
enum Lowered {
    /// Nothing to lower (or the file could not be preprocessed: clang reports why).
    Unchanged,
    /// The lowered text (to be encoded with the flag), and what clang's diagnostics on it are
    /// mapped back to.
    Text(String, bool, remap::Lowered),
    /// Spread errors.
    Errors(Vec<Diagnostic>),
    /// clang could not be run (the message, for `<prog>: error:`).
    Failed(String),
}

/// The inputs of a command once lowered (see [`Driver::lower_inputs`]).
struct LoweredInputs {
    /// The temporary directory of the lowered files: held, not read, so that it is removed
    /// only when the command is over (after clang and the dependency files).
    _tmp: Option<TempDir>,
    /// `(input index, lowered file)` for each input replaced by its lowered file.
    replaced: Vec<(usize, PathBuf)>,
    /// What clang's diagnostics on the lowered files are mapped back to.
    sources: Vec<remap::Lowered>,
}

struct Driver<'a> {
    prog: String,
    clang: PathBuf,
    inv: &'a Invocation,
    layout: Layout,
}

fn quote(a: &str) -> String {
    if !a.is_empty()
        && a.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=,:+@%".contains(c))
    {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}

impl<'a> Driver<'a> {
    fn verbose(&self, cmd: &Command) {
        if self.inv.spread.verbose {
            let mut s = String::new();
            for (k, v) in cmd.get_envs() {
                if let Some(v) = v {
                    s.push_str(&format!(
                        "{}={} ",
                        k.to_string_lossy(),
                        quote(&v.to_string_lossy())
                    ));
                }
            }
            s.push_str(&quote(&cmd.get_program().to_string_lossy()));
            for a in cmd.get_args() {
                s.push(' ');
                s.push_str(&quote(&a.to_string_lossy()));
            }
            eprintln!("{s}");
        }
    }

    fn error(&self, msg: &str) -> i32 {
        eprintln!("{}: error: {msg}", self.prog);
        1
    }

    fn header_line(&self) -> String {
        let h = self.layout.header();
        if h.is_file() {
            format!("#include \"{}\"", h.display())
        } else {
            "#include <spread.h>".to_string()
        }
    }

    /// Runs `clang -E` on `input`, with the user's preprocessing flags: the preprocessed text,
    /// `None` when clang reports an error in the input, or why clang could not be run.
    fn preprocess(&self, input: &Input) -> Result<Option<String>, String> {
        let args = &self.inv.args;
        let inputs: HashSet<usize> = self.inv.inputs.iter().map(|i| i.index).collect();
        let mut cmd = Command::new(&self.clang);
        cmd.arg("-E");
        if !self.inv.has_fopenmp {
            cmd.arg("-fopenmp");
        }
        for (start, len) in arg_groups(args) {
            if inputs.contains(&start) || drop_for_preprocessing(&args[start]) {
                continue;
            }
            cmd.args(&args[start..start + len]);
        }
        cmd.arg("-Wno-unused-command-line-argument");
        let h = self.layout.header();
        if h.is_file() {
            cmd.arg("-include").arg(&h);
            cmd.arg("-idirafter").arg(&self.layout.include_dir);
        }
        cmd.arg("-x").arg(match input.lang {
            Lang::Cxx => "c++",
            _ => "c",
        });
        cmd.arg(&input.path);
        cmd.stdin(Stdio::null());
        self.verbose(&cmd);
        let out = match cmd.output() {
            Ok(o) => o,
            Err(e) => {
                return Err(format!(
                    "cannot run '{}' (the clang to preprocess '{}'): {e}",
                    self.clang.display(),
                    input.path
                ))
            }
        };
        if !out.status.success() {
            // clang explains every failure; a silent one means the program is not clang
            if out.stderr.iter().all(u8::is_ascii_whitespace) {
                return Err(format!(
                    "'{}' {} without a message while preprocessing '{}'; is it clang 19 (set SPREAD_CLANG)?",
                    self.clang.display(),
                    describe_status(&out.status),
                    input.path
                ));
            }
            // the user's error: clang reports it when it compiles the file as written
            return Ok(None);
        }
        Ok(Some(decode(out.stdout).0))
    }

    fn lower_input(&self, input: &Input) -> Lowered {
        let Ok(bytes) = fs::read(&input.path) else {
            return Lowered::Unchanged;
        };
        let (text, bytewise) = decode(bytes);
        let pp_text = match self.preprocess(input) {
            Ok(Some(t)) => t,
            Ok(None) => return Lowered::Unchanged,
            Err(msg) => return Lowered::Failed(msg),
        };
        if !lower::may_contain_spread(&pp_text) {
            return Lowered::Unchanged;
        }
        let cxx = input.lang == Lang::Cxx;
        let pp = PpOutput::parse(pp_text, cxx, &input.path);
        let src = SourceFile::new(text, cxx);
        let loc = Locator::new(&pp, &src);
        let opts = lower::Options {
            guard_device_macro: defines_macro(&self.inv.args, &src, "device"),
            no_target_data_warning: self.inv.spread.no_target_data_warning,
        };
        let result = lower::lower_with(&pp, &opts);
        if let Some(line) = src.first_line_directive() {
            let any = result.as_ref().map(|l| l.constructs > 0).unwrap_or(true);
            if any {
                let at = Loc {
                    file: input.path.clone(),
                    line,
                    col: 1,
                    source_line: Some(src.line_text(line)),
                };
                return Lowered::Errors(vec![Diagnostic::error(
                    Some(at),
                    "spread constructs cannot be lowered in a file that has #line directives",
                )]);
            }
        }
        let lowering = match result {
            Ok(l) => l,
            Err(errs) => {
                return Lowered::Errors(
                    errs.into_iter()
                        .map(|e| Diagnostic::error(Some(loc.locate(e.off)), e.msg))
                        .collect(),
                )
            }
        };
        if !lowering.warnings.is_empty() {
            let w: Vec<Diagnostic> = lowering
                .warnings
                .iter()
                .map(|e| Diagnostic::warning(Some(loc.locate(e.off)), e.msg.clone()))
                .collect();
            diag::emit(&w);
        }
        if lowering.constructs == 0 {
            return Lowered::Unchanged;
        }
        let file = pp.file_name(pp.main_file).to_string();
        match splice::splice(&src, &pp, &lowering.edits, &self.header_line()) {
            Ok(t) => Lowered::Text(
                t,
                bytewise,
                remap::Lowered {
                    name: file,
                    text: src.text.clone(),
                    cxx,
                },
            ),
            Err(e) => Lowered::Errors(vec![Diagnostic::error(Some(Loc { file, ..e.loc }), e.msg)]),
        }
    }

    /// Path of the dependency file clang writes for `input` under -MD/-MMD.
    fn dep_file_of(&self, input: &Input) -> PathBuf {
        if let Some(f) = &self.inv.dep_output {
            return PathBuf::from(f);
        }
        if let Some(o) = &self.inv.output {
            return Path::new(o).with_extension("d");
        }
        let stem = Path::new(&input.path)
            .file_stem()
            .map(|s| s.to_os_string())
            .unwrap_or_default();
        PathBuf::from(stem).with_extension("d")
    }

    /// Runs the whole command: the answers that need no compilation, then the phases of a
    /// compilation (the offload plan, lowering each input, clang's command line, clang, the
    /// dependency files).
    fn run(&self) -> i32 {
        let inv = self.inv;
        if let Some(status) = self.answer_without_compiling() {
            return status;
        }
        if inv.inputs.is_empty() && !inv.spread.print_lowered {
            return self.exec(inv.args.clone(), &[]);
        }
        // the offload targets, checked before any work (a missing CUDA toolkit, a bad arch)
        let offload = if inv.spread.print_lowered {
            offload::Plan::default()
        } else {
            match self.offload_plan() {
                Ok(p) => p,
                Err(e) => return self.error(&e),
            }
        };
        // the temporary directory lives until clang has run and the dependency files are fixed
        let lowered = match self.lower_inputs() {
            Ok(l) => l,
            Err(status) => return status,
        };
        let (replaced, sources) = (&lowered.replaced, &lowered.sources);
        if inv.spread.print_lowered {
            return 0;
        }
        let args = match self.clang_args(&offload, replaced) {
            Ok(a) => a,
            Err(status) => return status,
        };
        let status = if sources.is_empty() {
            self.exec(args, &offload.env)
        } else {
            self.exec_remapped(args, &offload.env, sources)
        };
        if status == 0 && inv.dep_file {
            self.fix_dep_files(replaced);
        }
        status
    }

    /// `--help`, `--version`, option conflicts and `--spread-print-cuda-path`: answered before
    /// anything is compiled. The exit status when the command ends here; `None` to go on
    /// (`--version` prints Spread's line, then clang's follows).
    fn answer_without_compiling(&self) -> Option<i32> {
        let inv = self.inv;
        if inv.spread.help {
            print!(
                "{}",
                args::help_text(
                    &self.prog,
                    &self
                        .clang
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default()
                )
            );
            return Some(0);
        }
        if inv.version {
            println!("{} (Spread {})", self.prog, env!("CARGO_PKG_VERSION"));
        }
        if inv.spread.targets.is_some() && inv.openmp_targets.is_some() {
            return Some(self.error("use either --spread-targets or -fopenmp-targets, not both"));
        }
        if inv.spread.print_cuda_path {
            let exists = |p: &Path| p.exists();
            return Some(
                match offload::find_cuda(&offload::process_env_var, &exists) {
                    Ok(p) => {
                        println!("{}", p.display());
                        0
                    }
                    Err(e) => self.error(&e),
                },
            );
        }
        None
    }

    /// The offload targets' options and environment, from the command line and the machine
    /// (or why they cannot be used).
    fn offload_plan(&self) -> Result<offload::Plan, String> {
        let inv = self.inv;
        let exists = |p: &Path| p.exists();
        let req = offload::Request {
            targets: inv
                .spread
                .targets
                .clone()
                .or_else(|| inv.openmp_targets.clone()),
            archs: inv.offload_archs.clone(),
            cuda_path_given: inv.has_cuda_path,
            device_arch_given: inv.device_arch_given,
            dry_run: inv.dry_run,
        };
        let env = offload::Env {
            var: &offload::process_env_var,
            exists: &exists,
            device_runtime_dir: offload::device_runtime_dir(&self.clang),
        };
        offload::plan(&req, &env)
    }

    /// Lowers every C/C++ input: printed under `--spread-print-lowered`, else written into a
    /// temporary directory. Spread's errors of all inputs are reported together, so one run
    /// shows every construct to fix. The exit status to stop with when the command ends
    /// here.
    fn lower_inputs(&self) -> Result<LoweredInputs, i32> {
        let inv = self.inv;
        let keep = inv.spread.keep_temps;
        let tmp = if inv.spread.print_lowered || inv.deps_only {
            None
        } else {
            match TempDir::new(keep) {
                Ok(t) => Some(t),
                Err(e) => {
                    return Err(self.error(&format!("cannot create a temporary directory: {e}")))
                }
            }
        };
        let mut diags = Vec::new();
        let mut replaced: Vec<(usize, PathBuf)> = Vec::new();
        let mut sources: Vec<remap::Lowered> = Vec::new();
        for (k, input) in inv.inputs.iter().enumerate() {
            if input.lang == Lang::Other || inv.deps_only {
                continue;
            }
            match self.lower_on_large_stack(input)? {
                Lowered::Unchanged => {
                    if inv.spread.print_lowered {
                        match fs::read(&input.path) {
                            Ok(b) => print_bytes(&b),
                            Err(e) => diags.push(Diagnostic::error(
                                None,
                                format!("cannot read '{}': {e}", input.path),
                            )),
                        }
                    }
                }
                Lowered::Errors(d) => diags.extend(d),
                Lowered::Failed(msg) => return Err(self.error(&msg)),
                Lowered::Text(t, bytewise, source) => {
                    let bytes = encode(&t, bytewise);
                    if inv.spread.print_lowered {
                        print_bytes(&bytes);
                        continue;
                    }
                    let Some(tmp) = &tmp else { continue };
                    replaced.push((k, self.write_lowered(tmp, k, input, &bytes)?));
                    sources.push(source);
                }
            }
        }
        if !diags.is_empty() {
            diag::emit(&diags);
            return Err(1);
        }
        if inv.spread.print_lowered {
            return Ok(LoweredInputs {
                _tmp: tmp,
                replaced,
                sources,
            });
        }
        if !replaced.is_empty() && !self.layout.header().is_file() {
            return Err(self.error(&format!(
                "cannot find spread.h in '{}' (set SPREAD_INCLUDE_DIR)",
                self.layout.include_dir.display()
            )));
        }
        if let Some(t) = &tmp {
            if keep && !replaced.is_empty() {
                eprintln!("{}: lowered files kept in {}", self.prog, t.path.display());
            } else if keep {
                // Nothing was written into it: keeping it would leave an empty directory that
                // no message points to.
                let _ = fs::remove_dir(&t.path);
                eprintln!(
                    "{}: no input needed lowering (no Spread construct): nothing to keep",
                    self.prog
                );
            }
        }
        Ok(LoweredInputs {
            _tmp: tmp,
            replaced,
            sources,
        })
    }

    /// [`Driver::lower_input`] on a thread with a large stack, since deeply nested code
    /// recurses deeply (on this thread when no thread can be made); the exit status when the
    /// lowering panicked.
    fn lower_on_large_stack(&self, input: &Input) -> Result<Lowered, i32> {
        let lowered = std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(LOWERING_STACK)
                .spawn_scoped(s, || self.lower_input(input))
                .map(|h| h.join())
        });
        match lowered {
            Ok(Ok(l)) => Ok(l),
            Ok(Err(_)) => Err(self.error("internal error while lowering (please report)")),
            // no thread: lower on this one
            Err(_) => Ok(self.lower_input(input)),
        }
    }

    /// Writes the lowered `bytes` of input `k` under the temporary directory, in a directory
    /// of its own so that inputs of the same name do not collide and the file keeps the
    /// user's name (clang's messages and `__FILE__` show it); its path, or the exit status.
    fn write_lowered(
        &self,
        tmp: &TempDir,
        k: usize,
        input: &Input,
        bytes: &[u8],
    ) -> Result<PathBuf, i32> {
        let dir = tmp.path.join(k.to_string());
        let name = Path::new(&input.path)
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_else(|| "input.c".into());
        let file = dir.join(name);
        if let Err(e) = fs::create_dir_all(&dir).and_then(|_| fs::write(&file, bytes)) {
            return Err(self.error(&format!("cannot write '{}': {e}", file.display())));
        }
        Ok(file)
    }

    /// clang's command line: the user's arguments with the lowered files in place of their
    /// inputs and the offload plan's options in place of the user's, plus Spread's header,
    /// runtime and pass plugin; or the exit status when one of them is missing.
    fn clang_args(
        &self,
        offload: &offload::Plan,
        replaced: &[(usize, PathBuf)],
    ) -> Result<Vec<String>, i32> {
        let inv = self.inv;
        let mut args = self.source_dir_args(replaced);
        let links = inv.links();
        if links {
            let lib = &self.layout.lib_dir;
            if !lib.join(RUNTIME_SONAME).exists() {
                return Err(self.error(&format!(
                    "Spread's runtime {RUNTIME_SONAME} is not in '{}' (build it with scripts/build.sh, or set SPREAD_LIB_DIR)",
                    lib.display()
                )));
            }
            args.push(format!("-L{}", lib.display()));
            args.push(format!("-Wl,-rpath,{}", lib.display()));
        }
        let mut user = inv.args.clone();
        for (k, file) in replaced {
            user[inv.inputs[*k].index] = file.to_string_lossy().into_owned();
        }
        // the offload options are replaced by the plan's, where the first of them was
        if let Some(t) = &offload.xtarget_triple {
            for &i in &inv.bare_xtarget_indices {
                user[i] = format!("-Xopenmp-target={t}");
            }
        }
        let at = inv.offload_arg_indices.first().copied();
        for (i, a) in user.into_iter().enumerate() {
            if Some(i) == at {
                args.extend(offload.args.iter().cloned());
            }
            if !inv.offload_arg_indices.contains(&i) {
                args.push(a);
            }
        }
        if links {
            // Spread's runtime before the libraries clang appends (-lomp first): it comes
            // before libomp in DT_NEEDED, so its allocator entry points win symbol lookup
            let libomp = openmp_runtime_is_libomp(&inv.args);
            args.extend(runtime_link_args(&self.layout.lib_dir, libomp));
        }
        if !inv.has_fopenmp {
            args.push("-fopenmp".into());
        }
        if at.is_none() {
            args.extend(offload.args.iter().cloned());
        }
        if inv.generates_code() && !inv.spread.no_pass {
            let plugin = &self.layout.plugin;
            if !plugin.is_file() {
                return Err(self.error(&format!(
                    "Spread's pass plugin '{}' does not exist (build the workspace, set SPREAD_PASS_PLUGIN, or use --spread-no-pass)",
                    plugin.display()
                )));
            }
            args.push(format!("-fpass-plugin={}", plugin.display()));
        }
        if inv.generates_code() && !inv.chooses_debug_info() {
            // Line tables only: no change to the code, and every runtime message (a failed
            // mapping, a chunk's error, a fault in a kernel) names the construct's line and the
            // variable, which clang records only with debug information.
            args.push("-gline-tables-only".into());
        }
        Ok(args)
    }

    /// The options that make the lowered files, which live in the temporary directory,
    /// behave as if they were in the user's directories: `#include "..."` searches there,
    /// debug information names them, and Spread's header is found for a program's own
    /// `#include <spread.h>`.
    fn source_dir_args(&self, replaced: &[(usize, PathBuf)]) -> Vec<String> {
        let inv = self.inv;
        let mut args: Vec<String> = Vec::new();
        let mut quote_dirs: Vec<String> = Vec::new();
        for (k, _) in replaced {
            let dir = source_dir(&inv.inputs[*k].path);
            if !quote_dirs.contains(&dir) {
                quote_dirs.push(dir);
            }
        }
        for d in &quote_dirs {
            args.push("-iquote".into());
            args.push(d.clone());
        }
        if inv.generates_code() {
            // debug information names the user's directory, not the temporary one
            for (k, file) in replaced {
                if let Some(tdir) = file.parent() {
                    let dir = source_dir(&inv.inputs[*k].path);
                    args.push(format!("-fdebug-prefix-map={}={dir}", tdir.display()));
                }
            }
        }
        // A program's own `#include <spread.h>` (for the memory API) finds Spread's header; the
        // user's -I directories are searched first.
        if self.layout.header().is_file() {
            args.push("-idirafter".into());
            args.push(self.layout.include_dir.to_string_lossy().into_owned());
        }
        args
    }

    /// Points the dependency files clang wrote (-MD/-MMD) at the user's sources instead of the
    /// lowered temporary files, which are gone once the command ends.
    fn fix_dep_files(&self, replaced: &[(usize, PathBuf)]) {
        for (k, file) in replaced {
            let input = &self.inv.inputs[*k];
            let dep = self.dep_file_of(input);
            if let Ok(t) = fs::read_to_string(&dep) {
                let fixed = t.replace(&*file.to_string_lossy(), &make_escape(&input.path));
                let _ = fs::write(&dep, fixed);
            }
        }
    }

    fn exec(&self, args: Vec<String>, env: &[(String, std::ffi::OsString)]) -> i32 {
        let mut cmd = Command::new(&self.clang);
        cmd.args(&args).envs(env.iter().map(|(k, v)| (k, v)));
        self.verbose(&cmd);
        match cmd.status() {
            // clang explains its own failures; a signal or a program that is not clang does not
            Ok(s) => self.status_code(&s),
            Err(e) => self.error(&format!("cannot run '{}': {e}", self.clang.display())),
        }
    }

    /// Runs clang with its stderr read back: diagnostics on the lines the lowering rewrote are
    /// pointed back at the user's code ([`remap`]) before they are printed. Colors stay on
    /// for a terminal unless the command chooses.
    fn exec_remapped(
        &self,
        mut args: Vec<String>,
        env: &[(String, std::ffi::OsString)],
        sources: &[remap::Lowered],
    ) -> i32 {
        use std::io::{IsTerminal, Read, Write};
        let chooses_color = args.iter().any(|a| {
            a.starts_with("-fcolor-diagnostics")
                || a.starts_with("-fno-color-diagnostics")
                || a.starts_with("-fdiagnostics-color")
                || a.starts_with("-fno-diagnostics-color")
        });
        if !chooses_color && std::io::stderr().is_terminal() {
            args.push("-fcolor-diagnostics".into());
        }
        let mut cmd = Command::new(&self.clang);
        cmd.args(&args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stderr(Stdio::piped());
        self.verbose(&cmd);
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => return self.error(&format!("cannot run '{}': {e}", self.clang.display())),
        };
        let mut err = Vec::new();
        if let Some(mut pipe) = child.stderr.take() {
            let _ = pipe.read_to_end(&mut err);
        }
        let status = child.wait();
        let (text, bytewise) = decode(err);
        let text = remap::remap(&text, sources);
        let mut stderr = std::io::stderr().lock();
        let _ = stderr.write_all(&encode(&text, bytewise));
        let _ = stderr.flush();
        drop(stderr);
        match status {
            Ok(s) => self.status_code(&s),
            Err(e) => self.error(&format!("cannot run '{}': {e}", self.clang.display())),
        }
    }

    /// The exit status for clang's `s`, with a message where clang gives none.
    fn status_code(&self, s: &std::process::ExitStatus) -> i32 {
        if s.success() {
            return 0;
        }
        let code = match s.code() {
            Some(c) => c,
            None => {
                #[cfg(unix)]
                {
                    use std::os::unix::process::ExitStatusExt;
                    128 + s.signal().unwrap_or(0)
                }
                #[cfg(not(unix))]
                1
            }
        };
        if s.code().is_none() || !self.is_clang() {
            self.error(&format!(
                "'{}' {}",
                self.clang.display(),
                describe_status(s)
            ));
        }
        code
    }

    /// Whether the program run as clang answers `--version` like clang (asked only after a
    /// failure, to tell clang's own errors from a wrong `SPREAD_CLANG`).
    fn is_clang(&self) -> bool {
        Command::new(&self.clang)
            .arg("--version")
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .map(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("clang"))
            .unwrap_or(false)
    }
}

/// The directory of an input as clang's options name it (`.` for a bare file name).
fn source_dir(path: &str) -> String {
    Path::new(path)
        .parent()
        .map(|d| d.to_string_lossy().into_owned())
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| ".".to_string())
}

/// Whether the command line (`-Dname`, `-D name=...`) or the source file (`#define name`)
/// defines a macro `name`. (A definition in a header is not seen.)
fn defines_macro(args: &[String], src: &SourceFile, name: &str) -> bool {
    let is_def = |d: &str| {
        d == name || d.starts_with(&format!("{name}=")) || d.starts_with(&format!("{name}("))
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "-D" {
            if it.next().is_some_and(|d| is_def(d)) {
                return true;
            }
        } else if a.strip_prefix("-D").is_some_and(is_def) {
            return true;
        }
    }
    let l = &src.lexed;
    l.directives.iter().any(|d| {
        d.first_tok + 2 < d.end_tok
            && l.text(&src.text, d.first_tok + 1) == "define"
            && l.text(&src.text, d.first_tok + 2) == name
    })
}

/// How a child process ended, for messages: "exited with status 1", "was killed by signal 9".
fn describe_status(s: &std::process::ExitStatus) -> String {
    if let Some(c) = s.code() {
        return format!("exited with status {c}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = s.signal() {
            return format!("was killed by signal {sig}");
        }
    }
    "failed".to_string()
}

/// The arguments that link Spread's runtime (in `lib`), put after the user's arguments and so
/// before the libraries clang adds for `-fopenmp` (`-lomp -lomptarget ...`): the runtime then
/// precedes libomp in the program's DT_NEEDED list, and the allocator entry points it
/// interposes (`omp_alloc`, `omp_init_allocator`, `__kmpc_alloc`, ...) are the ones the program
/// binds to (docs/driver.md, "Linking"). With `libomp` (the OpenMP runtime is libomp, as
/// for every Spread program), libomp follows it in the same group: the runtime passes the calls
/// that are not about its own memory on to libomp, so libomp must be loaded even when the
/// program's references to it all bind to the runtime. `--no-as-needed` keeps both under a
/// user's `-Wl,--as-needed`. Without the link-time name `libomptarget.so` the runtime file itself
/// is named.
pub fn runtime_link_args(lib: &Path, libomp: bool) -> Vec<String> {
    let runtime = if lib.join("libomptarget.so").exists() {
        "-lomptarget".to_string()
    } else {
        lib.join(RUNTIME_SONAME).to_string_lossy().into_owned()
    };
    let mut v = vec!["-Wl,--push-state,--no-as-needed".to_string(), runtime];
    if libomp {
        v.push("-lomp".to_string());
    }
    v.push("-Wl,--pop-state".to_string());
    v
}

/// Whether clang's OpenMP runtime is libomp: no `-fopenmp=<lib>` naming another one (the last
/// such option counts, as for clang).
pub fn openmp_runtime_is_libomp(args: &[String]) -> bool {
    args.iter()
        .rev()
        .find_map(|a| a.strip_prefix("-fopenmp="))
        .map(|lib| lib == "libomp")
        .unwrap_or(true)
}

fn print_bytes(b: &[u8]) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(b);
    let _ = out.flush();
}

/// Escapes a path for a Makefile rule.
fn make_escape(p: &str) -> String {
    p.replace('$', "$$").replace(' ', "\\ ").replace('#', "\\#")
}

/// The flavor a program name asks for: `spread-c++` (or any name ending in `++`/`cxx`) is the
/// C++ driver even when it is a link to `spread-cc`.
pub fn flavor_of_name(argv0: &str, default: Flavor) -> Flavor {
    let name = Path::new(argv0)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.ends_with("++") || name.ends_with("cxx") {
        Flavor::Cxx
    } else {
        default
    }
}

/// Runs the driver on `argv` (program name first); returns the exit status.
pub fn main_with(flavor: Flavor, argv: Vec<String>) -> i32 {
    let flavor = flavor_of_name(argv.first().map(String::as_str).unwrap_or(""), flavor);
    let prog = match flavor {
        Flavor::C => "spread-cc",
        Flavor::Cxx => "spread-c++",
    }
    .to_string();
    let inv = match args::parse(argv.get(1..).unwrap_or(&[]), flavor) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("{prog}: error: {}", e.0);
            return 1;
        }
    };
    let d = Driver {
        prog,
        clang: paths::clang(flavor),
        inv: &inv,
        layout: Layout::current(),
    };
    d.run()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flavor_from_program_name() {
        assert_eq!(
            flavor_of_name("/usr/bin/spread-c++", Flavor::C),
            Flavor::Cxx
        );
        assert_eq!(flavor_of_name("spread-cxx", Flavor::C), Flavor::Cxx);
        assert_eq!(flavor_of_name("spread-cc", Flavor::C), Flavor::C);
        assert_eq!(flavor_of_name("spread-cc", Flavor::Cxx), Flavor::Cxx);
    }

    #[test]
    fn bytes_round_trip() {
        let b = vec![b'a', 0xe9, b'\n'];
        let (s, bw) = decode(b.clone());
        assert!(bw);
        assert_eq!(encode(&s, bw), b);
        let (s, bw) = decode("é".as_bytes().to_vec());
        assert!(!bw);
        assert_eq!(encode(&s, bw), "é".as_bytes());
    }

    #[test]
    fn runtime_before_clang_libraries() {
        let dir = std::env::temp_dir().join(format!("spread-cc-test-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let so = dir.join(RUNTIME_SONAME).to_string_lossy().into_owned();
        assert_eq!(
            runtime_link_args(&dir, true),
            [
                "-Wl,--push-state,--no-as-needed",
                so.as_str(),
                "-lomp",
                "-Wl,--pop-state"
            ]
        );
        fs::write(dir.join("libomptarget.so"), b"").unwrap();
        assert_eq!(
            runtime_link_args(&dir, false),
            [
                "-Wl,--push-state,--no-as-needed",
                "-lomptarget",
                "-Wl,--pop-state"
            ]
        );
        let _ = fs::remove_dir_all(&dir);
        let a = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(openmp_runtime_is_libomp(&a(&["-fopenmp", "x.c"])));
        assert!(openmp_runtime_is_libomp(&a(&[
            "-fopenmp=libgomp",
            "-fopenmp=libomp"
        ])));
        assert!(!openmp_runtime_is_libomp(&a(&["-fopenmp=libgomp"])));
    }

    #[test]
    fn preprocessing_args() {
        let a: Vec<String> = [
            "-c", "-o", "x.o", "-DX", "-I", "inc", "-MD", "-MF", "x.d", "a.c",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let kept: Vec<&str> = arg_groups(&a)
            .into_iter()
            .filter(|&(s, _)| !drop_for_preprocessing(&a[s]))
            .flat_map(|(s, n)| a[s..s + n].iter().map(|x| x.as_str()))
            .collect();
        assert_eq!(kept, ["-DX", "-I", "inc", "a.c"]);
        assert_eq!(make_escape("a b$"), "a\\ b$$");
    }
}
