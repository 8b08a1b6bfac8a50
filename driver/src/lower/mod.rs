//! Lowering of spread constructs into standard OpenMP plus calls to the runtime's
//! `__spread_*` entry points (docs/spread-abi.md §2). The result is a list of edits on the
//! preprocessed text; `splice` projects them onto the user's source.
//!
//! [`lower_with`] walks the directives in order and hands each to the lowering of its family,
//! one file per family as the parsing has: `spread` (the constructs of [`crate::directive`]:
//! `target spread`, the data constructs, `target update peer`, `wait device`) with
//! `spread_reduction` (their reductions), `compute_units` ([`crate::cu`]'s regions) and
//! `device_any` ([`crate::any`]'s task sharing). This file holds the walk, the checks that
//! span families (nesting, included files) and what the families share.

use crate::any;
use crate::cu;
use crate::directive::{self, Kind};
use crate::lexer::DirectiveLine;
use crate::plain_target;
use crate::ppout::{escape_c, PpOutput};
use crate::stmt::{self, Item, View};
use crate::target_data::{self, Region, Regions};

mod compute_units;
mod device_any;
mod spread;
mod spread_reduction;

/// Part of the text an edit writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Text without newlines, on the current output line.
    Text(String),
    /// What follows belongs to this presumed line of the source.
    Line(u32),
    /// A directive line (`#pragma ...`) attributed to presumed line `line`.
    Directive {
        /// Presumed source line.
        line: u32,
        /// The directive, without newline.
        text: String,
    },
    /// A line of its own outside the presumed-line accounting (`#pragma push_macro(...)`): what
    /// follows it is put back on its presumed line with `#line`.
    Raw(String),
}

/// Choices of the lowering.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// The program defines a macro named `device`, which would be expanded in the `device(...)`
    /// clause the lowering writes on each inner directive: mask it there with
    /// `#pragma push_macro("device")` / `#undef device` / `#pragma pop_macro("device")`.
    pub guard_device_macro: bool,
    /// `-Wno-spread-target-data`: no warning for a `target spread` that uses data a one-device
    /// `target data` around it maps ([`crate::target_data`]).
    pub no_target_data_warning: bool,
}

/// The pieces of an inner directive: the directive, inside a `device` macro guard if asked.
fn directive_pieces(guard: bool, line: u32, text: String) -> Vec<Piece> {
    let d = Piece::Directive { line, text };
    if !guard {
        return vec![d];
    }
    vec![
        Piece::Raw("#pragma push_macro(\"device\")".into()),
        Piece::Raw("#undef device".into()),
        d,
        Piece::Raw("#pragma pop_macro(\"device\")".into()),
    ]
}

/// Replace bytes `start..end` of the preprocessed text by `pieces` (an insertion when
/// `start == end`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// First byte replaced.
    pub start: usize,
    /// Byte just past the replaced ones.
    pub end: usize,
    /// What to write instead.
    pub pieces: Vec<Piece>,
}

/// An error found while lowering, at a byte offset of the preprocessed text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LowerError {
    /// Byte offset in the preprocessed text.
    pub off: usize,
    /// Message.
    pub msg: String,
}

/// The edits for one translation unit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lowering {
    /// Edits, sorted by start.
    pub edits: Vec<Edit>,
    /// Number of constructs lowered (spread constructs, compute-unit regions, and
    /// `num_teams(lower:upper)` clauses rewritten).
    pub constructs: usize,
    /// Warnings (the lowering went on).
    pub warnings: Vec<LowerError>,
}

/// Whether `text` can contain a directive the driver lowers or checks at all (a cheap test
/// before lexing): every `target` directive is checked for Spread's words (`target sprad`).
pub fn may_contain_spread(text: &str) -> bool {
    text.contains("spread")
        || text.contains("target")
        || text.contains("any")
        || text.contains("if_device")
        || text.contains("resources")
        || text.contains("peer")
        || text.contains("wait")
        || text.contains("num_teams")
}

struct Ctx<'a> {
    pp: &'a PpOutput,
    view: View<'a>,
    file_lit: String,
}

impl<'a> Ctx<'a> {
    fn tok_off(&self, tok: usize) -> usize {
        self.pp
            .lexed
            .tokens
            .get(tok)
            .map(|t| t.start)
            .unwrap_or(self.pp.text.len())
    }

    /// Offset of view item `k` (its first byte).
    fn item_off(&self, k: usize) -> usize {
        match self.view.items.get(k) {
            Some(Item::Tok(t)) => self.tok_off(*t),
            Some(Item::Pragma(d)) => self.pp.lexed.directives[*d].start,
            None => self.pp.text.len(),
        }
    }

    fn item_end(&self, k: usize) -> usize {
        match self.view.items.get(k) {
            Some(Item::Tok(t)) => self.pp.lexed.tokens[*t].end,
            Some(Item::Pragma(d)) => self.pp.lexed.directives[*d].end,
            None => self.pp.text.len(),
        }
    }

    /// Offset of view item `k`, or `past` where a statement the parser looked for ran past the
    /// last item.
    fn item_off_or(&self, k: usize, past: usize) -> usize {
        if k >= self.view.items.len() {
            past
        } else {
            self.item_off(k)
        }
    }

    fn presumed_line_of(&self, off: usize) -> u32 {
        self.pp.line_info(self.pp.phys_line_of(off)).line
    }
}

/// The `__spread_schedule` field of a descriptor: the schedule's constant, or `0`
/// (`__SPREAD_SCHED_DEFAULT`: the runtime reads `SPREAD_SCHEDULE`).
fn schedule_field(s: Option<&str>) -> &str {
    s.unwrap_or("0")
}

/// The type to cast the loop bound to, from the loop variable's declared type: without
/// storage classes; none for `auto` (the bound is then compared as `int64_t`).
fn cast_type(decl: &str) -> Option<String> {
    let words: Vec<&str> = decl
        .split_whitespace()
        .filter(|w| !matches!(*w, "register" | "static" | "thread_local" | "_Thread_local"))
        .collect();
    if words.is_empty()
        || words
            .iter()
            .any(|w| w.contains("auto") || w.contains("decltype"))
    {
        return None;
    }
    Some(words.join(" "))
}

