//! Fuzzing of the directive front end: random and mutated spread directives, followed by
//! random statements, go through everything the driver does before clang runs (lexing, the
//! preprocessed-output map, parsing and checking, lowering, splicing the lowered file, and
//! locating and rendering the diagnostics), which must never panic.
//!
//! `cargo test --release -p spread-driver --test fuzz_directives` runs a bounded number of
//! cases (a few seconds). `SPREAD_FUZZ_ITERS=N` and `SPREAD_FUZZ_SEED=S` set the number of cases
//! and the seed; `scripts/fuzz-driver.sh` runs long campaigns.

use std::panic::{catch_unwind, AssertUnwindSafe};

use spread_driver::diag::Diagnostic;
use spread_driver::lower;
use spread_driver::ppout::PpOutput;
use spread_driver::source::{Locator, SourceFile};
use spread_driver::splice;

/// xorshift64*: small, seeded, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

const SEEDS: &[&str] = &[
    "#pragma omp target spread teams distribute parallel for devices(2,0,1) spread_schedule(static, 4) num_teams(2) map(to: A[omp_spread_start-1:omp_spread_size+2]) map(from: B[omp_spread_start:omp_spread_size])",
    "#pragma omp target spread parallel for simd devices(0) nowait depend(out: A[omp_spread_start:omp_spread_size])",
    "#pragma omp target spread devices(f(1,2), (a,b), x[3]) reduction(+: s)",
    "#pragma omp target data spread devices(1,0) range(0:n) chunk_size(4) map(always, tofrom: A[omp_spread_start:omp_spread_size]) map(B)",
    "#pragma omp target enter data spread range(c ? 1 : 2 : n) map(to: A[0:n]) nowait depend(in: x)",
    "#pragma omp target exit data spread devices(0) range(1:N-2) map(from: A[omp_spread_start:omp_spread_size])",
    "#pragma omp target update spread range(0:n) chunk_size(8) to(A[omp_spread_start:omp_spread_size]) from(B)",
    "#pragma omp target update peer to(a[1:n], x) to_device(d) from(b[lo:n], y) from_device(e)",
    "#pragma omp target device(any) map(tofrom:vx[k:BS],vy[k:BS]) map(to: x[0:n]) nowait\n#pragma omp if_device(NVIDIA,cc35) teams distribute parallel for resources(2)\n#pragma omp if_device(host) parallel for resources(40)",
    "#pragma omp target device( any ) map(a) depend(in: a) if(target: c)\n#pragma omp \\\n    if_device(nvidia, sm_90) teams loop resources(auto) \\\n    if_device(cpu) distribute simd",
    "#pragma omp target device(any) teams distribute parallel for simd map(tofrom: a[0:n], p->w[1:2]) nowait resources(n) reduction(+: s)",
    "#pragma omp wait device(d + 1)",
    "#pragma omp target spread devices(4294967297LL, 0x7fffffffffffffffffffffffffffffffff)",
    "#pragma omp target spread teams loop devices() spread_schedule(dynamic, , 3)",
    "#pragma omp target spread teams distribute parallel for spread_schedule(adaptive, 2) reduction(max: m) reduction(+: s, t) map(tofrom: s, a[0:n]) nowait",
    "#pragma omp teams num_teams(4:CPU:4, 2::GPU::1) private(x) reduction(+: s)\n#pragma omp distribute dist_schedule(dynamic, 1)",
    "#pragma omp teams distribute num_teams(n:CPU:m, 1:FPGA:1) dist_schedule(static_opt) thread_limit(t)",
    "#pragma omp teams num_teams(2:8)\n#pragma distribute",
];

const TOKENS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "::",
    ";",
    "?",
    "+",
    "-",
    "*",
    "&",
    "=",
    "<",
    "<=",
    "++",
    "\\\n",
    "\n",
    "#",
    "\"",
    "'",
    "/*",
    "*/",
    "//",
    "0",
    "1",
    "-1",
    "4294967297",
    "0x",
    "1e",
    "99999999999999999999999999999999999999",
    "spread",
    "target",
    "data",
    "enter",
    "exit",
    "update",
    "peer",
    "wait",
    "device",
    "devices",
    "range",
    "chunk_size",
    "spread_schedule",
    "static",
    "map",
    "to",
    "from",
    "tofrom",
    "alloc",
    "release",
    "delete",
    "always",
    "nowait",
    "depend",
    "in",
    "out",
    "reduction",
    "teams",
    "num_teams",
    "dist_schedule",
    "CPU",
    "GPU",
    "::",
    "distribute",
    "static_opt",
    "max",
    "s",
    "distribute",
    "parallel",
    "for",
    "simd",
    "loop",
    "if",
    "omp_spread_start",
    "omp_spread_size",
    "to_device",
    "from_device",
    "_Pragma",
    "pragma",
    "omp",
    "é",
    "\u{0}",
    "\u{ff}",
    "\u{85}",
    "\r",
    "\t",
    "R\"(",
    ")\"",
    "break",
    "return",
    "goto",
];

