use super::*;
use crate::api::{self, Side};
use crate::config::Config;

fn rt(devices: usize) -> Runtime {
    Runtime::new(Config::from_lookup(|k| match k {
        "SPREAD_HOST_DEVICES" => Some(devices.to_string()),
        "SPREAD_DEVICES" => Some("host".into()),
        _ => None,
    }))
}

/// The bytes of the data mapped for `host` (`len` bytes) on device `d`.
fn on_device(rt: &Runtime, d: usize, host: usize, len: usize) -> Option<Vec<u8>> {
    let slot = rt.device(d as i64).ok()?;
    let tgt = target_on(slot, host, len)?;
    let mut out = vec![0u8; len];
    api::memcpy(
        out.as_mut_ptr() as usize,
        tgt,
        len,
        Side::Host,
        Side::Device(slot),
    )
    .ok()?;
    Some(out)
}

fn refs(rt: &Runtime, d: usize, host: usize) -> Option<u64> {
    let slot = rt.device(d as i64).ok()?;
    let t = slot.table.lock();
    t.find_contained(host, 1).map(|e| e.total_refs())
}

#[test]
fn data_follows_its_migrations_and_comes_home() {
    let rt = rt(2);
    let reg = Registry::new();
    let mut data: Vec<u8> = (0..64).collect();
    let p = data.as_mut_ptr() as usize;
    reg.register(p, data.len()).expect("registers");
    assert_eq!(reg.placement(p + 10), Some(Place::Host));
    assert_eq!(reg.placement(p + 64), None, "one past the end");

    reg.migrate(&rt, p + 5, Place::Device(0))
        .expect("host -> 0");
    assert_eq!(reg.placement(p), Some(Place::Device(0)));
    assert_eq!(on_device(&rt, 0, p, 64).expect("mapped"), data);
    assert_eq!(refs(&rt, 0, p), Some(1));
    // A second migration to the same place moves nothing and takes no reference.
    reg.migrate(&rt, p, Place::Device(0)).expect("no-op");
    assert_eq!(refs(&rt, 0, p), Some(1));

    // The device copy changes (a kernel would); the host copy is stale meanwhile.
    let slot0 = rt.device(0).expect("exists");
    let t0 = target_on(slot0, p, 64).expect("mapped");
    let ones = vec![1u8; 64];
    api::memcpy(
        t0,
        ones.as_ptr() as usize,
        64,
        Side::Device(slot0),
        Side::Host,
    )
    .expect("copy");

    reg.migrate(&rt, p, Place::Device(1)).expect("0 -> 1");
    assert_eq!(reg.placement(p), Some(Place::Device(1)));
    assert_eq!(refs(&rt, 0, p), None, "released on device 0");
    assert_eq!(on_device(&rt, 1, p, 64).expect("mapped"), ones);
    assert_eq!(data[0], 0, "the host copy is untouched until it comes home");

    reg.migrate(&rt, p, Place::Host).expect("1 -> host");
    assert_eq!(refs(&rt, 1, p), None, "released on device 1");
    assert_eq!(data, ones);
    reg.unregister(&rt, p).expect("unregisters");
    assert_eq!(reg.placement(p), None);
}

#[test]
fn unregister_brings_the_data_home_first() {
    let rt = rt(1);
    let reg = Registry::new();
    let mut data = vec![7u32; 16];
    let p = data.as_mut_ptr() as usize;
    reg.register(p, 64).expect("registers");
    reg.migrate(&rt, p, Place::Device(0)).expect("host -> 0");
    let slot = rt.device(0).expect("exists");
    let t = target_on(slot, p, 64).expect("mapped");
    let nines = vec![9u32; 16];
    api::memcpy(
        t,
        nines.as_ptr() as usize,
        64,
        Side::Device(slot),
        Side::Host,
    )
    .expect("copy");
    reg.unregister(&rt, p).expect("unregisters");
    assert_eq!(data, nines);
    assert_eq!(refs(&rt, 0, p), None);
}

