//! Lowering of spread constructs into standard OpenMP plus calls to the runtime's
//! `__spread_*` entry points (docs/spread-abi.md §2). The result is a list of edits on the
//! preprocessed text; `splice` projects them onto the user's source.

use std::collections::HashSet;

use crate::any;
use crate::cu;
use crate::directive::{self, Kind, SpreadDirective};
use crate::lexer::DirectiveLine;
use crate::plain_target;
use crate::ppout::{escape_c, PpOutput};
use crate::stmt::{self, Item, View};
use crate::target_data::{self, Region, Regions};

mod compute_units;
mod spread_reduction;

use spread_reduction::{deferred_reduction, reduction_text, reduction_uses};

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

/// One device expression `e` of construct `k` as an `int32_t`: an integer literal as
/// `(int32_t)(e)` (the parser rejects one that does not fit), anything else range-checked by
/// spread.h's `__spread_device_arg`, which reports a value that does not fit an `int` through the
/// runtime instead of truncating it. The expression is converted implicitly (C) or by
/// `static_cast` (C++), never by a C cast, so that a pointer is still an error.
fn device_expr(k: usize, e: &str, cxx: bool) -> String {
    match directive::int_literal(e) {
        Some(v) if v <= i32::MAX as u128 => format!("(int32_t)({e})"),
        _ if cxx => format!("__spread_device_arg(&__spread_c_{k}, static_cast<long long>({e}))"),
        _ => format!("__spread_device_arg(&__spread_c_{k}, ({e}))"),
    }
}

/// The pieces that declare the devices array: (declaration, pointer, count). The declaration
/// follows the construct's descriptor `__spread_c_K`: a device that is not an integer literal
/// (literals are checked by the parser) is range-checked by spread.h's `__spread_device_arg`,
/// which reports a value that does not fit an `int` through the runtime.
/// The expression is converted implicitly (C) or by `static_cast` (C++), never by a C cast, so
/// that a pointer is still an error.
fn devices_decl(k: usize, d: &SpreadDirective, cxx: bool) -> (String, String, String) {
    match &d.devices {
        Some(items) => {
            let list: Vec<String> = items.iter().map(|e| device_expr(k, e, cxx)).collect();
            (
                format!(
                    "const int32_t __spread_devs_{k}[] = {{ {} }}; ",
                    list.join(", ")
                ),
                format!("__spread_devs_{k}"),
                items.len().to_string(),
            )
        }
        None => (String::new(), "(const int32_t *)0".into(), "0".into()),
    }
}

fn flags(d: &SpreadDirective) -> &'static str {
    if d.nowait {
        "__SPREAD_FLAG_NOWAIT"
    } else {
        "0"
    }
}

fn inner_pragma(d: &SpreadDirective, construct: &str, region: &str, extra: &[String]) -> String {
    let order = chunk_order(d, region);
    inner_pragma_with(
        construct,
        region,
        d.kept.iter().chain(extra.iter()).chain(order.iter()),
    )
}

/// A `nowait` construct's chunks are target tasks; those of one device depend on the region's
/// token for that device (docs/spread-abi.md, `__spread_chunk_order`), so that they map and
/// enqueue in dealing order as without `nowait`: tasks that ran at once on several threads
/// mapped overlapping halo sections on one device at the same time (an explicit-extension
/// failure) and queued a device's kernels in any order.
fn chunk_order(d: &SpreadDirective, region: &str) -> Option<String> {
    d.nowait
        .then(|| format!("depend(inout: __spread_chunk_order({region})[0])"))
}

fn inner_pragma_with<'s>(
    construct: &str,
    region: &str,
    clauses: impl Iterator<Item = &'s String>,
) -> String {
    let mut s = format!("#pragma omp {construct} device(__spread_chunk_device({region}))");
    for c in clauses {
        s.push(' ');
        s.push_str(c);
    }
    s
}

/// The `__spread_schedule` field of a descriptor: the schedule's constant, or `0`
/// (`__SPREAD_SCHED_DEFAULT`: the runtime reads `SPREAD_SCHEDULE`).
fn schedule_field(s: Option<&str>) -> &str {
    s.unwrap_or("0")
}

/// A data region: begin, per-chunk locals, the directive, end (for the data constructs; the
/// descriptor `cvar` and the saved values come from [`data_saved`]).
#[allow(clippy::too_many_arguments)]
fn data_region(
    d: &SpreadDirective,
    k: usize,
    (cvar, rvar): (&str, &str),
    line: u32,
    construct: &str,
    maps: &[String],
    guard: bool,
) -> Vec<Piece> {
    let (_, ptr, n) = devices_decl(k, d, false);
    let mut v = vec![Piece::Text(format!(
        "{{ __spread_region_t *{rvar} = __spread_region_begin(&{cvar}, __spread_lb_{k}, __spread_ub_{k}, {ptr}, {n}, __spread_chunk_{k}); {{ {}",
        chunk_locals(rvar)
    ))];
    v.extend(directive_pieces(
        guard,
        line,
        inner_pragma(d, construct, rvar, maps),
    ));
    v.push(Piece::Line(line));
    v.push(Piece::Text(format!("}} __spread_region_end({rvar}); }}")));
    v
}

