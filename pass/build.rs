//! Builds the C++ side of the plugin against LLVM 19's headers: the registration shim
//! (`shim/shim.cpp`) and the device-job `spread-auto` pass (`shim/autospread.cpp`).
//!
//! `llvm-config` is looked up as `$LLVM_CONFIG`, then
//! `$LLVM_SYS_191_PREFIX/bin/llvm-config`, then `llvm-config-19` on `PATH`,
//! then `/usr/lib/llvm-19/bin/llvm-config`.

use std::env;
use std::path::PathBuf;
use std::process::Command;

/// The C++ sources, compiled into one static library.
const SOURCES: &[&str] = &["shim/shim.cpp", "shim/autospread.cpp"];
const HEADERS: &[&str] = &["shim/autospread.h"];

fn llvm_config_candidates() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(p) = env::var_os("LLVM_CONFIG") {
        out.push(PathBuf::from(p));
    }
    if let Some(p) = env::var_os("LLVM_SYS_191_PREFIX") {
        out.push(PathBuf::from(p).join("bin").join("llvm-config"));
    }
    out.push(PathBuf::from("llvm-config-19"));
    out.push(PathBuf::from("/usr/lib/llvm-19/bin/llvm-config"));
    out
}

fn cxxflags() -> Vec<String> {
    for cand in llvm_config_candidates() {
        let Ok(out) = Command::new(&cand).arg("--cxxflags").output() else {
            continue;
        };
        if !out.status.success() {
            continue;
        }
        let version = Command::new(&cand)
            .arg("--version")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default();
        if !version.starts_with("19.") {
            println!(
                "cargo:warning={} reports LLVM {version:?}, not 19; skipping it",
                cand.display()
            );
            continue;
        }
        return String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .map(str::to_string)
            .collect();
    }
    panic!(
        "spread-pass: cannot find LLVM 19's llvm-config (install llvm-19-dev, or set \
         LLVM_CONFIG / LLVM_SYS_191_PREFIX)"
    );
}

fn main() {
    for file in SOURCES.iter().chain(HEADERS) {
        println!("cargo:rerun-if-changed={file}");
    }
    println!("cargo:rerun-if-env-changed=LLVM_CONFIG");
    println!("cargo:rerun-if-env-changed=LLVM_SYS_191_PREFIX");

    let mut build = cc::Build::new();
    build.cpp(true).files(SOURCES).warnings(false);
    for flag in cxxflags() {
        // -std, -I, -D and code-generation flags all apply to the shim.
        build.flag(&flag);
    }
    build.flag_if_supported("-Wno-unused-parameter");
    build.compile("spread_pass_shim");
}