/// The end of loop `lp`'s iterations, exclusive. An inclusive bound gets `+ 1` in `int64_t`:
/// `i <= INT_MAX` must not overflow the loop's type (and no C cast: a pointer bound stays an
/// error).
fn exclusive_bound(lp: &stmt::Loop) -> String {
    if lp.inclusive {
        format!("({}) + (int64_t)1", lp.ub)
    } else {
        format!("({})", lp.ub)
    }
}

/// The header of loop `lp` rewritten to run the iterations from `start` to `end` (exclusive),
/// at the presumed line of its `for`, as a chunk of a `target spread` or a unit of a
/// compute-unit region runs them. An inclusive loop keeps its `<=` on the last iteration: the
/// end of a chunk that ends at the type's maximum does not fit the type.
fn for_header(ctx: &Ctx, lp: &stmt::Loop, start: &str, end: &str) -> Vec<Piece> {
    let pp = ctx.pp;
    let for_off = ctx.item_off(lp.for_item);
    let for_phys = pp.phys_line_of(for_off);
    let lead = &pp.text[pp.lexed.line_starts[for_phys as usize]..for_off];
    let indent = if lead.trim().is_empty() { lead } else { "" };
    let var = &lp.var;
    let (op, end) = if lp.inclusive {
        ("<=", format!("{end} - 1"))
    } else {
        ("<", end.to_string())
    };
    let header = match (&lp.decl_type, lp.decl_type.as_deref().and_then(cast_type)) {
        (Some(ty), None) => format!(
            "{indent}for ({ty} {var} = {start}; {var} {op} {end}; {})",
            lp.incr
        ),
        (Some(ty), Some(cast)) => format!(
            "{indent}for ({ty} {var} = {start}; {var} {op} ({cast})({end}); {})",
            lp.incr
        ),
        (None, _) => format!(
            "{indent}for ({var} = {start}; {var} {op} {end}; {})",
            lp.incr
        ),
    };
    vec![
        Piece::Line(ctx.presumed_line_of(for_off)),
        Piece::Text(header),
    ]
}

/// The lowering of one construct: its edits, its warnings, and the byte range of the statement
/// it applies to (a loop body or block), where nothing else may be lowered.
#[derive(Default)]
struct Lowered {
    edits: Vec<Edit>,
    warnings: Vec<LowerError>,
    body: Option<(usize, usize)>,
}

impl Ctx<'_> {
    /// The error of a directive parser, at its token (or just after the directive).
    fn perror(&self, e: directive::PError, dl: DirectiveLine) -> LowerError {
        let toks = &self.pp.lexed.tokens;
        let off = if e.tok >= dl.end_tok {
            toks.get(dl.end_tok.saturating_sub(1))
                .map(|t| t.end)
                .unwrap_or(dl.end)
        } else {
            self.tok_off(e.tok)
        };
        LowerError { off, msg: e.msg }
    }

    /// The presumed line of directive `dl` and the offset of its physical line, where the
    /// lowered text that replaces it starts.
    fn directive_line(&self, dl: DirectiveLine) -> (u32, usize) {
        (
            self.pp.line_info(dl.line).line,
            self.pp.lexed.line_starts[dl.line as usize],
        )
    }
}

/// Whether the last of `bodies` holds offset `off`. The bodies are disjoint and in order, as
/// the pragmas are: only the last can hold a pragma the walk meets.
fn last_holds(bodies: &[(usize, usize)], off: usize) -> bool {
    bodies.last().is_some_and(|&(s, e)| off >= s && off < e)
}

/// The walk over the directives of a translation unit: what is lowered so far, and what a
/// later directive is checked against.
#[derive(Default)]
struct Walk {
    out: Lowering,
    errors: Vec<LowerError>,
    /// Byte ranges of target spread loop bodies, to reject nested constructs.
    spread_bodies: Vec<(usize, usize)>,
    /// Byte ranges of the loops and blocks of compute-unit regions, to reject nested ones.
    cu_bodies: Vec<(usize, usize)>,
    /// Byte ranges of the statements of target device(any) constructs.
    any_bodies: Vec<(usize, usize)>,
    /// The view item past the if_device lines of the last target device(any).
    any_consumed: usize,
    /// The target data regions seen, for the warning about one-device data in spread
    /// constructs.
    data_regions: Regions,
    /// Brace depth of the code before item `scanned` (0: outside every function).
    depth: i32,
    scanned: usize,
}

impl Walk {
    /// Brings the brace depth up to view item `k`.
    fn advance(&mut self, ctx: &Ctx, k: usize) {
        for j in self.scanned..k {
            match ctx.view.text(j) {
                "{" => self.depth += 1,
                "}" => self.depth -= 1,
                _ => {}
            }
        }
        self.scanned = k;
    }

    /// Takes a construct's lowering in (one more construct number), or its error; the byte
    /// range of its statement, for the caller to record with those of its family.
    fn take(&mut self, lowered: Result<Lowered, LowerError>) -> Option<(usize, usize)> {
        match lowered {
            Ok(l) => {
                self.out.edits.extend(l.edits);
                self.out.warnings.extend(l.warnings);
                self.out.constructs += 1;
                l.body
            }
            Err(e) => {
                self.errors.push(e);
                None
            }
        }
    }

    /// The lowering, with its edits in the order `splice` applies them, or every error.
    fn finish(mut self) -> Result<Lowering, Vec<LowerError>> {
        if !self.errors.is_empty() {
            return Err(self.errors);
        }
        // insertions at one offset: the later construct is the inner one (its block ends where
        // the outer one's does), so its text comes first
        let mut indexed: Vec<(usize, Edit)> = self.out.edits.drain(..).enumerate().collect();
        indexed.sort_by_key(|(i, e)| (e.start, e.end, std::cmp::Reverse(*i)));
        self.out.edits = indexed.into_iter().map(|(_, e)| e).collect();
        Ok(self.out)
    }
}

/// Records the region of the `target data` directive `dl` (view item `k`), if it is one with a
/// structured block.
fn record_data_region(ctx: &Ctx, k: usize, dl: DirectiveLine, regions: &mut Regions) {
    let pp = ctx.pp;
    let Some(directive) = target_data::parse(&pp.text, &pp.lexed.tokens, dl.first_tok, dl.end_tok)
    else {
        return;
    };
    let Ok(block_end) = ctx.view.statement_end(k + 1) else {
        return;
    };
    let info = pp.line_info(dl.line);
    regions.push(Region {
        directive,
        start: dl.start,
        end: ctx.item_end(block_end),
        at: format!("{}:{}", pp.file_name(info.file), info.line),
    });
}