/// `target update peer`: the devices evaluated once, in the order they are written, then one
/// `__spread_update_peer` call per pair of list items, in order.
fn peer_text(ctx: &Ctx, d: &SpreadDirective, k: usize, line: u32) -> String {
    let Some(p) = &d.peer else {
        return String::new();
    };
    let cvar = format!("__spread_c_{k}");
    let (to_dev, from_dev) = (
        format!("__spread_to_dev_{k}"),
        format!("__spread_from_dev_{k}"),
    );
    let cxx = ctx.pp.cxx;
    let to_decl = format!(
        "const int32_t {to_dev} = {}; ",
        device_expr(k, &p.to_device, cxx)
    );
    let from_decl = format!(
        "const int32_t {from_dev} = {}; ",
        device_expr(k, &p.from_device, cxx)
    );
    let mut s = format!(
        "{{ static const __spread_construct_t {cvar} = {{ \"{}\", {line}, {}, 0, 0 }}; ",
        ctx.file_lit,
        Kind::UpdatePeer.abi_name()
    );
    if p.to_device_first {
        s.push_str(&to_decl);
        s.push_str(&from_decl);
    } else {
        s.push_str(&from_decl);
        s.push_str(&to_decl);
    }
    for (to, from) in p.to.iter().zip(&p.from) {
        s.push_str(&format!(
            "__spread_update_peer(&{cvar}, (void *){}, {}, {to_dev}, (const void *){}, {}, {from_dev}); ",
            to.address(),
            to.bytes(),
            from.address(),
            from.bytes()
        ));
    }
    s.push('}');
    s
}

/// `wait device(d)`: one `__spread_device_wait` call.
fn wait_text(ctx: &Ctx, d: &SpreadDirective, k: usize, line: u32) -> String {
    let cvar = format!("__spread_c_{k}");
    format!(
        "{{ static const __spread_construct_t {cvar} = {{ \"{}\", {line}, {}, 0, 0 }}; __spread_device_wait(&{cvar}, {}); }}",
        ctx.file_lit,
        Kind::WaitDevice.abi_name(),
        device_expr(k, d.wait_device.as_deref().unwrap_or_default(), ctx.pp.cxx)
    )
}

/// The descriptor of a data construct and the values it evaluates once: devices, bounds (a
/// negative length is reported by the runtime through spread.h's `__spread_length_arg`) and
/// chunk size.
fn data_saved(ctx: &Ctx, k: usize, d: &SpreadDirective, line: u32) -> String {
    let (decl, _, _) = devices_decl(k, d, ctx.pp.cxx);
    let (start, len) = d.range.clone().unwrap_or_default();
    let chunk = d
        .chunk
        .as_deref()
        .map(|c| format!("({c})"))
        .unwrap_or("0".into());
    // converted as an argument (C) or by static_cast (C++), never by a C cast: a pointer length
    // stays an error
    let len_arg = if ctx.pp.cxx {
        format!("static_cast<int64_t>({len})")
    } else {
        format!("({len})")
    };
    format!(
        "{{ static const __spread_construct_t __spread_c_{k} = {{ \"{}\", {line}, {}, {}, 0 }}; {decl}const int64_t __spread_lb_{k} = ({start}); const int64_t __spread_ub_{k} = __spread_lb_{k} + __spread_length_arg(&__spread_c_{k}, {len_arg}); const int64_t __spread_chunk_{k} = {chunk}; ",
        ctx.file_lit,
        d.kind.abi_name(),
        flags(d),
    )
}

/// The chunk's `omp_spread_start` and `omp_spread_size`, marked used: a construct that names
/// only one of them (a `target update spread` of a halo row) must not draw `-Wunused-variable`
/// on a line the user did not write.
fn chunk_locals(rvar: &str) -> String {
    format!(
        "const int64_t omp_spread_start = __spread_chunk_start({rvar}); const int64_t omp_spread_size = __spread_chunk_size({rvar}); (void)omp_spread_start; (void)omp_spread_size;"
    )
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
}

/// The lowering of one `target device(any)` construct.
struct AnyLowering {
    edits: Vec<Edit>,
    warnings: Vec<LowerError>,
    /// Byte range of its statement (copied once per arm: nothing in it may be lowered).
    body: (usize, usize),
}

