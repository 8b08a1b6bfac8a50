use super::*;
use crate::config::Config;
use crate::cu::layout::{evaluate, FAMILY_CPU, FAMILY_GPU};
use crate::cu::queries::view;

fn rt(devices: usize, cu_devices: Option<&str>) -> Runtime {
    let cu = cu_devices.map(str::to_string);
    Runtime::new(Config::from_lookup(move |k| match k {
        "SPREAD_HOST_DEVICES" => Some(devices.to_string()),
        "SPREAD_DEVICES" => Some("host".into()),
        "SPREAD_CU_DEVICES" => cu.clone(),
        _ => None,
    }))
}

fn construct(line: i32) -> Construct {
    Construct {
        file: "zones.c".into(),
        line,
        kind: 8,
        flags: 0,
        schedule: 0,
    }
}

fn cpu(count: i32, size: i32) -> Descriptor {
    Descriptor {
        count,
        family: FAMILY_CPU,
        size,
    }
}

fn gpu(count: i32, size: i32) -> Descriptor {
    Descriptor {
        count,
        family: FAMILY_GPU,
        size,
    }
}

fn limits(thread_limit: i32, num_devices: usize, list: Option<&[i32]>) -> Limits<'_> {
    Limits {
        thread_limit,
        num_devices,
        cu_devices: list,
    }
}

fn err(cuds: &[Descriptor], l: Limits<'_>) -> String {
    evaluate("teams at zones.c:9", cuds, l)
        .expect_err("refused")
        .message
}

#[test]
fn cpu_cus_come_first_then_gpu_cus_in_descriptor_order() {
    // The paper's 2::GPU::1 written before 2::CPU::4, plus one more CPU descriptor.
    let l = evaluate(
        "teams at zones.c:9",
        &[gpu(2, 1), cpu(2, 4), cpu(1, 8)],
        limits(0, 4, None),
    )
    .expect("valid");
    assert_eq!((l.num_cpus, l.num_gpus), (3, 2));
    let kinds: Vec<String> = l.cus.iter().map(|c| c.model_key()).collect();
    assert_eq!(kinds, ["cpu 4", "cpu 4", "cpu 8", "gpu 1", "gpu 1"]);
    assert_eq!(
        l.cus.iter().map(|c| c.id).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4]
    );
    assert_eq!(l.cus[3].devices(), [0]);
    assert_eq!(l.cus[4].devices(), [1]);
    assert_eq!(l.cus[4].describe(), "gpu device 1");
}

#[test]
fn gpu_cus_own_consecutive_devices_of_the_cu_device_list() {
    let list = [3, 1, 2, 0];
    let l = evaluate(
        "teams at zones.c:9",
        &[gpu(2, 2)],
        limits(0, 4, Some(&list)),
    )
    .expect("valid");
    assert_eq!(l.cus[0].devices(), [3, 1]);
    assert_eq!(l.cus[1].devices(), [2, 0]);
    assert_eq!(l.cus[1].describe(), "gpu devices 2,0");
    assert_eq!(l.cus[1].model_key(), "gpu 2");
}

#[test]
fn thread_limit_caps_the_cpus_of_each_cpu_cu() {
    let l = evaluate(
        "teams at zones.c:9",
        &[cpu(1, 16), cpu(1, 2)],
        limits(4, 0, None),
    )
    .expect("valid");
    assert_eq!(l.cus[0].kind, layout::Kind::Cpu { cpus: 4 });
    assert_eq!(l.cus[1].kind, layout::Kind::Cpu { cpus: 2 });
}

