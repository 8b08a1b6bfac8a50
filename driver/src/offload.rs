//! Offload targets: which images a program carries, and what clang needs to build NVIDIA
//! (nvptx64) ones.
//!
//! `--offload-arch=sm_XX` (or `nvptx64-nvidia-cuda` in `-fopenmp-targets`/`--spread-targets`)
//! makes the driver build an nvptx64 image for each architecture *and* the x86_64 image of
//! Spread's host devices, so one binary runs on GPUs and on host devices. clang then needs a
//! CUDA toolkit (`ptxas`, `nvlink`, libdevice), found by [`find_cuda`], and LLVM's OpenMP device
//! runtime `libomptarget-nvptx-sm_XX.bc`, which Debian keeps in `/usr/lib/llvm-19/lib`, outside
//! clang's search path: the driver puts that directory on `LIBRARY_PATH`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The triple of NVIDIA GPU images.
pub const NVPTX_TRIPLE: &str = "nvptx64-nvidia-cuda";
/// The triple of Spread's host-device images.
pub const HOST_TRIPLE: &str = "x86_64-unknown-linux-gnu";
/// The CUDA release `scripts/setup.sh --cuda` installs (its default directory names it).
pub const CUDA_VERSION: &str = "13.0.88";
/// LLVM 19's library directory on Debian, where the nvptx device runtime lives.
pub const LLVM_LIB_DIR: &str = "/usr/lib/llvm-19/lib";

/// What the command line asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request {
    /// The target list of `--spread-targets` or `-fopenmp-targets` (comma-separated).
    pub targets: Option<String>,
    /// The `--offload-arch` values, in order (lists split at commas).
    pub archs: Vec<String>,
    /// The user gave `--cuda-path` (then it is theirs to get right).
    pub cuda_path_given: bool,
    /// The user gave the device architecture through `-Xopenmp-target` (`-march=`,
    /// `--offload-arch=`).
    pub device_arch_given: bool,
    /// `-###`: clang only prints its commands, so a missing toolkit is not an error.
    pub dry_run: bool,
}

/// What the final clang command gets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Arguments that replace the user's offload options.
    pub args: Vec<String>,
    /// Environment for clang (`LIBRARY_PATH`).
    pub env: Vec<(String, OsString)>,
    /// Whether the program gets an nvptx64 image.
    pub nvptx: bool,
    /// The triple that `-Xopenmp-target` options written without one must name: the target
    /// they meant (the user's only one, else nvptx64), when the plan adds a target and clang
    /// would otherwise ignore them.
    pub xtarget_triple: Option<String>,
}

