use super::*;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

fn servers(kinds: &[(Kind, u32)]) -> Vec<ServerSpec> {
    kinds
        .iter()
        .map(|&(kind, slots)| ServerSpec {
            kind,
            slots,
            max_running: u32::MAX,
        })
        .collect()
}

fn cand(server: usize, cost: u32) -> Candidate {
    Candidate {
        server,
        version: 0,
        cost,
        saved: 0.0,
    }
}

#[test]
fn tokens_bound_concurrency_and_come_back() {
    let d = Dispatcher::new(
        servers(&[(Kind::Host, 1)]),
        Pools::PerServer,
        Policy::Model,
        true,
    );
    let a = d.acquire(0, vec![cand(0, 40)]);
    let b = d.acquire(0, vec![cand(0, 40)]);
    // A third 40-token instance does not fit (80 + 40 > 100): it waits until one ends.
    let d = Arc::new(d);
    let d2 = Arc::clone(&d);
    let h = std::thread::spawn(move || d2.acquire(0, vec![cand(0, 40)]));
    std::thread::sleep(Duration::from_millis(50));
    assert!(!h.is_finished());
    d.release(0, &a, Duration::from_millis(1));
    let c = h.join().unwrap();
    assert_eq!(c.cand.server, 0);
    d.release(0, &b, Duration::from_millis(1));
    d.release(0, &c, Duration::from_millis(1));
    let t = &d.tallies()[0];
    assert_eq!(t.instances, 3);
    assert_eq!(t.max_tokens, 80);
    assert_eq!(t.max_running, 2);
}

#[test]
fn a_busy_server_sends_instances_elsewhere() {
    let d = Dispatcher::new(
        servers(&[(Kind::Nvidia, 4), (Kind::Host, 1)]),
        Pools::PerServer,
        Policy::Tokens,
        true,
    );
    let cands = || vec![cand(0, 50), cand(1, 60)];
    let a = d.acquire(0, cands());
    let b = d.acquire(0, cands());
    let c = d.acquire(0, cands());
    // The GPU first (accelerators on ties), then the least used pool: the host (0 of 100 in
    // use against the GPU's 50), then the GPU again (50 against the host's 60).
    assert_eq!([a.cand.server, b.cand.server, c.cand.server], [0, 1, 0]);
}

#[test]
fn global_pool_is_shared() {
    let d = Dispatcher::new(
        servers(&[(Kind::Cpu, 1), (Kind::Cpu, 1)]),
        Pools::Global,
        Policy::First,
        true,
    );
    let a = d.acquire(0, vec![cand(0, 60), cand(1, 60)]);
    assert_eq!(a.cand.server, 0);
    // 60 of the one pool are in use: 60 more fit nowhere until `a` ends.
    let d = Arc::new(d);
    let d2 = Arc::clone(&d);
    let h = std::thread::spawn(move || d2.acquire(0, vec![cand(0, 60), cand(1, 60)]));
    std::thread::sleep(Duration::from_millis(50));
    assert!(!h.is_finished());
    d.release(0, &a, Duration::from_millis(1));
    let b = h.join().unwrap();
    d.release(0, &b, Duration::from_millis(1));
}

#[test]
fn zero_cost_instances_use_slots() {
    let d = Dispatcher::new(
        servers(&[(Kind::Cpu, 2)]),
        Pools::PerServer,
        Policy::Model,
        true,
    );
    let a = d.acquire(0, vec![cand(0, 0)]);
    let b = d.acquire(0, vec![cand(0, 0)]);
    let d = Arc::new(d);
    let d2 = Arc::clone(&d);
    let h = std::thread::spawn(move || d2.acquire(0, vec![cand(0, 0)]));
    std::thread::sleep(Duration::from_millis(50));
    assert!(!h.is_finished());
    d.release(0, &a, Duration::ZERO);
    let c = h.join().unwrap();
    d.release(0, &b, Duration::ZERO);
    d.release(0, &c, Duration::ZERO);
    assert_eq!(d.tallies()[0].max_running, 2);
}

