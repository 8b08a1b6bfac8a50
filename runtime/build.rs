//! Link settings for the drop-in library: libomptarget's SONAME and symbol version, so that a
//! program linked against `libomptarget.so.19.1` binds to Spread's runtime.

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let script = format!("{dir}/exports.map");
    println!("cargo:rerun-if-changed=exports.map");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libomptarget.so.19.1");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={script}");
}
