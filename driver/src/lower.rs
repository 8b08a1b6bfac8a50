//! Lowering of spread constructs into standard OpenMP plus calls to the runtime's
//! `__spread_*` entry points (docs/spread-abi.md §2). The result is a list of edits on the
//! preprocessed text; `splice` projects them onto the user's source.

use crate::directive::{self, Kind, SpreadDirective};
use crate::ppout::{escape_c, PpOutput};
use crate::stmt::{self, Item, View};

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
    /// Number of spread constructs lowered.
    pub constructs: usize,
}

/// Whether `text` can contain a directive the driver lowers at all (a cheap test before
/// lexing).
pub fn may_contain_spread(text: &str) -> bool {
    text.contains("spread") || text.contains("peer") || text.contains("wait")
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
    let mut s = format!("#pragma omp {construct} device(__spread_chunk_device({region}))");
    for c in d.kept.iter().chain(extra.iter()) {
        s.push(' ');
        s.push_str(c);
    }
    s
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

fn chunk_locals(rvar: &str) -> String {
    format!(
        "const int64_t omp_spread_start = __spread_chunk_start({rvar}); const int64_t omp_spread_size = __spread_chunk_size({rvar});"
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
        let Some((kind, _)) = directive::classify(src, toks, dl.first_tok, dl.end_tok) else {
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
                let (decl, ptr, ndev) = devices_decl(n, &d, pp.cxx);
                // `ub + 1` in int64_t: `i <= INT_MAX` must not overflow the loop's type (and
                // no C cast: a pointer bound stays an error)
                let ub = if lp.inclusive {
                    format!("({}) + (int64_t)1", lp.ub)
                } else {
                    format!("({})", lp.ub)
                };
                let chunk = d
                    .chunk
                    .as_deref()
                    .map(|c| format!("({c})"))
                    .unwrap_or("0".into());
                let r = format!("__spread_r_{n}");
                let prologue = format!(
                    "{{ static const __spread_construct_t __spread_c_{n} = {{ \"{}\", {line}, {}, {}, 0 }}; {decl}__spread_region_t *{r} = __spread_region_begin(&__spread_c_{n}, ({}), {ub}, {ptr}, {ndev}, {chunk}); {{ {}",
                    ctx.file_lit,
                    Kind::Target.abi_name(),
                    flags(&d),
                    lp.lb,
                    chunk_locals(&r)
                );
                let construct = if d.combined.is_empty() {
                    "target".to_string()
                } else {
                    format!("target {}", d.combined)
                };
                let for_off = ctx.item_off(lp.for_item);
                let for_phys = pp.phys_line_of(for_off);
                let for_line_start = pp.lexed.line_starts[for_phys as usize];
                let lead = &src[for_line_start..for_off];
                let indent = if lead.trim().is_empty() { lead } else { "" };
                let var = &lp.var;
                let cast_ty = lp.decl_type.as_deref().and_then(cast_type);
                // An inclusive loop keeps its `<=` on the chunk's last iteration: the end of a
                // chunk that ends at the type's maximum does not fit the type.
                let (op, end) = if lp.inclusive {
                    ("<=", "omp_spread_start + omp_spread_size - 1")
                } else {
                    ("<", "omp_spread_start + omp_spread_size")
                };
                let header = match (&lp.decl_type, cast_ty) {
                    (Some(ty), None) => format!(
                        "{indent}for ({ty} {var} = omp_spread_start; {var} {op} {end}; {})",
                        lp.incr
                    ),
                    (Some(ty), Some(cast)) => format!(
                        "{indent}for ({ty} {var} = omp_spread_start; {var} {op} ({cast})({end}); {})",
                        lp.incr
                    ),
                    (None, _) => format!(
                        "{indent}for ({var} = omp_spread_start; {var} {op} {end}; {})",
                        lp.incr
                    ),
                };
                out.edits.push(Edit {
                    start: line_start,
                    end: ctx.item_end(lp.close),
                    pieces: {
                        let mut v = vec![Piece::Line(line), Piece::Text(prologue)];
                        v.extend(directive_pieces(
                            opts.guard_device_macro,
                            line,
                            inner_pragma(&d, &construct, &r, &[]),
                        ));
                        v.push(Piece::Line(ctx.presumed_line_of(for_off)));
                        v.push(Piece::Text(header));
                        v
                    },
                });
                let body_end = ctx.item_end(lp.body_end);
                out.edits.push(Edit {
                    start: body_end,
                    end: body_end,
                    pieces: vec![Piece::Text(format!(" }} __spread_region_end({r}); }}"))],
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
    out.edits.sort_by_key(|e| (e.start, e.end));
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
        assert!(out.contains("<1>{ static const __spread_construct_t __spread_c_0 = { \"t.c\", 1, __SPREAD_KIND_TARGET, 0, 0 }; const int32_t __spread_devs_0[] = { (int32_t)(2), (int32_t)(0), (int32_t)(1) }; __spread_region_t *__spread_r_0 = __spread_region_begin(&__spread_c_0, (1), (N - 1), __spread_devs_0, 3, (4)); { const int64_t omp_spread_start = __spread_chunk_start(__spread_r_0); const int64_t omp_spread_size = __spread_chunk_size(__spread_r_0);"), "{out}");
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
            out.contains("#pragma omp target device(__spread_chunk_device(__spread_r_0)) nowait\n"),
            "{out}"
        );
        assert!(out.contains("for (i = omp_spread_start; i <= omp_spread_start + omp_spread_size - 1; ++i) { a(); } }"), "{out}");
    }

    #[test]
    fn standalone_data() {
        let out = lower_str("#pragma omp target enter data spread devices(1,0) range(1:N-2) chunk_size(4) nowait depend(out: x) map(to: A[omp_spread_start:omp_spread_size])\ny;\n").unwrap();
        assert!(out.contains("<1>{ static const __spread_construct_t __spread_c_0 = { \"t.c\", 1, __SPREAD_KIND_ENTER_DATA, __SPREAD_FLAG_NOWAIT, 0 }; const int32_t __spread_devs_0[] = { (int32_t)(1), (int32_t)(0) }; const int64_t __spread_lb_0 = (1); const int64_t __spread_ub_0 = __spread_lb_0 + __spread_length_arg(&__spread_c_0, (N-2)); const int64_t __spread_chunk_0 = (4); { __spread_region_t *__spread_r_0 = __spread_region_begin(&__spread_c_0, __spread_lb_0, __spread_ub_0, __spread_devs_0, 2, __spread_chunk_0); { const int64_t omp_spread_start = __spread_chunk_start(__spread_r_0); const int64_t omp_spread_size = __spread_chunk_size(__spread_r_0);"), "{out}");
        assert!(out.contains("<1>#pragma omp target enter data device(__spread_chunk_device(__spread_r_0)) nowait depend(out: x) map(to: A[omp_spread_start:omp_spread_size])\n<1>} __spread_region_end(__spread_r_0); } }\ny;"), "{out}");
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