/// The statement between byte offsets `from` and `to` of the preprocessed text, as pieces: one
/// more copy of it for another arm of a `target device(any)` switch, each line at its presumed
/// line (so clang's diagnostics and the debug information of every copy point at the source).
fn copy_statement(ctx: &Ctx, from: usize, to: usize) -> Result<Vec<Piece>, LowerError> {
    let pp = ctx.pp;
    let src = pp.text.as_str();
    let mut pieces = Vec::new();
    let (p0, p1) = (pp.phys_line_of(from), pp.phys_line_of(to.saturating_sub(1)));
    for p in p0..=p1 {
        let info = pp.line_info(p);
        if info.marker {
            continue;
        }
        let (ls, le) = pp.lexed.line_range(src, p);
        if info.file != pp.main_file {
            return Err(LowerError {
                off: ls,
                msg: "the statement of a 'target device(any)' construct cannot span an #include or lines of another file".into(),
            });
        }
        if !pp
            .lexed
            .lines
            .get(p as usize)
            .is_none_or(|l| l.starts_clean)
        {
            return Err(LowerError {
                off: ls,
                msg: "the statement of a 'target device(any)' construct is copied once per version, line by line: a token spanning lines (a raw string) cannot be in it".into(),
            });
        }
        let a = if p == p0 && !src[ls..from].trim().is_empty() {
            from
        } else {
            ls
        };
        let b = if p == p1 { to.min(le.max(ls)) } else { le };
        let text = &src[a..b.max(a)];
        if text.trim().is_empty() {
            continue;
        }
        let in_directive = pp
            .lexed
            .lines
            .get(p as usize)
            .is_some_and(|l| l.in_directive);
        if in_directive && text.trim_start().starts_with('#') {
            pieces.push(Piece::Directive {
                line: info.line,
                text: text.trim().to_string(),
            });
        } else {
            pieces.push(Piece::Line(info.line));
            pieces.push(Piece::Text(text.to_string()));
        }
    }
    Ok(pieces)
}

