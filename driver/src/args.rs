//! The command line: Spread's own `--spread-*` options are taken out, everything else is
//! clang's and passes through untouched; inputs and the compilation mode are recognized.

use std::path::Path;

/// Which compiler the driver wraps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// `spread-cc`: clang-19.
    C,
    /// `spread-c++`: clang++-19.
    Cxx,
}

/// Language of an input, as far as the driver cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// C source.
    C,
    /// C++ source.
    Cxx,
    /// Anything else (objects, libraries, assembly, preprocessed files): passed through.
    Other,
}

/// An input file on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// Index in [`Invocation::args`].
    pub index: usize,
    /// The path as written.
    pub path: String,
    /// Its language.
    pub lang: Lang,
}

/// Spread's own options.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpreadOptions {
    /// `--spread-print-lowered`.
    pub print_lowered: bool,
    /// `--spread-no-pass`.
    pub no_pass: bool,
    /// `--spread-targets=T1,T2`.
    pub targets: Option<String>,
    /// `--spread-keep-temps`.
    pub keep_temps: bool,
    /// `--spread-verbose`.
    pub verbose: bool,
    /// `--spread-print-cuda-path`.
    pub print_cuda_path: bool,
    /// `--help` / `-help` / `--spread-help`.
    pub help: bool,
    /// `-Wno-spread-target-data` (the last of it and `-Wspread-target-data` wins): no warning
    /// for a `target spread` that uses data a one-device `target data` around it maps.
    pub no_target_data_warning: bool,
}

/// A parsed command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Invocation {
    /// Spread's options.
    pub spread: SpreadOptions,
    /// clang's arguments, in order (response files expanded, Spread's options removed).
    pub args: Vec<String>,
    /// Inputs, in order.
    pub inputs: Vec<Input>,
    /// `-c`.
    pub compile_only: bool,
    /// `-S`.
    pub assemble_only: bool,
    /// `-E`.
    pub preprocess_only: bool,
    /// `-fsyntax-only`.
    pub syntax_only: bool,
    /// `-M` / `-MM` without `-MD`/`-MMD`: dependencies only.
    pub deps_only: bool,
    /// `-MD` / `-MMD`.
    pub dep_file: bool,
    /// `-MF` value.
    pub dep_output: Option<String>,
    /// `-o` value.
    pub output: Option<String>,
    /// `-fopenmp` (any form) is present.
    pub has_fopenmp: bool,
    /// `-fopenmp-targets=` / `--offload-arch=` is present.
    pub has_targets: bool,
    /// `--version`.
    pub version: bool,
    /// The value of the last `-fopenmp-targets=`.
    pub openmp_targets: Option<String>,
    /// The `--offload-arch` values, in order (lists split at commas).
    pub offload_archs: Vec<String>,
    /// Indices in [`Invocation::args`] of the offload options the driver replaces with its own
    /// (`-fopenmp-targets=`, `--offload-arch`, and `--offload-arch`'s separate value).
    pub offload_arg_indices: Vec<usize>,
    /// `--cuda-path=` is present.
    pub has_cuda_path: bool,
    /// `-Xopenmp-target[=<triple>]` passes `-march=` or `--offload-arch=` to a device compilation.
    pub device_arch_given: bool,
    /// Indices in [`Invocation::args`] of `-Xopenmp-target` written without a triple (clang
    /// applies those only when there is one offload target).
    pub bare_xtarget_indices: Vec<usize>,
    /// `-###`.
    pub dry_run: bool,
}

impl Invocation {
    /// Whether clang will link.
    pub fn links(&self) -> bool {
        !(self.compile_only
            || self.assemble_only
            || self.preprocess_only
            || self.syntax_only
            || self.deps_only)
    }

    /// Whether the command chooses its debug information (`-g`, `-g0`..`-g3`, `-ggdb`,
    /// `-gline-tables-only`, `-gdwarf-5`, ...): without a choice, spread-cc adds
    /// `-gline-tables-only`, so that the runtime's messages name source lines and mapped
    /// variables (clang records both only with debug information).
    pub fn chooses_debug_info(&self) -> bool {
        self.args
            .iter()
            .any(|a| a.starts_with("-g") && !a.starts_with("-gcc-toolchain"))
    }

