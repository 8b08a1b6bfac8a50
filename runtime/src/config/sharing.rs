//! Task sharing's settings (`device(any)`, docs/task-sharing.md): read at start-up with the
//! others, so that a bad value is reported whether or not the program shares tasks.

use crate::sched::sharing::{Kind, Policy, Pools};

/// How instances' data reach devices (`SPREAD_COHERENCE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coherence {
    /// OpenMP's copy semantics per instance (default).
    Copy,
    /// Outputs stay where they were produced until needed elsewhere.
    Lazy,
}

impl Coherence {
    /// The mode a `SPREAD_COHERENCE` value names (unset or empty: copy); `None` for anything else.
    pub fn parse(v: Option<&str>) -> Option<Coherence> {
        match v.map(str::trim) {
            None | Some("") | Some("copy") => Some(Coherence::Copy),
            Some("lazy") => Some(Coherence::Lazy),
            Some(_) => None,
        }
    }
}

/// The task-sharing settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// `SPREAD_TOKEN_POOL=server|global`.
    pub pools: Pools,
    /// `SPREAD_ANY_POLICY=model|tokens|first`.
    pub policy: Policy,
    /// `SPREAD_STEAL=1|0`.
    pub steal: bool,
    /// `SPREAD_COHERENCE=copy|lazy`.
    pub coherence: Coherence,
    /// `SPREAD_ANY_SLOTS=host=1,cpu=1,nvidia=4`: instances without tokens at once per server,
    /// indexed by [`slot_index`].
    pub slots: [u32; 3],
    /// `SPREAD_ANY_HOST_THREADS`: threads of the host's share (default: the cores available).
    pub host_threads: u32,
    /// `SPREAD_KIND_ALIAS=nvidia:0,1`: host devices that serve as that kind.
    pub alias: Vec<(usize, Kind)>,
}

/// Where a kind's count is in [`Settings::slots`].
pub fn slot_index(k: Kind) -> usize {
    match k {
        Kind::Host => 0,
        Kind::Cpu => 1,
        Kind::Nvidia => 2,
    }
}

fn parse_kind(s: &str) -> Option<Kind> {
    match s.trim().to_ascii_lowercase().as_str() {
        "host" => Some(Kind::Host),
        "cpu" | "x86_64" => Some(Kind::Cpu),
        "nvidia" | "nvptx" | "nvptx64" => Some(Kind::Nvidia),
        _ => None,
    }
}

