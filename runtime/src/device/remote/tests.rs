//! The protocol between head and workers, run in one process over in-process channels: rank 0
//! drives [`RemoteDevice`]s, ranks 1.. serve host devices on threads of their own.

use super::head::{hello, start_head, start_worker};
use super::link::{self, Link};
use super::worker::{Host, Worker};
use crate::config::{Fault, FaultAction};
use crate::device::host::HostDevice;
use crate::device::{AllocKind, Device, KernelHandle, Launch, LaunchConfig, PeerCopy};
use crate::sys::transport::{local_job, Transport};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

struct TestHost(Vec<Box<dyn Device>>);

impl Host for TestHost {
    fn device(&self, index: usize) -> Option<&dyn Device> {
        self.0.get(index).map(|d| &**d)
    }
    fn num_devices(&self) -> usize {
        self.0.len()
    }
    fn image(&self, _: u64, _: u64) -> Option<crate::image::ImageParts> {
        None
    }
}

struct Job {
    head: Arc<Link>,
    devices: Vec<Box<dyn Device>>,
    workers: Vec<Arc<Worker>>,
    /// Rank r's link at index r - 1.
    worker_links: Vec<Arc<Link>>,
}

/// A head and `workers` ranks with `per_rank` host devices each.
fn job(workers: usize, per_rank: usize, timeout: Duration, fault: Option<Fault>) -> Job {
    let mut ranks = local_job(workers + 1).into_iter();
    let head_t = ranks.next().expect("rank 0");
    let mut serving = Vec::new();
    let mut worker_links = Vec::new();
    for t in ranks {
        let (link, slot, _thread) =
            link::start(move || Ok(Box::new(t) as Box<dyn Transport>)).expect("worker link");
        let local: Vec<Box<dyn Device>> = (0..per_rank)
            .map(|i| Box::new(HostDevice::new(i, Some(1))) as Box<dyn Device>)
            .collect();
        link.post(0, &hello(&link, &local), true).expect("hello");
        worker_links.push(link.clone());
        let heartbeat = timeout / 4;
        serving.push(start_worker(
            &link,
            slot,
            Arc::new(TestHost(local)),
            heartbeat,
            fault,
            false,
        ));
    }
    let (head, slot, _thread) =
        link::start(move || Ok(Box::new(head_t) as Box<dyn Transport>)).expect("head link");
    let devices = start_head(&head, slot, 0, timeout).expect("devices");
    Job {
        head,
        devices,
        workers: serving,
        worker_links,
    }
}

const LONG: Duration = Duration::from_secs(30);

#[test]
fn devices_are_numbered_by_rank_and_copies_keep_stream_order() {
    let j = job(2, 2, LONG, None);
    assert_eq!(j.devices.len(), 4);
    let names: Vec<String> = j.devices.iter().map(|d| d.info().name.clone()).collect();
    assert!(names[0].contains("MPI rank 1 (local1)"), "{names:?}");
    assert!(names[3].contains("MPI rank 2 (local2)"), "{names:?}");
    let d = &*j.devices[3];
    let n = 1 << 16;
    let p = d.alloc(n, AllocKind::Device).expect("alloc");
    let src: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
    let mut out = vec![0u8; n];
    let mut s = d.create_stream().expect("stream");
    // Later commands overwrite earlier ones only if the stream keeps their order.
    d.copy_to_device(p, src.as_ptr() as usize, n, &mut s)
        .expect("h2d");
    d.fill(p, 9, 100, &mut s).expect("fill");
    d.copy_within(p + 200, p, 50, &mut s).expect("within");
    d.copy_from_device(out.as_mut_ptr() as usize, p, n, &mut s)
        .expect("d2h");
    d.synchronize(&mut s).expect("sync");
    let mut want = src.clone();
    want[..100].fill(9);
    want[200..250].fill(9);
    assert_eq!(out, want);
    d.free(p, AllocKind::Device).expect("free");
    let m = d.memory_info().expect("meminfo");
    assert!(m.total >= m.free && m.total > 0);
}

