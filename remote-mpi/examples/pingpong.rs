//! Checks the plugin's C ABI between two MPI ranks, through the crate's Rust items (the same
//! `extern "C"` functions the runtime calls in `libspread_remote_mpi.so`):
//!
//! ```text
//! cargo build --release --examples --manifest-path remote-mpi/Cargo.toml
//! mpirun --allow-run-as-root --oversubscribe -np 2 remote-mpi/target/release/examples/pingpong
//! ```
//!
//! It moves 0 B, 4 KiB and 64 MiB messages with isend/test/improbe/mrecv both ways, one way at a
//! time (ping-pong) and both at once, checks their bytes, tags, sources and order, the refusals
//! (a second init, stale handles, a short receive buffer, finalize with a message pending, init
//! after finalize) and that an MPI error comes back as a code instead of ending the job. Rank 0
//! prints the latency of a small round trip and the bandwidth of transfers up to 64 MiB. All MPI
//! calls run on a spawned thread, as on the runtime's communication thread. Any failure prints a
//! line and ends both ranks through `spread_mpi_abort(1)`.

use std::ffi::c_char;
use std::time::Instant;

use spread_remote_mpi::{
    spread_mpi_abi_version, spread_mpi_abort, spread_mpi_error_string, spread_mpi_finalize,
    spread_mpi_improbe, spread_mpi_init, spread_mpi_isend, spread_mpi_mrecv, spread_mpi_test,
    LOCAL_ERROR,
};

const SIZES: [usize; 3] = [0, 4096, 64 << 20];

type Result<T> = std::result::Result<T, String>;

fn text(code: i32) -> String {
    let mut buf = [0 as c_char; 512];
    // SAFETY: `buf` holds 512 bytes.
    unsafe { spread_mpi_error_string(code, buf.as_mut_ptr(), buf.len()) };
    cstr(&buf)
}

