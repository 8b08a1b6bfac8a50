//! Compute-unit regions (seed 004): `#pragma omp teams [distribute | loop]
//! num_teams(count:family:size, ...) ...`, on the host. clang 19 takes neither the descriptors
//! nor OpenMP 5.1's `num_teams(lower:upper)`, so the driver parses them here; the lowering
//! (docs/spread-abi.md §5) is in [`crate::lower`].

use crate::directive::{
    clause_suggestion, descriptor_parts, err, num_teams_form, Cursor, NumTeams, PError, ALL_CLAUSES,
};
use crate::lexer::{matching_close, TokKind, Token};

/// For a `#pragma omp` directive (`toks[first..end]`) that is (or combines) `teams` and is not
/// a compute-unit region: the tokens of `num_teams(lower:upper)` to delete (see
/// [`NumTeams::Range`]).
pub fn num_teams_range(
    src: &str,
    toks: &[Token],
    first: usize,
    end: usize,
) -> Option<(usize, usize)> {
    let c = Cursor { src, toks, end };
    if !(c.text(first) == "#" && c.is_ident(first + 1, "pragma") && c.is_ident(first + 2, "omp")) {
        return None;
    }
    // the construct's words: identifiers up to the first clause with arguments
    let mut i = first + 3;
    let mut teams = false;
    while i < end && toks[i].kind == TokKind::Ident && c.text(i + 1) != "(" {
        teams |= c.text(i) == "teams";
        i += 1;
    }
    if !teams {
        return None;
    }
    match num_teams_form(src, toks, i, end) {
        NumTeams::Range { first, colon } => Some((first, colon)),
        _ => None,
    }
}

/// A compute-unit family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `CPU`: a CU of `size` CPUs.
    Cpu,
    /// `GPU`: a CU of one CPU and `size` devices.
    Gpu,
}

impl Family {
    /// The `__SPREAD_CU_*` constant of spread.h.
    pub fn abi_name(self) -> &'static str {
        match self {
            Family::Cpu => "__SPREAD_CU_CPU",
            Family::Gpu => "__SPREAD_CU_GPU",
        }
    }
}

/// One descriptor `count:family:size` of `num_teams`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Descriptor {
    /// How many CUs (an expression).
    pub count: String,
    /// Their family.
    pub family: Family,
    /// CPUs (or devices) per CU (an expression).
    pub size: String,
}

/// The `dist_schedule` kinds of a compute-unit region with their `__SPREAD_SCHED_*` constants,
/// and whether they take a chunk size.
pub const DIST_SCHEDULES: &[(&str, &str, bool)] = &[
    ("static", "__SPREAD_SCHED_STATIC", true),
    ("dynamic", "__SPREAD_SCHED_DYNAMIC", true),
    ("static_opt", "__SPREAD_SCHED_STATIC_OPT", false),
    ("adaptive", "__SPREAD_SCHED_ADAPTIVE", false),
];

/// A parsed and checked compute-unit `teams` directive (with its `distribute` line, if any).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CuDirective {
    /// The construct words after `teams` as written (`distribute`, `loop`,
    /// `distribute parallel for`), or "".
    pub combined: String,
    /// Token index of `teams`.
    pub teams_tok: usize,
    /// The descriptors, in order.
    pub descriptors: Vec<Descriptor>,
    /// The `__SPREAD_SCHED_*` constant of `dist_schedule(kind)`, if given.
    pub schedule: Option<&'static str>,
    /// Its chunk size.
    pub chunk: Option<String>,
    /// `thread_limit(t)`.
    pub thread_limit: Option<String>,
    /// Clauses that go on the `parallel` that runs the CUs (data sharing, `reduction`,
    /// `allocate`), as written.
    pub moved: Vec<String>,
    /// Variables named in `private`/`firstprivate` clauses.
    pub privatized: Vec<String>,
    /// Warnings (directive still lowered).
    pub warnings: Vec<PError>,
}

impl CuDirective {
    /// Whether the region distributes a loop (`teams distribute`, `teams loop`, or a
    /// `distribute` line), rather than running a structured block once per CU.
    pub fn is_loop(&self) -> bool {
        !self.combined.is_empty()
    }

    /// The construct's name in messages.
    pub fn name(&self) -> String {
        if self.combined.is_empty() {
            "teams".into()
        } else {
            format!("teams {}", self.combined)
        }
    }
}