impl Settings {
    /// Reads the settings through `var`; what cannot be read is reported in `warnings` (once per
    /// variable) and the default used.
    pub fn from_lookup(var: impl Fn(&str) -> Option<String>, warnings: &mut Vec<String>) -> Self {
        let mut bad = |name: &str, v: &str, want: &str| {
            warnings.push(format!("{name}={v:?}: expected {want}; using the default"))
        };
        let pools = match var("SPREAD_TOKEN_POOL").as_deref().map(str::trim) {
            None | Some("") | Some("server") | Some("device") => Pools::PerServer,
            Some("global") => Pools::Global,
            Some(v) => {
                bad("SPREAD_TOKEN_POOL", v, "server or global");
                Pools::PerServer
            }
        };
        let policy = match var("SPREAD_ANY_POLICY").as_deref().map(str::trim) {
            None | Some("") | Some("model") => Policy::Model,
            Some("tokens") => Policy::Tokens,
            Some("first") => Policy::First,
            Some(v) => {
                bad("SPREAD_ANY_POLICY", v, "model, tokens or first");
                Policy::Model
            }
        };
        let steal = match var("SPREAD_STEAL").as_deref().map(str::trim) {
            None | Some("") | Some("1") => true,
            Some("0") => false,
            Some(v) => {
                bad("SPREAD_STEAL", v, "0 or 1");
                true
            }
        };
        let coherence = var("SPREAD_COHERENCE");
        let coherence = Coherence::parse(coherence.as_deref()).unwrap_or_else(|| {
            bad(
                "SPREAD_COHERENCE",
                coherence.as_deref().unwrap_or(""),
                "copy or lazy",
            );
            Coherence::Copy
        });
        let mut slots = [1, 1, 4];
        if let Some(v) = var("SPREAD_ANY_SLOTS").filter(|v| !v.trim().is_empty()) {
            let parsed: Option<Vec<(Kind, u32)>> = v
                .split(',')
                .map(|part| {
                    let (k, n) = part.split_once('=')?;
                    Some((
                        parse_kind(k)?,
                        n.trim().parse::<u32>().ok().filter(|&n| n >= 1)?,
                    ))
                })
                .collect();
            match parsed {
                Some(list) => list.into_iter().for_each(|(k, n)| slots[slot_index(k)] = n),
                None => bad(
                    "SPREAD_ANY_SLOTS",
                    &v,
                    "kind=count,... (host, cpu, nvidia; counts from 1)",
                ),
            }
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        let host_threads = match var("SPREAD_ANY_HOST_THREADS").filter(|v| !v.trim().is_empty()) {
            None => cores,
            Some(v) => match v.trim().parse::<u32>() {
                Ok(n) if n >= 1 => n,
                _ => {
                    bad("SPREAD_ANY_HOST_THREADS", &v, "a positive number");
                    cores
                }
            },
        };
        let mut alias = Vec::new();
        if let Some(v) = var("SPREAD_KIND_ALIAS").filter(|v| !v.trim().is_empty()) {
            let parsed: Option<Vec<(Kind, Vec<usize>)>> = v
                .split(';')
                .map(|group| {
                    let (k, list) = group.split_once(':')?;
                    let k = parse_kind(k).filter(|&k| k != Kind::Host)?;
                    let ds: Option<Vec<usize>> =
                        list.split(',').map(|d| d.trim().parse().ok()).collect();
                    Some((k, ds?))
                })
                .collect();
            match parsed {
                Some(groups) => {
                    for (k, ds) in groups {
                        alias.extend(ds.into_iter().map(|d| (d, k)));
                    }
                }
                None => bad(
                    "SPREAD_KIND_ALIAS",
                    &v,
                    "kind:device,...[;kind:...] (kinds cpu, nvidia)",
                ),
            }
        }
        Settings {
            pools,
            policy,
            steal,
            coherence,
            slots,
            host_threads,
            alias,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)]) -> (Settings, Vec<String>) {
        let mut w = Vec::new();
        let s = Settings::from_lookup(
            |k| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            },
            &mut w,
        );
        (s, w)
    }

    #[test]
    fn defaults_and_values() {
        let (s, w) = read(&[]);
        assert!(w.is_empty());
        assert_eq!(
            (s.pools, s.policy, s.steal),
            (Pools::PerServer, Policy::Model, true)
        );
        assert_eq!((s.coherence, s.slots), (Coherence::Copy, [1, 1, 4]));
        let (s, w) = read(&[
            ("SPREAD_ANY_SLOTS", "host=2,nvidia=8"),
            ("SPREAD_KIND_ALIAS", "nvidia:0,1;cpu:2"),
            ("SPREAD_COHERENCE", "lazy"),
        ]);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(s.slots, [2, 1, 8]);
        assert_eq!(
            s.alias,
            vec![(0, Kind::Nvidia), (1, Kind::Nvidia), (2, Kind::Cpu)]
        );
        assert_eq!(s.coherence, Coherence::Lazy);
    }

    #[test]
    fn a_bad_value_is_reported_once_and_the_default_used() {
        for (name, value) in [
            ("SPREAD_TOKEN_POOL", "pool"),
            ("SPREAD_ANY_POLICY", "best"),
            ("SPREAD_STEAL", "yes"),
            ("SPREAD_COHERENCE", "eager"),
            ("SPREAD_ANY_SLOTS", "gpu=2,x=y"),
            ("SPREAD_ANY_HOST_THREADS", "0"),
            ("SPREAD_KIND_ALIAS", "nvidia:0,x"),
        ] {
            let (s, w) = read(&[(name, value)]);
            assert_eq!(w.len(), 1, "{name}: {w:?}");
            assert!(
                w[0].starts_with(&format!("{name}={value:?}: expected ")),
                "{w:?}"
            );
            assert!(w[0].ends_with("using the default"), "{w:?}");
            let (d, _) = read(&[]);
            assert_eq!(s, d, "{name}");
        }
    }
}