fn cstr(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

fn ok(code: i32, what: &str) -> Result<()> {
    if code == 0 {
        Ok(())
    } else {
        Err(format!("{what} returned {code}: {}", text(code)))
    }
}

fn ensure(cond: bool, what: impl FnOnce() -> String) -> Result<()> {
    if cond {
        Ok(())
    } else {
        Err(what())
    }
}

/// A buffer of `len` bytes whose contents depend on `seed`.
fn pattern(len: usize, seed: u32) -> Vec<u8> {
    (0..len)
        .map(|i| ((i as u64).wrapping_mul(131) ^ u64::from(seed).wrapping_mul(0x9e37)) as u8)
        .collect()
}

fn isend(dest: i32, tag: i32, data: &[u8]) -> Result<u64> {
    let mut req = 0;
    // SAFETY: `data` outlives the request (every caller tests it to completion before dropping
    // `data`); `req` is a local.
    ok(
        unsafe { spread_mpi_isend(dest, tag, data.as_ptr(), data.len(), &mut req) },
        "spread_mpi_isend",
    )?;
    Ok(req)
}

fn test(req: u64) -> Result<bool> {
    let mut done = 0;
    // SAFETY: `done` is a local.
    ok(
        unsafe { spread_mpi_test(req, &mut done) },
        "spread_mpi_test",
    )?;
    Ok(done == 1)
}

/// A probed message: source, tag, length, handle.
fn improbe() -> Result<Option<(i32, i32, usize, u64)>> {
    let (mut found, mut src, mut tag, mut len, mut msg) = (0, 0, 0, 0usize, 0u64);
    // SAFETY: all outputs are locals.
    ok(
        unsafe { spread_mpi_improbe(&mut found, &mut src, &mut tag, &mut len, &mut msg) },
        "spread_mpi_improbe",
    )?;
    Ok((found == 1).then_some((src, tag, len, msg)))
}

fn mrecv(msg: u64, len: usize) -> Result<Vec<u8>> {
    let mut buf = vec![0u8; len];
    // SAFETY: `buf` holds `len` bytes.
    ok(
        unsafe { spread_mpi_mrecv(msg, buf.as_mut_ptr(), len) },
        "spread_mpi_mrecv",
    )?;
    Ok(buf)
}

fn send(dest: i32, tag: i32, data: &[u8]) -> Result<()> {
    let req = isend(dest, tag, data)?;
    while !test(req)? {}
    Ok(())
}

fn recv() -> Result<(i32, i32, Vec<u8>)> {
    loop {
        if let Some((src, tag, len, msg)) = improbe()? {
            return Ok((src, tag, mrecv(msg, len)?));
        }
    }
}

/// Receives the next message into `buf` (resized, its allocation reused).
fn recv_into(buf: &mut Vec<u8>) -> Result<()> {
    loop {
        if let Some((_, _, len, msg)) = improbe()? {
            buf.resize(len, 0);
            // SAFETY: `buf` holds `len` bytes.
            return ok(
                unsafe { spread_mpi_mrecv(msg, buf.as_mut_ptr(), len) },
                "spread_mpi_mrecv",
            );
        }
    }
}

fn expect(got: (i32, i32, Vec<u8>), src: i32, tag: i32, want: &[u8]) -> Result<()> {
    ensure(got.0 == src && got.1 == tag, || {
        format!(
            "message from rank {} tag {}, expected rank {src} tag {tag}",
            got.0, got.1
        )
    })?;
    ensure(got.2.len() == want.len(), || {
        format!("{} bytes, expected {}", got.2.len(), want.len())
    })?;
    let bad = got.2.iter().zip(want).position(|(a, b)| a != b);
    ensure(bad.is_none(), || {
        format!("{} bytes differ first at byte {bad:?}", want.len())
    })
}

/// Sends `out` to `peer` and receives one message from it at the same time.
fn exchange(peer: i32, tag: i32, out: &[u8]) -> Result<(i32, i32, Vec<u8>)> {
    let req = isend(peer, tag, out)?;
    let mut sent = false;
    let mut got = None;
    while !sent || got.is_none() {
        if !sent {
            sent = test(req)?;
        }
        if got.is_none() {
            if let Some((src, tag, len, msg)) = improbe()? {
                got = Some((src, tag, mrecv(msg, len)?));
            }
        }
    }
    got.ok_or_else(|| "no message".to_string())
}

fn run(rank: &mut i32) -> Result<()> {
    ensure(spread_mpi_abi_version() == 1, || "ABI version".into())?;
    let (mut size, mut node, mut tag_ub) = (0, 0, 0);
    let mut host = [0 as c_char; 256];
    let mut err = [0 as c_char; 256];
    // SAFETY: the outputs are locals of the given sizes.
    let rc = unsafe {
        spread_mpi_init(
            rank,
            &mut size,
            &mut node,
            &mut tag_ub,
            host.as_mut_ptr(),
            host.len(),
            err.as_mut_ptr(),
            err.len(),
        )
    };
    ensure(rc == 0, || format!("spread_mpi_init: {rc}: {}", cstr(&err)))?;
    let rank = *rank;
    println!(
        "pingpong: rank {rank} of {size}, node {node}, host {}, tag_ub {tag_ub}",
        cstr(&host)
    );
    ensure(size == 2, || format!("run with -np 2, not {size}"))?;
    ensure(tag_ub >= 32767, || format!("tag_ub {tag_ub} < 32767"))?;
    let peer = 1 - rank;

    // A second init fails cleanly, with a message, truncated to the buffer.
    let mut short = [1 as c_char; 16];
    // SAFETY: NULL outputs are allowed; `short` holds 16 bytes.
    let rc = unsafe {
        spread_mpi_init(
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
            short.as_mut_ptr(),
            short.len(),
        )
    };
    ensure(rc == LOCAL_ERROR, || format!("second init returned {rc}"))?;
    ensure(short[15] == 0 && cstr(&short) == "spread_mpi_init", || {
        format!("truncated message {:?}", cstr(&short))
    })?;
    ensure(text(LOCAL_ERROR).contains("already called"), || {
        format!("second init: {}", text(LOCAL_ERROR))
    })?;

    // Ping-pong, each size, each direction: the receiver echoes what it got.
    for (i, &len) in SIZES.iter().enumerate() {
        for from in 0..2 {
            let tag = 100 + 2 * i as i32 + 10 * from;
            let data = pattern(len, tag as u32);
            if rank == from {
                send(peer, tag, &data)?;
                expect(recv()?, peer, tag + 1, &data)?;
            } else {
                let got = recv()?;
                expect(got.clone(), peer, tag, &data)?;
                send(peer, tag + 1, &got.2)?;
            }
        }
    }
    // Both ways at once.
    for (i, &len) in SIZES.iter().enumerate() {
        let data = pattern(len, 1000 + i as u32 + 7 * rank as u32);
        let want = pattern(len, 1000 + i as u32 + 7 * peer as u32);
        expect(
            exchange(peer, 200 + i as i32, &data)?,
            peer,
            200 + i as i32,
            &want,
        )?;
    }
    // Several sends in flight with one tag arrive in order.
    let msgs: Vec<Vec<u8>> = (0..3).map(|k| pattern(4096 + k, 300 + k as u32)).collect();
    if rank == 0 {
        let reqs = msgs
            .iter()
            .map(|m| isend(peer, 7, m))
            .collect::<Result<Vec<_>>>()?;
        for r in reqs {
            while !test(r)? {}
        }
    } else {
        for m in &msgs {
            expect(recv()?, peer, 7, m)?;
        }
    }

    // Refusals and errors, none of which may end the job.
    ensure(
        // SAFETY: `done` is never written for an unknown handle; NULL is refused anyway.
        unsafe { spread_mpi_test(0xdead_0000_0001, std::ptr::null_mut()) } == LOCAL_ERROR,
        || "test with a NULL done".into(),
    )?;
    let mut done = 0;
    // SAFETY: `done` is a local.
    let rc = unsafe { spread_mpi_test(0xdead_0000_0001, &mut done) };
    ensure(
        rc == LOCAL_ERROR && text(rc).contains("unknown request"),
        || format!("test of a bad handle: {rc}: {}", text(rc)),
    )?;
    // SAFETY: the buffer is never read: the handle is unknown.
    let rc = unsafe { spread_mpi_mrecv(0, std::ptr::null_mut(), 0) };
    ensure(rc == LOCAL_ERROR, || format!("mrecv of handle 0: {rc}"))?;
    // SAFETY: a NULL buffer of 0 bytes is allowed.
    let rc = unsafe { spread_mpi_isend(size + 3, 1, std::ptr::null(), 0, &mut 0) };
    ensure(rc != 0 && rc != LOCAL_ERROR, || {
        format!("isend to rank {}: {rc}: {}", size + 3, text(rc))
    })?;
    if rank == 0 {
        println!(
            "pingpong: MPI error to a bad rank comes back: {rc}: {}",
            text(rc)
        );
    }
    // SAFETY: the buffer is never read: the length is refused first.
    let rc = unsafe { spread_mpi_isend(peer, 1, std::ptr::null(), usize::MAX / 2, &mut 0) };
    ensure(rc == LOCAL_ERROR && text(rc).contains("more than"), || {
        format!("isend of too many bytes: {rc}: {}", text(rc))
    })?;
    // A short receive buffer is refused and the message stays receivable.
    if rank == 0 {
        send(peer, 8, &pattern(100, 8))?;
    } else {
        let (src, tag, len, msg) = loop {
            if let Some(m) = improbe()? {
                break m;
            }
        };
        let mut small = [0u8; 10];
        // SAFETY: `small` holds 10 bytes.
        let rc = unsafe { spread_mpi_mrecv(msg, small.as_mut_ptr(), small.len()) };
        ensure(rc == LOCAL_ERROR, || format!("short mrecv: {rc}"))?;
        expect((src, tag, mrecv(msg, len)?), peer, 8, &pattern(100, 8))?;
        ensure(mrecv(msg, len).is_err(), || "mrecv twice".into())?;
    }

    // Timings (rank 0 prints), with buffers reused as the runtime would.
    let mut buf = Vec::new();
    // One round: rank 0 sends `data` and receives it back; rank 1 echoes what it receives.
    let bounce = |data: &[u8], tag: i32, buf: &mut Vec<u8>| -> Result<()> {
        if rank == 0 {
            send(peer, tag, data)?;
            recv_into(buf)
        } else {
            recv_into(buf)?;
            send(peer, tag, buf)
        }
    };
    let small = pattern(8, 9);
    let reps = 2000;
    let t = Instant::now();
    for _ in 0..reps {
        bounce(&small, 9, &mut buf)?;
    }
    let rt_us = t.elapsed().as_secs_f64() * 1e6 / f64::from(reps);
    if rank == 0 {
        println!("pingpong: 8 B round trip: {rt_us:.2} us");
    }
    for &len in &[4096usize, 1 << 20, 16 << 20, 64 << 20] {
        let data = pattern(len, 10);
        let n = if len >= 16 << 20 { 10 } else { 100 };
        let t = Instant::now();
        for _ in 0..n {
            bounce(&data, 10, &mut buf)?;
        }
        let mbs = (2 * n * len) as f64 / t.elapsed().as_secs_f64() / 1e6;
        if rank == 0 {
            println!("pingpong: {len} B each way: {mbs:.0} MB/s");
        }
    }

    // The peer sends nothing after this exchange; finalize is refused while a probed message
    // waits, and works once it is received.
    exchange(peer, 11, &[])?;
    send(rank, 12, &[1, 2, 3])?;
    let (src, tag, len, msg) = loop {
        if let Some(m) = improbe()? {
            break m;
        }
    };
    ensure(src == rank && tag == 12 && len == 3, || {
        format!("self message {src} {tag} {len}")
    })?;
    let rc = spread_mpi_finalize();
    ensure(
        rc == LOCAL_ERROR && text(rc).contains("1 probed message"),
        || format!("finalize with a pending message: {rc}: {}", text(rc)),
    )?;
    expect((src, tag, mrecv(msg, len)?), rank, 12, &[1, 2, 3])?;
    ok(spread_mpi_finalize(), "spread_mpi_finalize")?;
    // SAFETY: NULL outputs and buffers are allowed.
    let rc = unsafe {
        spread_mpi_init(
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
            std::ptr::null_mut(),
            0,
        )
    };
    ensure(rc == LOCAL_ERROR && text(rc).contains("finalised"), || {
        format!("init after finalize: {rc}: {}", text(rc))
    })?;
    ensure(spread_mpi_finalize() == LOCAL_ERROR, || {
        "finalize twice".into()
    })?;
    println!("pingpong: rank {rank} OK");
    Ok(())
}

fn main() {
    // Everything runs on a thread other than main, as on the runtime's communication thread.
    let comm = std::thread::Builder::new().name("comm".into()).spawn(|| {
        let mut rank = -1;
        if let Err(e) = run(&mut rank) {
            eprintln!("pingpong: rank {rank}: FAILED: {e}");
            spread_mpi_abort(1);
        }
    });
    match comm.map(|t| t.join()) {
        Ok(Ok(())) => {}
        _ => {
            eprintln!("pingpong: the communication thread failed");
            std::process::exit(1);
        }
    }
}