/// A `target device(any)` construct (seed 002; docs/task-sharing-lowering.md): the pragma at
/// view item `k` (directive `di`), construct number `n`, the pragma's presumed line and the
/// offset of its line. `consumed` is set past the `if_device` lines that belong to it (also
/// on error, so they are not reported again as misplaced). Each instance asks the runtime for a
/// device and a version (`__spread_any_acquire`) and runs the switch arm of that version, a
/// `target device(d)` with the version's construct-set around its own copy of the statement.
fn lower_any(
    ctx: &Ctx,
    k: usize,
    di: usize,
    n: usize,
    guard: bool,
    (line, line_start): (u32, usize),
    consumed: &mut usize,
) -> Result<AnyLowering, LowerError> {
    let pp = ctx.pp;
    let (src, toks) = (pp.text.as_str(), &pp.lexed.tokens);
    let dl = pp.lexed.directives[di];
    // the if_device lines come right after the target line
    let mut j = k + 1;
    let mut entry_lines: Vec<(usize, crate::lexer::DirectiveLine)> = Vec::new();
    while let Some(Item::Pragma(p)) = ctx.view.items.get(j) {
        let pl = pp.lexed.directives[*p];
        if any::classify(src, toks, pl.first_tok, pl.end_tok) != any::Found::Entries {
            break;
        }
        entry_lines.push((j, pl));
        j += 1;
    }
    *consumed = j;
    let t =
        any::parse_target(src, toks, dl.first_tok, dl.end_tok).map_err(|e| ctx.perror(e, dl))?;
    let mut warnings: Vec<LowerError> = t
        .warnings
        .iter()
        .map(|e| ctx.perror(e.clone(), dl))
        .collect();
    // (entry, presumed line of its pragma)
    let mut entries: Vec<(any::Entry, u32)> = t.entries.iter().map(|e| (e.clone(), line)).collect();
    for &(_, pl) in &entry_lines {
        let mut w = Vec::new();
        let es = any::parse_entries(src, toks, pl.first_tok + 3, pl.end_tok, &mut w)
            .map_err(|e| ctx.perror(e, pl))?;
        warnings.extend(w.into_iter().map(|e| ctx.perror(e, pl)));
        let eline = ctx.presumed_line_of(pl.start);
        for e in es {
            if entries
                .iter()
                .any(|(p, _)| p.arch == e.arch && p.subarch == e.subarch)
            {
                let sub = if e.subarch == 0 {
                    String::new()
                } else {
                    format!(", sm_{}", e.subarch)
                };
                return Err(ctx.perror(
                    directive::PError {
                        tok: e.tok,
                        msg: format!(
                            "'if_device({}{sub})' duplicates an earlier entry of this 'target device(any)': each device kind and subarch can have one construct-set",
                            pp.lexed.text(src, e.tok)
                        ),
                    },
                    pl,
                ));
            }
            entries.push((e, eline));
        }
    }
    if let (Some(tok), false) = (t.set_tok, entries.is_empty()) {
        return Err(ctx.perror(
            directive::PError {
                tok,
                msg: "a 'target device(any)' with 'if_device' entries cannot also have a construct-set of its own (which version would it belong to?); move it into an 'if_device' entry".into(),
            },
            dl,
        ));
    }
    if let (Some((_, tok)), false) = (&t.cost, entries.is_empty()) {
        return Err(ctx.perror(
            directive::PError {
                tok: *tok,
                msg: "'resources' on the 'target device(any)' line belongs to no version when there are 'if_device' entries; write it after each entry's construct-set".into(),
            },
            dl,
        ));
    }
    let last_dl = entry_lines.last().map_or(dl, |&(_, pl)| pl);
    let plain: Vec<any::Entry> = entries.iter().map(|(e, _)| e.clone()).collect();
    let plan = any::plan(&t, &plain);
    if plan.missing_host {
        warnings.push(LowerError {
            off: ctx.tok_off(t.device_tok),
            msg: "no 'if_device(host)': the host does not share this construct's instances; it runs them (with the first entry's construct-set, reduced for the host) only under if(false) or when no device can".into(),
        });
    }
    // the statement: a loop when some construct-set is a loop construct
    let stmt = j;
    let what = "'target device(any)' must be followed by a structured block or a for loop";
    let at = |e: usize| LowerError {
        off: if e >= ctx.view.items.len() {
            last_dl.end
        } else {
            ctx.item_off(e)
        },
        msg: what.into(),
    };
    if !matches!(ctx.view.items.get(stmt), Some(Item::Tok(_))) {
        return Err(at(stmt));
    }
    let stmt_end = ctx.view.statement_end(stmt).map_err(at)?;
    let loop_words = ["distribute", "for", "loop", "simd"];
    if let Some(arm) = plan
        .arms
        .iter()
        .find(|a| a.set.words.iter().any(|w| loop_words.contains(&w.as_str())))
    {
        if ctx.view.text(stmt) != "for" {
            return Err(LowerError {
                off: ctx.item_off(stmt),
                msg: format!(
                    "'target device(any)' with the construct-set '{}' must be followed by a for loop",
                    arm.set.name()
                ),
            });
        }
    }
    let (from, to) = (ctx.item_off(stmt), ctx.item_end(stmt_end));
    let copy = copy_statement(ctx, from, to)?;

    let cxx = pp.cxx;
    let p = format!("__spread_any_p_{n}");
    let versions: Vec<String> = plan.versions.iter().map(|v| v.initializer()).collect();
    let col = toks[t.device_tok].col + 1;
    let mut head = format!(
        "{{ static const __spread_any_version_t __spread_any_v_{n}[] = {{ {} }}; static const __spread_any_site_t __spread_any_s_{n} = {{ \"{}\", {line}, {col}, {}, __spread_any_v_{n} }};",
        versions.join(", "),
        ctx.file_lit,
        versions.len()
    );
    // the task shares what the instance maps (a local array mapped tofrom gets its results) and
    // captures everything else by value as tasks do (a loop's `k` at the encounter)
    let mut shared = t.shared.clone();
    let mut red_maps: Vec<Vec<String>> = Vec::new();
    for arm in &plan.arms {
        let extra: Vec<String> = arm
            .set
            .reduction_vars
            .iter()
            .filter(|v| !t.shared.contains(v))
            .cloned()
            .collect();
        for v in &extra {
            if !shared.contains(v) {
                shared.push(v.clone());
            }
        }
        red_maps.push(extra);
    }
    let mut pieces = vec![Piece::Line(line)];
    let task = t.nowait || !t.depend.is_empty();
    if task {
        let mut d = "#pragma omp task".to_string();
        if !t.nowait {
            // without nowait the encountering thread waits, after the dependences
            d.push_str(" if(0)");
        }
        if !shared.is_empty() {
            d.push_str(&format!(" shared({})", shared.join(", ")));
        }
        for c in &t.depend {
            d.push(' ');
            d.push_str(c);
        }
        if t.nowait && !t.depend.is_empty() {
            // Created outside a parallel region the task runs at once: marked, it does not wait
            // there for the instances it depends on (its instance may follow them instead).
            head.push_str(" __spread_any_instance_next();");
        }
        pieces.push(Piece::Text(head));
        pieces.push(Piece::Directive { line, text: d });
        pieces.push(Piece::Line(line));
        head = String::new();
    }
    head.push_str(" {");
    if t.nowait {
        head.push_str(" __spread_any_deferred();");
    }
    let (cost_decl, costs) = any::cost_inits(&plan, &format!("__spread_any_r_{n}"), cxx);
    head.push_str(&format!(
        " {cost_decl}const int64_t __spread_any_cost_{n}[] = {{ {} }};",
        costs.join(", ")
    ));
    let (maps, nmaps) = if t.maps.is_empty() {
        ("(const __spread_any_map_t *)0".to_string(), 0)
    } else {
        let items: Vec<String> = t
            .maps
            .iter()
            .map(|m| {
                format!(
                    "{{ (const void *){}, {}, {} }}",
                    m.ptr,
                    if cxx { &m.cxx_bytes } else { &m.bytes },
                    m.map_type
                )
            })
            .collect();
        head.push_str(&format!(
            " const __spread_any_map_t __spread_any_map_{n}[] = {{ {} }};",
            items.join(", ")
        ));
        (format!("__spread_any_map_{n}"), t.maps.len())
    };
    let mut flags = Vec::new();
    if t.nowait {
        flags.push("__SPREAD_ANY_NOWAIT".to_string());
    }
    if let Some(c) = &t.cond {
        flags.push(format!("(({c}) ? 0 : __SPREAD_ANY_IF_FALSE)"));
    }
    let flags = if flags.is_empty() {
        "0".to_string()
    } else {
        flags.join(" | ")
    };
    // Host arms read the thread count from a scalar, which their `target` takes by value: the
    // pick itself would be mapped (an aggregate), and a `target nowait` on the host share uses
    // mapped data where it is, in a frame that is gone by the time the arm runs.
    let threads = format!("__spread_any_t_{n}");
    let sets: Vec<Option<String>> = plan.arms.iter().map(|arm| arm.pragma(&threads)).collect();
    let threads_decl = if sets.iter().flatten().any(|d| d.contains(&threads)) {
        format!(" const int32_t {threads} = {p}.__spread_threads;")
    } else {
        String::new()
    };
    head.push_str(&format!(
        " __spread_any_pick_t {p} = __spread_any_acquire(&__spread_any_s_{n}, __spread_any_cost_{n}, {maps}, {nmaps}, {flags});{threads_decl} switch ({p}.__spread_arm) {{"
    ));
    pieces.push(Piece::Text(head));
    // the line each arm's directives are attributed to: its if_device entry's
    let arm_line = |a: usize| -> u32 {
        plan.versions
            .iter()
            .find(|v| v.arm == a && !v.fallback)
            .and_then(|v| {
                entries
                    .iter()
                    .find(|(e, _)| e.arch == v.arch && e.subarch == v.subarch)
            })
            .map_or(line, |(_, l)| *l)
    };
    let last = plan.arms.len() - 1;
    for (a, set) in sets.into_iter().enumerate() {
        let aline = arm_line(a);
        if a == last {
            pieces.push(Piece::Text(format!(" case {a}: default: {{")));
        } else {
            pieces.push(Piece::Text(format!(" case {a}: {{")));
        }
        let mut tgt = format!("#pragma omp target device({p}.__spread_device)");
        for c in &t.target_clauses {
            tgt.push(' ');
            tgt.push_str(c);
        }
        if !red_maps[a].is_empty() {
            tgt.push_str(&format!(" map(tofrom: {})", red_maps[a].join(", ")));
        }
        let set = set.map(|d| Piece::Directive {
            line: aline,
            text: d,
        });
        if t.nowait {
            // A `nowait` instance the runtime can complete asynchronously (outside a task team;
            // on a device, or on the host share for a host arm) runs its arm as a `target
            // nowait`, so that the instances a thread creates outside a parallel region overlap
            // (docs/task-sharing-lowering.md).
            pieces.push(Piece::Text(format!(" if (__spread_any_async(&{p})) {{")));
            pieces.extend(directive_pieces(guard, aline, format!("{tgt} nowait")));
            pieces.extend(set.clone());
            pieces.extend(copy.iter().cloned());
            pieces.push(Piece::Text(" } else {".into()));
        }
        pieces.extend(directive_pieces(guard, aline, tgt));
        pieces.extend(set);
        if a != last {
            pieces.extend(copy.iter().cloned());
            if t.nowait {
                pieces.push(Piece::Text(" }".into()));
            }
            pieces.push(Piece::Text(" } break;".into()));
        }
    }
    // The last arm's `else` closes after the statement, which stays in place.
    let close_async = if t.nowait { " }" } else { "" };
    let tail = format!("{close_async} }} break; }} __spread_any_release(&{p}); }} }}");
    Ok(AnyLowering {
        edits: vec![
            Edit {
                start: line_start,
                end: last_dl.end,
                pieces,
            },
            Edit {
                start: to,
                end: to,
                pieces: vec![Piece::Text(tail)],
            },
        ],
        warnings,
        body: (from, to),
    })
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

/// The variables `target spread` `d` with loop `lp` uses on its devices: those its loop and
/// its data clauses name, except its reduction variables (the lowering replaces them with
/// per-chunk partials).
fn spread_uses(ctx: &Ctx, d: &SpreadDirective, lp: &stmt::Loop) -> HashSet<String> {
    let mut used = target_data::names_used(&ctx.view, lp.for_item, lp.body_end + 1);
    for cl in &d.clauses {
        let data_clause = matches!(
            cl.name.as_str(),
            "map" | "firstprivate" | "is_device_ptr" | "has_device_addr" | "in_reduction"
        );
        if let (true, Some((open, close))) = (data_clause, cl.parens) {
            used.extend(target_data::names_in_tokens(
                &ctx.pp.text,
                &ctx.pp.lexed.tokens,
                open + 1,
                close,
            ));
        }
    }
    for (_, v, _) in d.reduction_vars() {
        used.remove(v);
    }
    used
}

/// The view item past the `if_device` lines that directly follow the `target device(any)`
/// pragma at item `k`.
fn if_device_lines_after(ctx: &Ctx<'_>, k: usize) -> usize {
    let src = ctx.pp.text.as_str();
    let toks = &ctx.pp.lexed.tokens;
    let mut end = k + 1;
    while let Some(Item::Pragma(dj)) = ctx.view.items.get(end) {
        let d = ctx.pp.lexed.directives[*dj];
        if any::classify(src, toks, d.first_tok, d.end_tok) != any::Found::Entries {
            break;
        }
        end += 1;
    }
    end
}

/// Lowers every spread construct of `pp` with the default [`Options`]; errors are collected
/// for all constructs.
pub fn lower(pp: &PpOutput) -> Result<Lowering, Vec<LowerError>> {
    lower_with(pp, &Options::default())
}

/// Lowers every spread construct of `pp`; errors are collected for all constructs.
pub fn lower_with(pp: &PpOutput, opts: &Options) -> Result<Lowering, Vec<LowerError>> {
    let view = View::new(&pp.text, &pp.lexed, |d| pp.is_marker(d));
    let main = pp.main_file;
    let file_lit = escape_c(pp.file_name(main));
    let ctx = Ctx { pp, view, file_lit };
    let mut out = Lowering::default();
    let mut errors = Vec::new();
    // byte ranges of target spread loop bodies, to reject nested constructs
    let mut bodies: Vec<(usize, usize)> = Vec::new();
    // byte ranges of the loops and blocks of compute-unit regions, to reject nested ones
    let mut cu_bodies: Vec<(usize, usize)> = Vec::new();
    // byte ranges of the statements of target device(any) constructs, and the view item past
    // the if_device lines of the last one
    let mut any_bodies: Vec<(usize, usize)> = Vec::new();
    let mut any_consumed = 0usize;
    // the target data regions seen, for the warning about one-device data in spread constructs
    let mut data_regions = Regions::default();
    let src = pp.text.as_str();
    let toks = &pp.lexed.tokens;
    // brace depth of the code before item `scanned` (0: outside every function)
    let mut depth = 0i32;
    let mut scanned = 0usize;
    for k in 0..ctx.view.items.len() {
        let Item::Pragma(di) = ctx.view.items[k] else {
            continue;
        };
        for j in scanned..k {
            match ctx.view.text(j) {
                "{" => depth += 1,
                "}" => depth -= 1,
                _ => {}
            }
        }
        scanned = k;
        let dl = pp.lexed.directives[di];
        if k < any_consumed {
            // an if_device line of the construct just lowered
            continue;
        }
        if depth > 0 && pp.line_info(dl.line).file == main {
            record_data_region(&ctx, k, dl, &mut data_regions);
        }
        let found = any::classify(src, toks, dl.first_tok, dl.end_tok);
        if any_bodies
            .last()
            .is_some_and(|&(s, e)| dl.start >= s && dl.start < e)
            && (found == any::Found::Target
                || directive::classify(src, toks, dl.first_tok, dl.end_tok).is_some()
                || cu::num_teams_range(src, toks, dl.first_tok, dl.end_tok).is_some())
        {
            errors.push(LowerError {
                off: dl.start,
                msg: "a construct the driver lowers cannot be nested in the statement of a 'target device(any)' (the statement is copied once per version)".into(),
            });
            continue;
        }
        match found {
            any::Found::Other => {}
            any::Found::Misplaced(e) => {
                errors.push(ctx.perror(e, dl));
                continue;
            }
            any::Found::Entries => {
                errors.push(LowerError {
                    off: ctx.tok_off(dl.first_tok + 3),
                    msg: "'if_device' must follow a '#pragma omp target device(any)' line (directly, or after other 'if_device' lines of it)".into(),
                });
                continue;
            }
            any::Found::Target => {
                let info = pp.line_info(dl.line);
                let msg = if info.file != main {
                    Some(format!("'target device(any)' is only supported in the source file being compiled, not in included file '{}' (the driver copies the construct's statement once per if_device arm in the file it compiles: move the function into a source file, or make the header's code a source file of its own)", pp.file_name(info.file)))
                } else if bodies
                    .last()
                    .is_some_and(|&(s, e)| dl.start >= s && dl.start < e)
                {
                    Some("'target device(any)' cannot be nested inside the loop of a 'target spread' construct".into())
                } else if depth <= 0 {
                    Some("'target device(any)' must be inside a function".into())
                } else {
                    None
                };
                if let Some(msg) = msg {
                    errors.push(LowerError { off: dl.start, msg });
                    // Its if_device lines belong to the construct just refused: no errors of
                    // their own.
                    any_consumed = if_device_lines_after(&ctx, k);
                    continue;
                }
                let line_start = pp.lexed.line_starts[dl.line as usize];
                match lower_any(
                    &ctx,
                    k,
                    di,
                    out.constructs,
                    opts.guard_device_macro,
                    (info.line, line_start),
                    &mut any_consumed,
                ) {
                    Ok(l) => {
                        out.edits.extend(l.edits);
                        out.warnings.extend(l.warnings);
                        any_bodies.push(l.body);
                        out.constructs += 1;
                    }
                    Err(e) => errors.push(e),
                }
                continue;
            }
        }
        let Some((kind, _)) = directive::classify(src, toks, dl.first_tok, dl.end_tok) else {
            // a `target` directive of clang's with Spread's words in it (`target sprad`)
            if let Err(e) = plain_target::check(src, toks, dl.first_tok, dl.end_tok) {
                errors.push(ctx.perror(e, dl));
                continue;
            }
            // OpenMP 5.1's `num_teams(lower:upper)`, which clang 19 rejects, on a `teams` of
            // clang's: `num_teams(upper)` is a conforming number of teams
            if pp.line_info(dl.line).file == main {
                if let Some((a, colon)) = cu::num_teams_range(src, toks, dl.first_tok, dl.end_tok) {
                    out.edits.push(Edit {
                        start: toks[a].start,
                        end: toks[colon].end,
                        pieces: vec![],
                    });
                    out.constructs += 1;
                }
            }
            continue;
        };
        let pragma_off = dl.start;
        let info = pp.line_info(dl.line);
        let cname_guess = kind.construct_name();
        if info.file != main {
            errors.push(LowerError {
                off: pragma_off,
                msg: format!(
                    "'{cname_guess}' is only supported in the source file being compiled, not in included file '{}'",
                    pp.file_name(info.file)
                ),
            });
            continue;
        }
        // the bodies are disjoint and in order, as the pragmas are: only the last can hold it
        if bodies
            .last()
            .is_some_and(|&(s, e)| pragma_off >= s && pragma_off < e)
        {
            errors.push(LowerError {
                off: pragma_off,
                msg: format!("'{cname_guess}' cannot be nested inside the loop of a 'target spread' construct"),
            });
            continue;
        }
        if kind == Kind::Cu {
            if cu_bodies
                .last()
                .is_some_and(|&(s, e)| pragma_off >= s && pragma_off < e)
            {
                errors.push(LowerError {
                    off: pragma_off,
                    msg: "a 'teams' with compute units cannot be nested inside another compute-unit region".into(),
                });
                continue;
            }
            if depth <= 0 {
                errors.push(LowerError {
                    off: pragma_off,
                    msg: "a 'teams' with compute units must be inside a function".into(),
                });
                continue;
            }
            let line = info.line;
            let line_start = pp.lexed.line_starts[dl.line as usize];
            match compute_units::lower_cu(&ctx, k, di, out.constructs, (line, line_start)) {
                Ok(l) => {
                    out.edits.extend(l.edits);
                    out.warnings.extend(l.warnings);
                    cu_bodies.extend(l.body);
                    out.constructs += 1;
                }
                Err(e) => errors.push(e),
            }
            continue;
        }
        if depth <= 0 && matches!(kind, Kind::UpdatePeer | Kind::WaitDevice) {
            errors.push(LowerError {
                off: pragma_off,
                msg: format!("'{cname_guess}' is a standalone directive; it can only appear where a statement can, inside a function"),
            });
            continue;
        }
        let d = match directive::parse(src, toks, dl.first_tok, dl.end_tok) {
            Ok(d) => d,
            Err(e) => {
                let off = if e.tok >= dl.end_tok {
                    // past the last token of the directive: point just after it
                    toks.get(dl.end_tok.saturating_sub(1))
                        .map(|t| t.end)
                        .unwrap_or(dl.end)
                } else {
                    ctx.tok_off(e.tok)
                };
                errors.push(LowerError { off, msg: e.msg });
                continue;
            }
        };
        let cname = d.name();
        let n = out.constructs;
        let line = info.line;
        let line_start = pp.lexed.line_starts[dl.line as usize];
        match kind {
            Kind::Target => {
                let lp = match stmt::parse_loop(&ctx.view, k + 1, &cname) {
                    Ok(lp) => lp,
                    Err(e) => {
                        let off = if e.item >= ctx.view.items.len() {
                            dl.end
                        } else {
                            ctx.item_off(e.item)
                        };
                        errors.push(LowerError { off, msg: e.msg });
                        continue;
                    }
                };
                if !opts.no_target_data_warning && data_regions.one_device_around(pragma_off) {
                    let used = spread_uses(&ctx, &d, &lp);
                    for msg in data_regions.warnings(pragma_off, &cname, &used) {
                        out.warnings.push(LowerError {
                            off: pragma_off,
                            msg,
                        });
                    }
                }
                // nowait with reductions: one task runs the construct without nowait
                let deferred =
                    (d.nowait && !d.reductions.is_empty()).then(|| deferred_reduction(&d));
                let d = deferred.as_ref().map_or(&d, |(inner, _)| inner);
                let (decl, ptr, ndev) = devices_decl(n, d, pp.cxx);
                let ub = exclusive_bound(&lp);
                let chunk = d
                    .chunk
                    .as_deref()
                    .map(|c| format!("({c})"))
                    .unwrap_or("0".into());
                let r = format!("__spread_r_{n}");
                let body_end = ctx.item_end(lp.body_end);
                let red = reduction_text(d, n, pp.cxx);
                // the body uses each reduction variable through its partial
                let mut subst = Vec::new();
                if !d.reductions.is_empty() {
                    match reduction_uses(&ctx, d, n, &lp, &cname) {
                        Ok(v) => subst = v,
                        Err(e) => {
                            errors.push(e);
                            continue;
                        }
                    }
                }
                let prologue = format!(
                    "{{ static const __spread_construct_t __spread_c_{n} = {{ \"{}\", {line}, {}, {}, {} }}; {decl}{}__spread_region_t *{r} = __spread_region_begin(&__spread_c_{n}, ({}), {ub}, {ptr}, {ndev}, {chunk}); {}{{ {}{}",
                    ctx.file_lit,
                    Kind::Target.abi_name(),
                    flags(d),
                    schedule_field(d.schedule),
                    red.before_begin,
                    lp.lb,
                    red.after_begin,
                    chunk_locals(&r),
                    red.chunk,
                );
                let construct = if d.combined.is_empty() {
                    "target".to_string()
                } else {
                    format!("target {}", d.combined)
                };
                out.edits.push(Edit {
                    start: line_start,
                    end: ctx.item_end(lp.close),
                    pieces: {
                        let mut v = vec![Piece::Line(line)];
                        if let Some((_, task)) = &deferred {
                            // the task's block is the whole lowered construct
                            let mut t = "#pragma omp task default(shared)".to_string();
                            for c in task {
                                t.push(' ');
                                t.push_str(c);
                            }
                            v.push(Piece::Directive { line, text: t });
                            v.push(Piece::Line(line));
                        }
                        v.push(Piece::Text(prologue));
                        v.extend(directive_pieces(
                            opts.guard_device_macro,
                            line,
                            inner_pragma_with(
                                &construct,
                                &r,
                                red.clauses.iter().chain(chunk_order(d, &r).iter()),
                            ),
                        ));
                        v.extend(for_header(
                            &ctx,
                            &lp,
                            "omp_spread_start",
                            "omp_spread_start + omp_spread_size",
                        ));
                        v
                    },
                });
                out.edits.extend(subst);
                out.edits.push(Edit {
                    start: body_end,
                    end: body_end,
                    pieces: if red.after_end.is_empty() {
                        vec![Piece::Text(format!(" }} __spread_region_end({r}); }}"))]
                    } else {
                        red.after_end
                    },
                });
                bodies.push((ctx.item_end(lp.close), body_end));
            }
            Kind::EnterData | Kind::ExitData | Kind::Update => {
                let construct = match kind {
                    Kind::EnterData => "target enter data",
                    Kind::ExitData => "target exit data",
                    _ => "target update",
                };
                let mut pieces = vec![
                    Piece::Line(line),
                    Piece::Text(data_saved(&ctx, n, &d, line)),
                ];
                pieces.extend(data_region(
                    &d,
                    n,
                    (&format!("__spread_c_{n}"), &format!("__spread_r_{n}")),
                    line,
                    construct,
                    &[],
                    opts.guard_device_macro,
                ));
                pieces.push(Piece::Text(" }".into()));
                out.edits.push(Edit {
                    start: line_start,
                    end: dl.end,
                    pieces,
                });
            }
            Kind::Cu => {}
            Kind::UpdatePeer | Kind::WaitDevice => {
                let text = if kind == Kind::UpdatePeer {
                    peer_text(&ctx, &d, n, line)
                } else {
                    wait_text(&ctx, &d, n, line)
                };
                out.edits.push(Edit {
                    start: line_start,
                    end: dl.end,
                    pieces: vec![Piece::Line(line), Piece::Text(text)],
                });
            }
            Kind::Data => {
                let block_end = match ctx.view.statement_end(k + 1) {
                    Ok(e) => e,
                    Err(e) => {
                        let off = if e >= ctx.view.items.len() {
                            dl.end
                        } else {
                            ctx.item_off(e)
                        };
                        errors.push(LowerError {
                            off,
                            msg: format!("'{cname}' must be followed by a structured block"),
                        });
                        continue;
                    }
                };
                if let Err(e) = stmt::check_structured_block(&ctx.view, k + 1, block_end, &cname) {
                    errors.push(LowerError {
                        off: ctx.item_off(e.item),
                        msg: e.msg,
                    });
                    continue;
                }
                let enter: Vec<String> = d.data_maps.iter().map(|m| m.enter.clone()).collect();
                let exit: Vec<String> = d.data_maps.iter().map(|m| m.exit.clone()).collect();
                let mut pieces = vec![
                    Piece::Line(line),
                    Piece::Text(data_saved(&ctx, n, &d, line)),
                ];
                pieces.extend(data_region(
                    &d,
                    n,
                    (&format!("__spread_c_{n}"), &format!("__spread_r_{n}")),
                    line,
                    "target enter data",
                    &enter,
                    opts.guard_device_macro,
                ));
                out.edits.push(Edit {
                    start: line_start,
                    end: dl.end,
                    pieces,
                });
                let end_off = ctx.item_end(block_end);
                let end_line = ctx.presumed_line_of(end_off);
                let mut pieces = vec![Piece::Text(" ".into())];
                pieces.extend(data_region(
                    &d,
                    n,
                    (&format!("__spread_c_{n}"), &format!("__spread_r_{n}")),
                    end_line,
                    "target exit data",
                    &exit,
                    opts.guard_device_macro,
                ));
                pieces.push(Piece::Text(" }".into()));
                out.edits.push(Edit {
                    start: end_off,
                    end: end_off,
                    pieces,
                });
            }
        }
        out.constructs += 1;
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    // insertions at one offset: the later construct is the inner one (its block ends where
    // the outer one's does), so its text comes first
    let mut indexed: Vec<(usize, Edit)> = out.edits.drain(..).enumerate().collect();
    indexed.sort_by_key(|(i, e)| (e.start, e.end, std::cmp::Reverse(*i)));
    out.edits = indexed.into_iter().map(|(_, e)| e).collect();
    Ok(out)
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
