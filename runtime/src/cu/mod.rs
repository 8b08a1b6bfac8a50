//! Compute units (seed 004; docs/compute-units.md): a `teams num_teams(4:CPU:4, 2:GPU:1)`
//! construct runs its loop's tasks on CUs, one OpenMP thread each, CPU CUs opening nested
//! parallel regions on their CPUs and GPU CUs offloading to their devices; the tasks are handed
//! out by the scheduling core ([`crate::sched`], pull mode, one resource per CU). Data can be
//! registered and migrated between the host and the devices ([`placement`]).
//!
//! [`layout`] evaluates the CU descriptors, [`region`] runs one execution of the construct and
//! knows which thread is which CU, [`queries`] answers the paper's Table 2 routines.

pub mod layout;
pub mod placement;
pub mod queries;
pub mod region;
