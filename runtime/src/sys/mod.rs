//! System bindings: the thin wrappers through which the rest of the runtime touches raw memory
//! and virtual memory, the dynamic loader, libomp, the CUDA driver, the MPI plugin, compiled
//! kernels and the fault handler. With
//! [`crate::capi`] (the C ABI), the only place with `unsafe` code.
//!
//! The wrappers take addresses as `usize`. Their soundness rests on the OpenMP contract the
//! compiler and the program keep: every host address the runtime reads or writes was named by a
//! map clause or API call of the program (which OpenMP requires to be valid for the stated
//! length), or was returned by one of the runtime's own allocations.
//!
//! The generic raw-memory helpers of [`mem`] that read, write, free or copy memory at an address
//! are `unsafe fn` with a `# Safety` section; their callers justify each call. The rest of the
//! runtime goes through [`access`], one safe function per purpose, each resting on one stated
//! contract.

pub(crate) mod access;
pub(crate) mod affinity;
pub(crate) mod call;
pub(crate) mod cuda;
pub(crate) mod dl;
pub(crate) mod fault;
pub(crate) mod kmp;
pub(crate) mod libc_alloc;
pub(crate) mod mapper;
pub(crate) mod mem;
pub(crate) mod mpi;
pub(crate) mod ompt;
pub(crate) mod proc;
pub(crate) mod thread_state;
pub(crate) mod transport;
pub(crate) mod vm;
