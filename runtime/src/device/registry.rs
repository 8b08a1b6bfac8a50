//! Which devices exist, in which order: the backends are asked in the order `SPREAD_DEVICES`
//! names them (default `cuda,host`), so GPUs come first and device 0 is a GPU whenever the
//! machine has one. (Stock libomptarget numbers its host devices first, which surprises users:
//! LLVM issue 59828.)
//!
//! It is also the one door through which the layers above reach a backend's own services (the
//! host share, the remote worker loop, a host kernel's league and fault records): nothing outside
//! `device/` names a backend (`runtime/tests/layers.rs` checks it), so a backend's modules can
//! change without touching the core or the C ABI.

use super::host::{Diagnostics, HostDevice};
use super::Device;
use crate::config::{Config, DeviceKind};

/// The devices found, and why a requested backend gave none.
pub struct Discovery {
    /// Devices, numbered by position.
    pub devices: Vec<Box<dyn Device>>,
    /// One line per backend that was asked for and gave fewer devices than requested.
    pub notes: Vec<String>,
    /// Settings of devices that were corrected (the runtime reports them as warnings).
    pub warnings: Vec<String>,
    /// Settings that leave a device unable to run kernels (reported as errors).
    pub errors: Vec<String>,
}

/// Asks each backend of `config.devices` for its devices, in order.
pub fn discover(config: &Config) -> Discovery {
    let mut devices: Vec<Box<dyn Device>> = Vec::new();
    let mut notes = Vec::new();
    let mut diag = Diagnostics::default();
    for req in &config.devices {
        match req.kind {
            DeviceKind::Host => {
                let n = req.count.unwrap_or(config.host_devices);
                // The cores this process may run on, asked once (only pinned devices need it).
                let allowed = if config.host_device_cores.is_empty() {
                    None
                } else {
                    crate::sys::affinity::allowed_cores()
                };
                for index in 0..n {
                    let id = devices.len();
                    devices.push(Box::new(
                        HostDevice::with_shape(
                            id,
                            config.host_threads,
                            &config.host_shape(index),
                            allowed.as_deref(),
                            &mut diag,
                        )
                        .with_exact_teams(config.exact_teams)
                        .with_guards(config.guard),
                    ));
                }
            }
            DeviceKind::Cuda => match super::cuda::discover(devices.len(), req.count, config) {
                Ok(found) => {
                    if let Some(want) = req.count.filter(|&w| w > found.len()) {
                        notes.push(format!(
                            "cuda: {want} GPUs requested, {} found",
                            found.len()
                        ));
                        diag.warnings.push(format!(
                            "SPREAD_DEVICES={:?}: {want} GPUs requested, {} found; using {}",
                            config.raw("SPREAD_DEVICES"),
                            found.len(),
                            found.len()
                        ));
                    }
                    devices.extend(found);
                }
                Err(why) => {
                    // Asked for by count (`cuda:2`), GPUs are expected: a warning says why
                    // there are none; by default (`cuda` alone) only SPREAD_INFO=devices does.
                    if let Some(want) = req.count.filter(|&w| w > 0) {
                        diag.warnings.push(format!(
                            "SPREAD_DEVICES={:?}: {want} GPUs requested, none found ({why}); using none",
                            config.raw("SPREAD_DEVICES")
                        ));
                    }
                    notes.push(format!("cuda: no devices: {why}"));
                }
            },
        }
    }
    if let Some(remote) = &config.remote {
        // After every local device: the head's own devices keep the numbers they have without
        // SPREAD_REMOTE, and a worker describes its local devices to the head.
        match super::remote::discover(devices.len(), &devices, remote) {
            Ok(found) => devices.extend(found),
            Err(why) => notes.push(format!("remote (MPI): no devices: {why}")),
        }
    }
    Discovery {
        devices,
        notes,
        warnings: diag.warnings,
        errors: diag.errors,
    }
}

/// The host share: the host's own cores as an asynchronous device working in the host's memory,
/// which task sharing gives host instances to (`Runtime::host_share`). Device number `id`.
pub fn host_share(id: usize, threads_override: Option<usize>) -> Box<dyn Device> {
    Box::new(HostDevice::host_share(id, threads_override))
}

/// Host kernels' leagues: the stand-ins for libomp's teams entry points that a host device's
/// image calls under `SPREAD_TEAMS=exact` (`capi/league_exports.rs` exports them).
pub use super::host::league;

/// What a fault inside a host kernel hit: the guard regions around a block's sections
/// (`guarded`) and the kernels each thread runs (`running`), for the fault reporter.
pub use super::host::{guarded, running};

/// Cluster mode (`SPREAD_REMOTE=mpi`): whether this rank serves its devices to a head, the
/// worker loop that does, its view of the runtime, the report at exit, and the images' key.
pub mod cluster {
    pub use super::super::remote::protocol::image_hash;
    pub use super::super::remote::worker::Host as WorkerHost;
    pub use super::super::remote::{at_exit, is_worker, serve_if_worker};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_devices_are_numbered_in_order_after_earlier_kinds() {
        let cfg =
            Config::from_lookup(|k| (k == "SPREAD_DEVICES").then(|| "cuda,host:3".to_string()));
        let d = discover(&cfg);
        // This test machine may or may not have a GPU: host devices follow whatever cuda gave.
        let hosts: Vec<_> = d
            .devices
            .iter()
            .filter(|x| x.info().kind == DeviceKind::Host)
            .collect();
        assert_eq!(hosts.len(), 3);
        assert_eq!(d.devices[d.devices.len() - 3].info().kind, DeviceKind::Host);
    }
}
