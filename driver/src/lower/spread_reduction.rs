//! The reductions of `target spread` constructs (docs/spread-abi.md §4): each reduction variable
//! is reduced, per device, into a partial of the runtime's that the loop body uses in its place,
//! and the partials are combined into the variable after the region.

use crate::directive::{clause_name, SpreadDirective};
use crate::lexer::TokKind;
use crate::stmt::{self, Item, View};

use super::{Ctx, Edit, LowerError, Piece};

/// A `target spread` with both `nowait` and `reduction` (docs/spread-abi.md §4) runs as one
/// deferred task that runs the construct without `nowait` and then combines the partials: the
/// construct as lowered inside that task (no `nowait`, no `depend`) and the clauses of the
/// task (the user's `depend` clauses; the parser has rejected those that use
/// `omp_spread_start`/`omp_spread_size`).
pub(super) fn deferred_reduction(d: &SpreadDirective) -> (SpreadDirective, Vec<String>) {
    let mut inner = d.clone();
    inner.nowait = false;
    inner.kept.clear();
    let mut task = Vec::new();
    for (i, c) in d.kept.iter().enumerate() {
        match clause_name(c) {
            name @ ("nowait" | "depend") => {
                if name == "depend" {
                    task.push(c.clone());
                }
                // the rewritten reductions keep their places among the remaining clauses
                for (r, orig) in inner.reductions.iter_mut().zip(&d.reductions) {
                    if orig.kept_pos > i {
                        r.kept_pos -= 1;
                    }
                }
            }
            _ => inner.kept.push(c.clone()),
        }
    }
    (inner, task)
}

/// What the reductions of `target spread` construct `k` add to its lowering (docs/spread-abi.md
/// §4). Variable `s` number `j` is reduced, per device, into the runtime's partial
/// `*__spread_rv_K_j`, which the body uses in place of `s`.
#[derive(Default)]
pub(super) struct ReductionText {
    /// Before `__spread_region_begin`: a compile-time check of each variable's type, and the
    /// handle of the region's reductions.
    pub(super) before_begin: String,
    /// Right after `__spread_region_begin`: the registrations. The pass runs everything between
    /// begin and end once per chunk, so they are guarded by the handle to run once.
    pub(super) after_begin: String,
    /// In the chunk block, before the inner directive: the partials' pointers.
    pub(super) chunk: String,
    /// The inner directive's clauses (the kept ones with each `reduction` rewritten).
    pub(super) clauses: Vec<String>,
    /// After `__spread_region_end`: the partials are combined into the variables.
    pub(super) after_end: Vec<Piece>,
}

/// The text of the reductions of construct `k`, directive `d` (for C++ when `cxx`): see
/// [`ReductionText`].
pub(super) fn reduction_text(d: &SpreadDirective, k: usize, cxx: bool) -> ReductionText {
    let mut t = ReductionText::default();
    if d.reductions.is_empty() {
        t.clauses = d.kept.clone();
        return t;
    }
    let (r, rd) = (format!("__spread_r_{k}"), format!("__spread_rd_{k}"));
    let cname = d.name();
    let mut j = 0usize;
    let mut kept = d.kept.iter();
    let mut pos = 0usize;
    t.after_begin = format!("if (!{rd}) {{ ");
    for red in &d.reductions {
        while pos < red.kept_pos {
            if let Some(c) = kept.next() {
                t.clauses.push(c.clone());
            }
            pos += 1;
        }
        let mut items = Vec::new();
        for (v, _) in &red.vars {
            let rv = format!("__spread_rv_{k}_{j}");
            // (`__extension__`: _Static_assert and spread.h's _Generic are C11, quiet under
            // -std=c99 -pedantic)
            let (check, ty) = if cxx {
                ("static_assert", format!("__SPREAD_TYPE_OF({v})"))
            } else {
                (
                    "__extension__ _Static_assert",
                    format!("(__extension__ __SPREAD_TYPE_OF({v}))"),
                )
            };
            t.before_begin.push_str(&format!(
                "{check}({ty} != __SPREAD_TYPE_UNSUPPORTED, \"reduction variable '{v}' of '{cname}' must have an arithmetic type (char, short, int, long, long long, their unsigned forms, float or double)\"); "
            ));
            let (addr, slot) = if cxx {
                (
                    format!("static_cast<void *>(&({v}))"),
                    format!("static_cast<__typeof__({v}) *>(__spread_reduction_slot({r}, {j}))"),
                )
            } else {
                (
                    format!("(void *)&({v})"),
                    format!("(__typeof__({v}) *)__spread_reduction_slot({r}, {j})"),
                )
            };
            t.after_begin.push_str(&format!(
                "__spread_reduction({r}, {}, {ty}, {addr}, sizeof({v})); ",
                red.abi
            ));
            t.chunk
                .push_str(&format!(" __typeof__({v}) *const {rv} = {slot};"));
            items.push(format!("{rv}[0:1]"));
            j += 1;
        }
        // `-` combines as `+` (OpenMP 5.2 deprecates the `-` identifier); the runtime still
        // gets __SPREAD_RED_SUB for the original variable
        let op = if red.op == "-" { "+" } else { red.op.as_str() };
        t.clauses
            .push(format!("reduction({op}: {})", items.join(", ")));
        t.clauses.push(format!("map(tofrom: {})", items.join(", ")));
    }
    t.clauses.extend(kept.cloned());
    t.before_begin
        .push_str(&format!("__spread_reductions_t *{rd} = 0; "));
    t.after_begin
        .push_str(&format!("{rd} = __spread_region_reductions({r}); }} "));
    // (a `nowait` construct with reductions is lowered without `nowait` inside a task:
    // `deferred_reduction`)
    debug_assert!(!d.nowait);
    t.after_end = vec![Piece::Text(format!(
        " }} __spread_region_end({r}); if ({rd}) __spread_reductions_finish({rd}); }}"
    ))];
    t
}