/// The clauses `teams` keeps (on the `parallel` that runs the CUs) or consumes.
const TEAMS_CU_CLAUSES: &[&str] = &[
    "num_teams",
    "thread_limit",
    "default",
    "private",
    "firstprivate",
    "shared",
    "reduction",
    "allocate",
];
const MOVED: &[&str] = &[
    "default",
    "private",
    "firstprivate",
    "shared",
    "reduction",
    "allocate",
];

/// The combined forms accepted after `teams`; the words after `distribute` are dropped.
const CU_COMBINED: &[&str] = &[
    "",
    "distribute",
    "loop",
    "distribute parallel for",
    "distribute parallel for simd",
];
const LEAVES: &[&str] = &["distribute", "parallel", "for", "simd", "loop"];

/// Parses the compute-unit directive `#pragma omp teams ...` in `toks[first..end]` (as
/// [`crate::directive::classify`] recognized it).
pub fn parse(src: &str, toks: &[Token], first: usize, end: usize) -> Result<CuDirective, PError> {
    let c = Cursor { src, toks, end };
    let teams_tok = first + 3;
    let words_start = teams_tok + 1;
    let words = c.leaf_words(words_start, LEAVES);
    let i = words_start + words.len();
    let combined = words.join(" ");
    if !CU_COMBINED.contains(&combined.as_str()) {
        return err(
            words_start,
            format!("'teams {combined}' with compute units is not supported; use 'teams', 'teams distribute' or 'teams loop'"),
        );
    }
    let mut d = CuDirective {
        combined: combined.clone(),
        teams_tok,
        descriptors: Vec::new(),
        schedule: None,
        chunk: None,
        thread_limit: None,
        moved: Vec::new(),
        privatized: Vec::new(),
        warnings: Vec::new(),
    };
    if words.len() > 1 {
        // the CU threads are the parallelism: a CPU CU opens its own `parallel for` in the body
        d.combined = "distribute".into();
        d.warnings.push(PError {
            tok: words_start + 1,
            msg: format!("'{}' is ignored in 'teams {combined}' with compute units: each compute unit runs its iterations on one thread; a CPU compute unit can open a 'parallel for' with omp_get_cu_num_cpus() threads in the loop body", words[1..].join(" ")),
        });
    }
    let mut allowed: Vec<&str> = TEAMS_CU_CLAUSES.to_vec();
    if d.combined == "distribute" {
        allowed.push("dist_schedule");
    }
    clauses(&c, i, end, &mut d, &allowed, true)?;
    Ok(d)
}

/// A `distribute` line after a compute-unit `teams` (the paper writes them on two lines):
/// `#pragma omp distribute [clauses]`, or the paper's `#pragma distribute` (a warning).
/// `None` when `toks[first..end]` is not one; otherwise its clauses are merged into `d`.
pub fn parse_distribute(
    src: &str,
    toks: &[Token],
    first: usize,
    end: usize,
    d: &mut CuDirective,
) -> Option<Result<(), PError>> {
    let c = Cursor { src, toks, end };
    if !(c.text(first) == "#" && c.is_ident(first + 1, "pragma")) {
        return None;
    }
    let mut i = first + 2;
    if c.is_ident(i, "omp") {
        i += 1;
    } else if c.is_ident(i, "distribute") {
        d.warnings.push(PError {
            tok: i,
            msg: "'#pragma distribute' is not an OpenMP directive; did you mean '#pragma omp distribute'? (treated as one)".into(),
        });
    } else {
        return None;
    }
    if !c.is_ident(i, "distribute") || c.text(i + 1) == "(" {
        return None;
    }
    let dist_tok = i;
    i += 1;
    let mut words = Vec::new();
    while i < end
        && toks[i].kind == TokKind::Ident
        && LEAVES.contains(&c.text(i))
        && c.text(i + 1) != "("
    {
        words.push(c.text(i));
        i += 1;
    }
    match words.join(" ").as_str() {
        "" => {}
        w @ ("parallel for" | "parallel for simd") => d.warnings.push(PError {
            tok: dist_tok + 1,
            msg: format!("'{w}' is ignored in 'distribute {w}' of a 'teams' with compute units: each compute unit runs its iterations on one thread; a CPU compute unit can open a 'parallel for' with omp_get_cu_num_cpus() threads in the loop body"),
        }),
        w => {
            return Some(err(
                dist_tok + 1,
                format!("'distribute {w}' is not supported in a 'teams' with compute units; use 'distribute'"),
            ))
        }
    }
    d.combined = "distribute".into();
    let allowed = ["private", "firstprivate", "allocate", "dist_schedule"];
    Some(clauses(&c, i, end, d, &allowed, false))
}

