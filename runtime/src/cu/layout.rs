//! The compute units of a `teams num_teams(CU descriptors)` construct: the descriptors evaluated
//! once into a numbered list (seed 004 §3.2: CPU CUs first, then GPU CUs, each family in
//! descriptor order), with `thread_limit` applied and every impossible configuration refused
//! with a message naming the construct.

use crate::error::{Error, ErrorKind, Result};

/// Most compute units one region may have: one OpenMP thread runs each, and libomp's teams are
/// bounded well below this (a bigger count is a typo, not a configuration).
pub const MAX_CUS: u64 = 1 << 15;

/// spread.h's `__SPREAD_CU_CPU`.
pub const FAMILY_CPU: i32 = 1;
/// spread.h's `__SPREAD_CU_GPU`.
pub const FAMILY_GPU: i32 = 2;

/// One CU descriptor `count:family:size` as the lowering passes it (`__spread_cud_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Descriptor {
    /// How many CUs it describes.
    pub count: i32,
    /// `FAMILY_CPU` or `FAMILY_GPU` (anything else is refused).
    pub family: i32,
    /// CPUs per CPU CU, devices per GPU CU.
    pub size: i32,
}

impl Descriptor {
    /// As the pragma writes it: `4:CPU:4`.
    fn spelled(&self) -> String {
        let family = match self.family {
            FAMILY_CPU => "CPU".to_string(),
            FAMILY_GPU => "GPU".to_string(),
            other => format!("<family {other}>"),
        };
        format!("{}:{family}:{}", self.count, self.size)
    }
}

/// What a compute unit is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// `M` CPUs: its thread opens nested parallel regions of up to `M` threads.
    Cpu {
        /// CPUs in the CU (after `thread_limit`).
        cpus: u32,
    },
    /// One orchestrating CPU and `G` offload devices: its work is offloaded to them.
    Gpu {
        /// The devices it owns (runtime device numbers), first = `omp_get_gpu()`.
        devices: Vec<i32>,
    },
}

/// One compute unit of a region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComputeUnit {
    /// Its CU number: the OpenMP thread number of its thread in the region.
    pub id: usize,
    /// What it is made of.
    pub kind: Kind,
}

impl ComputeUnit {
    /// Whether it is a GPU CU.
    pub fn is_gpu(&self) -> bool {
        matches!(self.kind, Kind::Gpu { .. })
    }

    /// Its devices (empty for a CPU CU).
    pub fn devices(&self) -> &[i32] {
        match &self.kind {
            Kind::Cpu { .. } => &[],
            Kind::Gpu { devices } => devices,
        }
    }

    /// Its key in the scheduling model: CUs of one configuration share one rate, as the paper's
    /// per-configuration profile (Table 3).
    pub fn model_key(&self) -> String {
        match &self.kind {
            Kind::Cpu { cpus } => format!("cpu {cpus}"),
            Kind::Gpu { devices } => format!("gpu {}", devices.len()),
        }
    }

    /// How `SPREAD_INFO=chunks` names it: `cpu` or `gpu device D`.
    pub fn describe(&self) -> String {
        match &self.kind {
            Kind::Cpu { .. } => "cpu".into(),
            Kind::Gpu { devices } => {
                let list: Vec<String> = devices.iter().map(|d| d.to_string()).collect();
                let s = if devices.len() == 1 { "" } else { "s" };
                format!("gpu device{s} {}", list.join(","))
            }
        }
    }
}

/// The evaluated compute units of one region, in CU number order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Every CU: CPU CUs `0..num_cpus`, then GPU CUs.
    pub cus: Vec<ComputeUnit>,
    /// CPU CUs.
    pub num_cpus: usize,
    /// GPU CUs.
    pub num_gpus: usize,
}

/// The inputs of [`evaluate`] besides the descriptors.
#[derive(Debug, Clone, Copy)]
pub struct Limits<'a> {
    /// `thread_limit` of the construct (0: none).
    pub thread_limit: i32,
    /// Offload devices of the runtime (`omp_get_num_devices()`).
    pub num_devices: usize,
    /// `SPREAD_CU_DEVICES`, if set: the devices GPU CUs take in order.
    pub cu_devices: Option<&'a [i32]>,
}

fn invalid(msg: String) -> Error {
    Error::new(ErrorKind::Invalid, msg)
}