#[test]
fn impossible_configurations_name_the_construct_and_the_cause() {
    let m = err(&[], limits(0, 4, None));
    assert!(
        m.contains("teams at zones.c:9 defines no compute units"),
        "{m}"
    );
    let m = err(&[cpu(0, 4)], limits(0, 4, None));
    assert!(
        m.contains("CU descriptor 1 (0:CPU:4) of the teams at zones.c:9 defines 0 compute units"),
        "{m}"
    );
    let m = err(&[cpu(2, 4), cpu(1, 0)], limits(0, 4, None));
    assert!(
        m.contains("CU descriptor 2 (1:CPU:0)") && m.contains("0 CPUs"),
        "{m}"
    );
    let m = err(
        &[Descriptor {
            count: 1,
            family: 3,
            size: 1,
        }],
        limits(0, 4, None),
    );
    assert!(m.contains("unknown family (code 3)"), "{m}");
    let m = err(&[cpu(1, 1), gpu(3, 1)], limits(0, 2, None));
    assert!(
        m.contains("needs 3 offload devices for its GPU compute units, but the runtime has 2"),
        "{m}"
    );
    let m = err(&[gpu(2, 2)], limits(0, 2, None));
    assert!(m.contains("needs 4 offload devices"), "{m}");
    let m = err(&[gpu(2, 1)], limits(0, 4, Some(&[1])));
    assert!(m.contains("SPREAD_CU_DEVICES lists 1"), "{m}");
    let m = err(&[gpu(1, 1)], limits(0, 2, Some(&[5])));
    assert!(
        m.contains("would own device 5, which does not exist"),
        "{m}"
    );
    let m = err(&[cpu(1, 1)], limits(-1, 2, None));
    assert!(m.contains("thread_limit(-1)"), "{m}");
    let m = err(&[cpu(i32::MAX, 1), cpu(i32::MAX, 1)], limits(0, 2, None));
    assert!(m.contains("defines 4294967294 compute units"), "{m}");
}

#[test]
fn schedules_default_to_one_task_per_unit_except_static() {
    let s = |code, chunk, d| spec_of(code, chunk, d).expect("known");
    assert_eq!(
        s(0, 0, None),
        Spec {
            kind: Kind::Static,
            chunk: 0
        }
    );
    assert_eq!(s(2, 0, None).chunk, 1);
    assert_eq!(s(4, 0, None).chunk, 1);
    assert_eq!(s(2, 3, None).chunk, 3);
    let env = Spec::parse("dynamic,5");
    assert_eq!(
        s(0, 0, env),
        Spec {
            kind: Kind::Dynamic,
            chunk: 5
        }
    );
    // A clause's kind replaces the environment's, chunk included.
    assert_eq!(s(1, 0, env).chunk, 0);
    assert_eq!(spec_of(9, 0, None), Err(9));
}

#[test]
fn region_errors_name_the_construct() {
    let rt = rt(2, None);
    let model = Model::default();
    let new = |cuds: &[Descriptor], range, chunk, code| {
        CuRegion::new(
            &rt,
            &model,
            Construct {
                schedule: code,
                ..construct(12)
            },
            range,
            cuds,
            chunk,
            0,
        )
        .map(|_| ())
    };
    let m = new(&[cpu(1, 1), gpu(3, 1)], (0, 8), 0, 0)
        .expect_err("too many")
        .message;
    assert!(
        m.contains("teams at zones.c:12 needs 3 offload devices"),
        "{m}"
    );
    let m = new(&[cpu(1, 1)], (i64::MIN, i64::MAX), 0, 0)
        .expect_err("huge")
        .message;
    assert!(m.contains("more iterations than an int64_t counts"), "{m}");
    let m = new(&[cpu(1, 1)], (0, 8), -2, 0).expect_err("chunk").message;
    assert!(
        m.contains("chunk size -2 of the teams at zones.c:12"),
        "{m}"
    );
    let m = new(&[cpu(1, 1)], (0, 8), 0, 7)
        .expect_err("schedule")
        .message;
    assert!(m.contains("unknown dist_schedule kind (code 7)"), "{m}");
    new(&[cpu(1, 1), gpu(2, 1)], (0, 8), 0, 0).expect("fits");
}

/// Every CU pulls until it gets nothing; returns the iterations each CU got, in order.
fn drain(r: &CuRegion) -> Vec<Vec<i64>> {
    let rt = rt(2, None);
    let mut got = vec![Vec::new(); r.num_threads()];
    let mut live: Vec<usize> = (0..r.num_threads()).collect();
    while !live.is_empty() {
        live.retain(|&cu| match r.next(cu) {
            Some(u) => {
                got[cu].extend(u.lo..u.hi);
                r.commit(&rt, cu);
                true
            }
            None => false,
        });
    }
    got
}

