//! Lowering of compute-unit regions (seed 004; docs/spread-abi.md §5), the `teams` directives
//! with `num_teams(count:family:size, ...)` descriptors that [`crate::cu`] parses. The CUs are
//! the threads of a `parallel` region; each takes units of work (`[lo, hi)` iterations, or its
//! one turn at a structured block) from the runtime.

use crate::cu::{self, CuDirective};
use crate::directive::Kind;
use crate::lexer::DirectiveLine;
use crate::stmt::{self, Item};

use super::{exclusive_bound, for_header, schedule_field, Ctx, Edit, LowerError, Lowered, Piece};

/// The `teams` directive at view item `k` (directive `di`), construct number `n`, the pragma's
/// presumed line and the offset of its line.
pub(super) fn lower_cu(
    ctx: &Ctx,
    k: usize,
    di: usize,
    n: usize,
    (line, line_start): (u32, usize),
) -> Result<Lowered, LowerError> {
    let dl = ctx.pp.lexed.directives[di];
    let (d, loop_item) = parse_region(ctx, k, dl)?;
    let warnings: Vec<LowerError> = d
        .warnings
        .iter()
        .map(|e| LowerError {
            off: ctx.tok_off(e.tok),
            msg: e.msg.clone(),
        })
        .collect();
    let text = RegionText::new(ctx, &d, n, line);
    let (edits, body) = if d.is_loop() {
        loop_edits(ctx, &d, &text, loop_item, line_start, dl)?
    } else {
        block_edits(ctx, &d, &text, k, line_start, dl)?
    };
    Ok(Lowered {
        edits,
        warnings,
        body: Some(body),
    })
}

/// The region's directive, completed by the `distribute` line of the paper's two-line form
/// (`teams`, then `distribute` before the loop), and the view item of its loop or block.
fn parse_region(
    ctx: &Ctx,
    k: usize,
    dl: DirectiveLine,
) -> Result<(CuDirective, usize), LowerError> {
    let pp = ctx.pp;
    let (src, toks) = (pp.text.as_str(), &pp.lexed.tokens);
    let mut d = cu::parse(src, toks, dl.first_tok, dl.end_tok).map_err(|e| ctx.perror(e, dl))?;
    // device code cannot run the CUs' host threads
    if let Some(Item::Pragma(p)) = k.checked_sub(1).and_then(|j| ctx.view.items.get(j)) {
        let pl = pp.lexed.directives[*p];
        let w = |i: usize| {
            if i < pl.end_tok {
                pp.lexed.text(src, i)
            } else {
                ""
            }
        };
        if w(pl.first_tok + 2) == "omp" && w(pl.first_tok + 3) == "target" {
            return Err(LowerError {
                off: dl.start,
                msg: "a 'teams' with compute units runs on the host; it cannot be nested in a 'target' construct".into(),
            });
        }
    }
    let mut loop_item = k + 1;
    if !d.is_loop() {
        if let Some(Item::Pragma(p)) = ctx.view.items.get(k + 1) {
            let pl = pp.lexed.directives[*p];
            if let Some(r) = cu::parse_distribute(src, toks, pl.first_tok, pl.end_tok, &mut d) {
                r.map_err(|e| ctx.perror(e, pl))?;
                loop_item = k + 2;
            }
        }
    }
    Ok((d, loop_item))
}

/// The names and texts a region's loop form and block form both write, so that the two agree
/// on the descriptor, the `parallel` directive and the closing of the region.
struct RegionText<'a> {
    /// Construct number.
    n: usize,
    /// The pragma's presumed line.
    line: u32,
    /// The escaped file name of the descriptor.
    file_lit: &'a str,
    /// The descriptors' initializers, `{ count, family, size }`.
    cud: Vec<String>,
    /// The region handle, `__spread_cu_N`.
    cu: String,
    /// The unit's bounds, `__spread_lo_N` and `__spread_hi_N`.
    lo: String,
    hi: String,
    /// `thread_limit`, or `0`.
    tl: String,
    /// The clauses moved from `teams`/`distribute` to the `parallel` region.
    moved: &'a [String],
}

