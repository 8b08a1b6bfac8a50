//! The C ABI Spread exports: libomptarget's entry points, the OpenMP device API, Spread's own
//! extensions, the libomp routines it interposes and its OMPT tool. Each export decodes its
//! arguments, runs under [`guard`] (the one panic boundary) and calls the layer below; the
//! bindings it decodes with are in [`crate::sys`].

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