/// The clauses of the `teams` line (`on_teams`) or of its `distribute` line.
fn clauses(
    c: &Cursor,
    mut i: usize,
    end: usize,
    d: &mut CuDirective,
    allowed: &[&str],
    on_teams: bool,
) -> Result<(), PError> {
    let cname = if on_teams {
        format!("{}' with compute units", d.name())
    } else {
        "distribute' of a 'teams' with compute units".to_string()
    };
    let mut seen: Vec<String> = Vec::new();
    while i < end {
        if c.text(i) == "," {
            i += 1;
            continue;
        }
        if c.toks[i].kind != TokKind::Ident {
            return err(i, format!("expected a clause on '{cname}"));
        }
        let name = c.text(i).to_string();
        let name_tok = i;
        let parens = if c.text(i + 1) == "(" {
            match matching_close(c.src, c.toks, i + 1, end) {
                Some(close) => Some((i + 1, close)),
                None => return err(i + 1, format!("expected ')' to end the '{name}' clause")),
            }
        } else {
            None
        };
        i = parens.map(|(_, close)| close + 1).unwrap_or(i + 1);
        if !allowed.contains(&name.as_str()) {
            let msg = if name == "dist_schedule" {
                "'dist_schedule' needs 'distribute': write 'teams distribute' or a '#pragma omp distribute' line before the loop".to_string()
            } else if ALL_CLAUSES.contains(&name.as_str()) {
                format!("clause '{name}' is not supported on '{cname}")
            } else {
                format!(
                    "unknown clause '{name}' on '{cname}{}",
                    clause_suggestion(&name, allowed)
                )
            };
            return err(name_tok, msg);
        }
        let Some((open, close)) = parens else {
            return err(name_tok + 1, format!("expected '(' after '{name}'"));
        };
        if matches!(
            name.as_str(),
            "num_teams" | "thread_limit" | "dist_schedule"
        ) {
            if seen.contains(&name) || (name == "dist_schedule" && d.schedule.is_some()) {
                return err(
                    name_tok,
                    format!(
                        "the '{name}' clause can appear only once on a 'teams' with compute units"
                    ),
                );
            }
            seen.push(name.clone());
        }
        match name.as_str() {
            "num_teams" => d.descriptors = descriptors(c, open, close)?,
            "thread_limit" => {
                if open + 1 == close {
                    return err(close, "expected a number of threads in 'thread_limit'");
                }
                d.thread_limit = Some(c.span(open + 1, close));
            }
            "dist_schedule" => {
                let parts = c.split(open + 1, close, ",");
                let (klo, khi) = parts[0];
                if klo == khi {
                    return err(close, "expected a schedule kind in 'dist_schedule'");
                }
                let kind = c.span(klo, khi);
                let Some(&(_, abi, chunked)) = DIST_SCHEDULES.iter().find(|(k, _, _)| *k == kind)
                else {
                    return err(
                        klo,
                        format!("dist_schedule kind '{kind}' is not supported on a 'teams' with compute units; use 'static', 'dynamic', 'static_opt' or 'adaptive'"),
                    );
                };
                if parts.len() > 2 {
                    return err(
                        parts[2].0.saturating_sub(1),
                        "'dist_schedule' takes a kind and at most one chunk size",
                    );
                }
                if let Some(&(lo, hi)) = parts.get(1) {
                    if !chunked {
                        return err(
                            lo.saturating_sub(1),
                            format!("dist_schedule kind '{kind}' takes no chunk size"),
                        );
                    }
                    if lo == hi {
                        return err(hi, "expected a chunk size in 'dist_schedule'");
                    }
                    d.chunk = Some(c.span(lo, hi));
                }
                d.schedule = Some(abi);
            }
            n if MOVED.contains(&n) => {
                if matches!(n, "private" | "firstprivate") {
                    for (lo, hi) in c.split(open + 1, close, ",") {
                        d.privatized.push(c.span(lo, hi));
                    }
                }
                d.moved.push(c.span(name_tok, close + 1));
            }
            _ => {}
        }
    }
    if on_teams && d.descriptors.is_empty() {
        // classify only sends directives with num_teams here; kept for safety
        return err(
            d.teams_tok,
            "a 'teams' with compute units needs 'num_teams(count:family:size, ...)'",
        );
    }
    Ok(())
}