    /// Whether clang will run the LLVM pipeline on some input (so the pass applies): C/C++
    /// sources, preprocessed sources (`.i`, `.ii`, e.g. from `spread-cc -E`) and LLVM IR.
    pub fn generates_code(&self) -> bool {
        !(self.preprocess_only || self.syntax_only || self.deps_only)
            && self.inputs.iter().any(|i| {
                let ext = Path::new(&i.path).extension().and_then(|e| e.to_str());
                i.lang != Lang::Other || matches!(ext, Some("i" | "ii" | "bc" | "ll"))
            })
    }
}

/// clang options whose value is the next argument when written alone.
const SEPARATE: &[&str] = &[
    "-o",
    "-x",
    "-I",
    "-D",
    "-U",
    "-include",
    "-imacros",
    "-isystem",
    "-idirafter",
    "-iquote",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-isysroot",
    "-imultilib",
    "-include-pch",
    "-isystem-after",
    "-cxx-isystem",
    "-ivfsoverlay",
    "-MF",
    "-MT",
    "-MQ",
    "-MJ",
    "-L",
    "-l",
    "-Xclang",
    "-Xlinker",
    "-Xassembler",
    "-Xpreprocessor",
    "-Xopenmp-target",
    "-Xoffload-linker",
    "-Xanalyzer",
    "-Xcuda-fatbinary",
    "-Xcuda-ptxas",
    "-Xarch_host",
    "-Xarch_device",
    "-target",
    "-arch",
    "-mllvm",
    "-u",
    "-z",
    "-T",
    "-e",
    "--param",
    "-serialize-diagnostics",
    "-dependency-file",
    "-dependency-dot",
    "-rpath",
    "-F",
    "-B",
    "--sysroot",
    "--config",
    "-working-directory",
    "-aux-triple",
    "-main-file-name",
    "-module-dependency-dir",
    "-G",
    "--offload-arch",
    "-fmodule-file",
    "-dumpdir",
    "-dumpbase",
    "-ftime-trace-granularity",
];

/// Whether clang option `a` takes the next argument as its value (`-Xopenmp-target=<triple>`
/// as well: its value is the option for that target).
pub fn takes_separate_value(a: &str) -> bool {
    SEPARATE.contains(&a) || a.starts_with("-Xopenmp-target=")
}

/// Language of `path` from its extension (`-x none` behaviour).
pub fn lang_of_path(path: &str, flavor: Flavor) -> Lang {
    let ext = Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    match ext {
        "c" if flavor == Flavor::Cxx => Lang::Cxx,
        "c" => Lang::C,
        "cc" | "cp" | "cpp" | "CPP" | "cxx" | "c++" | "C" => Lang::Cxx,
        _ => Lang::Other,
    }
}

fn lang_of_x(x: &str) -> Option<Lang> {
    match x {
        "none" => None,
        "c" => Some(Lang::C),
        "c++" => Some(Lang::Cxx),
        _ => Some(Lang::Other),
    }
}

/// Splits a response file the way clang does on Linux (GNU rules: whitespace separates,
/// quotes group, backslash escapes).
pub fn split_response_file(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_arg = false;
    let mut quote: Option<char> = None;
    let mut it = text.chars();
    while let Some(c) = it.next() {
        match (quote, c) {
            (_, '\\') => {
                if let Some(n) = it.next() {
                    cur.push(n);
                }
                in_arg = true;
            }
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"') | (None, '\'') => {
                quote = Some(c);
                in_arg = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_arg {
                    out.push(std::mem::take(&mut cur));
                    in_arg = false;
                }
            }
            (None, c) => {
                cur.push(c);
                in_arg = true;
            }
        }
    }
    if in_arg {
        out.push(cur);
    }
    out
}

fn expand_response_files(args: &[String], depth: u32, out: &mut Vec<String>) {
    for a in args {
        if let Some(file) = a.strip_prefix('@') {
            if depth < 16 {
                if let Ok(text) = std::fs::read_to_string(file) {
                    expand_response_files(&split_response_file(&text), depth + 1, out);
                    continue;
                }
            }
        }
        out.push(a.clone());
    }
}

/// An error in Spread's own options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgError(pub String);