#[test]
fn an_idle_server_steals_a_queued_instance() {
    let d = Arc::new(Dispatcher::new(
        servers(&[(Kind::Cpu, 1), (Kind::Cpu, 1)]),
        Pools::PerServer,
        Policy::First,
        true,
    ));
    // Both busy; the next instance is assigned to server 0's queue (First).
    let a = d.acquire(0, vec![cand(0, 0), cand(1, 0)]);
    let b = d.acquire(0, vec![cand(1, 0)]);
    assert_eq!((a.cand.server, b.cand.server), (0, 1));
    let d2 = Arc::clone(&d);
    let h = std::thread::spawn(move || d2.acquire(0, vec![cand(0, 0), cand(1, 0)]));
    std::thread::sleep(Duration::from_millis(50));
    // Server 1 ends first: its queue is empty, so it takes the instance waiting for server 0.
    d.release(0, &b, Duration::ZERO);
    let c = h.join().unwrap();
    assert_eq!(c.cand.server, 1);
    assert!(c.stolen);
    assert_eq!(c.assigned, Some(0));
    d.release(0, &a, Duration::ZERO);
    d.release(0, &c, Duration::ZERO);
    assert_eq!(d.tallies()[1].stolen, 1);
}

#[test]
fn without_stealing_an_instance_waits_for_its_server() {
    let d = Arc::new(Dispatcher::new(
        servers(&[(Kind::Cpu, 1), (Kind::Cpu, 1)]),
        Pools::PerServer,
        Policy::First,
        false,
    ));
    let a = d.acquire(0, vec![cand(0, 0), cand(1, 0)]);
    let b = d.acquire(0, vec![cand(1, 0)]);
    let d2 = Arc::clone(&d);
    let h = std::thread::spawn(move || d2.acquire(0, vec![cand(0, 0), cand(1, 0)]));
    std::thread::sleep(Duration::from_millis(50));
    d.release(0, &b, Duration::ZERO);
    std::thread::sleep(Duration::from_millis(50));
    assert!(!h.is_finished());
    d.release(0, &a, Duration::ZERO);
    let c = h.join().unwrap();
    assert_eq!((c.cand.server, c.stolen), (0, false));
    d.release(0, &c, Duration::ZERO);
}

#[test]
fn the_model_tries_every_server_then_prefers_the_fast_one() {
    let d = Dispatcher::new(
        servers(&[(Kind::Cpu, 1), (Kind::Cpu, 1)]),
        Pools::PerServer,
        Policy::Model,
        true,
    );
    let both = || vec![cand(0, 0), cand(1, 0)];
    let a = d.acquire(7, both());
    d.release(7, &a, Duration::from_millis(10));
    let b = d.acquire(7, both());
    assert_ne!(a.cand.server, b.cand.server, "the untried server is tried");
    let (slow, fast) = if a.cand.server == 0 { (a, b) } else { (b, a) };
    d.release(
        7,
        &b,
        if b.cand.server == slow.cand.server {
            Duration::from_millis(40)
        } else {
            Duration::from_millis(1)
        },
    );
    let _ = fast;
    let c = d.acquire(7, both());
    let fastest = if d.mean_time(7, 0).unwrap() < d.mean_time(7, 1).unwrap() {
        0
    } else {
        1
    };
    assert_eq!(c.cand.server, fastest);
    d.release(7, &c, Duration::ZERO);
}