/// Lowers every spread construct of `pp` with the default [`Options`]; errors are collected
/// for all constructs.
pub fn lower(pp: &PpOutput) -> Result<Lowering, Vec<LowerError>> {
    lower_with(pp, &Options::default())
}

/// Lowers every spread construct of `pp`; errors are collected for all constructs.
pub fn lower_with(pp: &PpOutput, opts: &Options) -> Result<Lowering, Vec<LowerError>> {
    let view = View::new(&pp.text, &pp.lexed, |d| pp.is_marker(d));
    let file_lit = escape_c(pp.file_name(pp.main_file));
    let ctx = Ctx { pp, view, file_lit };
    let mut w = Walk::default();
    for k in 0..ctx.view.items.len() {
        let Item::Pragma(di) = ctx.view.items[k] else {
            continue;
        };
        w.advance(&ctx, k);
        if k < w.any_consumed {
            // an if_device line of the construct just lowered
            continue;
        }
        lower_directive(&ctx, opts, &mut w, k, di);
    }
    w.finish()
}

/// The directive at view item `k` (directive `di`): handed to the lowering of its family, or
/// checked where it is clang's.
fn lower_directive(ctx: &Ctx, opts: &Options, w: &mut Walk, k: usize, di: usize) {
    let pp = ctx.pp;
    let (src, toks) = (pp.text.as_str(), &pp.lexed.tokens);
    let dl = pp.lexed.directives[di];
    if w.depth > 0 && pp.line_info(dl.line).file == pp.main_file {
        record_data_region(ctx, k, dl, &mut w.data_regions);
    }
    let found = any::classify(src, toks, dl.first_tok, dl.end_tok);
    if last_holds(&w.any_bodies, dl.start)
        && (found == any::Found::Target
            || directive::classify(src, toks, dl.first_tok, dl.end_tok).is_some()
            || cu::num_teams_range(src, toks, dl.first_tok, dl.end_tok).is_some())
    {
        w.errors.push(LowerError {
            off: dl.start,
            msg: "a construct the driver lowers cannot be nested in the statement of a 'target device(any)' (the statement is copied once per version)".into(),
        });
        return;
    }
    match found {
        any::Found::Other => {}
        any::Found::Misplaced(e) => {
            w.errors.push(ctx.perror(e, dl));
            return;
        }
        any::Found::Entries => {
            w.errors.push(LowerError {
                off: ctx.tok_off(dl.first_tok + 3),
                msg: "'if_device' must follow a '#pragma omp target device(any)' line (directly, or after other 'if_device' lines of it)".into(),
            });
            return;
        }
        any::Found::Target => {
            device_any::lower_directive(ctx, opts, w, k, di);
            return;
        }
    }
    match directive::classify(src, toks, dl.first_tok, dl.end_tok) {
        Some((kind, _)) => lower_spread_family(ctx, opts, w, (k, di), kind),
        None => check_plain(ctx, w, dl),
    }
}

/// A directive of clang's: a `target` directive with Spread's words in it (`target sprad`) is
/// an error, and OpenMP 5.1's `num_teams(lower:upper)`, which clang 19 rejects, on a `teams`
/// of clang's becomes `num_teams(upper)`, a conforming number of teams.
fn check_plain(ctx: &Ctx, w: &mut Walk, dl: DirectiveLine) {
    let pp = ctx.pp;
    let (src, toks) = (pp.text.as_str(), &pp.lexed.tokens);
    if let Err(e) = plain_target::check(src, toks, dl.first_tok, dl.end_tok) {
        w.errors.push(ctx.perror(e, dl));
        return;
    }
    if pp.line_info(dl.line).file == pp.main_file {
        if let Some((a, colon)) = cu::num_teams_range(src, toks, dl.first_tok, dl.end_tok) {
            w.out.edits.push(Edit {
                start: toks[a].start,
                end: toks[colon].end,
                pieces: vec![],
            });
            w.out.constructs += 1;
        }
    }
}

