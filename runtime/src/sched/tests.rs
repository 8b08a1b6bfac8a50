use super::*;
use std::sync::Arc;

fn res(keys: &[&str]) -> Vec<Resource> {
    keys.iter()
        .map(|k| Resource {
            key: k.to_string(),
            inline: *k == "host",
        })
        .collect()
}

fn spec(kind: Kind, chunk: i64) -> Spec {
    Spec { kind, chunk }
}

const PUSH: Mode = Mode::Push { observed: true };

/// Every unit of a push scheduler, completing each at once.
fn push_all(s: &Scheduler) -> Vec<Unit> {
    let mut v = Vec::new();
    while let Some(u) = s.pick() {
        s.complete(u, Duration::from_micros(1));
        v.push(u);
    }
    v
}

/// Every unit of a pull scheduler, resources asking in turn.
fn pull_all(s: &Scheduler, n: usize) -> Vec<Unit> {
    let mut v = Vec::new();
    let mut live: Vec<usize> = (0..n).collect();
    while !live.is_empty() {
        live.retain(|&r| match s.next_for(r) {
            Some(u) => {
                s.complete(u, Duration::from_micros(1));
                v.push(u);
                true
            }
            None => false,
        });
    }
    v
}

/// The units cover `[lb, ub)` exactly once.
fn assert_cover(units: &[Unit], lb: i64, ub: i64) {
    let mut sorted: Vec<(i64, i64)> = units.iter().map(|u| (u.lo, u.hi)).collect();
    sorted.sort();
    let mut at = lb;
    for (lo, hi) in sorted {
        assert_eq!(lo, at, "gap or overlap at {at}: {units:?}");
        assert!(hi > lo, "empty unit {lo}");
        at = hi;
    }
    assert_eq!(at, ub.max(lb), "{units:?}");
}

#[test]
fn every_policy_covers_the_range_once_in_both_modes() {
    let m = Model::default();
    for kind in [Kind::Static, Kind::Dynamic, Kind::Adaptive, Kind::StaticOpt] {
        for chunk in [0, 1, 3, 7, 1000] {
            for (lb, ub) in [
                (0, 0),
                (5, 3),
                (0, 1),
                (0, 10),
                (-7, 93),
                (i64::MAX - 20, i64::MAX),
            ] {
                for n in [1, 2, 3, 4] {
                    let keys: Vec<String> = (0..n).map(|i| format!("device {i}")).collect();
                    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
                    let s = Scheduler::new(
                        &m,
                        "t.c:1",
                        spec(kind, chunk),
                        (lb, ub),
                        res(&keys),
                        PUSH,
                        2,
                    );
                    assert_cover(&push_all(&s), lb, ub);
                    let s = Scheduler::new(
                        &m,
                        "t.c:2",
                        spec(kind, chunk),
                        (lb, ub),
                        res(&keys),
                        Mode::Pull,
                        1,
                    );
                    assert_cover(&pull_all(&s, n), lb, ub);
                }
            }
        }
    }
}

#[test]
fn static_push_is_seed_000s_rule() {
    let m = Model::default();
    let s = Scheduler::new(
        &m,
        "t.c:1",
        spec(Kind::Static, 4),
        (1, 13),
        res(&["a", "b", "c"]),
        PUSH,
        1,
    );
    let got: Vec<(i64, i64, usize)> = push_all(&s)
        .iter()
        .map(|u| (u.lo, u.hi, u.resource))
        .collect();
    assert_eq!(got, vec![(1, 5, 0), (5, 9, 1), (9, 13, 2)]);
    // Pull mode deals the same chunks to the same resources.
    let s = Scheduler::new(
        &m,
        "t.c:1",
        spec(Kind::Static, 2),
        (1, 13),
        res(&["a", "b", "c"]),
        Mode::Pull,
        1,
    );
    let mut got: Vec<(i64, usize)> = pull_all(&s, 3).iter().map(|u| (u.lo, u.resource)).collect();
    got.sort();
    assert_eq!(got, vec![(1, 0), (3, 1), (5, 2), (7, 0), (9, 1), (11, 2)]);
    // Without a chunk: one even block each, the first ones larger.
    let s = Scheduler::new(
        &m,
        "t.c:1",
        spec(Kind::Static, 0),
        (0, 10),
        res(&["a", "b", "c"]),
        Mode::Pull,
        1,
    );
    let mut got: Vec<(i64, i64, usize)> = pull_all(&s, 3)
        .iter()
        .map(|u| (u.lo, u.hi, u.resource))
        .collect();
    got.sort();
    assert_eq!(got, vec![(0, 4, 0), (4, 7, 1), (7, 10, 2)]);
}