impl<'a> RegionText<'a> {
    fn new(ctx: &'a Ctx, d: &'a CuDirective, n: usize, line: u32) -> RegionText<'a> {
        let cxx = ctx.pp.cxx;
        // C++ rejects a narrowing conversion in the descriptors' braces
        let int32 = |e: &str| {
            if cxx {
                format!("static_cast<int32_t>({e})")
            } else {
                format!("({e})")
            }
        };
        let cud = d
            .descriptors
            .iter()
            .map(|x| {
                format!(
                    "{{ {}, {}, {} }}",
                    int32(&x.count),
                    x.family.abi_name(),
                    int32(&x.size)
                )
            })
            .collect();
        RegionText {
            n,
            line,
            file_lit: &ctx.file_lit,
            cud,
            cu: format!("__spread_cu_{n}"),
            lo: format!("__spread_lo_{n}"),
            hi: format!("__spread_hi_{n}"),
            tl: d
                .thread_limit
                .as_deref()
                .map(|t| format!("({t})"))
                .unwrap_or("0".into()),
            moved: &d.moved,
        }
    }

    /// The text that replaces the directive up to the loop or block: descriptor,
    /// `__spread_cu_begin` over iterations `lb..ub`, the CUs' `parallel` region and its loop
    /// over units (`keyword` `while`, or `if` for the block's one unit per CU).
    fn opening(
        &self,
        sched: &str,
        (lb, ub, chunk): (&str, &str, &str),
        private: Option<&str>,
        keyword: &str,
    ) -> Vec<Piece> {
        let (n, line) = (self.n, self.line);
        let (cu, lo, hi) = (&self.cu, &self.lo, &self.hi);
        vec![
            Piece::Line(line),
            Piece::Text(format!(
                "{{ static const __spread_construct_t __spread_c_{n} = {{ \"{}\", {line}, {}, 0, {sched} }}; const __spread_cud_t __spread_cud_{n}[] = {{ {} }}; __spread_cu_region_t *{cu} = __spread_cu_begin(&__spread_c_{n}, {lb}, {ub}, __spread_cud_{n}, {}, {chunk}, {});",
                self.file_lit,
                Kind::Cu.abi_name(),
                self.cud.join(", "),
                self.cud.len(),
                self.tl
            )),
            Piece::Directive {
                line,
                text: self.parallel(private),
            },
            Piece::Line(line),
            Piece::Text(format!(
                "{{ int64_t {lo}, {hi}; __spread_cu_enter({cu}); {keyword} (__spread_cu_next({cu}, &{lo}, &{hi})) {{ {{"
            )),
        ]
    }

    /// The CUs' threads; the region's own names are firstprivate, so that `default(none)`
    /// works.
    fn parallel(&self, private: Option<&str>) -> String {
        let cu = &self.cu;
        let mut p = format!(
            "#pragma omp parallel num_threads(__spread_cu_num_threads({cu})) firstprivate({cu})"
        );
        if let Some(v) = private {
            p.push_str(&format!(" private({v})"));
        }
        for c in self.moved {
            p.push(' ');
            p.push_str(c);
        }
        p
    }

    /// The insertion after the loop or block. It gets a scope of its own: what follows it on
    /// its last line then starts with `}` (no -Wmisleading-indentation after an unbraced
    /// body).
    fn closing(&self, at: usize) -> Edit {
        let (cu, lo, hi) = (&self.cu, &self.lo, &self.hi);
        Edit {
            start: at,
            end: at,
            pieces: vec![Piece::Text(format!(
                " }} __spread_cu_commit({cu}, {lo}, {hi}); }} __spread_cu_leave({cu}); }} __spread_cu_end({cu}); }}"
            ))],
        }
    }
}

/// A region over a structured block: T = the number of CUs, static, so that each CU runs the
/// block exactly once. The edits and the block's byte range.
fn block_edits(
    ctx: &Ctx,
    d: &CuDirective,
    text: &RegionText,
    k: usize,
    line_start: usize,
    dl: DirectiveLine,
) -> Result<(Vec<Edit>, (usize, usize)), LowerError> {
    let block_end = ctx.view.statement_end(k + 1).map_err(|e| LowerError {
        off: ctx.item_off_or(e, dl.end),
        msg: format!("'{}' with compute units must be followed by a loop ('teams distribute') or a structured block", d.name()),
    })?;
    let n = text.n;
    let total: Vec<String> = (0..text.cud.len())
        .map(|i| format!("(int64_t)__spread_cud_{n}[{i}].__spread_count"))
        .collect();
    let pieces = text.opening(
        "__SPREAD_SCHED_STATIC",
        ("0", &total.join(" + "), "0"),
        None,
        "if",
    );
    let end = ctx.item_end(block_end);
    let edits = vec![
        Edit {
            start: line_start,
            end: dl.end,
            pieces,
        },
        text.closing(end),
    ];
    Ok((edits, (dl.end, end)))
}

/// A region over a loop, whose header is rewritten to run one unit `[lo, hi)`. The edits and
/// the loop body's byte range.
fn loop_edits(
    ctx: &Ctx,
    d: &CuDirective,
    text: &RegionText,
    loop_item: usize,
    line_start: usize,
    dl: DirectiveLine,
) -> Result<(Vec<Edit>, (usize, usize)), LowerError> {
    let lp = stmt::parse_loop(&ctx.view, loop_item, &d.name()).map_err(|e| LowerError {
        off: ctx.item_off_or(e.item, dl.end),
        msg: e.msg,
    })?;
    let var = &lp.var;
    // a loop variable declared outside is shared in the parallel region unless made private
    let private =
        (lp.decl_type.is_none() && !d.privatized.iter().any(|p| p == var)).then_some(var.as_str());
    let chunk = d
        .chunk
        .as_deref()
        .map(|c| format!("({c})"))
        .unwrap_or("0".into());
    let mut pieces = text.opening(
        schedule_field(d.schedule),
        (&format!("({})", lp.lb), &exclusive_bound(&lp), &chunk),
        private,
        "while",
    );
    pieces.extend(for_header(ctx, &lp, &text.lo, &text.hi));
    let body_end = ctx.item_end(lp.body_end);
    let edits = vec![
        Edit {
            start: line_start,
            end: ctx.item_end(lp.close),
            pieces,
        },
        text.closing(body_end),
    ];
    Ok((edits, (ctx.item_end(lp.close), body_end)))
}
