//! The C ABI Spread exports: libomptarget's entry points, the OpenMP device API, Spread's own
//! extensions, the libomp routines it interposes and its OMPT tool. Each export decodes its
//! arguments, runs under [`guard`] (the one panic boundary) and calls the layer below; the
//! bindings it decodes with are in [`crate::sys`].

/// Binds the calling file's exports to their symbol versions: includes the `.symver` directives
/// build.rs writes for KEY (the file's path under `src/` without `.rs`) from `exports.list`, the
/// one list of versioned exports. `.symver` needs the definition in the same object as the
/// directive, so each file that defines listed exports calls this itself; and Rust code never
/// calls an exported function (the exports share internal functions instead), since a call from
/// elsewhere lets rustc emit the function into another codegen unit, and the build fails.
/// Unit-test binaries take the functions' addresses from other codegen units, where the assembler
/// cannot see their definitions; versions only matter in the shared library.
macro_rules! symvers {
    ($key:literal) => {
        #[cfg(not(test))]
        std::arch::global_asm!(include_str!(concat!(
            env!("OUT_DIR"),
            "/symver/",
            $key,
            ".s"
        )));
    };
}

mod any_exports;
mod call_site;
mod cu_exports;
mod device_api;
mod exports;
pub(crate) mod guard;
mod init;
mod league_exports;
mod memory;
pub(crate) mod ompt;
mod peer_exports;
mod spread_exports;
