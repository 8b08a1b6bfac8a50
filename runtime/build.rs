//! Link settings for the drop-in library: libomptarget's SONAME and symbol versions, so that a
//! program linked against `libomptarget.so.19.1` binds to Spread's runtime. The versions come
//! from `exports.list`: this script writes the version script and each listed file's `.symver`
//! directives into `OUT_DIR` (the files include theirs with `capi::symvers!`).

#[path = "build/export_list.rs"]
mod export_list;

use std::path::Path;

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let out = std::env::var("OUT_DIR").unwrap_or_default();
    println!("cargo:rerun-if-changed=exports.list");
    println!("cargo:rerun-if-changed=build/export_list.rs");
    let list = Path::new(&dir).join("exports.list");
    let text = std::fs::read_to_string(&list)
        .unwrap_or_else(|e| panic!("spread-rt: cannot read {}: {e}", list.display()));
    let groups =
        export_list::parse(&text).unwrap_or_else(|e| panic!("spread-rt: {}: {e}", list.display()));

    let script = Path::new(&out).join("exports.map");
    write(&script, &export_list::version_script(&groups));
    for (key, asm) in export_list::symver_asm(&groups) {
        write(
            &Path::new(&out).join("symver").join(format!("{key}.s")),
            &asm,
        );
    }
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libomptarget.so.19.1");
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
        script.display()
    );
}

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .unwrap_or_else(|e| panic!("spread-rt: {}: {e}", parent.display()));
    }
    std::fs::write(path, text).unwrap_or_else(|e| panic!("spread-rt: {}: {e}", path.display()));
}
