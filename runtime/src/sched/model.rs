//! What the model-based schedules know: per construct and per resource, the rate (units per
//! second) measured on completed units, kept across executions of the construct and optionally
//! in a profile file (`SPREAD_SCHED_PROFILE`), seed 004's offline profile.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::time::Duration;

/// Weight of the newest execution in a rate (exponential moving average): half, so that a
/// change of speed shows within two or three time steps while one noisy step moves blocks little.
const EMA_WEIGHT: f64 = 0.5;

/// How the rates of a construct change after an execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Learn {
    /// Every execution updates the rates (`adaptive`).
    Always,
    /// Only rates not known yet are set (`static_opt`: a profile, or the first execution, fixes
    /// the division for good, as the paper's pre-computed conversion factor).
    Once,
}

/// The profile file setting (`SPREAD_SCHED_PROFILE`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProfileFile {
    /// `FILE`: read at start when it exists, written back at exit.
    Update(String),
    /// `load:FILE`: read at start only.
    Load(String),
    /// `record:FILE`: written at exit only.
    Record(String),
}

impl ProfileFile {
    /// Parses the variable's value; `None` for an empty one.
    pub fn parse(v: &str) -> Option<ProfileFile> {
        let v = v.trim();
        if v.is_empty() {
            return None;
        }
        Some(if let Some(f) = v.strip_prefix("load:") {
            ProfileFile::Load(f.into())
        } else if let Some(f) = v.strip_prefix("record:") {
            ProfileFile::Record(f.into())
        } else {
            ProfileFile::Update(v.into())
        })
    }

    fn read_path(&self) -> Option<&str> {
        match self {
            ProfileFile::Update(f) | ProfileFile::Load(f) => Some(f),
            ProfileFile::Record(_) => None,
        }
    }

    fn write_path(&self) -> Option<&str> {
        match self {
            ProfileFile::Update(f) | ProfileFile::Record(f) => Some(f),
            ProfileFile::Load(_) => None,
        }
    }
}

#[derive(Default)]
struct ConstructModel {
    /// Units per second, per resource key.
    rates: HashMap<String, f64>,
    /// The last division into blocks, with the resource keys it was for.
    split: Option<(Vec<String>, Vec<u128>)>,
}

/// The rates of every construct executed so far (or loaded).
#[derive(Default)]
pub struct Model {
    constructs: Mutex<HashMap<String, ConstructModel>>,
    file: Option<ProfileFile>,
}

/// What one resource did in one execution of a construct.
#[derive(Debug, Clone)]
pub struct Observation {
    /// The resource's model key.
    pub key: String,
    /// Units (iterations) it completed.
    pub units: u64,
    /// Time it spent on them.
    pub busy: Duration,
}

