//! `spread-rt`: Spread's offload runtime.
//!
//! A drop-in replacement for LLVM 19's `libomptarget.so.19.1`: programs built by clang-19 with
//! `-fopenmp -fopenmp-targets=...` run on it through `LD_PRELOAD` or the library path, and their
//! target regions and data go to Spread's devices. Every device has memory of its own, a mapping
//! table with libomptarget's semantics, and a worker with a FIFO queue for asynchronous work.
//!
//! Layout: [`abi`] (LLVM's structures), [`image`] (offload images), [`mapping`] (one device's
//! table), [`targetdata`] (map-clause semantics), [`device`] (the backend trait and host
//! devices), [`queue`] (per-device workers), [`runtime`] (global state and constructs), [`api`]
//! (`omp_target_*`), [`memory`] (multi-device memory spaces and allocators), [`peer`] (peer copies
//! and device waits), [`sched`] (the scheduling core), [`cu`] (compute units and data
//! placement), [`any`] (`device(any)` task sharing), [`report`] and [`info`] (diagnostics). All `unsafe` code is in `ffi`.

#![deny(unsafe_op_in_unsafe_fn)]

pub mod abi;
pub mod any;
pub mod api;
mod capi;
pub mod config;
pub mod cu;
pub mod device;
pub mod error;
pub mod exit;
pub mod image;
pub mod info;
pub mod location;
pub mod mapping;
pub mod memory;
pub mod peer;
pub mod profile;
pub mod queue;
pub mod reduction;
pub mod report;
pub mod runtime;
pub mod sched;
pub mod spread;
pub mod sys;
pub mod targetdata;
pub mod trace;