#[test]
fn huge_ranges_are_dealt_lazily() {
    let m = Model::default();
    for kind in [Kind::Static, Kind::Dynamic, Kind::Adaptive] {
        let s = Scheduler::new(
            &m,
            "big",
            spec(kind, 1),
            (0, 1 << 40),
            res(&["a", "b"]),
            Mode::Pull,
            1,
        );
        for i in 0..1000 {
            let u = s.next_for(i % 2).expect("more");
            assert_eq!(u.hi - u.lo, 1);
        }
        let s = Scheduler::new(
            &m,
            "big",
            spec(kind, 1),
            (0, 1 << 40),
            res(&["a", "b"]),
            PUSH,
            1,
        );
        for _ in 0..1000 {
            let u = s.pick().expect("more");
            s.complete(u, Duration::ZERO);
        }
    }
}

#[test]
fn push_dynamic_waits_for_room_and_prefers_devices_over_the_host() {
    let m = Model::default();
    let s = Arc::new(Scheduler::new(
        &m,
        "d",
        spec(Kind::Dynamic, 1),
        (0, 100),
        res(&["device 0", "host"]),
        PUSH,
        1,
    ));
    // The device takes MAX_IN_FLIGHT units, then the host (inline) takes the next.
    let a = s.pick().expect("unit");
    let b = s.pick().expect("unit");
    assert_eq!((a.resource, b.resource), (0, 0));
    let c = s.pick().expect("unit");
    assert_eq!(c.resource, 1);
    s.complete(c, Duration::ZERO);
    // Without the host, a full device makes `pick` wait until a unit completes.
    let s = Arc::new(Scheduler::new(
        &m,
        "d",
        spec(Kind::Dynamic, 1),
        (0, 100),
        res(&["device 0"]),
        PUSH,
        1,
    ));
    let a = s.pick().expect("unit");
    let _b = s.pick().expect("unit");
    let s2 = s.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        s2.complete(a, Duration::from_millis(20));
    });
    let started = Instant::now();
    let c = s.pick().expect("unit after room");
    assert!(started.elapsed() >= Duration::from_millis(15));
    assert_eq!(c.lo, 2);
    t.join().expect("thread");
}

#[test]
fn unobserved_dynamic_deals_round_robin() {
    let m = Model::default();
    let s = Scheduler::new(
        &m,
        "d",
        spec(Kind::Dynamic, 2),
        (0, 8),
        res(&["a", "b"]),
        Mode::Push { observed: false },
        1,
    );
    assert_eq!(s.effective(), Kind::Static);
    let got: Vec<usize> = std::iter::from_fn(|| s.pick())
        .map(|u| u.resource)
        .collect();
    assert_eq!(got, vec![0, 1, 0, 1]);
}

#[test]
fn pull_dynamic_gives_a_faster_resource_more_units() {
    let m = Model::default();
    let s = Arc::new(Scheduler::new(
        &m,
        "f",
        spec(Kind::Dynamic, 1),
        (0, 60),
        res(&["fast", "slow"]),
        Mode::Pull,
        1,
    ));
    let count = |r: usize, pause: u64| {
        let s = s.clone();
        std::thread::spawn(move || {
            let mut n = 0;
            while let Some(u) = s.next_for(r) {
                std::thread::sleep(Duration::from_millis(pause));
                s.complete(u, Duration::from_millis(pause));
                n += 1;
            }
            n
        })
    };
    let (f, sl) = (count(0, 1), count(1, 10));
    let (f, sl) = (f.join().expect("fast"), sl.join().expect("slow"));
    assert_eq!(f + sl, 60);
    assert!(f > 3 * sl, "fast {f} slow {sl}");
}