const FOLLOW: &[&str] = &[
    "for (int i = 0; i < n; i++) a[i] = i;",
    "for (int i = 0; i <= n; i++) { if (a[i]) break; a[i] = 0; }",
    "for (i = 0; i < n; i++) { i += 2; }",
    "{ a[0] = 1; }",
    "{ if (n) return; }",
    "{ goto out; } out: ;",
    "",
    "}",
    "for (;;)",
    "while (n) n--;",
    "for (int i = 0; i < n; i++)",
    "#pragma omp taskwait",
    "for (int x : v) ;",
    "for (int i = 0; i < n; i++) { double s = 1; s += a[i]; }",
    "for (int i = 0; i < n; i++) { s += a[i]; x.s = s; }",
    "#pragma omp distribute\nfor (int i = 0; i < n; i++) s += i;",
];

fn mutate(rng: &mut Rng, s: &str) -> String {
    let mut c: Vec<char> = s.chars().collect();
    for _ in 0..=rng.below(4) {
        let len = c.len();
        match rng.below(7) {
            0 if len > 0 => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(8)).min(len);
                c.drain(a..b);
            }
            1 => {
                let at = rng.below(len + 1);
                let t: &&str = rng.pick(TOKENS);
                let t: Vec<char> = t.chars().collect();
                c.splice(at..at, t);
            }
            2 if len > 0 => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(16)).min(len);
                let dup: Vec<char> = c[a..b].to_vec();
                let at = rng.below(len + 1);
                c.splice(at..at, dup);
            }
            3 if len > 0 => {
                let at = rng.below(len);
                c[at] = char::from_u32(rng.below(0x100) as u32).unwrap_or('?');
            }
            4 if len > 0 => c.truncate(rng.below(len)),
            5 => {
                let at = rng.below(len + 1);
                c.splice(at..at, [' ', ' ']);
            }
            _ => {
                let at = rng.below(len + 1);
                c.splice(at..at, "(".chars());
            }
        }
    }
    c.into_iter().collect()
}

fn random_directive(rng: &mut Rng) -> String {
    let mut s = String::from("#pragma omp ");
    for _ in 0..rng.below(12) {
        let t: &&str = rng.pick(TOKENS);
        s.push_str(t);
        if rng.below(2) == 0 {
            s.push(' ');
        }
    }
    s
}

/// Everything the driver does with a file before clang runs; panics are the failures.
fn front_end(src: &str, cxx: bool) {
    let pp = PpOutput::parse(format!("# 1 \"f.c\"\n{src}"), cxx, "f.c");
    let file = SourceFile::new(src.to_string(), cxx);
    match lower::lower(&pp) {
        Ok(l) => {
            let _ = splice::splice(&file, &pp, &l.edits, "#include \"spread.h\"");
        }
        Err(errs) => {
            let loc = Locator::new(&pp, &file);
            for e in errs {
                let d = Diagnostic::error(Some(loc.locate(e.off)), e.msg);
                let text = d.to_string();
                assert!(text.contains(": error: "), "{text}");
            }
        }
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn directives_never_panic() {
    let iters = env_u64("SPREAD_FUZZ_ITERS", 100_000);
    let seed = env_u64("SPREAD_FUZZ_SEED", 0x5eed_0001);
    let mut rng = Rng(seed | 1);
    // the corpus as it is first
    for d in SEEDS {
        for f in FOLLOW {
            front_end(&format!("void f(int n, int *a) {{\n{d}\n{f}\n}}\n"), false);
        }
    }
    for k in 0..iters {
        let dir = if rng.below(4) == 0 {
            random_directive(&mut rng)
        } else {
            let base = *rng.pick(SEEDS);
            mutate(&mut rng, base)
        };
        let follow = *rng.pick(FOLLOW);
        let src = match rng.below(4) {
            0 => dir.to_string(),
            1 => format!("void f(int n, int *a) {{\n{dir}\n{follow}"),
            2 => format!(
                "void f(int n, int *a) {{\n  _Pragma(\"{}\") {follow}\n}}\n",
                dir.trim_start_matches("#pragma ").replace('"', "\\\"")
            ),
            _ => format!("void f(int n, int *a) {{\n{dir}\n{follow}\n}}\n"),
        };
        let cxx = rng.below(3) == 0;
        let r = catch_unwind(AssertUnwindSafe(|| front_end(&src, cxx)));
        if r.is_err() {
            panic!("case {k} (seed {seed}, cxx {cxx}) panicked on:\n{src:?}");
        }
    }
    eprintln!("fuzz_directives: {iters} cases, seed {seed}");
}
