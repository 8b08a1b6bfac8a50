//! Lowering of the constructs that [`crate::directive`] parses: `target spread` loops, the data
//! constructs `target data spread`, `target enter/exit data spread` and `target update spread`,
//! and the device-to-device extensions `target update peer` and `wait device`. A construct
//! becomes a region of the runtime's (`__spread_region_begin` ... `__spread_region_end`) whose
//! chunks each run the construct's own directive on their device.

use std::collections::HashSet;

use crate::directive::{self, Kind, SpreadDirective};
use crate::lexer::DirectiveLine;
use crate::stmt;
use crate::target_data::{self, Regions};

use super::spread_reduction::{deferred_reduction, reduction_text, reduction_uses, ReductionText};
use super::{
    directive_pieces, exclusive_bound, for_header, schedule_field, Ctx, Edit, LowerError, Lowered,
    Options, Piece, Walk,
};

/// The construct of kind `kind` (any but a compute-unit region) at view item `k` (directive
/// `di`) where the walk stands: parsed and lowered, or its error.
pub(super) fn lower_construct(
    ctx: &Ctx,
    opts: &Options,
    w: &mut Walk,
    (k, di): (usize, usize),
    kind: Kind,
) {
    let pp = ctx.pp;
    let dl = pp.lexed.directives[di];
    if w.depth <= 0 && matches!(kind, Kind::UpdatePeer | Kind::WaitDevice) {
        w.errors.push(LowerError {
            off: dl.start,
            msg: format!("'{}' is a standalone directive; it can only appear where a statement can, inside a function", kind.construct_name()),
        });
        return;
    }
    let d = match directive::parse(&pp.text, &pp.lexed.tokens, dl.first_tok, dl.end_tok) {
        Ok(d) => d,
        Err(e) => {
            w.errors.push(ctx.perror(e, dl));
            return;
        }
    };
    let (line, line_start) = ctx.directive_line(dl);
    let c = Construct {
        ctx,
        guard: opts.guard_device_macro,
        d: &d,
        k,
        dl,
        n: w.out.constructs,
        line,
        line_start,
    };
    let lowered = match kind {
        Kind::Target => {
            let regions = (!opts.no_target_data_warning).then_some(&w.data_regions);
            c.target(regions)
        }
        Kind::EnterData => Ok(c.standalone_data("target enter data")),
        Kind::ExitData => Ok(c.standalone_data("target exit data")),
        Kind::Update => Ok(c.standalone_data("target update")),
        Kind::UpdatePeer => Ok(c.standalone(peer_text(ctx, &d, c.n, line))),
        Kind::WaitDevice => Ok(c.standalone(wait_text(ctx, &d, c.n, line))),
        Kind::Data => c.data_block(),
        // (the walk hands compute-unit regions to `compute_units`)
        Kind::Cu => Ok(Lowered::default()),
    };
    if let Some(body) = w.take(lowered) {
        w.spread_bodies.push(body);
    }
}

/// One parsed construct, and where its lowering is written.
struct Construct<'a> {
    ctx: &'a Ctx<'a>,
    /// [`Options::guard_device_macro`].
    guard: bool,
    d: &'a SpreadDirective,
    /// Its pragma: view item and directive line.
    k: usize,
    dl: DirectiveLine,
    /// Construct number.
    n: usize,
    /// The pragma's presumed line and the offset of its line.
    line: u32,
    line_start: usize,
}

