//! Puts a `spread-c++` symbolic link next to the `spread-cxx` binary (a crate cannot be named
//! `spread-c++`), so that the build tree has both driver names.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        return;
    };
    // OUT_DIR is <target>/<profile>/build/<package>-<hash>/out
    let Some(profile_dir) = out.ancestors().nth(3) else {
        return;
    };
    let link = profile_dir.join("spread-c++");
    #[cfg(unix)]
    {
        if !std::fs::read_link(&link).is_ok_and(|t| t == Path::new("spread-cxx")) {
            let _ = std::fs::remove_file(&link);
            let _ = std::os::unix::fs::symlink("spread-cxx", &link);
        }
    }
}