/// Evaluates `cuds` of the construct described by `what` (`teams at FILE:LINE`).
///
/// Errors (each naming the construct and the cause): no descriptor, a count or size below 1,
/// an unknown family, a negative `thread_limit`, more than [`MAX_CUS`] CUs, GPU CUs needing
/// more devices than there are, a `SPREAD_CU_DEVICES` entry that is not a device.
pub fn evaluate(what: &str, cuds: &[Descriptor], limits: Limits<'_>) -> Result<Layout> {
    if cuds.is_empty() {
        return Err(invalid(format!(
            "the {what} defines no compute units (its num_teams clause has no CU descriptor)"
        )));
    }
    if limits.thread_limit < 0 {
        return Err(invalid(format!(
            "thread_limit({}) of the {what} is negative",
            limits.thread_limit
        )));
    }
    let mut total: u64 = 0;
    let mut gpu_devices: u64 = 0;
    for (k, d) in cuds.iter().enumerate() {
        let at = format!("CU descriptor {} ({}) of the {what}", k + 1, d.spelled());
        if d.family != FAMILY_CPU && d.family != FAMILY_GPU {
            return Err(invalid(format!(
                "{at} has an unknown family (code {}): compute units are CPU or GPU",
                d.family
            )));
        }
        if d.count < 1 {
            return Err(invalid(format!(
                "{at} defines {} compute units: the count must be at least 1",
                d.count
            )));
        }
        if d.size < 1 {
            let what_size = if d.family == FAMILY_CPU {
                "CPUs"
            } else {
                "GPUs"
            };
            return Err(invalid(format!(
                "{at} gives each compute unit {} {what_size}: the size must be at least 1",
                d.size
            )));
        }
        total += d.count as u64;
        if d.family == FAMILY_GPU {
            gpu_devices += d.count as u64 * d.size as u64;
        }
    }
    if total > MAX_CUS {
        return Err(invalid(format!(
            "the {what} defines {total} compute units, more than the {MAX_CUS} threads a region of compute units may have"
        )));
    }
    let default_list;
    let (list, source): (&[i32], String) = match limits.cu_devices {
        Some(l) => (
            l,
            format!(
                "SPREAD_CU_DEVICES lists {} (the runtime has {} offload devices)",
                l.len(),
                limits.num_devices
            ),
        ),
        None => {
            default_list = (0..limits.num_devices)
                .map(|d| i32::try_from(d).unwrap_or(i32::MAX))
                .collect::<Vec<_>>();
            (
                &default_list,
                format!(
                    "the runtime has {} (omp_get_num_devices())",
                    limits.num_devices
                ),
            )
        }
    };
    if gpu_devices > list.len() as u64 {
        return Err(invalid(format!(
            "the {what} needs {gpu_devices} offload devices for its GPU compute units, but {source}"
        )));
    }
    let cap = |m: i32| -> u32 {
        let m = m as u32;
        if limits.thread_limit > 0 {
            m.min(limits.thread_limit as u32)
        } else {
            m
        }
    };
    let mut cus = Vec::new();
    for d in cuds.iter().filter(|d| d.family == FAMILY_CPU) {
        for _ in 0..d.count {
            cus.push(ComputeUnit {
                id: cus.len(),
                kind: Kind::Cpu { cpus: cap(d.size) },
            });
        }
    }
    let num_cpus = cus.len();
    let mut next = 0usize;
    for d in cuds.iter().filter(|d| d.family == FAMILY_GPU) {
        for _ in 0..d.count {
            let g = d.size as usize;
            let devices = list[next..next + g].to_vec();
            next += g;
            if let Some(&bad) = devices
                .iter()
                .find(|&&x| x < 0 || x as usize >= limits.num_devices)
            {
                return Err(invalid(format!(
                    "GPU compute unit {} of the {what} would own device {bad}, which does not exist (SPREAD_CU_DEVICES; the runtime has {} offload devices)",
                    cus.len(),
                    limits.num_devices
                )));
            }
            cus.push(ComputeUnit {
                id: cus.len(),
                kind: Kind::Gpu { devices },
            });
        }
    }
    let num_gpus = cus.len() - num_cpus;
    Ok(Layout {
        cus,
        num_cpus,
        num_gpus,
    })
}