#[test]
fn a_program_mapping_finds_migrated_data_present() {
    let rt = rt(1);
    let reg = Registry::new();
    let mut data = vec![3u8; 32];
    let p = data.as_mut_ptr() as usize;
    reg.register(p, 32).expect("registers");
    reg.migrate(&rt, p, Place::Device(0)).expect("host -> 0");
    let slot = rt.device(0).expect("exists");
    // `map(tofrom:)` of a target region: present, so neither copy happens.
    slot.data_begin(&rt, &mut one_entry(p, 32, map::TO | map::FROM))
        .expect("maps");
    assert_eq!(refs(&rt, 0, p), Some(2));
    data[0] = 42; // a host write the device must not see
    slot.data_end(&rt, &one_entry(p, 32, map::TO | map::FROM))
        .expect("unmaps");
    assert_eq!(refs(&rt, 0, p), Some(1), "the placement's reference stays");
    assert_eq!(data[0], 42, "nothing copied back at the region's end");
    assert_eq!(on_device(&rt, 0, p, 32).expect("mapped")[0], 3);
}

#[test]
fn bad_requests_are_refused_with_a_reason() {
    let rt = rt(2);
    let reg = Registry::new();
    let mut data = vec![0u8; 100];
    let p = data.as_mut_ptr() as usize;
    assert!(reg.register(0, 8).is_err());
    assert!(reg.register(p, 0).is_err());
    reg.register(p + 10, 20).expect("registers");
    let m = reg.register(p + 25, 20).expect_err("overlaps").message;
    assert!(m.contains("overlaps the registered range"), "{m}");
    let m = reg.register(p, 11).expect_err("overlaps").message;
    assert!(m.contains("overlaps"), "{m}");
    reg.register(p, 10).expect("adjacent before");
    reg.register(p + 30, 10).expect("adjacent after");
    let m = reg
        .migrate(&rt, p + 50, Place::Device(0))
        .expect_err("unregistered")
        .message;
    assert!(m.contains("is not in a registered range"), "{m}");
    let m = reg
        .migrate(&rt, p + 10, Place::Device(2))
        .expect_err("no device 2")
        .message;
    assert!(m.contains("device 2 does not exist"), "{m}");
    let m = reg.unregister(&rt, p + 12).expect_err("inside").message;
    assert!(m.contains("not its start"), "{m}");
    assert!(reg.unregister(&rt, p + 50).is_err());
    assert_eq!(place_of(&rt, 2), Some(Place::Host));
    assert_eq!(place_of(&rt, -1), Some(Place::Host));
    assert_eq!(place_of(&rt, 1), Some(Place::Device(1)));
    assert_eq!(place_of(&rt, 3), None);
    assert_eq!(value(&rt, Place::Host), 2);
    drop(data);
}

#[test]
fn ranges_migrate_from_many_threads_at_once() {
    let rt = rt(2);
    let reg = Registry::new();
    let mut zones: Vec<Vec<u64>> = (0..8).map(|z| vec![z; 128]).collect();
    let ptrs: Vec<usize> = zones.iter_mut().map(|z| z.as_mut_ptr() as usize).collect();
    for &p in &ptrs {
        reg.register(p, 128 * 8).expect("registers");
    }
    std::thread::scope(|s| {
        for t in 0..4usize {
            let (reg, rt, ptrs) = (&reg, &rt, &ptrs);
            s.spawn(move || {
                for round in 0..6 {
                    for (z, &p) in ptrs.iter().enumerate() {
                        let to = match (z + t + round) % 3 {
                            0 => Place::Host,
                            d => Place::Device(d - 1),
                        };
                        reg.migrate(rt, p, to).expect("migrates");
                    }
                }
            });
        }
    });
    for &p in &ptrs {
        reg.unregister(&rt, p).expect("unregisters");
    }
    for (z, zone) in zones.iter().enumerate() {
        assert!(zone.iter().all(|&v| v == z as u64), "zone {z}");
    }
    assert!(rt.devices.iter().all(|d| d.table.lock().is_empty()));
}