/// Parses the arguments after the program name.
pub fn parse(raw: &[String], flavor: Flavor) -> Result<Invocation, ArgError> {
    let mut expanded = Vec::with_capacity(raw.len());
    expand_response_files(raw, 0, &mut expanded);
    let mut inv = Invocation::default();
    let mut x_lang: Option<Lang> = None;
    let mut i = 0;
    while i < expanded.len() {
        let a = expanded[i].as_str();
        // Spread's options
        if let Some(rest) = a.strip_prefix("--spread-") {
            match rest {
                "print-lowered" => inv.spread.print_lowered = true,
                "no-pass" => inv.spread.no_pass = true,
                "keep-temps" => inv.spread.keep_temps = true,
                "verbose" => inv.spread.verbose = true,
                "help" => inv.spread.help = true,
                "print-cuda-path" => inv.spread.print_cuda_path = true,
                "targets" => {
                    i += 1;
                    match expanded.get(i) {
                        Some(v) => inv.spread.targets = Some(v.clone()),
                        None => {
                            return Err(ArgError("missing value after '--spread-targets'".into()))
                        }
                    }
                }
                _ => match rest.strip_prefix("targets=") {
                    Some(v) if !v.is_empty() => inv.spread.targets = Some(v.to_string()),
                    Some(_) => {
                        return Err(ArgError("'--spread-targets=' needs a target triple".into()))
                    }
                    None => {
                        return Err(ArgError(format!(
                            "unknown Spread option '{a}' (see --help)"
                        )))
                    }
                },
            }
            i += 1;
            continue;
        }
        // the driver's own warning, which clang does not know
        if let Some(on) = match a.strip_suffix(crate::target_data::WARNING_FLAG) {
            Some("-W") => Some(true),
            Some("-Wno-") => Some(false),
            _ => None,
        } {
            inv.spread.no_target_data_warning = !on;
            i += 1;
            continue;
        }
        if a == "--help" || a == "-help" {
            inv.spread.help = true;
            i += 1;
            continue;
        }
        let idx = inv.args.len();
        inv.args.push(a.to_string());
        if takes_separate_value(a) {
            let v = expanded.get(i + 1).cloned();
            if let Some(v) = &v {
                inv.args.push(v.clone());
            }
            match a {
                "-o" => inv.output = v,
                "-MF" => inv.dep_output = v,
                "-x" => x_lang = v.as_deref().and_then(lang_of_x),
                "--offload-arch" => {
                    inv.has_targets = true;
                    inv.offload_arg_indices.extend([idx, idx + 1]);
                    if let Some(v) = &v {
                        add_archs(&mut inv.offload_archs, v);
                    }
                }
                _ if a.starts_with("-Xopenmp-target") => {
                    if a == "-Xopenmp-target" {
                        inv.bare_xtarget_indices.push(idx);
                    }
                    if v.as_deref().is_some_and(|v| {
                        v.starts_with("-march=") || v.starts_with("--offload-arch=")
                    }) {
                        inv.device_arch_given = true;
                    }
                }
                _ => {}
            }
            i += 2;
            continue;
        }
        i += 1;
        if a == "-" || !a.starts_with('-') || a.len() == 1 {
            let lang = if a == "-" {
                Lang::Other // stdin is passed through
            } else {
                x_lang.unwrap_or_else(|| lang_of_path(a, flavor))
            };
            inv.inputs.push(Input {
                index: idx,
                path: a.to_string(),
                lang,
            });
            continue;
        }
        match a {
            "-c" => inv.compile_only = true,
            "-S" => inv.assemble_only = true,
            "-E" => inv.preprocess_only = true,
            "-fsyntax-only" => inv.syntax_only = true,
            "-M" | "-MM" => inv.deps_only = true,
            "-MD" | "-MMD" => inv.dep_file = true,
            "--version" => inv.version = true,
            "-fopenmp" => inv.has_fopenmp = true,
            "-###" => inv.dry_run = true,
            _ => {
                if let Some(v) = a.strip_prefix("-o") {
                    inv.output = Some(v.to_string());
                } else if let Some(v) = a.strip_prefix("-MF") {
                    inv.dep_output = Some(v.to_string());
                } else if let Some(v) = a.strip_prefix("-x") {
                    x_lang = lang_of_x(v);
                } else if a.starts_with("-fopenmp=") {
                    inv.has_fopenmp = true;
                } else if let Some(t) = a.strip_prefix("-fopenmp-targets=") {
                    inv.has_targets = true;
                    inv.openmp_targets = Some(t.to_string());
                    inv.offload_arg_indices.push(idx);
                } else if let Some(v) = a.strip_prefix("--offload-arch=") {
                    inv.has_targets = true;
                    inv.offload_arg_indices.push(idx);
                    add_archs(&mut inv.offload_archs, v);
                } else if a.starts_with("--cuda-path=") {
                    inv.has_cuda_path = true;
                }
            }
        }
    }
    if inv.dep_file {
        inv.deps_only = false;
    }
    Ok(inv)
}