/// Whether the identifier at item `j` of a loop body starting at `lo` is declared there: after
/// a type name (`int s`, `T s`), or a declarator after `,`, `*` or `&` in a statement that
/// starts like a declaration (`int a, s`, `double *s`) before any initializer of it.
fn declares(v: &View, lo: usize, j: usize) -> bool {
    if j <= lo {
        return false;
    }
    let prev = v.text(j - 1);
    let prev_ident = v.tok(j - 1).map(|t| t.kind) == Some(TokKind::Ident);
    if prev_ident {
        return !matches!(
            prev,
            "return"
                | "sizeof"
                | "case"
                | "else"
                | "do"
                | "goto"
                | "struct"
                | "union"
                | "enum"
                | "co_return"
                | "co_yield"
                | "throw"
                | "typeid"
                | "alignof"
                | "_Alignof"
        );
    }
    if !matches!(prev, "," | "*" | "&") {
        return false;
    }
    // back to the start of the statement, at the identifier's bracket depth; an `=` in the
    // identifier's own declarator (after the nearest top-level `,`) makes it an initializer
    let mut depth = 0i32;
    let mut k = j;
    let mut init = false;
    let mut own = true;
    while k > lo {
        k -= 1;
        match v.text(k) {
            ")" | "]" => depth += 1,
            "(" | "[" => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            "=" if depth == 0 && own => init = true,
            "," if depth == 0 => own = false,
            ";" | "{" | "}" if depth == 0 => {
                k += 1;
                break;
            }
            _ => {}
        }
    }
    if init || k >= j {
        return false;
    }
    let is_ident = |i: usize| v.tok(i).map(|t| t.kind) == Some(TokKind::Ident);
    const TYPE_WORDS: &[&str] = &[
        "int", "char", "short", "long", "float", "double", "unsigned", "signed", "const",
        "volatile", "static", "struct", "union", "enum", "auto", "_Bool", "bool", "register",
    ];
    const NOT_DECL: &[&str] = &[
        "return",
        "else",
        "do",
        "case",
        "goto",
        "sizeof",
        "if",
        "while",
        "for",
        "switch",
        "throw",
        "delete",
        "new",
        "co_return",
        "co_yield",
        "co_await",
    ];
    if !is_ident(k) || NOT_DECL.contains(&v.text(k)) {
        return false;
    }
    // `int ...`, `T x, ...`, or `T *s` (as a statement, `a * s;` would compute nothing)
    TYPE_WORDS.contains(&v.text(k))
        || is_ident(k + 1)
        || (k + 1..j).all(|i| matches!(v.text(i), "*" | "&" | "const"))
}

/// The edits that make the body of `target spread` construct `k` use each reduction variable
/// `s` through its partial, `__spread_rv_K_j[0]`; an error where the body declares its own `s`
/// or names it in a directive.
pub(super) fn reduction_uses(
    ctx: &Ctx,
    d: &SpreadDirective,
    k: usize,
    lp: &stmt::Loop,
    cname: &str,
) -> Result<Vec<Edit>, LowerError> {
    let v = &ctx.view;
    let pp = ctx.pp;
    let vars: Vec<&str> = d.reduction_vars().map(|(_, v, _)| v).collect();
    let lo = lp.close + 1;
    let mut edits = Vec::new();
    // the member list of a struct/union defined in the body names members, not variables
    let mut skip_to = 0usize;
    for it in lo..=lp.body_end {
        if it < skip_to {
            continue;
        }
        if matches!(v.text(it), "struct" | "union") {
            let open = if v.text(it + 1) == "{" {
                it + 1
            } else {
                it + 2
            };
            if v.text(open) == "{" {
                if let Some(close) = v.matching(open) {
                    skip_to = close + 1;
                }
            }
            continue;
        }
        match v.items.get(it) {
            Some(Item::Tok(_)) => {}
            Some(Item::Pragma(di)) => {
                // a directive in the body would reduce or map the original variable
                let dl = pp.lexed.directives[*di];
                for t in dl.first_tok..dl.end_tok {
                    let w = pp.lexed.text(&pp.text, t);
                    let member =
                        t > dl.first_tok && matches!(pp.lexed.text(&pp.text, t - 1), "." | "->");
                    if pp.lexed.tokens[t].kind == TokKind::Ident && vars.contains(&w) && !member {
                        return Err(LowerError {
                            off: pp.lexed.tokens[t].start,
                            msg: format!("reduction variable '{w}' of '{cname}' cannot be named in a directive inside its loop body"),
                        });
                    }
                }
                continue;
            }
            None => continue,
        }
        let w = v.text(it);
        let Some(j) = vars.iter().position(|x| *x == w) else {
            continue;
        };
        if v.tok(it).map(|t| t.kind) != Some(TokKind::Ident) {
            continue;
        }
        let prev = if it > lo { v.text(it - 1) } else { "" };
        // a member, a qualified name, a designator (`.s = 1`) or a tag are not the variable
        if matches!(prev, "." | "->" | "::" | "struct" | "union" | "enum") {
            continue;
        }
        if declares(v, lo, it) {
            return Err(LowerError {
                off: ctx.item_off(it),
                msg: format!("reduction variable '{w}' is redeclared in the loop body of '{cname}'; rename the inner variable"),
            });
        }
        edits.push(Edit {
            start: ctx.item_off(it),
            end: ctx.item_end(it),
            pieces: vec![Piece::Text(format!("__spread_rv_{k}_{j}[0]"))],
        });
    }
    Ok(edits)
}