/// Whether `arch` names an NVIDIA GPU architecture (`sm_90`, `sm_90a`).
pub fn is_sm_arch(arch: &str) -> bool {
    let Some(rest) = arch.strip_prefix("sm_") else {
        return false;
    };
    let digits = rest.trim_end_matches(|c: char| c.is_ascii_lowercase());
    !digits.is_empty()
        && digits.len() + 1 >= rest.len()
        && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Where Spread's own CUDA toolkit goes (`scripts/setup.sh --cuda`), from the environment
/// `var`: `$SPREAD_CUDA_HOME`, else `${XDG_CACHE_HOME:-$HOME/.cache}/spread/cuda-<version>`;
/// the CUDA path is its `nvidia/cu13`.
pub fn default_cuda_path(var: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let home = match var("SPREAD_CUDA_HOME") {
        Some(h) => PathBuf::from(h),
        None => {
            let cache = match var("XDG_CACHE_HOME") {
                Some(c) => PathBuf::from(c),
                None => PathBuf::from(var("HOME")?).join(".cache"),
            };
            cache.join("spread").join(format!("cuda-{CUDA_VERSION}"))
        }
    };
    Some(home.join("nvidia").join("cu13"))
}

/// What `dir` lacks to be a CUDA path clang can use for OpenMP offloading, or `None`.
pub fn cuda_problem(dir: &Path, exists: &dyn Fn(&Path) -> bool) -> Option<String> {
    if !exists(dir) {
        return Some(format!("'{}' does not exist", dir.display()));
    }
    for f in ["bin/ptxas", "bin/nvlink", "nvvm/libdevice/libdevice.10.bc"] {
        if !exists(&dir.join(f)) {
            return Some(format!("'{}' has no {f}", dir.display()));
        }
    }
    None
}

/// The CUDA path for clang's `--cuda-path`: `SPREAD_CUDA_PATH` (which must be a toolkit), else
/// [`default_cuda_path`], else `/usr/lib/cuda` (Debian's nvidia-cuda-toolkit), else
/// `/usr/local/cuda`: the first with `ptxas`, `nvlink` and libdevice. The error says what was
/// looked at and what to do.
pub fn find_cuda(
    var: &dyn Fn(&str) -> Option<String>,
    exists: &dyn Fn(&Path) -> bool,
) -> Result<PathBuf, String> {
    const FIX: &str = "run scripts/setup.sh --cuda or set SPREAD_CUDA_PATH";
    if let Some(p) = var("SPREAD_CUDA_PATH") {
        let p = PathBuf::from(p);
        return match cuda_problem(&p, exists) {
            None => Ok(p),
            Some(why) => Err(format!(
                "SPREAD_CUDA_PATH is not a usable CUDA toolkit: {why} (nvptx64 images need CUDA's ptxas, nvlink and libdevice); {FIX}"
            )),
        };
    }
    let mut looked = Vec::new();
    let candidates = default_cuda_path(var)
        .into_iter()
        .chain(["/usr/lib/cuda", "/usr/local/cuda"].map(PathBuf::from));
    for c in candidates {
        match cuda_problem(&c, exists) {
            None => return Ok(c),
            Some(why) => looked.push(why),
        }
    }
    Err(format!(
        "nvptx64 images need CUDA's ptxas, nvlink and libdevice, and no CUDA toolkit was found ({}); {FIX}",
        looked.join("; ")
    ))
}

/// The directory of LLVM's nvptx device runtime (`libomptarget-nvptx-sm_XX.bc`) for `clang`:
/// `<clang's LLVM>/lib` when it has one, else [`LLVM_LIB_DIR`].
pub fn device_runtime_dir(clang: &Path) -> PathBuf {
    let resolved = clang
        .canonicalize()
        .ok()
        .or_else(|| {
            let path = std::env::var_os("PATH")?;
            std::env::split_paths(&path)
                .map(|d| d.join(clang))
                .find(|p| p.is_file())
                .and_then(|p| p.canonicalize().ok())
        })
        .and_then(|p| Some(p.parent()?.parent()?.join("lib")));
    if let Some(lib) = resolved {
        if let Ok(rd) = std::fs::read_dir(&lib) {
            let has = rd.filter_map(Result::ok).any(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("libomptarget-nvptx-")
            });
            if has {
                return lib;
            }
        }
    }
    PathBuf::from(LLVM_LIB_DIR)
}

/// The architectures whose device runtime `dir` holds, sorted (`sm_35`, ..., `sm_90`).
fn runtime_archs(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .filter_map(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    n.strip_prefix("libomptarget-nvptx-")?
                        .strip_suffix(".bc")
                        .map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort_by_key(|a| {
        let d: String = a.chars().filter(char::is_ascii_digit).collect();
        (d.parse::<u32>().unwrap_or(0), a.clone())
    });
    v
}

/// The environment and file system a plan is made in (tests substitute their own).
pub struct Env<'a> {
    /// An environment variable (`None` when unset or empty).
    pub var: &'a dyn Fn(&str) -> Option<String>,
    /// Whether a path exists.
    pub exists: &'a dyn Fn(&Path) -> bool,
    /// The directory of the nvptx device runtime.
    pub device_runtime_dir: PathBuf,
}