#[test]
fn adaptive_measures_first_then_deals_blocks_in_proportion_and_keeps_them() {
    let m = Model::default();
    let keys = res(&["device 0", "device 1"]);
    let s = Scheduler::new(
        &m,
        "a.c:5",
        spec(Kind::Adaptive, 0),
        (0, 3000),
        keys.clone(),
        Mode::Pull,
        1,
    );
    assert_eq!(s.effective(), Kind::Dynamic);
    // Resource 0 runs twice as fast as resource 1.
    let mut live = [true, true];
    while live.iter().any(|&l| l) {
        for (r, alive) in live.iter_mut().enumerate() {
            if !*alive {
                continue;
            }
            match s.next_for(r) {
                Some(u) => {
                    let per = if r == 0 { 1 } else { 2 };
                    s.complete(u, Duration::from_micros(per * (u.hi - u.lo) as u64));
                }
                None => *alive = false,
            }
        }
    }
    s.finish(&m);
    let blocks = |m: &Model| {
        let s = Scheduler::new(
            m,
            "a.c:5",
            spec(Kind::Adaptive, 0),
            (0, 3000),
            keys.clone(),
            PUSH,
            1,
        );
        assert_eq!(s.effective(), Kind::Adaptive);
        let mut v = push_all(&s);
        v.sort_by_key(|u| u.lo);
        v.iter()
            .map(|u| (u.lo, u.hi, u.resource))
            .collect::<Vec<_>>()
    };
    let first = blocks(&m);
    assert_eq!(first, vec![(0, 2000, 0), (2000, 3000, 1)]);
    // A small change of rates keeps the blocks where they were.
    m.learn(
        "a.c:5",
        &[model::Observation {
            key: "device 1".into(),
            units: 1030,
            busy: Duration::from_micros(2000),
        }],
        Learn::Always,
    );
    assert_eq!(blocks(&m), first);
}

#[test]
fn static_opt_keeps_its_first_division_for_good() {
    let m = Model::default();
    let keys = res(&["gpu 1", "cpu 4"]);
    m.learn(
        "z.c:9",
        &[
            Observation {
                key: "gpu 1".into(),
                units: 10,
                busy: Duration::from_millis(10),
            },
            Observation {
                key: "cpu 4".into(),
                units: 1,
                busy: Duration::from_millis(10),
            },
        ],
        Learn::Once,
    );
    let deal = |m: &Model| {
        let s = Scheduler::new(
            m,
            "z.c:9",
            spec(Kind::StaticOpt, 1),
            (0, 16),
            keys.clone(),
            Mode::Pull,
            1,
        );
        let mut v = pull_all(&s, 2);
        v.sort_by_key(|u| u.lo);
        let owners: Vec<usize> = v.iter().map(|u| u.resource).collect();
        s.finish(m);
        owners
    };
    let first = deal(&m);
    // 10:1 → the CPU CU gets one or two zones, at the end, contiguous.
    assert_eq!(first.iter().filter(|&&r| r == 1).count(), 1, "{first:?}");
    assert_eq!(first.last(), Some(&1));
    assert_eq!(deal(&m), first);
}

#[test]
fn spec_parses_the_environment_form() {
    assert_eq!(Spec::parse("dynamic,4"), Some(spec(Kind::Dynamic, 4)));
    assert_eq!(Spec::parse(" adaptive "), Some(spec(Kind::Adaptive, 0)));
    assert_eq!(Spec::parse("static_opt"), Some(spec(Kind::StaticOpt, 0)));
    assert_eq!(Spec::parse("guided"), None);
    assert_eq!(Spec::parse("dynamic,0"), None);
    assert_eq!(Spec::parse("dynamic,x"), None);
    assert_eq!(Kind::from_code(3), Ok(Some(Kind::Adaptive)));
    assert_eq!(Kind::from_code(0), Ok(None));
    assert_eq!(Kind::from_code(9), Err(9));
}