impl Construct<'_> {
    /// A `target spread` loop: the region over the loop's iterations, each chunk running the
    /// construct's directive on the loop with its header rewritten to the chunk's iterations.
    /// `regions`: the `target data` regions seen, where one-device data is warned about.
    fn target(&self, regions: Option<&Regions>) -> Result<Lowered, LowerError> {
        let (ctx, n, line) = (self.ctx, self.n, self.line);
        let cname = self.d.name();
        let lp = stmt::parse_loop(&ctx.view, self.k + 1, &cname).map_err(|e| LowerError {
            off: ctx.item_off_or(e.item, self.dl.end),
            msg: e.msg,
        })?;
        let warnings = regions.map_or_else(Vec::new, |r| self.one_device_data(r, &lp, &cname));
        // nowait with reductions: one task runs the construct without nowait
        let deferred =
            (self.d.nowait && !self.d.reductions.is_empty()).then(|| deferred_reduction(self.d));
        let d = deferred.as_ref().map_or(self.d, |(inner, _)| inner);
        let r = format!("__spread_r_{n}");
        let red = reduction_text(d, n, ctx.pp.cxx);
        // the body uses each reduction variable through its partial
        let subst = if d.reductions.is_empty() {
            Vec::new()
        } else {
            reduction_uses(ctx, d, n, &lp, &cname)?
        };
        let mut pieces = vec![Piece::Line(line)];
        if let Some((_, task)) = &deferred {
            // the task's block is the whole lowered construct
            let mut t = "#pragma omp task default(shared)".to_string();
            for c in task {
                t.push(' ');
                t.push_str(c);
            }
            pieces.push(Piece::Directive { line, text: t });
            pieces.push(Piece::Line(line));
        }
        pieces.push(Piece::Text(prologue(ctx, d, (n, line), &lp, &red)));
        let construct = if d.combined.is_empty() {
            "target".to_string()
        } else {
            format!("target {}", d.combined)
        };
        pieces.extend(directive_pieces(
            self.guard,
            line,
            inner_pragma_with(
                &construct,
                &r,
                red.clauses.iter().chain(chunk_order(d, &r).iter()),
            ),
        ));
        pieces.extend(for_header(
            ctx,
            &lp,
            "omp_spread_start",
            "omp_spread_start + omp_spread_size",
        ));
        let body_end = ctx.item_end(lp.body_end);
        let mut edits = vec![Edit {
            start: self.line_start,
            end: ctx.item_end(lp.close),
            pieces,
        }];
        edits.extend(subst);
        edits.push(Edit {
            start: body_end,
            end: body_end,
            pieces: if red.after_end.is_empty() {
                vec![Piece::Text(format!(" }} __spread_region_end({r}); }}"))]
            } else {
                red.after_end
            },
        });
        Ok(Lowered {
            edits,
            warnings,
            body: Some((ctx.item_end(lp.close), body_end)),
        })
    }

    /// The warnings for data of the construct (loop `lp`, name `cname`) that a one-device
    /// `target data` in `regions` around it maps.
    fn one_device_data(&self, regions: &Regions, lp: &stmt::Loop, cname: &str) -> Vec<LowerError> {
        let off = self.dl.start;
        if !regions.one_device_around(off) {
            return Vec::new();
        }
        let used = spread_uses(self.ctx, self.d, lp);
        regions
            .warnings(off, cname, &used)
            .into_iter()
            .map(|msg| LowerError { off, msg })
            .collect()
    }

    /// `target enter data spread`, `target exit data spread` and `target update spread`: one
    /// data region running `construct` per chunk.
    fn standalone_data(&self, construct: &str) -> Lowered {
        let n = self.n;
        let mut pieces = vec![
            Piece::Line(self.line),
            Piece::Text(data_saved(self.ctx, n, self.d, self.line)),
        ];
        pieces.extend(data_region(
            self.d,
            n,
            (&format!("__spread_c_{n}"), &format!("__spread_r_{n}")),
            self.line,
            construct,
            &[],
            self.guard,
        ));
        pieces.push(Piece::Text(" }".into()));
        Lowered {
            edits: vec![Edit {
                start: self.line_start,
                end: self.dl.end,
                pieces,
            }],
            ..Lowered::default()
        }
    }

    /// A standalone directive replaced by `text` (`target update peer`, `wait device`).
    fn standalone(&self, text: String) -> Lowered {
        Lowered {
            edits: vec![Edit {
                start: self.line_start,
                end: self.dl.end,
                pieces: vec![Piece::Line(self.line), Piece::Text(text)],
            }],
            ..Lowered::default()
        }
    }

    /// `target data spread` and its structured block: a data region that enters the data
    /// before the block and one that exits it after.
    fn data_block(&self) -> Result<Lowered, LowerError> {
        let (ctx, d, n, k, dl) = (self.ctx, self.d, self.n, self.k, self.dl);
        let cname = d.name();
        let block_end = ctx.view.statement_end(k + 1).map_err(|e| LowerError {
            off: ctx.item_off_or(e, dl.end),
            msg: format!("'{cname}' must be followed by a structured block"),
        })?;
        stmt::check_structured_block(&ctx.view, k + 1, block_end, &cname).map_err(|e| {
            LowerError {
                off: ctx.item_off(e.item),
                msg: e.msg,
            }
        })?;
        let (cvar, rvar) = (format!("__spread_c_{n}"), format!("__spread_r_{n}"));
        let enter: Vec<String> = d.data_maps.iter().map(|m| m.enter.clone()).collect();
        let exit: Vec<String> = d.data_maps.iter().map(|m| m.exit.clone()).collect();
        let mut pieces = vec![
            Piece::Line(self.line),
            Piece::Text(data_saved(ctx, n, d, self.line)),
        ];
        pieces.extend(data_region(
            d,
            n,
            (&cvar, &rvar),
            self.line,
            "target enter data",
            &enter,
            self.guard,
        ));
        let open = Edit {
            start: self.line_start,
            end: dl.end,
            pieces,
        };
        let end_off = ctx.item_end(block_end);
        let end_line = ctx.presumed_line_of(end_off);
        let mut pieces = vec![Piece::Text(" ".into())];
        pieces.extend(data_region(
            d,
            n,
            (&cvar, &rvar),
            end_line,
            "target exit data",
            &exit,
            self.guard,
        ));
        pieces.push(Piece::Text(" }".into()));
        let close = Edit {
            start: end_off,
            end: end_off,
            pieces,
        };
        Ok(Lowered {
            edits: vec![open, close],
            ..Lowered::default()
        })
    }
}