#[test]
fn many_threads_never_exceed_the_tokens() {
    let d = Arc::new(Dispatcher::new(
        servers(&[(Kind::Nvidia, 4), (Kind::Host, 1)]),
        Pools::PerServer,
        Policy::Model,
        true,
    ));
    let in_use = Arc::new([AtomicU32::new(0), AtomicU32::new(0)]);
    let worst = Arc::new([AtomicU32::new(0), AtomicU32::new(0)]);
    let costs = [30u32, 45];
    let hs: Vec<_> = (0..8)
        .map(|_| {
            let (d, in_use, worst) = (Arc::clone(&d), Arc::clone(&in_use), Arc::clone(&worst));
            std::thread::spawn(move || {
                for _ in 0..40 {
                    let g = d.acquire(1, vec![cand(0, costs[0]), cand(1, costs[1])]);
                    let s = g.cand.server;
                    let now = in_use[s].fetch_add(costs[s], Ordering::SeqCst) + costs[s];
                    worst[s].fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_micros(200));
                    in_use[s].fetch_sub(costs[s], Ordering::SeqCst);
                    d.release(1, &g, Duration::from_micros(200));
                }
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    for s in 0..2 {
        assert!(worst[s].load(Ordering::SeqCst) <= POOL, "server {s}");
    }
    let t = d.tallies();
    assert_eq!(t[0].instances + t[1].instances, 8 * 40);
    assert!(t[0].max_tokens <= 90 && t[1].max_tokens <= 90);
}

#[test]
fn acquire_with_finishes_own_instances_and_misses_no_grant() {
    // One slot, held by an instance the waiting thread itself started: the waiter's progress
    // releases it. Reporting no progress must not make the waiter miss the grant that the
    // release made while the dispatcher's lock was let go.
    for reported in [true, false] {
        let d = Dispatcher::new(
            servers(&[(Kind::Host, 1)]),
            Pools::PerServer,
            Policy::First,
            true,
        );
        let held = std::sync::Mutex::new(Some(d.acquire(0, vec![cand(0, 100)])));
        let calls = AtomicU32::new(0);
        let g = d.acquire_with(0, vec![cand(0, 100)], &|| {
            calls.fetch_add(1, Ordering::SeqCst);
            match held.lock().unwrap().take() {
                Some(a) => {
                    d.release(0, &a, Duration::from_millis(1));
                    reported
                }
                None => false,
            }
        });
        assert_eq!(g.cand.server, 0);
        assert!(calls.load(Ordering::SeqCst) >= 1);
        d.release(0, &g, Duration::from_millis(1));
        assert_eq!(d.tallies()[0].instances, 2);
    }
}

/// Measures `site` at `fast` and `slow` ms on servers 0 and 1 (two instances each: the model
/// trusts a server's time once it ran more than its first).
fn measured(d: &Dispatcher, site: usize, fast: u64, slow: u64) {
    for _ in 0..2 {
        for (server, ms) in [(0, fast), (1, slow)] {
            let g = d.acquire(site, vec![cand(server, 0)]);
            d.release(site, &g, Duration::from_millis(ms));
        }
    }
}

#[test]
fn a_server_slow_only_on_its_first_instance_is_measured_again() {
    let d = Arc::new(Dispatcher::new(
        servers(&[(Kind::Host, 1), (Kind::Cpu, 1)]),
        Pools::PerServer,
        Policy::Model,
        true,
    ));
    let both = || vec![cand(0, 0), cand(1, 0)];
    // Server 0 10 ms; server 1's first instance 40 ms (its first use), then 8 ms.
    let a = d.acquire(5, both());
    let b = d.acquire(5, both());
    let took = |g: &Grant, first: bool| {
        Duration::from_millis(match (g.cand.server, first) {
            (0, _) => 10,
            (_, true) => 40,
            (_, false) => 8,
        })
    };
    d.release(5, &a, took(&a, true));
    d.release(5, &b, took(&b, true));
    // Server 0 busy: the one measurement of server 1 does not make the next instance wait.
    let c = d.acquire(5, both());
    assert_eq!(c.cand.server, 0);
    let d2 = Arc::clone(&d);
    let h = std::thread::spawn(move || d2.acquire(5, vec![cand(0, 0), cand(1, 0)]));
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while !h.is_finished() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        h.is_finished(),
        "the instance waits for busy server 0 instead of measuring server 1 again"
    );
    let e = h.join().unwrap();
    assert_eq!(e.cand.server, 1, "server 1 gets a second instance");
    d.release(5, &e, took(&e, false));
    assert_eq!(
        d.mean_time(5, 1),
        Some(0.008),
        "the second time replaces the first"
    );
    d.release(5, &c, took(&c, false));
    // Now measured faster than server 0: the model prefers it.
    let f = d.acquire(5, both());
    assert_eq!(f.cand.server, 1);
    d.release(5, &f, took(&f, false));
}

#[test]
fn the_model_waits_for_a_busy_server_that_ends_sooner() {
    let d = Arc::new(Dispatcher::new(
        servers(&[(Kind::Host, 1), (Kind::Cpu, 1)]),
        Pools::PerServer,
        Policy::Model,
        true,
    ));
    // Server 0 takes 10 ms an instance, server 1 takes 40.
    measured(&d, 3, 10, 40);
    let both = || vec![cand(0, 0), cand(1, 0)];
    let a = d.acquire(3, both());
    assert_eq!(a.cand.server, 0);
    // Server 0 is busy, server 1 free, but 0 ends the next one in about 20 ms against 40: wait.
    let d2 = Arc::clone(&d);
    let h = std::thread::spawn(move || d2.acquire(3, vec![cand(0, 0), cand(1, 0)]));
    std::thread::sleep(Duration::from_millis(50));
    assert!(!h.is_finished(), "the instance went to the slow server");
    d.release(3, &a, Duration::from_millis(10));
    let b = h.join().unwrap();
    assert_eq!((b.cand.server, b.stolen), (0, false));
    // With two ahead on server 0 (about 30 ms) server 1's 40 ms is still later: the third
    // instance waits too, and server 1, idle, does not steal it (it would end it later).
    let c = {
        let d3 = Arc::clone(&d);
        let h = std::thread::spawn(move || d3.acquire(3, vec![cand(0, 0), cand(1, 0)]));
        std::thread::sleep(Duration::from_millis(50));
        assert!(!h.is_finished());
        d.release(3, &b, Duration::from_millis(10));
        h.join().unwrap()
    };
    assert_eq!((c.cand.server, c.stolen), (0, false));
    d.release(3, &c, Duration::from_millis(10));
    assert_eq!(
        d.tallies()[1].instances,
        2,
        "only the measuring instances ran on server 1"
    );
}

/// Servers of two instances placed at once on a model dispatcher over `kinds` (one slot each),
/// after one instance measured `fast` ms on server 0 and `slow` ms on server 1.
fn two_at_once(kinds: [Kind; 2], fast: u64, slow: u64) -> (usize, usize) {
    let d = Dispatcher::new(
        servers(&[(kinds[0], 1), (kinds[1], 1)]),
        Pools::PerServer,
        Policy::Model,
        true,
    );
    measured(&d, 4, fast, slow);
    let both = || vec![cand(0, 0), cand(1, 0)];
    let a = d.acquire(4, both());
    let b = d.acquire(4, both());
    d.release(4, &a, Duration::ZERO);
    d.release(4, &b, Duration::ZERO);
    (a.cand.server, b.cand.server)
}

#[test]
fn a_free_server_starts_an_instance_when_waiting_gains_nothing() {
    // Server 0 busy would end the next one in about 20 ms, free server 1 in 12: start there.
    assert_eq!(two_at_once([Kind::Host, Kind::Cpu], 10, 12), (0, 1));
    // Server 1 measured four times slower, but it is of server 0's kind (say, it waited for
    // the others): no waiting either.
    assert_eq!(two_at_once([Kind::Cpu, Kind::Cpu], 10, 40), (0, 1));
}

#[test]
fn a_follower_takes_over_the_tokens_before_a_waiting_instance() {
    let d = Arc::new(Dispatcher::new(
        servers(&[(Kind::Host, 1)]),
        Pools::PerServer,
        Policy::Model,
        true,
    ));
    let head = d.acquire(0, vec![cand(0, 100)]);
    // Placed at once, holding nothing while the head runs.
    let follower = d.follow(cand(0, 100));
    assert_eq!(d.running(), 1, "the follower holds nothing yet");
    let d2 = Arc::clone(&d);
    let waiting = std::thread::spawn(move || d2.acquire(0, vec![cand(0, 100)]));
    std::thread::sleep(Duration::from_millis(50));
    assert!(!waiting.is_finished());
    // The head ends: its tokens go to the follower, not to the waiting instance.
    d.release_with(
        0,
        &head,
        Release::Held(Duration::from_millis(1)),
        &[follower],
    );
    std::thread::sleep(Duration::from_millis(50));
    assert!(!waiting.is_finished(), "the follower holds the tokens now");
    assert_eq!(d.running(), 1);
    // The follower ends: its time is not measured as the site's.
    d.release_with(1, &follower, Release::Followed(Duration::from_secs(5)), &[]);
    let w = waiting.join().unwrap();
    assert_eq!(d.mean_time(1, 0), None, "a follower's time is not measured");
    d.release(0, &w, Duration::from_millis(1));
    assert_eq!(d.running(), 0);
    assert_eq!(d.tallies()[0].instances, 3);
}

#[test]
fn a_follower_that_ends_before_its_head_gives_back_nothing() {
    let d = Dispatcher::new(
        servers(&[(Kind::Host, 1)]),
        Pools::PerServer,
        Policy::Model,
        true,
    );
    let head = d.acquire(0, vec![cand(0, 60)]);
    let follower = d.follow(cand(0, 60));
    d.release_with(
        0,
        &follower,
        Release::Nothing(Duration::from_millis(1)),
        &[],
    );
    assert_eq!(d.running(), 1, "the head still holds its tokens");
    // 60 + 40 fits only while the head holds its 60 alone.
    let other = d.acquire(0, vec![cand(0, 40)]);
    d.release(0, &head, Duration::from_millis(1));
    d.release(0, &other, Duration::from_millis(1));
    assert_eq!(d.running(), 0);
}