impl Model {
    /// A model reading and writing `file` as configured; a profile that cannot be read or parsed
    /// is reported in `warnings` and ignored.
    pub fn new(file: Option<ProfileFile>, warnings: &mut Vec<String>) -> Model {
        let m = Model {
            constructs: Mutex::new(HashMap::new()),
            file,
        };
        if let Some(path) = m.file.as_ref().and_then(ProfileFile::read_path) {
            match std::fs::read_to_string(path) {
                Ok(text) => {
                    if let Err(e) = m.load(&text) {
                        warnings.push(format!("SPREAD_SCHED_PROFILE: {path}: {e}; ignoring it"));
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => warnings.push(format!("SPREAD_SCHED_PROFILE: cannot read {path}: {e}")),
            }
        }
        m
    }

    fn load(&self, text: &str) -> Result<(), String> {
        let mut parsed: Vec<(String, String, f64)> = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim_end();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut f = line.split('\t');
            let (Some(c), Some(r), Some(v), None) = (f.next(), f.next(), f.next(), f.next()) else {
                return Err(format!(
                    "line {}: expected CONSTRUCT<TAB>RESOURCE<TAB>RATE",
                    n + 1
                ));
            };
            let rate: f64 = v
                .parse()
                .ok()
                .filter(|x: &f64| x.is_finite() && *x > 0.0)
                .ok_or_else(|| format!("line {}: {v:?} is not a positive rate", n + 1))?;
            parsed.push((c.into(), r.into(), rate));
        }
        let mut cs = self.constructs.lock();
        for (c, r, rate) in parsed {
            cs.entry(c).or_default().rates.insert(r, rate);
        }
        Ok(())
    }

    /// The profile text of everything learnt: one line per construct and resource.
    pub fn profile_text(&self) -> String {
        let cs = self.constructs.lock();
        let mut lines: Vec<String> = cs
            .iter()
            .flat_map(|(c, m)| {
                m.rates
                    .iter()
                    .map(move |(r, v)| format!("{c}\t{r}\t{v:.6e}"))
            })
            .collect();
        lines.sort();
        let mut s =
            String::from("# spread schedule profile: construct, resource, units per second\n");
        for l in lines {
            s.push_str(&l);
            s.push('\n');
        }
        s
    }

    /// Writes the profile file if one is to be written (at the program's end); an error is
    /// returned for the caller to report.
    pub fn save(&self) -> Result<(), String> {
        let Some(path) = self.file.as_ref().and_then(ProfileFile::write_path) else {
            return Ok(());
        };
        std::fs::write(path, self.profile_text())
            .map_err(|e| format!("SPREAD_SCHED_PROFILE: cannot write {path}: {e}"))
    }

    /// The rates of `keys` for `construct`, when at least one is known; a resource not measured
    /// yet gets half the slowest known rate (it took no unit when it could have, or it is new).
    pub fn rates(&self, construct: &str, keys: &[String]) -> Option<Vec<f64>> {
        let cs = self.constructs.lock();
        let m = cs.get(construct)?;
        let known: Vec<Option<f64>> = keys.iter().map(|k| m.rates.get(k).copied()).collect();
        let slowest = known
            .iter()
            .flatten()
            .copied()
            .fold(f64::INFINITY, f64::min);
        if !slowest.is_finite() {
            return None;
        }
        Some(
            known
                .into_iter()
                .map(|r| r.unwrap_or(slowest / 2.0))
                .collect(),
        )
    }

    /// Feeds one execution's observations.
    pub fn learn(&self, construct: &str, obs: &[Observation], how: Learn) {
        let mut cs = self.constructs.lock();
        let m = cs.entry(construct.to_string()).or_default();
        for o in obs {
            let secs = o.busy.as_secs_f64();
            if o.units == 0 || secs <= 0.0 {
                continue;
            }
            let rate = o.units as f64 / secs;
            match (m.rates.get_mut(&o.key), how) {
                (Some(old), Learn::Always) => *old = EMA_WEIGHT * rate + (1.0 - EMA_WEIGHT) * *old,
                (Some(_), Learn::Once) => {}
                (None, _) => {
                    m.rates.insert(o.key.clone(), rate);
                }
            }
        }
    }

    /// The last division of `construct` over `keys`, if it was over the same resources.
    pub fn last_split(&self, construct: &str, keys: &[String]) -> Option<Vec<u128>> {
        let cs = self.constructs.lock();
        match &cs.get(construct)?.split {
            Some((k, s)) if k == keys => Some(s.clone()),
            _ => None,
        }
    }

    /// Remembers the division an execution used.
    pub fn set_split(&self, construct: &str, keys: &[String], split: &[u128]) {
        let mut cs = self.constructs.lock();
        cs.entry(construct.to_string()).or_default().split = Some((keys.to_vec(), split.to_vec()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(key: &str, units: u64, ms: u64) -> Observation {
        Observation {
            key: key.into(),
            units,
            busy: Duration::from_millis(ms),
        }
    }

    #[test]
    fn rates_are_averaged_over_executions_or_fixed_once() {
        let m = Model::default();
        let keys = vec!["device 0".to_string(), "device 1".to_string()];
        assert!(m.rates("a.c:3", &keys).is_none());
        m.learn(
            "a.c:3",
            &[obs("device 0", 100, 1000), obs("device 1", 50, 1000)],
            Learn::Always,
        );
        assert_eq!(m.rates("a.c:3", &keys), Some(vec![100.0, 50.0]));
        m.learn("a.c:3", &[obs("device 0", 300, 1000)], Learn::Always);
        assert_eq!(m.rates("a.c:3", &keys), Some(vec![200.0, 50.0]));
        m.learn("a.c:3", &[obs("device 0", 900, 1000)], Learn::Once);
        assert_eq!(m.rates("a.c:3", &keys), Some(vec![200.0, 50.0]));
        // An unmeasured resource gets half the slowest rate.
        let three = vec![keys[0].clone(), keys[1].clone(), "host".to_string()];
        assert_eq!(m.rates("a.c:3", &three), Some(vec![200.0, 50.0, 25.0]));
    }

    #[test]
    fn profiles_round_trip_and_bad_ones_are_reported() {
        let m = Model::default();
        m.learn(
            "f.c:10",
            &[obs("cpu 4", 8, 1000), obs("gpu 1", 16, 1000)],
            Learn::Always,
        );
        let text = m.profile_text();
        let n = Model::default();
        n.load(&text).expect("parses");
        let keys = vec!["gpu 1".to_string(), "cpu 4".to_string()];
        assert_eq!(n.rates("f.c:10", &keys), Some(vec![16.0, 8.0]));
        assert!(n
            .load("f.c:1\thost\tfast\n")
            .unwrap_err()
            .contains("line 1"));
        assert!(n.load("f.c:1 host 3\n").is_err());
        let path = std::env::temp_dir().join(format!("spread-profile-{}.txt", std::process::id()));
        std::fs::write(&path, "garbage\n").expect("write");
        let mut w = Vec::new();
        let _ = Model::new(
            Some(ProfileFile::Update(path.display().to_string())),
            &mut w,
        );
        let _ = std::fs::remove_file(&path);
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(
            ProfileFile::parse("record:x"),
            Some(ProfileFile::Record("x".into()))
        );
        assert_eq!(ProfileFile::parse(" "), None);
    }

    #[test]
    fn splits_are_remembered_per_resource_list() {
        let m = Model::default();
        let keys = vec!["a".to_string(), "b".to_string()];
        m.set_split("c", &keys, &[3, 1]);
        assert_eq!(m.last_split("c", &keys), Some(vec![3, 1]));
        assert_eq!(m.last_split("c", &keys[..1]), None);
    }
}