/// The descriptors of `num_teams(...)` between `open` and `close`.
fn descriptors(c: &Cursor, open: usize, close: usize) -> Result<Vec<Descriptor>, PError> {
    if open + 1 == close {
        return err(
            close,
            "'num_teams' needs at least one compute-unit descriptor 'count:family:size' (e.g. '4:CPU:4')",
        );
    }
    let mut out = Vec::new();
    for (lo, hi) in c.split(open + 1, close, ",") {
        let expected = || {
            err(
                if lo < hi { lo } else { hi },
                "expected a compute-unit descriptor 'count:family:size' (e.g. '4:CPU:4' or '2::GPU::1') in 'num_teams'",
            )
        };
        if lo == hi {
            return expected();
        }
        let parts = descriptor_parts(c, lo, hi);
        if parts.len() != 3 {
            return expected();
        }
        let (flo, fhi) = parts[1];
        let family = c.span(flo, fhi);
        let family = match family.as_str() {
            "CPU" => Family::Cpu,
            "GPU" => Family::Gpu,
            "FPGA" => return err(flo, "FPGA compute units are not supported"),
            "" => return err(fhi, "expected a compute-unit family (CPU or GPU)"),
            f => {
                return err(
                    flo,
                    format!("unknown compute-unit family '{f}'; expected CPU or GPU"),
                )
            }
        };
        let (alo, ahi) = parts[0];
        let (slo, shi) = parts[2];
        if alo == ahi {
            return err(ahi, "expected a number of compute units before the family");
        }
        if slo == shi {
            return err(
                shi,
                "expected the size of each compute unit (CPUs or GPUs) after the family",
            );
        }
        out.push(Descriptor {
            count: c.span(alo, ahi),
            family,
            size: c.span(slo, shi),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::directive::{classify, Kind};
    use crate::lexer::lex;

    fn parse_str(s: &str) -> Result<CuDirective, (String, String)> {
        let l = lex(s, false);
        let n = l.tokens.len();
        assert_eq!(
            classify(s, &l.tokens, 0, n).map(|k| k.0),
            Some(Kind::Cu),
            "{s}"
        );
        parse(s, &l.tokens, 0, n).map_err(|e| {
            let t = l
                .tokens
                .get(e.tok)
                .map(|t| &s[t.start..t.end])
                .unwrap_or("");
            (t.to_string(), e.msg)
        })
    }

    fn form(s: &str) -> NumTeams {
        let l = lex(s, false);
        num_teams_form(s, &l.tokens, 0, l.tokens.len())
    }

    #[test]
    fn classification() {
        assert_eq!(form("num_teams(4)"), NumTeams::Plain);
        assert_eq!(form("x(1)"), NumTeams::Absent);
        assert_eq!(form("num_teams(c ? 1 : 2)"), NumTeams::Plain);
        assert_eq!(
            form("num_teams(2:8)"),
            NumTeams::Range { first: 2, colon: 3 }
        );
        assert_eq!(form("num_teams(4:CPU:4)"), NumTeams::Cu);
        assert_eq!(form("num_teams(4::CPU::4, 2::GPU::1)"), NumTeams::Cu);
        assert_eq!(form("num_teams(4:CPU)"), NumTeams::Cu);
        assert_eq!(form("num_teams()"), NumTeams::Cu);
        let s = "#pragma omp target teams distribute num_teams(lo : hi) nowait";
        let l = lex(s, false);
        let (a, b) = num_teams_range(s, &l.tokens, 0, l.tokens.len()).unwrap();
        assert_eq!((l.text(s, a), l.text(s, b)), ("lo", ":"));
        let s = "#pragma omp target parallel num_teams(1:2)";
        let l = lex(s, false);
        assert_eq!(num_teams_range(s, &l.tokens, 0, l.tokens.len()), None);
        // a plain teams is clang's
        let s = "#pragma omp teams num_teams(4) thread_limit(2)";
        let l = lex(s, false);
        assert_eq!(classify(s, &l.tokens, 0, l.tokens.len()), None);
    }

    #[test]
    fn paper_forms() {
        let d = parse_str("#pragma omp teams num_teams(2::CPU::4, 2::GPU::1)").unwrap();
        assert_eq!(d.combined, "");
        assert_eq!(
            d.descriptors,
            [
                Descriptor {
                    count: "2".into(),
                    family: Family::Cpu,
                    size: "4".into()
                },
                Descriptor {
                    count: "2".into(),
                    family: Family::Gpu,
                    size: "1".into()
                }
            ]
        );
        let d = parse_str("#pragma omp teams distribute num_teams(n:CPU:m+1, f(a, b):GPU:1) dist_schedule(dynamic, 2) thread_limit(8) private(x, y) reduction(+: s) default(shared)").unwrap();
        assert_eq!(d.descriptors[1].count, "f(a, b)");
        assert_eq!(d.descriptors[0].size, "m+1");
        assert_eq!(d.schedule, Some("__SPREAD_SCHED_DYNAMIC"));
        assert_eq!(d.chunk.as_deref(), Some("2"));
        assert_eq!(d.thread_limit.as_deref(), Some("8"));
        assert_eq!(
            d.moved,
            ["private(x, y)", "reduction(+: s)", "default(shared)"]
        );
        assert_eq!(d.privatized, ["x", "y"]);
        let d = parse_str("#pragma omp teams loop num_teams(1:CPU:2)").unwrap();
        assert!(d.is_loop());
        assert_eq!(d.schedule, None);
        let d = parse_str("#pragma omp teams distribute parallel for num_teams(1:CPU:2) dist_schedule(static_opt)").unwrap();
        assert_eq!(d.combined, "distribute");
        assert_eq!(d.schedule, Some("__SPREAD_SCHED_STATIC_OPT"));
        assert!(d.warnings[0].msg.contains("'parallel for' is ignored"));
    }

    #[test]
    fn distribute_line() {
        let mut d = parse_str("#pragma omp teams num_teams(4:CPU:4, 2:GPU:1)").unwrap();
        let s = "#pragma distribute dist_schedule(adaptive) private(z)";
        let l = lex(s, false);
        parse_distribute(s, &l.tokens, 0, l.tokens.len(), &mut d)
            .unwrap()
            .unwrap();
        assert!(d.is_loop());
        assert_eq!(d.schedule, Some("__SPREAD_SCHED_ADAPTIVE"));
        assert!(d.warnings[0]
            .msg
            .contains("did you mean '#pragma omp distribute'"));
        assert_eq!(d.moved, ["private(z)"]);
        let s = "#pragma omp parallel for";
        let l = lex(s, false);
        assert!(parse_distribute(s, &l.tokens, 0, l.tokens.len(), &mut d).is_none());
    }

    #[test]
    fn errors() {
        #[rustfmt::skip]
        let cases = [
            ("#pragma omp teams num_teams()", ")", "at least one compute-unit descriptor"),
            ("#pragma omp teams num_teams(4:XPU:4)", "XPU", "unknown compute-unit family 'XPU'; expected CPU or GPU"),
            ("#pragma omp teams num_teams(4:FPGA:1)", "FPGA", "FPGA compute units are not supported"),
            ("#pragma omp teams num_teams(4:CPU)", "4", "expected a compute-unit descriptor"),
            ("#pragma omp teams num_teams(4:CPU:4, 8)", "8", "expected a compute-unit descriptor"),
            ("#pragma omp teams num_teams(:CPU:4)", ":", "number of compute units"),
            ("#pragma omp teams num_teams(1:CPU:)", ")", "size of each compute unit"),
            ("#pragma omp teams distribute num_teams(1:CPU:1) dist_schedule(guided)", "guided", "use 'static', 'dynamic', 'static_opt' or 'adaptive'"),
            ("#pragma omp teams distribute num_teams(1:CPU:1) dist_schedule(static_opt, 4)", ",", "takes no chunk size"),
            ("#pragma omp teams num_teams(1:CPU:1) dist_schedule(static)", "dist_schedule", "needs 'distribute'"),
            ("#pragma omp teams distribute num_teams(1:CPU:1) dist_schedule(static) dist_schedule(dynamic)", "dist_schedule", "only once"),
            ("#pragma omp teams num_teams(1:CPU:1) num_teams(1:GPU:1)", "num_teams", "only once"),
            ("#pragma omp teams distribute num_teams(1:CPU:1) lastprivate(x)", "lastprivate", "not supported on 'teams distribute' with compute units"),
            ("#pragma omp teams num_teams(1:CPU:1) bogus", "bogus", "unknown clause 'bogus'"),
            ("#pragma omp teams distribute simd num_teams(1:CPU:1)", "distribute", "'teams distribute simd' with compute units is not supported"),
        ];
        for (src, tok, msg) in cases {
            match parse_str(src) {
                Ok(_) => panic!("{src}: no error"),
                Err((t, m)) => {
                    assert_eq!(t, tok, "{src}: {m}");
                    assert!(m.contains(msg), "{src}: {m}");
                }
            }
        }
    }
}