/// Adds the architectures of an `--offload-arch` value (`sm_80,sm_90`), without repeats.
fn add_archs(archs: &mut Vec<String>, v: &str) {
    for a in v.split(',').map(str::trim).filter(|a| !a.is_empty()) {
        if !archs.iter().any(|x| x == a) {
            archs.push(a.to_string());
        }
    }
}

/// The help text for Spread's options.
pub fn help_text(prog: &str, clang: &str) -> String {
    format!(
        "OVERVIEW: {prog}: {clang} for OpenMP programs that use Spread's multi-device directives

USAGE: {prog} [clang options] [--spread-* options] file...

{prog} lowers the 'target spread' family of directives (target spread [teams distribute
parallel for ...], target data spread, target enter/exit data spread, target update spread)
and the device-to-device extensions (target update peer, wait device) into standard OpenMP
plus calls into Spread's runtime, then runs {clang} with -fopenmp, the offload target,
Spread's pass plugin and, when linking, Spread's runtime library (before libomp).

SPREAD OPTIONS:
  --spread-print-lowered   print the lowered source of each C/C++ input to stdout and stop
  --spread-no-pass         do not load Spread's pass plugin (each spread construct then runs
                           as one chunk on its first device)
  --spread-targets=<list>  offload targets (-fopenmp-targets); default x86_64-unknown-linux-gnu,
                           e.g. nvptx64-nvidia-cuda or x86_64-unknown-linux-gnu,nvptx64-nvidia-cuda
  --spread-print-cuda-path print the CUDA toolkit nvptx64 images are built with, and stop
  --spread-keep-temps      keep the lowered files (their directory is printed to stderr)
  --spread-verbose         print the commands run
  -Wno-spread-target-data  no warning for a 'target spread' that uses data a one-device
                           'target data' around it maps
  --help                   this text

NVIDIA GPUS (unvalidated: no GPU run yet):
  --offload-arch=sm_XX[,sm_YY]  build an nvptx64 image per architecture and the x86_64 image of
                           Spread's host devices, in one binary (also: nvptx64-nvidia-cuda in
                           -fopenmp-targets or --spread-targets); needs a CUDA toolkit:
                           SPREAD_CUDA_PATH, else scripts/setup.sh --cuda's (SPREAD_CUDA_HOME,
                           default ~/.cache/spread/cuda-{cuda}), else /usr/lib/cuda,
                           /usr/local/cuda

ENVIRONMENT:
  SPREAD_INCLUDE_DIR       directory holding spread.h
  SPREAD_LIB_DIR           directory holding Spread's libomptarget.so.19.1
  SPREAD_PASS_PLUGIN       path of libspread_pass.so
  SPREAD_CLANG             the compiler to run instead of {clang}
  SPREAD_CUDA_PATH         the CUDA toolkit for nvptx64 images (ptxas, nvlink, libdevice)
  SPREAD_CUDA_HOME         where scripts/setup.sh --cuda installed CUDA (uses its nvidia/cu13)