#[test]
fn every_schedule_hands_out_every_task_exactly_once() {
    let rt = rt(2, None);
    let model = Model::default();
    for code in 1..=4 {
        for round in 0..2 {
            let r = CuRegion::new(
                &rt,
                &model,
                Construct {
                    schedule: code,
                    ..construct(20 + code)
                },
                (3, 40),
                &[cpu(2, 2), gpu(2, 1)],
                0,
                0,
            )
            .expect("valid");
            let got = drain(&r);
            let mut all: Vec<i64> = got.concat();
            all.sort_unstable();
            assert_eq!(
                all,
                (3..40).collect::<Vec<_>>(),
                "schedule {code} round {round}"
            );
            let stats = r.finish(&model);
            assert_eq!(stats.iter().map(|s| s.tally.iterations).sum::<u64>(), 37);
            if code == 1 {
                // static: one contiguous block per CU, the first 37 % 4 one longer.
                assert_eq!(got.iter().map(Vec::len).collect::<Vec<_>>(), [10, 9, 9, 9]);
                assert_eq!(stats[0].tally.units, 1);
            }
            if code == 2 {
                // dynamic: one task per unit.
                assert_eq!(stats.iter().map(|s| s.tally.units).sum::<u64>(), 37);
            }
        }
    }
}

#[test]
fn cu_views_follow_table_2_and_default_to_one_host_cu() {
    let l = evaluate(
        "teams at zones.c:9",
        &[cpu(2, 4), gpu(2, 1)],
        limits(0, 2, None),
    )
    .expect("valid");
    let c1 = view(Some((&l, 1)), 0);
    assert_eq!(
        (c1.num_cus, c1.num_cpus, c1.num_gpus, c1.cu_num),
        (4, 2, 2, 1)
    );
    assert!(c1.is_cpu && !c1.is_gpu);
    assert_eq!((c1.cpu, c1.gpu, c1.cu_num_cpus), (1, u32::MAX, 4));
    let g = view(Some((&l, 3)), 0);
    assert!(g.is_gpu && !g.is_cpu);
    assert_eq!((g.cu_num, g.cpu, g.gpu, g.cu_num_cpus), (3, u32::MAX, 1, 1));
    let outside = view(None, 6);
    assert_eq!(
        (
            outside.num_cus,
            outside.num_cpus,
            outside.num_gpus,
            outside.cu_num
        ),
        (1, 1, 0, 0)
    );
    assert!(outside.is_cpu && !outside.is_gpu);
    assert_eq!(
        (outside.cpu, outside.gpu, outside.cu_num_cpus),
        (0, u32::MAX, 6)
    );
}

/// The one test of the process-wide active region (tests run in parallel): begin, one CU
/// (without libomp the test thread is thread 0 of a team of 1), nested begin refused, end.
#[test]
fn one_active_region_binds_its_cu_threads() {
    let rt = rt(2, None);
    assert!(current().is_none());
    let h = begin(
        &rt,
        Construct {
            schedule: 2,
            ..construct(30)
        },
        (0, 5),
        &[cpu(1, 2)],
        0,
        0,
    )
    .expect("begins");
    assert_eq!(num_threads(h).expect("active"), 1);
    assert!(next(h).is_err(), "not entered yet");
    enter(h).expect("enters");
    let (r, cu) = current().expect("bound");
    assert_eq!((r.at.as_str(), cu), ("zones.c:30", 0));
    let m = begin(&rt, construct(31), (0, 5), &[cpu(1, 2)], 0, 0)
        .expect_err("nested")
        .message;
    assert!(
        m.contains("teams at zones.c:31 begins inside a compute unit of the teams at zones.c:30"),
        "{m}"
    );
    let mut tasks = Vec::new();
    while let Some(u) = next(h).expect("bound") {
        tasks.push((u.lo, u.hi));
        commit(&rt, h).expect("bound");
    }
    assert_eq!(tasks, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]);
    leave(h).expect("bound");
    assert!(current().is_none());
    assert!(end(&rt, h + 1).is_err(), "a foreign handle");
    end(&rt, h).expect("ends");
    assert!(num_threads(h).is_err(), "no longer active");
    let stats = last_stats();
    assert_eq!(stats.len(), 1);
    assert_eq!((stats[0].tally.units, stats[0].tally.iterations), (5, 5));
}