/// The text that opens `target spread` construct `n` (directive `d`, at `line`, loop `lp`, the
/// text of its reductions `red`) up to its inner directive: descriptor, devices,
/// `__spread_region_begin` over the loop's iterations, the reductions' set-up and the chunk's
/// locals.
fn prologue(
    ctx: &Ctx,
    d: &SpreadDirective,
    (n, line): (usize, u32),
    lp: &stmt::Loop,
    red: &ReductionText,
) -> String {
    let (decl, ptr, ndev) = devices_decl(n, d, ctx.pp.cxx);
    let chunk = d
        .chunk
        .as_deref()
        .map(|c| format!("({c})"))
        .unwrap_or("0".into());
    let r = format!("__spread_r_{n}");
    format!(
        "{{ static const __spread_construct_t __spread_c_{n} = {{ \"{}\", {line}, {}, {}, {} }}; {decl}{}__spread_region_t *{r} = __spread_region_begin(&__spread_c_{n}, ({}), {}, {ptr}, {ndev}, {chunk}); {}{{ {}{}",
        ctx.file_lit,
        Kind::Target.abi_name(),
        flags(d),
        schedule_field(d.schedule),
        red.before_begin,
        lp.lb,
        exclusive_bound(lp),
        red.after_begin,
        chunk_locals(&r),
        red.chunk,
    )
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

/// The descriptor's flags: `nowait` is the only one a construct sets.
fn flags(d: &SpreadDirective) -> &'static str {
    if d.nowait {
        "__SPREAD_FLAG_NOWAIT"
    } else {
        "0"
    }
}

/// The directive each chunk runs: `construct` on the chunk's device of region `region`, with
/// the construct's kept clauses, `extra`, and the dealing order of a `nowait` construct.
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

/// `construct` on the chunk's device of region `region`, with `clauses`.
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