#[test]
fn a_construct_travels_as_one_batch_per_rank() {
    let j = job(1, 1, LONG, None);
    let d = &*j.devices[0];
    let p = d.alloc(4096, AllocKind::Device).expect("alloc");
    // Nothing leaves on a timer during the test: only the synchronization sends the batch.
    j.head.set_batch_delay(Duration::from_secs(60));
    let before = j.head.traffic()[1];
    let mut s = d.create_stream().expect("stream");
    let data = [1u8; 4096];
    for _ in 0..10 {
        d.copy_to_device(p, data.as_ptr() as usize, 4096, &mut s)
            .expect("h2d");
        // Slower than the communication thread reacts: only batching keeps them together.
        std::thread::sleep(Duration::from_millis(1));
    }
    d.synchronize(&mut s).expect("sync");
    let after = j.head.traffic()[1];
    assert_eq!(after.messages - before.messages, 11, "10 copies and a sync");
    assert!(
        after.batches - before.batches == 1,
        "sent in {} batches",
        after.batches - before.batches
    );
}

static GATE: AtomicU64 = AtomicU64::new(0);
static SEEN: AtomicU64 = AtomicU64::new(u64::MAX);

/// A "kernel" for host devices: slow, then opens the gate.
extern "C" fn slow_then_open(_dyn_ptr: usize) {
    std::thread::sleep(Duration::from_millis(150));
    GATE.store(1, Ordering::SeqCst);
}

/// A "kernel" that records whether the gate was open when it ran.
extern "C" fn look_at_gate(_dyn_ptr: usize) {
    SEEN.store(GATE.load(Ordering::SeqCst), Ordering::SeqCst);
}

#[test]
fn events_order_streams_of_different_ranks_without_the_head() {
    let j = job(2, 1, LONG, None);
    let (a, b) = (&*j.devices[0], &*j.devices[1]);
    let cfg = LaunchConfig {
        num_teams: [0; 3],
        teams: false,
        thread_limit: [0; 3],
        tripcount: 0,
        dyn_cgroup_mem: 0,
    };
    let (mut sa, mut sb) = (a.create_stream().expect("a"), b.create_stream().expect("b"));
    a.launch(
        Launch {
            kernel: KernelHandle(slow_then_open as *const () as usize),
            args: &[],
            cfg: &cfg,
        },
        &mut sa,
    )
    .expect("launch a");
    let ev = a.record_event(&mut sa).expect("record");
    b.wait_event(&mut sb, &ev).expect("wait");
    b.launch(
        Launch {
            kernel: KernelHandle(look_at_gate as *const () as usize),
            args: &[],
            cfg: &cfg,
        },
        &mut sb,
    )
    .expect("launch b");
    let sent_to_b = j.head.traffic()[2].messages;
    b.synchronize(&mut sb).expect("sync b");
    assert_eq!(
        SEEN.load(Ordering::SeqCst),
        1,
        "rank 2 ran before rank 1's event"
    );
    // Rank 1 told rank 2 directly: the head sent rank 2 nothing after its commands but the sync.
    assert_eq!(j.head.traffic()[2].messages, sent_to_b + 1);
    assert!(ev.query().expect("query"));
    a.synchronize(&mut sa).expect("sync a");
    // Waiting for an event that already fired sends nothing.
    let before = j.head.traffic()[2].messages;
    b.wait_event(&mut sb, &ev).expect("wait again");
    assert_eq!(j.head.traffic()[2].messages, before);
}

