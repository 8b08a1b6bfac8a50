//! Where Spread's pieces are, relative to the driver binary:
//!
//! | layout | binary | spread.h | runtime (libomptarget.so.19.1) | pass plugin |
//! | --- | --- | --- | --- | --- |
//! | build tree | `<repo>/target/<profile>/spread-cc` | `<repo>/runtime/include` | `<repo>/target/spread/lib` | `<repo>/target/<profile>/libspread_pass.so` |
//! | installed | `<prefix>/bin/spread-cc` | `<prefix>/include` | `<prefix>/lib` | `<prefix>/bin` or `<prefix>/lib` |
//!
//! `SPREAD_INCLUDE_DIR`, `SPREAD_LIB_DIR`, `SPREAD_PASS_PLUGIN` and `SPREAD_CLANG` override.

use std::env;
use std::path::{Path, PathBuf};

use crate::args::Flavor;

/// The runtime's file name, as programs look it up.
pub const RUNTIME_SONAME: &str = "libomptarget.so.19.1";
/// The pass plugin's file name.
pub const PLUGIN_NAME: &str = "libspread_pass.so";

/// Resolved locations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Directory of spread.h.
    pub include_dir: PathBuf,
    /// Directory of Spread's libomptarget.so.19.1.
    pub lib_dir: PathBuf,
    /// The pass plugin.
    pub plugin: PathBuf,
}

fn env_path(name: &str) -> Option<PathBuf> {
    env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

impl Layout {
    /// The layout around the binary in `exe_dir`, without environment overrides.
    pub fn around(exe_dir: &Path) -> Layout {
        let parent = exe_dir.parent().unwrap_or(exe_dir);
        let in_build_tree = parent.file_name().map(|n| n == "target").unwrap_or(false)
            || parent
                .parent()
                .and_then(|p| p.file_name())
                .map(|n| n == "target")
                .unwrap_or(false)
                && !parent.join("include").exists();
        if in_build_tree {
            // <repo>/target/<profile> (or <repo>/target/<triple>/<profile>)
            let target = if parent.file_name().map(|n| n == "target").unwrap_or(false) {
                parent
            } else {
                parent.parent().unwrap_or(parent)
            };
            let repo = target.parent().unwrap_or(target);
            Layout {
                include_dir: repo.join("runtime").join("include"),
                lib_dir: target.join("spread").join("lib"),
                plugin: exe_dir.join(PLUGIN_NAME),
            }
        } else {
            let prefix = parent;
            let plugin = if exe_dir.join(PLUGIN_NAME).exists() {
                exe_dir.join(PLUGIN_NAME)
            } else {
                prefix.join("lib").join(PLUGIN_NAME)
            };
            Layout {
                include_dir: prefix.join("include"),
                lib_dir: prefix.join("lib"),
                plugin,
            }
        }
    }

    /// The layout of the running driver, with environment overrides applied.
    pub fn current() -> Layout {
        let exe = env::current_exe()
            .and_then(|p| p.canonicalize())
            .unwrap_or_else(|_| PathBuf::from("."));
        let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut l = Layout::around(&dir);
        if let Some(p) = env_path("SPREAD_INCLUDE_DIR") {
            l.include_dir = p;
        }
        if let Some(p) = env_path("SPREAD_LIB_DIR") {
            l.lib_dir = p;
        }
        if let Some(p) = env_path("SPREAD_PASS_PLUGIN") {
            l.plugin = p;
        }
        l
    }

    /// Path of spread.h.
    pub fn header(&self) -> PathBuf {
        self.include_dir.join("spread.h")
    }
}

fn in_path(name: &str) -> Option<PathBuf> {
    let path = env::var_os("PATH")?;
    env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The clang to run: `SPREAD_CLANG`, else clang-19 / clang++-19 on PATH, else LLVM 19's.
pub fn clang(flavor: Flavor) -> PathBuf {
    if let Some(p) = env_path("SPREAD_CLANG") {
        return p;
    }
    let (name, plain) = match flavor {
        Flavor::C => ("clang-19", "clang"),
        Flavor::Cxx => ("clang++-19", "clang++"),
    };
    if let Some(p) = in_path(name) {
        return p;
    }
    let llvm = Path::new("/usr/lib/llvm-19/bin").join(plain);
    if llvm.is_file() {
        return llvm;
    }
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_tree_and_prefix() {
        let l = Layout::around(Path::new("/r/target/release"));
        assert_eq!(l.include_dir, Path::new("/r/runtime/include"));
        assert_eq!(l.lib_dir, Path::new("/r/target/spread/lib"));
        assert_eq!(l.plugin, Path::new("/r/target/release/libspread_pass.so"));
        let l = Layout::around(Path::new("/opt/spread/bin"));
        assert_eq!(l.include_dir, Path::new("/opt/spread/include"));
        assert_eq!(l.lib_dir, Path::new("/opt/spread/lib"));
        assert_eq!(l.plugin, Path::new("/opt/spread/lib/libspread_pass.so"));
    }
}
