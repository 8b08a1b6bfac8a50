//! Multi-device memory (seed 001): memory spaces that several devices (and the host) reach
//! directly, allocators with the `memory_access`, `preferred_location`, `preferred_place` and
//! `pinned` traits, and the record of what every allocation was granted.
//!
//! The parts: [`space`] (which devices a space serves), [`traits`] (the trait list of
//! `omp_init_allocator`), [`provider`] (what the present backends can give a space: the only
//! backend-specific part), [`allocator`] (allocators, allocations, fallbacks, queries); host memory
//! page-locked for fast copies is counted in [`crate::device::pinned`]. The C entry
//! points, including the libomp routines Spread interposes, are in `capi::memory`.

pub mod allocator;
pub mod provider;
pub mod space;
pub mod traits;

pub use allocator::accessible;