/// A construct of kind `kind` that [`crate::directive`] parses, at view item `k` (directive
/// `di`): refused in an included file or inside a `target spread` loop, else a compute-unit
/// region or one of the `target spread` family.
fn lower_spread_family(
    ctx: &Ctx,
    opts: &Options,
    w: &mut Walk,
    (k, di): (usize, usize),
    kind: Kind,
) {
    let pp = ctx.pp;
    let dl = pp.lexed.directives[di];
    let info = pp.line_info(dl.line);
    let cname_guess = kind.construct_name();
    if info.file != pp.main_file {
        w.errors.push(LowerError {
            off: dl.start,
            msg: format!(
                "'{cname_guess}' is only supported in the source file being compiled, not in included file '{}'",
                pp.file_name(info.file)
            ),
        });
        return;
    }
    if last_holds(&w.spread_bodies, dl.start) {
        w.errors.push(LowerError {
            off: dl.start,
            msg: format!(
                "'{cname_guess}' cannot be nested inside the loop of a 'target spread' construct"
            ),
        });
        return;
    }
    if kind != Kind::Cu {
        spread::lower_construct(ctx, opts, w, (k, di), kind);
        return;
    }
    if last_holds(&w.cu_bodies, dl.start) {
        w.errors.push(LowerError {
            off: dl.start,
            msg: "a 'teams' with compute units cannot be nested inside another compute-unit region"
                .into(),
        });
        return;
    }
    if w.depth <= 0 {
        w.errors.push(LowerError {
            off: dl.start,
            msg: "a 'teams' with compute units must be inside a function".into(),
        });
        return;
    }
    let lowered = compute_units::lower_cu(ctx, k, di, w.out.constructs, ctx.directive_line(dl));
    if let Some(body) = w.take(lowered) {
        w.cu_bodies.push(body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Applies the edits to the preprocessed text directly (markers and all), for tests.
    fn apply(pp: &PpOutput, l: &Lowering) -> String {
        let mut s = String::new();
        let mut pos = 0;
        for e in &l.edits {
            s.push_str(&pp.text[pos..e.start]);
            for p in &e.pieces {
                match p {
                    Piece::Text(t) => s.push_str(t),
                    Piece::Line(n) => s.push_str(&format!("<{n}>")),
                    Piece::Directive { line, text } => s.push_str(&format!("\n<{line}>{text}\n")),
                    Piece::Raw(t) => s.push_str(&format!("\n{t}\n")),
                }
            }
            pos = e.end;
        }
        s.push_str(&pp.text[pos..]);
        s
    }

    fn lower_str(src: &str) -> Result<String, Vec<(String, String)>> {
        let pp = PpOutput::parse(format!("# 1 \"t.c\"\n{src}"), false, "t.c");
        match lower(&pp) {
            Ok(l) => Ok(apply(&pp, &l)),
            Err(es) => Err(es
                .into_iter()
                .map(|e| {
                    let rest = &pp.text[e.off..];
                    let w: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
                    (w, e.msg)
                })
                .collect()),
        }
    }

    #[test]
    fn target_spread_loop() {
        let out = lower_str(
            "#pragma omp target spread teams distribute parallel for devices(2,0,1) spread_schedule(static, 4) num_teams(2) map(to: A[omp_spread_start-1:omp_spread_size+2])\nfor (int i = 1; i < N - 1; i++) B[i] = A[i];\nx;\n",
        )
        .unwrap();
        assert!(out.contains("<1>{ static const __spread_construct_t __spread_c_0 = { \"t.c\", 1, __SPREAD_KIND_TARGET, 0, __SPREAD_SCHED_STATIC }; const int32_t __spread_devs_0[] = { (int32_t)(2), (int32_t)(0), (int32_t)(1) }; __spread_region_t *__spread_r_0 = __spread_region_begin(&__spread_c_0, (1), (N - 1), __spread_devs_0, 3, (4)); { const int64_t omp_spread_start = __spread_chunk_start(__spread_r_0); const int64_t omp_spread_size = __spread_chunk_size(__spread_r_0); (void)omp_spread_start; (void)omp_spread_size;"), "{out}");
        assert!(out.contains("\n<1>#pragma omp target teams distribute parallel for device(__spread_chunk_device(__spread_r_0)) num_teams(2) map(to: A[omp_spread_start-1:omp_spread_size+2])\n"), "{out}");
        assert!(out.contains("<2>for (int i = omp_spread_start; i < (int)(omp_spread_start + omp_spread_size); i++) B[i] = A[i]; } __spread_region_end(__spread_r_0); }\nx;"), "{out}");
    }

    #[test]
    fn inclusive_bound_and_defaults() {
        let out =
            lower_str("#pragma omp target spread nowait\nfor (i = 0; i <= n; ++i) { a(); }\n")
                .unwrap();
        assert!(out.contains("__SPREAD_KIND_TARGET, __SPREAD_FLAG_NOWAIT, 0 }; __spread_region_t *__spread_r_0 = __spread_region_begin(&__spread_c_0, (0), (n) + (int64_t)1, (const int32_t *)0, 0, 0);"), "{out}");
        assert!(
            out.contains("#pragma omp target device(__spread_chunk_device(__spread_r_0)) nowait depend(inout: __spread_chunk_order(__spread_r_0)[0])\n"),
            "{out}"
        );
        assert!(out.contains("for (i = omp_spread_start; i <= omp_spread_start + omp_spread_size - 1; ++i) { a(); } }"), "{out}");
    }

    #[test]
    fn standalone_data() {
        let out = lower_str("#pragma omp target enter data spread devices(1,0) range(1:N-2) chunk_size(4) nowait depend(out: x) map(to: A[omp_spread_start:omp_spread_size])\ny;\n").unwrap();
        assert!(out.contains("<1>{ static const __spread_construct_t __spread_c_0 = { \"t.c\", 1, __SPREAD_KIND_ENTER_DATA, __SPREAD_FLAG_NOWAIT, 0 }; const int32_t __spread_devs_0[] = { (int32_t)(1), (int32_t)(0) }; const int64_t __spread_lb_0 = (1); const int64_t __spread_ub_0 = __spread_lb_0 + __spread_length_arg(&__spread_c_0, (N-2)); const int64_t __spread_chunk_0 = (4); { __spread_region_t *__spread_r_0 = __spread_region_begin(&__spread_c_0, __spread_lb_0, __spread_ub_0, __spread_devs_0, 2, __spread_chunk_0); { const int64_t omp_spread_start = __spread_chunk_start(__spread_r_0); const int64_t omp_spread_size = __spread_chunk_size(__spread_r_0); (void)omp_spread_start; (void)omp_spread_size;"), "{out}");
        assert!(out.contains("<1>#pragma omp target enter data device(__spread_chunk_device(__spread_r_0)) nowait depend(out: x) map(to: A[omp_spread_start:omp_spread_size]) depend(inout: __spread_chunk_order(__spread_r_0)[0])\n<1>} __spread_region_end(__spread_r_0); } }\ny;"), "{out}");
    }

    #[test]
    fn data_block() {
        let out = lower_str("#pragma omp target data spread range(0:N) map(tofrom: A[omp_spread_start:omp_spread_size])\n{\n  work();\n}\nz;\n").unwrap();
        assert!(out.contains("#pragma omp target enter data device(__spread_chunk_device(__spread_r_0)) map(to: A[omp_spread_start:omp_spread_size])\n<1>} __spread_region_end(__spread_r_0); }\n{\n  work();\n} { __spread_region_t *__spread_r_0 = __spread_region_begin(&__spread_c_0,"), "{out}");
        assert!(out.contains("\n<4>#pragma omp target exit data device(__spread_chunk_device(__spread_r_0)) map(from: A[omp_spread_start:omp_spread_size])\n<4>} __spread_region_end(__spread_r_0); } }\nz;"), "{out}");
    }

    #[test]
    fn loop_variable_types() {
        let out =
            lower_str("#pragma omp target spread\nfor (register unsigned i = 0; i < n; i++) ;\n")
                .unwrap();
        assert!(out.contains("for (register unsigned i = omp_spread_start; i < (unsigned)(omp_spread_start + omp_spread_size); i++) ;"), "{out}");
        let out = lower_str("#pragma omp target spread\nfor (auto i = 0; i < n; i++) ;\n").unwrap();
        assert!(
            out.contains(
                "for (auto i = omp_spread_start; i < omp_spread_start + omp_spread_size; i++) ;"
            ),
            "{out}"
        );
    }

    #[test]
    fn update_peer_and_wait() {
        let out = lower_str("void f(void) {\n#pragma omp target update peer from(b[lo:n], y) from_device(e) to(a[1:n], x) to_device(d)\n#pragma omp wait device(d)\n}\n").unwrap();
        assert!(out.contains("{\n<2>{ static const __spread_construct_t __spread_c_0 = { \"t.c\", 2, __SPREAD_KIND_UPDATE_PEER, 0, 0 }; const int32_t __spread_from_dev_0 = __spread_device_arg(&__spread_c_0, (e)); const int32_t __spread_to_dev_0 = __spread_device_arg(&__spread_c_0, (d)); __spread_update_peer(&__spread_c_0, (void *)&(a)[1], (size_t)(n) * sizeof((a)[0]), __spread_to_dev_0, (const void *)&(b)[lo], (size_t)(n) * sizeof((b)[0]), __spread_from_dev_0); __spread_update_peer(&__spread_c_0, (void *)&(x), sizeof(x), __spread_to_dev_0, (const void *)&(y), sizeof(y), __spread_from_dev_0); }\n"), "{out}");
        assert!(out.contains("\n<3>{ static const __spread_construct_t __spread_c_1 = { \"t.c\", 3, __SPREAD_KIND_WAIT_DEVICE, 0, 0 }; __spread_device_wait(&__spread_c_1, __spread_device_arg(&__spread_c_1, (d))); }\n}"), "{out}");
        // plain target update stays clang's
        let src = "void f(void) {\n#pragma omp target update to(a[0:n]) device(1)\n}\n";
        assert_eq!(lower_str(src).unwrap(), format!("# 1 \"t.c\"\n{src}"));
    }

    #[test]
    fn standalone_extension_placement() {
        let e = lower_str("#pragma omp wait device(0)\nint g(void) { return 0; }\n#pragma omp target update peer to(x) to_device(0) from(x) from_device(1)\n").unwrap_err();
        assert_eq!(e.len(), 2);
        assert!(e[0].1.contains("'wait' is a standalone directive"), "{e:?}");
        assert!(
            e[1].1
                .contains("'target update peer' is a standalone directive"),
            "{e:?}"
        );
        let e = lower_str("void f(int n) {\n#pragma omp target spread\nfor (int i = 0; i < n; i++) {\n#pragma omp wait device(0)\n}\n}\n").unwrap_err();
        assert!(e[0].1.contains("'wait' cannot be nested"), "{e:?}");
        // the body of an if: lowered as a block
        let out =
            lower_str("void f(int n) {\n  if (n)\n#pragma omp wait device(n)\n  else n++;\n}\n")
                .unwrap();
        assert!(out.contains("if (n)\n<3>{ static const __spread_construct_t __spread_c_0 = { \"t.c\", 3, __SPREAD_KIND_WAIT_DEVICE, 0, 0 }; __spread_device_wait(&__spread_c_0, __spread_device_arg(&__spread_c_0, (n))); }\n  else n++;"), "{out}");
    }

    fn lower_cxx(src: &str) -> String {
        let pp = PpOutput::parse(format!("# 1 \"t.cpp\"\n{src}"), true, "t.cpp");
        apply(&pp, &lower(&pp).unwrap())
    }

    #[test]
    fn reduction() {
        let out = lower_str("void f(int n, double *a) {\n  double s = 0; int m = 0;\n#pragma omp target spread teams distribute parallel for devices(0, 1) spread_schedule(adaptive) reduction(+: s) map(tofrom: s, a[0:n]) reduction(max: m)\n  for (int i = 0; i < n; i++) { s += a[i]; m = m > i ? m : i; x.s = p->m; }\n}\n").unwrap();
        assert!(out.contains("<3>{ static const __spread_construct_t __spread_c_0 = { \"t.c\", 3, __SPREAD_KIND_TARGET, 0, __SPREAD_SCHED_ADAPTIVE }; const int32_t __spread_devs_0[] = { (int32_t)(0), (int32_t)(1) }; __extension__ _Static_assert((__extension__ __SPREAD_TYPE_OF(s)) != __SPREAD_TYPE_UNSUPPORTED, \"reduction variable 's' of 'target spread teams distribute parallel for' must have an arithmetic type (char, short, int, long, long long, their unsigned forms, float or double)\"); __extension__ _Static_assert((__extension__ __SPREAD_TYPE_OF(m)) != __SPREAD_TYPE_UNSUPPORTED, "), "{out}");
        assert!(out.contains("__spread_reductions_t *__spread_rd_0 = 0; __spread_region_t *__spread_r_0 = __spread_region_begin(&__spread_c_0, (0), (n), __spread_devs_0, 2, 0); if (!__spread_rd_0) { __spread_reduction(__spread_r_0, __SPREAD_RED_ADD, (__extension__ __SPREAD_TYPE_OF(s)), (void *)&(s), sizeof(s)); __spread_reduction(__spread_r_0, __SPREAD_RED_MAX, (__extension__ __SPREAD_TYPE_OF(m)), (void *)&(m), sizeof(m)); __spread_rd_0 = __spread_region_reductions(__spread_r_0); } { const int64_t omp_spread_start = __spread_chunk_start(__spread_r_0); const int64_t omp_spread_size = __spread_chunk_size(__spread_r_0); (void)omp_spread_start; (void)omp_spread_size; __typeof__(s) *const __spread_rv_0_0 = (__typeof__(s) *)__spread_reduction_slot(__spread_r_0, 0); __typeof__(m) *const __spread_rv_0_1 = (__typeof__(m) *)__spread_reduction_slot(__spread_r_0, 1);\n"), "{out}");
        assert!(out.contains("\n<3>#pragma omp target teams distribute parallel for device(__spread_chunk_device(__spread_r_0)) reduction(+: __spread_rv_0_0[0:1]) map(tofrom: __spread_rv_0_0[0:1]) map(tofrom: a[0:n]) reduction(max: __spread_rv_0_1[0:1]) map(tofrom: __spread_rv_0_1[0:1])\n"), "{out}");
        assert!(out.contains("{ __spread_rv_0_0[0] += a[i]; __spread_rv_0_1[0] = __spread_rv_0_1[0] > i ? __spread_rv_0_1[0] : i; x.s = p->m; } } __spread_region_end(__spread_r_0); if (__spread_rd_0) __spread_reductions_finish(__spread_rd_0); }\n}"), "{out}");
        // nowait: the partial orders a device's chunks, a task combines after all of them
        let out = lower_str("void f(int n, int s) {\n#pragma omp target spread parallel for nowait reduction(-: s)\n  for (int i = 0; i < n; i++)\n    s -= i;\n}\n").unwrap();
        assert!(
            out.contains("__spread_reduction(__spread_r_0, __SPREAD_RED_SUB, "),
            "{out}"
        );
        // (one task runs the construct without nowait, then combines the partials)
        assert!(out.contains("<2>#pragma omp task default(shared)\n<2>{ static const __spread_construct_t __spread_c_0 = { \"t.c\", 2, __SPREAD_KIND_TARGET, 0, 0 }; "), "{out}");
        assert!(out.contains("\n<2>#pragma omp target parallel for device(__spread_chunk_device(__spread_r_0)) reduction(+: __spread_rv_0_0[0:1]) map(tofrom: __spread_rv_0_0[0:1])\n"), "{out}");
        assert!(out.contains("    __spread_rv_0_0[0] -= i; } __spread_region_end(__spread_r_0); if (__spread_rd_0) __spread_reductions_finish(__spread_rd_0); }\n}"), "{out}");
        assert!(!out.contains("nowait") && !out.contains("depend"), "{out}");
        // the user's depend clauses go to the task; the reductions keep their places among
        // the other clauses
        let out = lower_str("void f(int n, double *a) {\n  double s = 0;\n#pragma omp target spread teams distribute parallel for devices(1, 0) depend(in: a[0]) map(to: a[0:n]) nowait reduction(+: s) depend(inout: s) if(n > 1)\n  for (int i = 0; i < n; i++) s += a[i];\n#pragma omp taskwait\n}\n").unwrap();
        assert!(out.contains("<3>#pragma omp task default(shared) depend(in: a[0]) depend(inout: s)\n<3>{ static const __spread_construct_t __spread_c_0 = { \"t.c\", 3, __SPREAD_KIND_TARGET, 0, 0 }; const int32_t __spread_devs_0[] = { (int32_t)(1), (int32_t)(0) }; "), "{out}");
        assert!(out.contains("\n<3>#pragma omp target teams distribute parallel for device(__spread_chunk_device(__spread_r_0)) map(to: a[0:n]) reduction(+: __spread_rv_0_0[0:1]) map(tofrom: __spread_rv_0_0[0:1]) if(n > 1)\n"), "{out}");
        assert!(out.contains(" __spread_rv_0_0[0] += a[i]; } __spread_region_end(__spread_r_0); if (__spread_rd_0) __spread_reductions_finish(__spread_rd_0); }\n#pragma omp taskwait"), "{out}");
        // without reductions, nowait and depend stay on each chunk's target task
        let out = lower_str("void f(int n, double *a) {\n#pragma omp target spread nowait depend(in: a[0]) map(tofrom: a[omp_spread_start:omp_spread_size])\n  for (int i = 0; i < n; i++) a[i] += 1;\n}\n").unwrap();
        assert!(!out.contains("omp task"), "{out}");
        assert!(
            out.contains("__SPREAD_KIND_TARGET, __SPREAD_FLAG_NOWAIT, 0 }"),
            "{out}"
        );
        assert!(out.contains("#pragma omp target device(__spread_chunk_device(__spread_r_0)) nowait depend(in: a[0]) map(tofrom: a[omp_spread_start:omp_spread_size]) depend(inout: __spread_chunk_order(__spread_r_0)[0])\n"), "{out}");
        // C++: casts that compile
        let out = lower_cxx("void f(int n, long &s) {\n#pragma omp target spread simd reduction(|: s)\n  for (int i = 0; i < n; i++) s |= i;\n}\n");
        assert!(
            out.contains("static_assert(__SPREAD_TYPE_OF(s) != __SPREAD_TYPE_UNSUPPORTED, "),
            "{out}"
        );
        assert!(out.contains("__spread_reduction(__spread_r_0, __SPREAD_RED_BOR, __SPREAD_TYPE_OF(s), static_cast<void *>(&(s)), sizeof(s));"), "{out}");
        assert!(out.contains("__typeof__(s) *const __spread_rv_0_0 = static_cast<__typeof__(s) *>(__spread_reduction_slot(__spread_r_0, 0));"), "{out}");
    }

    #[test]
    fn reduction_errors() {
        let cases = [
            ("{ double s = 1; a[i] = s; }", "s"),
            ("{ int u = 1, s; a[i] = u; }", "s;"),
            ("{ T *s = 0; }", "s"),
            ("for (int s = 0; s < 2; s++) ;", "s"),
        ];
        for (body, at) in cases {
            let src = format!("void f(int n, int s, int *a) {{\n#pragma omp target spread parallel for reduction(+: s)\n  for (int i = 0; i < n; i++) {body}\n}}\n");
            let e = lower_str(&src).unwrap_err();
            assert_eq!(e[0].0, at, "{body}");
            assert!(e[0].1.contains("reduction variable 's' is redeclared in the loop body of 'target spread parallel for'"), "{body}: {e:?}");
        }
        // uses, not declarations
        for body in [
            "{ int y = a[i] * s; double *q = &s; int z = f(a, s), w = s; s += y + *q + z + w; }",
            "{ struct s { int s; } v; v.s = 1; s += v.s; }",
            "s = s * 2;",
        ] {
            let src = format!("void f(int n, int s, int *a) {{\n#pragma omp target spread parallel for reduction(+: s)\n  for (int i = 0; i < n; i++) {body}\n}}\n");
            assert!(lower_str(&src).is_ok(), "{body}");
        }
        let e = lower_str("void f(int n, int s) {\n#pragma omp target spread parallel for reduction(+: s)\n  for (int i = 0; i < n; i++) {\n#pragma omp simd reduction(+: s)\n    for (int j = 0; j < 4; j++) s += j;\n  }\n}\n").unwrap_err();
        assert!(e[0].1.contains("reduction variable 's' of 'target spread parallel for' cannot be named in a directive inside its loop body"), "{e:?}");
    }

    #[test]
    fn compute_units() {
        // the paper's Fig. 11: teams and distribute on two lines, the loop variable declared
        // outside (private in the parallel region)
        let out = lower_str("void f(int num_zones) {\n  int zone;\n#pragma omp teams num_teams(4:CPU:4, 2::GPU::1) private(x)\n#pragma omp distribute dist_schedule(dynamic, 2)\n  for (zone = 0; zone < num_zones; zone++)\n    comp(zone);\n  z;\n}\n").unwrap();
        assert!(out.contains("<3>{ static const __spread_construct_t __spread_c_0 = { \"t.c\", 3, __SPREAD_KIND_CU, 0, __SPREAD_SCHED_DYNAMIC }; const __spread_cud_t __spread_cud_0[] = { { (4), __SPREAD_CU_CPU, (4) }, { (2), __SPREAD_CU_GPU, (1) } }; __spread_cu_region_t *__spread_cu_0 = __spread_cu_begin(&__spread_c_0, (0), (num_zones), __spread_cud_0, 2, (2), 0);\n<3>#pragma omp parallel num_threads(__spread_cu_num_threads(__spread_cu_0)) firstprivate(__spread_cu_0) private(zone) private(x)\n<3>{ int64_t __spread_lo_0, __spread_hi_0; __spread_cu_enter(__spread_cu_0); while (__spread_cu_next(__spread_cu_0, &__spread_lo_0, &__spread_hi_0)) { {<5>  for (zone = __spread_lo_0; zone < __spread_hi_0; zone++)\n    comp(zone); } __spread_cu_commit(__spread_cu_0, __spread_lo_0, __spread_hi_0); } __spread_cu_leave(__spread_cu_0); } __spread_cu_end(__spread_cu_0); }\n  z;"), "{out}");
        // combined, inclusive bound, thread_limit, clauses moved to the parallel region
        let out = lower_str("void f(int n) {\n#pragma omp teams distribute num_teams(n:CPU:2) dist_schedule(static_opt) thread_limit(t) reduction(+: s) default(none)\n  for (unsigned i = 1; i <= n; ++i) s += i;\n}\n").unwrap();
        assert!(out.contains("{ \"t.c\", 2, __SPREAD_KIND_CU, 0, __SPREAD_SCHED_STATIC_OPT }; const __spread_cud_t __spread_cud_0[] = { { (n), __SPREAD_CU_CPU, (2) } }; __spread_cu_region_t *__spread_cu_0 = __spread_cu_begin(&__spread_c_0, (1), (n) + (int64_t)1, __spread_cud_0, 1, 0, (t));\n<2>#pragma omp parallel num_threads(__spread_cu_num_threads(__spread_cu_0)) firstprivate(__spread_cu_0) reduction(+: s) default(none)\n"), "{out}");
        assert!(out.contains("<3>  for (unsigned i = __spread_lo_0; i <= (unsigned)(__spread_hi_0 - 1); ++i) s += i; } __spread_cu_commit("), "{out}");
        // no dist_schedule: 0 (the runtime's default); teams loop
        let out = lower_str("void f(int n) {\n#pragma omp teams loop num_teams(1:GPU:1)\nfor (int i = 0; i < n; i++) g(i);\n}\n").unwrap();
        assert!(out.contains("__SPREAD_KIND_CU, 0, 0 };"), "{out}");
        // a structured block: one task per CU, static
        let out = lower_str("void f(void) {\n#pragma omp teams num_teams(2:CPU:1, 1:GPU:1)\n  {\n    work();\n  }\n}\n").unwrap();
        assert!(out.contains("__SPREAD_KIND_CU, 0, __SPREAD_SCHED_STATIC }; const __spread_cud_t __spread_cud_0[] = { { (2), __SPREAD_CU_CPU, (1) }, { (1), __SPREAD_CU_GPU, (1) } }; __spread_cu_region_t *__spread_cu_0 = __spread_cu_begin(&__spread_c_0, 0, (int64_t)__spread_cud_0[0].__spread_count + (int64_t)__spread_cud_0[1].__spread_count, __spread_cud_0, 2, 0, 0);"), "{out}");
        assert!(out.contains("if (__spread_cu_next(__spread_cu_0, &__spread_lo_0, &__spread_hi_0)) { {\n  {\n    work();\n  } } __spread_cu_commit(__spread_cu_0, __spread_lo_0, __spread_hi_0); } __spread_cu_leave(__spread_cu_0); } __spread_cu_end(__spread_cu_0); }\n}"), "{out}");
        // C++: the descriptors' integers are converted explicitly (no narrowing error)
        let out = lower_cxx("void f(long n) {\n#pragma omp teams num_teams(n:CPU:1)\n  g();\n}\n");
        assert!(
            out.contains(
                "{ { static_cast<int32_t>(n), __SPREAD_CU_CPU, static_cast<int32_t>(1) } }"
            ),
            "{out}"
        );
    }

    #[test]
    fn spread_words_on_plain_target() {
        let e = lower_str("void f(int n, int *a) {\n#pragma omp target sprad parallel for devices(0, 1)\n  for (int i = 0; i < n; i++) a[i] = 0;\n#pragma omp target data map(a[0:n]) devices(0)\n  { }\n}\n").unwrap_err();
        assert_eq!(e.len(), 2, "{e:?}");
        assert_eq!(e[0].0, "sprad");
        assert!(e[0].1.ends_with("did you mean 'spread'?"), "{e:?}");
        assert_eq!(e[1].0, "devices(0)");
        assert!(
            e[1].1
                .starts_with("the 'devices' clause needs 'target data spread'"),
            "{e:?}"
        );
        // outside a function too: clang would still ignore the rest of the directive
        let e = lower_str("#pragma omp target update sprad to(a)\n").unwrap_err();
        assert_eq!(e[0].0, "sprad");
        assert!(lower_str("void f(int n, int *a) {\n#pragma omp target teams map(a[0:n]) device(1)\n  a[0] = 0;\n}\n").is_ok());
    }

    #[test]
    fn one_device_target_data_around_spread() {
        let code = "void f(int n, double *a, double *b, double s) {\n#pragma omp target data map(to: a[0:n], b[0:n]) map(tofrom: s)\n  for (int t = 0; t < 9; t++) {\n#pragma omp target spread parallel for devices(0, 1) reduction(+: s)\n    for (int i = 0; i < n; i++) s += a[i];\n  }\n}\n";
        let pp = PpOutput::parse(format!("# 1 \"t.c\"\n{code}"), false, "t.c");
        let l = lower(&pp).unwrap();
        assert_eq!(l.warnings.len(), 1);
        // 'b' is not used, 's' is reduced through per-chunk partials
        assert!(
            l.warnings[0]
                .msg
                .starts_with("'a' is mapped by the 'target data' at t.c:2 on one device only"),
            "{:?}",
            l.warnings
        );
        assert!(pp.text[l.warnings[0].off..].starts_with("#pragma omp target spread"));
        let quiet = Options {
            no_target_data_warning: true,
            ..Options::default()
        };
        assert!(lower_with(&pp, &quiet).unwrap().warnings.is_empty());
    }

    #[test]
    fn compute_unit_warnings_and_errors() {
        let pp = PpOutput::parse("# 1 \"t.c\"\nvoid f(int n) {\n#pragma omp teams num_teams(1:CPU:1)\n#pragma distribute\n  for (int i = 0; i < n; i++) g(i);\n#pragma omp teams distribute parallel for num_teams(1:CPU:1)\n  for (int i = 0; i < n; i++) g(i);\n}\n".to_string(), false, "t.c");
        let l = lower(&pp).unwrap();
        assert_eq!(l.constructs, 2);
        let w: Vec<&str> = l.warnings.iter().map(|w| w.msg.as_str()).collect();
        assert!(
            w[0].contains("did you mean '#pragma omp distribute'"),
            "{w:?}"
        );
        assert!(w[1].contains("'parallel for' is ignored"), "{w:?}");
        let cases = [
            ("#pragma omp teams num_teams(1:CPU:1)\n{\n#pragma omp teams num_teams(1:CPU:1)\n  g();\n}", "#pragma", "cannot be nested inside another compute-unit region"),
            ("#pragma omp target\n#pragma omp teams num_teams(1:CPU:1)\n  g();", "#pragma", "cannot be nested in a 'target' construct"),
            ("#pragma omp teams distribute num_teams(1:CPU:1)\n  while (1) g();", "while", "must be followed by a for loop"),
            ("#pragma omp teams num_teams(1:CPU:1)\n#pragma omp distribute\n  for (int i = 0; i < n; i++) { i++; }", "i++;", "cannot be modified"),
            ("#pragma omp teams num_teams(1:CPU:1)\n#pragma omp distribute simd\n  for (;;) ;", "simd", "'distribute simd' is not supported"),
            ("#pragma omp teams num_teams(1:CPU:1)\n#pragma omp distribute lastprivate(i)\n  for (;;) ;", "lastprivate(i)", "not supported on 'distribute' of a 'teams' with compute units"),
            ("#pragma omp target spread\nfor (int i = 0; i < n; i++) {\n#pragma omp teams num_teams(1:CPU:1)\n  g();\n}", "#pragma", "'teams' cannot be nested inside the loop of a 'target spread'"),
        ];
        for (code, at, msg) in cases {
            let e = lower_str(&format!("void f(int n) {{\n{code}\n}}\n")).unwrap_err();
            assert_eq!(e[0].0, at, "{code}: {e:?}");
            assert!(e[0].1.contains(msg), "{code}: {e:?}");
        }
        let e = lower_str("#pragma omp teams num_teams(1:CPU:1)\nint x;\n").unwrap_err();
        assert!(e[0].1.contains("must be inside a function"), "{e:?}");
    }

    #[test]
    fn num_teams_range_and_nesting() {
        // OpenMP 5.1's lower bound is dropped on clang's own teams
        let out = lower_str("void f(void) {\n#pragma omp teams num_teams(2 : 8) thread_limit(4)\n  g();\n#pragma omp target teams num_teams(lo:hi)\n  g();\n#pragma omp teams num_teams(8)\n  g();\n}\n").unwrap();
        assert!(
            out.contains("#pragma omp teams num_teams( 8) thread_limit(4)\n"),
            "{out}"
        );
        assert!(
            out.contains("#pragma omp target teams num_teams(hi)\n"),
            "{out}"
        );
        assert!(out.contains("#pragma omp teams num_teams(8)\n"), "{out}");
        // a construct that is the whole block of another closes first
        let out = lower_str("void f(int n) {\n#pragma omp teams num_teams(1:CPU:1)\n#pragma omp target spread\n  for (int i = 0; i < n; i++) g(i);\n}\n").unwrap();
        assert!(
            out.contains(
                "g(i); } __spread_region_end(__spread_r_1); } } __spread_cu_commit(__spread_cu_0,"
            ),
            "{out}"
        );
    }

    #[test]
    fn errors() {
        let e = lower_str("#pragma omp target spread devices(0)\nwhile (1) {}\n").unwrap_err();
        assert_eq!(e[0].0, "while");
        assert!(e[0]
            .1
            .contains("'target spread' must be followed by a for loop"));
        let e = lower_str("#pragma omp target spread devices(0)\n").unwrap_err();
        assert!(e[0].1.contains("must be followed by a for loop"));
        let e = lower_str("#pragma omp target data spread range(0:1) map(a)\n").unwrap_err();
        assert!(e[0].1.contains("structured block"));
        let e = lower_str(
            "#pragma omp target spread\nfor (int i = 0; i < n; i++) {\n#pragma omp target update spread range(0:1) to(a)\n}\n",
        )
        .unwrap_err();
        assert!(e[0].1.contains("cannot be nested"), "{:?}", e);
        // all constructs are checked
        let e = lower_str("#pragma omp target spread foo\nfor (;;);\n#pragma omp target spread devices()\nfor (;;);\n").unwrap_err();
        assert_eq!(e.len(), 2);
    }
}