#[test]
fn a_dropped_event_is_forgotten_by_every_rank_that_knew_it() {
    let j = job(2, 1, LONG, None);
    let (a, b) = (&*j.devices[0], &*j.devices[1]);
    let (mut sa, mut sb) = (a.create_stream().expect("a"), b.create_stream().expect("b"));
    let p = b.alloc(8, AllocKind::Device).expect("alloc");
    let pa = a.alloc(8, AllocKind::Device).expect("alloc a");
    let ev = a.record_event(&mut sa).expect("record");
    b.wait_event(&mut sb, &ev).expect("wait");
    b.fill(p, 1, 8, &mut sb).expect("fill");
    b.synchronize(&mut sb).expect("sync b");
    a.synchronize(&mut sa).expect("sync a");
    let id = ev
        .backend()
        .and_then(|e| (e as &dyn std::any::Any).downcast_ref::<super::RemoteEvent>())
        .expect("a remote event")
        .id;
    assert!(j.worker_links[0].signalled(id) && j.worker_links[1].signalled(id));
    drop(ev);
    // The Forget travels with the next batch; a synchronization of each rank sends it.
    a.fill(pa, 0, 8, &mut sa).expect("fill a");
    a.synchronize(&mut sa).expect("sync a");
    b.fill(p, 2, 8, &mut sb).expect("fill");
    b.synchronize(&mut sb).expect("sync b");
    let t = Instant::now();
    while (j.worker_links[0].signalled(id) || j.worker_links[1].signalled(id))
        && t.elapsed() < Duration::from_secs(5)
    {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(
        !j.worker_links[0].signalled(id),
        "the recording rank kept the event"
    );
    assert!(
        !j.worker_links[1].signalled(id),
        "the waiting rank kept the event"
    );
    assert!(!j.head.signalled(id));
}

#[test]
fn peer_copies_go_from_worker_to_worker() {
    let j = job(2, 1, LONG, None);
    let (a, b) = (&*j.devices[0], &*j.devices[1]);
    assert!(a.can_copy_peer(b));
    let n = 1 << 20;
    let pa = a.alloc(n, AllocKind::Device).expect("alloc a");
    let pb = b.alloc(n, AllocKind::Device).expect("alloc b");
    let src: Vec<u8> = (0..n).map(|i| (i * 7 % 256) as u8).collect();
    let (mut sa, mut sb) = (a.create_stream().expect("a"), b.create_stream().expect("b"));
    a.copy_to_device(pa, src.as_ptr() as usize, n, &mut sa)
        .expect("h2d");
    let to_b = j.head.traffic()[2].bytes;
    let c = PeerCopy {
        to: b,
        dst: pb,
        src: pa,
        len: n,
    };
    a.copy_peer(c, &mut sa).expect("peer");
    a.synchronize(&mut sa).expect("sync a");
    assert!(
        j.head.traffic()[2].bytes - to_b < 1024,
        "the peer copy's bytes went through the head"
    );
    let mut out = vec![0u8; n];
    b.copy_from_device(out.as_mut_ptr() as usize, pb, n, &mut sb)
        .expect("d2h");
    b.synchronize(&mut sb).expect("sync b");
    assert!(out == src, "peer copy corrupted the data");
    // Two devices of one rank copy locally.
    let k = job(1, 2, LONG, None);
    let (c, d) = (&*k.devices[0], &*k.devices[1]);
    let pc = c.alloc(64, AllocKind::Device).expect("c");
    let pd = d.alloc(64, AllocKind::Device).expect("d");
    let mut sc = c.create_stream().expect("sc");
    c.copy_to_device(pc, src.as_ptr() as usize, 64, &mut sc)
        .expect("h2d");
    let copy = PeerCopy {
        to: d,
        dst: pd,
        src: pc,
        len: 64,
    };
    c.copy_peer(copy, &mut sc).expect("peer");
    c.synchronize(&mut sc).expect("sync");
    let mut out = [0u8; 64];
    let mut sd = d.create_stream().expect("sd");
    d.copy_from_device(out.as_mut_ptr() as usize, pd, 64, &mut sd)
        .expect("d2h");
    d.synchronize(&mut sd).expect("sync d");
    assert_eq!(&out[..], &src[..64]);
}

#[test]
fn shared_memory_kinds_are_refused_with_the_reason() {
    let j = job(1, 1, LONG, None);
    let e = j.devices[0]
        .alloc(64, AllocKind::Shared)
        .expect_err("managed memory on another node");
    assert!(e.message.contains("MPI rank 1"), "{}", e.message);
    assert!(e.message.contains("managed"), "{}", e.message);
}

#[test]
fn a_hung_worker_is_named_within_the_timeout() {
    let timeout = Duration::from_millis(400);
    let fault = Fault {
        rank: 2,
        command: 3,
        action: FaultAction::Hang,
    };
    let j = Arc::new(job(2, 1, timeout, Some(fault)));
    let t0 = Instant::now();
    // On a thread of its own: without the deadline the operation would wait forever.
    let (tx, rx) = std::sync::mpsc::channel();
    let jt = j.clone();
    std::thread::spawn(move || {
        let d = &*jt.devices[1];
        let mut s = d.create_stream().expect("stream");
        for _ in 0..10 {
            let r = d
                .alloc(64, AllocKind::Device)
                .and_then(|p| d.fill(p, 1, 64, &mut s))
                .and_then(|_| d.synchronize(&mut s));
            if let Err(e) = r {
                let _ = tx.send(e);
                return;
            }
        }
    });
    let e = rx
        .recv_timeout(timeout * 20)
        .expect("the hung rank must fail the run within the timeout");
    assert!(
        e.message
            .contains("remote device 1 (MPI rank 2, host local2) stopped responding"),
        "{}",
        e.message
    );
    assert!(t0.elapsed() < timeout * 10, "took {:?}", t0.elapsed());
    // The other rank's devices fail too: the job is over.
    assert!(j.devices[0].alloc(8, AllocKind::Device).is_err());
}

#[test]
fn workers_leave_when_asked_and_answer_first() {
    let j = job(2, 1, LONG, None);
    for rank in 1..=2 {
        j.head
            .request(rank, super::protocol::Request::Leave)
            .expect("the worker answers");
        let w = j.workers[rank - 1].clone();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            w.wait_done();
            let _ = tx.send(());
        });
        rx.recv_timeout(Duration::from_secs(5))
            .expect("the worker is done after the request to leave");
    }
}

