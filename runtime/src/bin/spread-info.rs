//! `spread-info`: lists the devices Spread's runtime sees, like `llvm-omp-device-info`.

use clap::Parser;
use spread_rt::config::Config;
use spread_rt::runtime::Runtime;
use std::io::Write;

/// Lists the devices Spread's runtime would offer a program started with the same environment
/// (`SPREAD_DEVICES`, `SPREAD_HOST_DEVICES`, `SPREAD_HOST_THREADS`, `SPREAD_HOST_DEVICE_THREADS`,
/// `SPREAD_HOST_DEVICE_CORES`: each host device shows its threads and cores), GPUs first, and why a
/// requested backend has no devices.
#[derive(Parser)]
#[command(version, about)]
struct Args {
    /// Print one device only.
    #[arg(short, long)]
    device: Option<usize>,
    /// Also print each device's details (the facts `llvm-omp-device-info` prints).
    #[arg(short, long)]
    verbose: bool,
}

fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    // 'static: in cluster mode a worker rank serves its devices from here and never returns.
    let rt: &'static Runtime = Box::leak(Box::new(Runtime::new(Config::from_env())));
    rt.serve_if_worker();
    let code = list(&args, rt);
    // Cluster mode: the workers leave with the head.
    spread_rt::device::registry::cluster::at_exit(false);
    code
}

fn list(args: &Args, rt: &Runtime) -> std::process::ExitCode {
    if let Some(d) = args.device {
        if d >= rt.num_devices() {
            eprintln!(
                "spread-info: no device {d}: the runtime has {} devices",
                rt.num_devices()
            );
            return std::process::ExitCode::FAILURE;
        }
    }
    let mut lines = vec![format!(
        "Spread runtime: {} devices (initial device {})",
        rt.num_devices(),
        rt.initial_device()
    )];
    for slot in rt
        .devices
        .iter()
        .filter(|s| args.device.is_none_or(|d| d == s.id))
    {
        let i = slot.dev.info();
        lines.push(format!(
            "device {}: {} | {} | memory {} | {} compute units",
            slot.id,
            i.kind.as_str(),
            i.name,
            gib(i.memory_bytes),
            i.compute_units
        ));
        if args.verbose {
            for (k, v) in &i.details {
                lines.push(format!("    {k:<36} {v}"));
            }
        }
    }
    if args.device.is_none() {
        for n in &rt.device_notes {
            lines.push(format!("note: {n}"));
        }
    }
    let mut out = std::io::stdout().lock();
    for l in lines {
        // A closed pipe (`spread-info | head -1`) ends the listing quietly.
        if writeln!(out, "{l}").is_err() {
            break;
        }
    }
    std::process::ExitCode::SUCCESS
}