All other options are {clang}'s and are passed through unchanged (see {clang} --help).
",
        cuda = crate::offload::CUDA_VERSION
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Invocation {
        let v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        parse(&v, Flavor::C).unwrap()
    }

    #[test]
    fn debug_info_is_the_command_s_choice_when_it_makes_one() {
        assert!(!p(&["-O2", "-c", "a.c"]).chooses_debug_info());
        assert!(!p(&["--gcc-toolchain=/usr", "-c", "a.c"]).chooses_debug_info());
        for g in [
            "-g",
            "-g0",
            "-g3",
            "-ggdb",
            "-gline-tables-only",
            "-gdwarf-5",
        ] {
            assert!(p(&[g, "-c", "a.c"]).chooses_debug_info(), "{g}");
        }
    }

    #[test]
    fn inputs_and_modes() {
        let inv = p(&[
            "-O2",
            "-I",
            "inc",
            "-c",
            "a.c",
            "-o",
            "a.o",
            "-x",
            "c++",
            "b.c",
            "-xnone",
            "c.cpp",
            "d.o",
            "-DX=1",
            "--spread-no-pass",
        ]);
        assert!(inv.compile_only && !inv.links());
        assert!(inv.spread.no_pass);
        assert_eq!(inv.output.as_deref(), Some("a.o"));
        let ins: Vec<_> = inv
            .inputs
            .iter()
            .map(|i| (i.path.as_str(), i.lang, inv.args[i.index].as_str()))
            .collect();
        assert_eq!(
            ins,
            [
                ("a.c", Lang::C, "a.c"),
                ("b.c", Lang::Cxx, "b.c"),
                ("c.cpp", Lang::Cxx, "c.cpp"),
                ("d.o", Lang::Other, "d.o")
            ]
        );
        assert!(!inv.args.iter().any(|a| a.starts_with("--spread")));
        assert!(p(&["a.c"]).links());
        assert!(!p(&["-MM", "a.c"]).links());
        assert!(p(&["-MD", "-MF", "x.d", "-c", "a.c"]).dep_file);
    }

    #[test]
    fn spread_options() {
        let inv = p(&[
            "--spread-targets=nvptx64-nvidia-cuda",
            "--spread-print-lowered",
            "-fopenmp",
            "a.c",
        ]);
        assert_eq!(inv.spread.targets.as_deref(), Some("nvptx64-nvidia-cuda"));
        assert!(inv.spread.print_lowered && inv.has_fopenmp && !inv.has_targets);
        // the driver's warning flag is the driver's: clang would not know it
        let inv = p(&["-Wno-spread-target-data", "-Wall", "-c", "a.c"]);
        assert!(inv.spread.no_target_data_warning);
        assert_eq!(inv.args, ["-Wall", "-c", "a.c"]);
        let inv = p(&["-Wno-spread-target-data", "-Wspread-target-data", "a.c"]);
        assert!(!inv.spread.no_target_data_warning);
        assert_eq!(inv.args, ["a.c"]);
        let v = vec!["--spread-bogus".to_string()];
        assert!(parse(&v, Flavor::C).is_err());
        assert_eq!(lang_of_path("x.c", Flavor::Cxx), Lang::Cxx);
    }

    #[test]
    fn offload_options() {
        let inv = p(&[
            "-O2",
            "--offload-arch=sm_80,sm_90",
            "a.c",
            "--offload-arch",
            "sm_90",
            "-fopenmp-targets=nvptx64-nvidia-cuda",
            "-Xopenmp-target=nvptx64-nvidia-cuda",
            "-march=sm_90",
            "--cuda-path=/c",
            "-###",
        ]);
        assert_eq!(inv.offload_archs, ["sm_80", "sm_90"]);
        assert_eq!(inv.openmp_targets.as_deref(), Some("nvptx64-nvidia-cuda"));
        let replaced: Vec<&str> = inv
            .offload_arg_indices
            .iter()
            .map(|&i| inv.args[i].as_str())
            .collect();
        assert_eq!(
            replaced,
            [
                "--offload-arch=sm_80,sm_90",
                "--offload-arch",
                "sm_90",
                "-fopenmp-targets=nvptx64-nvidia-cuda"
            ]
        );
        assert!(inv.has_targets && inv.has_cuda_path && inv.device_arch_given && inv.dry_run);
        // -Xopenmp-target=<triple>'s value is an option, not an input
        assert_eq!(inv.inputs.len(), 1);
        let inv = p(&["-Xopenmp-target=nvptx64-nvidia-cuda", "x.c", "y.c"]);
        assert_eq!(inv.inputs.len(), 1);
        assert!(!inv.device_arch_given);
        let inv = p(&[
            "-Xopenmp-target",
            "-march=sm_90",
            "--spread-print-cuda-path",
        ]);
        assert!(inv.device_arch_given && inv.spread.print_cuda_path);
        assert_eq!(inv.bare_xtarget_indices, [0]);
        assert!(inv.offload_archs.is_empty() && !inv.has_targets);
    }

    #[test]
    fn response_files() {
        assert_eq!(
            split_response_file("a 'b c' \"d\\\"e\" f\\ g\n"),
            ["a", "b c", "d\"e", "f g"]
        );
    }
}