#[test]
fn long_copies_travel_in_pieces_of_at_most_the_payload_limit() {
    use super::protocol::MAX_PAYLOAD;
    assert_eq!(super::pieces(0).count(), 0);
    assert_eq!(super::pieces(10).collect::<Vec<_>>(), vec![(0, 10)]);
    assert_eq!(
        super::pieces(2 * MAX_PAYLOAD + 5).collect::<Vec<_>>(),
        vec![
            (0, MAX_PAYLOAD),
            (MAX_PAYLOAD, MAX_PAYLOAD),
            (2 * MAX_PAYLOAD, 5)
        ]
    );
}

#[test]
fn faults_parse() {
    assert_eq!(
        Fault::parse("2:5:kill").expect("valid"),
        Fault {
            rank: 2,
            command: 5,
            action: FaultAction::Kill
        }
    );
    assert!(Fault::parse("2:x:kill").is_err());
    assert!(Fault::parse("2:0:kill").is_err());
    assert_eq!(Fault::parse("1:leave:hang").expect("valid").command, 0);
    assert!(Fault::parse("2:1:explode").is_err());
    assert!(Fault::parse("2:1").is_err());
}

#[test]
#[ignore = "a measurement: cargo test --release -p spread-rt remote::tests::copy_rate -- --ignored --nocapture"]
fn copy_rate() {
    let j = job(1, 1, LONG, None);
    let d = &*j.devices[0];
    for n in [4096usize, 1 << 20, 16 << 20] {
        let p = d.alloc(n, AllocKind::Device).expect("alloc");
        let buf = vec![1u8; n];
        let mut s = d.create_stream().expect("stream");
        let reps = if n > 1 << 20 { 10 } else { 100 };
        let t = Instant::now();
        for _ in 0..reps {
            d.copy_to_device(p, buf.as_ptr() as usize, n, &mut s)
                .expect("h2d");
            d.synchronize(&mut s).expect("sync");
        }
        let dt = t.elapsed().as_secs_f64();
        eprintln!(
            "{n} B: {:.1} us per copy, {:.0} MB/s",
            dt / reps as f64 * 1e6,
            (n * reps) as f64 / dt / 1e6
        );
        d.free(p, AllocKind::Device).expect("free");
    }
}

#[test]
#[ignore = "a measurement for bench/remote/run.sh: cargo test --release -p spread-rt remote::tests::head_cost -- --ignored --nocapture"]
fn head_cost() {
    // The head's own cost per enqueued command (the scaling model's o): the calling thread's
    // share (encode into the batch) plus the communication thread's (hand the batch to the
    // transport), for small commands that need no answer.
    let j = job(1, 1, LONG, None);
    let d = &*j.devices[0];
    let p = d.alloc(64, AllocKind::Device).expect("alloc");
    let mut s = d.create_stream().expect("stream");
    let n = 20000;
    let t = Instant::now();
    for i in 0..n {
        d.fill(p, (i % 256) as u8, 64, &mut s).expect("fill");
    }
    d.synchronize(&mut s).expect("sync");
    let per = t.elapsed().as_secs_f64() / f64::from(n) * 1e6;
    let batches = j.head.traffic()[1].batches;
    eprintln!("send_us={per:.3}");
    eprintln!("({n} commands in {batches} batches, worker execution included)");
}
