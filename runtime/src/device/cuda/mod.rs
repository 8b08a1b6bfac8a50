//! NVIDIA GPUs through the CUDA driver API (placeholder until the backend lands).

use super::Device;

/// The GPUs of this machine, numbered from `first_id`, at most `max` of them.
pub fn discover(
    _first_id: usize,
    _max: Option<usize>,
) -> std::result::Result<Vec<Box<dyn Device>>, String> {
    Err("the CUDA backend is not built yet".into())
}
