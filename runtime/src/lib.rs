//! `spread-rt`: Spread's offload runtime.
//!
//! A drop-in replacement for LLVM 19's `libomptarget.so.19.1`: programs built by clang-19 with
//! `-fopenmp -fopenmp-targets=...` run on it through `LD_PRELOAD` or the library path, and their
//! target regions and data go to Spread's devices. Every device has memory of its own, a mapping
//! table with libomptarget's semantics, and a worker with a FIFO queue for asynchronous work.
//!
//! The runtime is built in layers (docs/architecture.md walks through them). A module imports
//! only from the modules listed after it, so that each layer can be read, tested and replaced
//! without the ones above it.
//!
//! # Layers
//!
//! Top to bottom; a module imports only modules listed after it (checked by `tests/layers.rs`):
//!
//! 1. C ABI shell: `capi` (the exported functions: argument decoding, the panic guard, one call below)
//! 2. Features: `presence`, `any`, `cu`, `auto`, `spread`, `reduction`, `peer`, `memory`, `api` (whether a construct's data is on its device when another device holds it, or memory a GPU in a host device's place could not reach; task sharing, compute units, automatic spreading, target spread, spread reductions, peer copies, memory spaces, `omp_target_*`)
//! 3. Core: `runtime` (process state, images, offload policy, mapping, `nowait` constructs, error reports)
//! 4. Devices: `queue`, `device` (per-device work queues, the device trait and its backends)
//! 5. Support: `image`, `info`, `config`, `sched`, `trace`, `profile`, `time_trace`, `origin`, `location`, `abi`, `error`, `ompt` (offload images, messages, settings, the scheduling core, tracing, `LIBOMPTARGET_PROFILE`, what device work was issued for, LLVM's structures, the program's OMPT tool's target callbacks)
//! 6. System bindings: `sys`, `exit` (raw memory, loader, libomp, CUDA, MPI; process exit)
//!
//! `unsafe` code is only in `capi` and `sys` (also checked by `tests/layers.rs`).

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

pub mod abi;
pub mod any;
pub mod api;
pub mod auto;
mod capi;
pub mod config;
pub mod cu;
pub mod device;
pub mod error;
pub mod exit;
pub mod image;
pub mod info;
pub mod location;
pub mod memory;
pub mod ompt;
pub mod origin;
pub mod peer;
pub mod presence;
pub mod profile;
pub mod queue;
pub mod reduction;
pub mod runtime;
pub mod sched;
pub mod spread;
mod sys;
pub mod time_trace;
pub mod trace;