/// A variable of the process's environment (`None` when unset or empty), for [`Env::var`].
pub fn process_env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// Turns the request into clang arguments: the target list (with the host-device image added
/// to an nvptx64 one), the device architecture, `--cuda-path`, and `LIBRARY_PATH`.
pub fn plan(req: &Request, env: &Env) -> Result<Plan, String> {
    for a in &req.archs {
        if !is_sm_arch(a) {
            return Err(format!(
                "--offload-arch={a}: Spread builds NVIDIA GPU images only; give an architecture sm_XX (e.g. sm_90)"
            ));
        }
    }
    let mut targets: Vec<String> = req
        .targets
        .as_deref()
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect();
    let is_nvptx = |t: &String| t == NVPTX_TRIPLE || t == "nvptx64";
    let user_targets = targets.clone();
    if !req.archs.is_empty() && !targets.iter().any(is_nvptx) {
        targets.insert(0, NVPTX_TRIPLE.to_string());
    }
    if targets.is_empty() {
        targets.push(HOST_TRIPLE.to_string());
    }
    let nvptx = targets.iter().any(is_nvptx);
    if nvptx && !targets.iter().any(|t| t == HOST_TRIPLE || t == "x86_64") {
        // One binary for GPUs and host devices: the runtime picks per device.
        targets.push(HOST_TRIPLE.to_string());
    }
    let xtarget_triple = match user_targets.as_slice() {
        _ if targets.len() < 2 => None,
        [] => Some(NVPTX_TRIPLE.to_string()),
        [one] => Some(one.clone()),
        _ => None,
    };
    let mut p = Plan {
        args: vec![format!("-fopenmp-targets={}", targets.join(","))],
        env: Vec::new(),
        nvptx,
        xtarget_triple,
    };
    if !nvptx {
        return Ok(p);
    }
    match req.archs.len() {
        0 if !req.device_arch_given => {
            return Err(format!(
            "{NVPTX_TRIPLE} images need a GPU architecture: add --offload-arch=sm_XX (e.g. sm_90)"
        ))
        }
        0 => {}
        1 => p.args.extend([
            format!("-Xopenmp-target={NVPTX_TRIPLE}"),
            format!("-march={}", req.archs[0]),
        ]),
        _ => p.args.extend([
            format!("-Xopenmp-target={NVPTX_TRIPLE}"),
            format!("--offload-arch={}", req.archs.join(",")),
        ]),
    }
    if !req.cuda_path_given {
        match find_cuda(env.var, env.exists) {
            Ok(c) => p.args.push(format!("--cuda-path={}", c.display())),
            Err(e) if !req.dry_run => return Err(e),
            Err(_) => {}
        }
    }
    let dir = &env.device_runtime_dir;
    if !req.dry_run {
        for a in &req.archs {
            if !(env.exists)(&dir.join(format!("libomptarget-nvptx-{a}.bc"))) {
                let have = runtime_archs(dir);
                return Err(format!(
                    "LLVM has no OpenMP device runtime for {a} (no libomptarget-nvptx-{a}.bc in '{}'; it has {})",
                    dir.display(),
                    if have.is_empty() { "none".to_string() } else { have.join(", ") }
                ));
            }
        }
    }
    let mut lp = OsString::from(dir.as_os_str());
    if let Some(old) = (env.var)("LIBRARY_PATH") {
        lp.push(":");
        lp.push(old);
    }
    p.env.push(("LIBRARY_PATH".to_string(), lp));
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn vars(kv: &[(&str, &str)]) -> HashMap<String, String> {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    const CU: &str = "/h/.cache/spread/cuda-13.0.88/nvidia/cu13";

    fn toolkit(root: &str) -> Vec<String> {
        [
            "",
            "/bin/ptxas",
            "/bin/nvlink",
            "/nvvm/libdevice/libdevice.10.bc",
        ]
        .iter()
        .map(|f| format!("{root}{f}"))
        .collect()
    }

    fn run(req: &Request, v: &[(&str, &str)], files: &[String]) -> Result<Plan, String> {
        let v = vars(v);
        let var = |k: &str| v.get(k).cloned();
        let exists = |p: &Path| files.iter().any(|f| Path::new(f) == p);
        plan(
            req,
            &Env {
                var: &var,
                exists: &exists,
                device_runtime_dir: PathBuf::from("/llvm/lib"),
            },
        )
    }

    fn arch(a: &[&str]) -> Request {
        Request {
            archs: a.iter().map(|s| s.to_string()).collect(),
            ..Request::default()
        }
    }

    fn with_runtime(mut files: Vec<String>) -> Vec<String> {
        files.push("/llvm/lib/libomptarget-nvptx-sm_90.bc".into());
        files.push("/llvm/lib/libomptarget-nvptx-sm_80.bc".into());
        files
    }

    #[test]
    fn sm_archs() {
        assert!(is_sm_arch("sm_90") && is_sm_arch("sm_90a") && is_sm_arch("sm_100"));
        for bad in ["gfx90a", "sm_", "sm_x", "sm_9x0", "native", "sm_90ab"] {
            assert!(!is_sm_arch(bad), "{bad}");
        }
    }

    #[test]
    fn offload_arch_adds_both_images_arch_cuda_path_and_library_path() {
        let p = run(
            &arch(&["sm_90"]),
            &[("HOME", "/h")],
            &with_runtime(toolkit(CU)),
        )
        .unwrap();
        assert_eq!(
            p.args,
            [
                "-fopenmp-targets=nvptx64-nvidia-cuda,x86_64-unknown-linux-gnu".to_string(),
                "-Xopenmp-target=nvptx64-nvidia-cuda".into(),
                "-march=sm_90".into(),
                format!("--cuda-path={CU}"),
            ]
        );
        assert_eq!(p.env, [("LIBRARY_PATH".to_string(), "/llvm/lib".into())]);
        assert!(p.nvptx);
        assert_eq!(p.xtarget_triple.as_deref(), Some(NVPTX_TRIPLE));
        // the user's LIBRARY_PATH is kept, after LLVM's
        let p = run(
            &arch(&["sm_80", "sm_90"]),
            &[("HOME", "/h"), ("LIBRARY_PATH", "/u")],
            &with_runtime(toolkit(CU)),
        )
        .unwrap();
        assert_eq!(p.args[2], "--offload-arch=sm_80,sm_90");
        assert_eq!(p.env[0].1, "/llvm/lib:/u");
    }

    #[test]
    fn target_lists() {
        let files = with_runtime(toolkit(CU));
        let t = |targets: &str, archs: &[&str]| {
            let mut r = arch(archs);
            r.targets = Some(targets.to_string());
            run(&r, &[("HOME", "/h")], &files).map(|p| p.args[0].clone())
        };
        // the host image is added to an nvptx64 list, not doubled
        assert_eq!(
            t("nvptx64-nvidia-cuda", &["sm_90"]).unwrap(),
            "-fopenmp-targets=nvptx64-nvidia-cuda,x86_64-unknown-linux-gnu"
        );
        assert_eq!(
            t("x86_64-unknown-linux-gnu,nvptx64-nvidia-cuda", &["sm_90"]).unwrap(),
            "-fopenmp-targets=x86_64-unknown-linux-gnu,nvptx64-nvidia-cuda"
        );
        // an arch with a host-only list adds the GPU image
        assert_eq!(
            t("x86_64-unknown-linux-gnu", &["sm_90"]).unwrap(),
            "-fopenmp-targets=nvptx64-nvidia-cuda,x86_64-unknown-linux-gnu"
        );
        // host only: unchanged, no toolkit needed
        let p = run(
            &Request {
                targets: Some("x86_64-unknown-linux-gnu".into()),
                ..Request::default()
            },
            &[],
            &[],
        )
        .unwrap();
        assert_eq!(p.args, ["-fopenmp-targets=x86_64-unknown-linux-gnu"]);
        assert!(p.env.is_empty() && !p.nvptx);
        let p = run(&Request::default(), &[], &[]).unwrap();
        assert_eq!(p.args, ["-fopenmp-targets=x86_64-unknown-linux-gnu"]);
        // nvptx64 without an architecture
        let e = t("nvptx64-nvidia-cuda", &[]).unwrap_err();
        assert!(e.contains("--offload-arch=sm_XX"), "{e}");
        // ... unless given through -Xopenmp-target
        let r = Request {
            targets: Some("nvptx64-nvidia-cuda".into()),
            device_arch_given: true,
            ..Request::default()
        };
        let p = run(&r, &[("HOME", "/h")], &files).unwrap();
        assert_eq!(p.args.len(), 2);
        assert_eq!(p.args[1], format!("--cuda-path={CU}"));
        // -Xopenmp-target without a triple meant the user's only target
        assert_eq!(p.xtarget_triple.as_deref(), Some(NVPTX_TRIPLE));
        let mut r = arch(&["sm_90"]);
        r.targets = Some("x86_64-unknown-linux-gnu".into());
        let p = run(&r, &[("HOME", "/h")], &files).unwrap();
        assert_eq!(p.xtarget_triple.as_deref(), Some(HOST_TRIPLE));
        r.targets = Some("x86_64-unknown-linux-gnu,nvptx64-nvidia-cuda".into());
        let p = run(&r, &[("HOME", "/h")], &files).unwrap();
        assert_eq!(p.xtarget_triple, None);
    }

    #[test]
    fn bad_arch_and_missing_device_runtime() {
        let e = run(&arch(&["gfx90a"]), &[], &[]).unwrap_err();
        assert!(e.contains("NVIDIA GPU images only"), "{e}");
        let e = run(
            &arch(&["sm_100"]),
            &[("HOME", "/h")],
            &with_runtime(toolkit(CU)),
        )
        .unwrap_err();
        assert!(
            e.contains("no libomptarget-nvptx-sm_100.bc in '/llvm/lib'"),
            "{e}"
        );
    }

    #[test]
    fn toolkit_search_order() {
        let found = |v: &[(&str, &str)], files: &[String]| {
            let v = vars(v);
            let var = |k: &str| v.get(k).cloned();
            let exists = |p: &Path| files.iter().any(|f| Path::new(f) == p);
            find_cuda(&var, &exists)
        };
        let all: Vec<String> = [
            toolkit("/t"),
            toolkit(CU),
            toolkit("/x/nvidia/cu13"),
            toolkit("/c/spread/cuda-13.0.88/nvidia/cu13"),
            toolkit("/usr/lib/cuda"),
            toolkit("/usr/local/cuda"),
        ]
        .concat();
        // SPREAD_CUDA_PATH first, then SPREAD_CUDA_HOME, XDG_CACHE_HOME, HOME
        let env = [
            ("SPREAD_CUDA_PATH", "/t"),
            ("SPREAD_CUDA_HOME", "/x"),
            ("XDG_CACHE_HOME", "/c"),
            ("HOME", "/h"),
        ];
        assert_eq!(found(&env, &all).unwrap(), Path::new("/t"));
        assert_eq!(found(&env[1..], &all).unwrap(), Path::new("/x/nvidia/cu13"));
        assert_eq!(
            found(&env[2..], &all).unwrap(),
            Path::new("/c/spread/cuda-13.0.88/nvidia/cu13")
        );
        assert_eq!(found(&env[3..], &all).unwrap(), Path::new(CU));
        // then Debian's, then /usr/local/cuda
        assert_eq!(found(&[], &all).unwrap(), Path::new("/usr/lib/cuda"));
        assert_eq!(
            found(&[], &toolkit("/usr/local/cuda")).unwrap(),
            Path::new("/usr/local/cuda")
        );
        // a half toolkit is skipped
        let mut half = toolkit("/usr/lib/cuda");
        half.pop();
        half.extend(toolkit("/usr/local/cuda"));
        assert_eq!(found(&[], &half).unwrap(), Path::new("/usr/local/cuda"));
        // a wrong SPREAD_CUDA_PATH is an error, not a fallback
        let e = found(&[("SPREAD_CUDA_PATH", "/nope")], &all).unwrap_err();
        assert!(
            e.contains("SPREAD_CUDA_PATH") && e.contains("'/nope' does not exist"),
            "{e}"
        );
        assert!(
            e.contains("run scripts/setup.sh --cuda or set SPREAD_CUDA_PATH"),
            "{e}"
        );
        let e = found(&[("SPREAD_CUDA_PATH", "/t")], &toolkit("/t")[..2]).unwrap_err();
        assert!(e.contains("'/t' has no bin/nvlink"), "{e}");
        // nothing anywhere: every place named
        let e = found(&[("HOME", "/h")], &[]).unwrap_err();
        for place in [CU, "/usr/lib/cuda", "/usr/local/cuda", "setup.sh --cuda"] {
            assert!(e.contains(place), "{place} in {e}");
        }
    }

    #[test]
    fn dry_run_needs_no_toolkit() {
        let mut r = arch(&["sm_90"]);
        assert!(run(&r, &[("HOME", "/h")], &[]).is_err());
        r.dry_run = true;
        let p = run(&r, &[("HOME", "/h")], &[]).unwrap();
        assert!(!p.args.iter().any(|a| a.starts_with("--cuda-path")));
        // the user's --cuda-path is theirs
        let r = Request {
            cuda_path_given: true,
            ..arch(&["sm_90"])
        };
        let p = run(&r, &[], &with_runtime(Vec::new())).unwrap();
        assert!(!p.args.iter().any(|a| a.starts_with("--cuda-path")));
    }
}
