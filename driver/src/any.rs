//! Task sharing (seed 002; docs/task-sharing-lowering.md): `target device(any)`, whose
//! instances the runtime places on any device, with one version per device kind given by
//! `if_device(kind[, subarch]) construct-set [resources(n)]` entries (or one construct-set for
//! all kinds), and `resources(n)`, the tokens an instance holds on its device.
//!
//! This module parses and checks the directives and decides the versions and switch arms; the
//! text around the statement is written by `lower::device_any` (`driver/src/lower/device_any.rs`).

use crate::directive::{
    clause_name, clause_suggestion, err, int_literal, section_colons, word_clauses, Cursor, PError,
};
use crate::directive::{ALL_CLAUSES, LEAF_WORDS};
use crate::lexer::{matching_close, TokKind, Token};

/// A device kind an `if_device` entry names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    /// `host`: the host's own cores, in the host data environment (no copies).
    Host,
    /// `cpu`, `x86_64`: Spread's host devices (x86_64 images with memory of their own).
    Cpu,
    /// `nvidia`, `nvptx`, `nvptx64`: NVIDIA GPUs.
    Nvidia,
}

impl Arch {
    /// The kind an arch name (any case) stands for.
    pub fn parse(name: &str) -> Option<Arch> {
        match name.to_ascii_lowercase().as_str() {
            "host" => Some(Arch::Host),
            "cpu" | "x86_64" => Some(Arch::Cpu),
            "nvidia" | "nvptx" | "nvptx64" => Some(Arch::Nvidia),
            _ => None,
        }
    }

    /// The `__SPREAD_ANY_*` kind of spread.h.
    pub fn abi_name(self) -> &'static str {
        match self {
            Arch::Host => "__SPREAD_ANY_HOST",
            Arch::Cpu => "__SPREAD_ANY_CPU",
            Arch::Nvidia => "__SPREAD_ANY_NVIDIA",
        }
    }

    /// Its canonical name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Arch::Host => "host",
            Arch::Cpu => "cpu",
            Arch::Nvidia => "nvidia",
        }
    }
}

/// The compute capability of an NVIDIA subarch, `sm_XY` or `ccXY` (any case): `XY`.
pub fn parse_subarch(s: &str) -> Option<u32> {
    let l = s.to_ascii_lowercase();
    let digits = l.strip_prefix("sm_").or_else(|| l.strip_prefix("cc"))?;
    if digits.is_empty() || digits.len() > 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|&v| v > 0)
}

/// A `resources(...)` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cost {
    /// No `resources`: cost 0.
    None,
    /// `resources(auto)`: cost 0, flagged `__SPREAD_ANY_COST_AUTO`.
    Auto,
    /// An expression (a constant is within 0..100).
    Expr(String),
}

impl Cost {
    /// Whether the cost is an integer literal (it can be written once per version).
    fn is_literal(&self) -> bool {
        match self {
            Cost::Expr(e) => int_literal(e).is_some(),
            _ => true,
        }
    }
}

/// The directive words and clauses a version runs its region with (`teams distribute parallel
/// for num_teams(4)`); empty: the statement runs as written in the target region.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConstructSet {
    /// Leaf construct words, in order.
    pub words: Vec<String>,
    /// Clauses as written.
    pub clauses: Vec<String>,
    /// Variables of its `reduction` clauses (plain names): the target maps them tofrom, as a
    /// combined `target ...` construct would.
    pub reduction_vars: Vec<String>,
}

impl ConstructSet {
    /// The words, space separated.
    pub fn name(&self) -> String {
        self.words.join(" ")
    }

    /// Whether clause `name` is among its clauses.
    fn has_clause(&self, name: &str) -> bool {
        self.clauses.iter().any(|c| clause_name(c) == name)
    }

    /// The directive line (`#pragma omp ...`), or `None` for an empty set.
    pub fn pragma(&self) -> Option<String> {
        if self.words.is_empty() {
            return None;
        }
        let mut s = format!("#pragma omp {}", self.name());
        for c in &self.clauses {
            s.push(' ');
            s.push_str(c);
        }
        Some(s)
    }
}

/// The construct-sets an `if_device` entry (or the single-set form) accepts.
pub const SETS: &[&str] = &[
    "",
    "teams",
    "teams distribute",
    "teams distribute simd",
    "teams distribute parallel for",
    "teams distribute parallel for simd",
    "teams loop",
    "distribute",
    "distribute simd",
    "distribute parallel for",
    "distribute parallel for simd",
    "parallel",
    "parallel for",
    "parallel for simd",
    "parallel loop",
    "simd",
    "loop",
];

/// Clauses only the `target` itself takes (never a construct-set's).
const TARGET_ONLY: &[&str] = &[
    "map",
    "is_device_ptr",
    "has_device_addr",
    "defaultmap",
    "uses_allocators",
    "in_reduction",
    "ompx_dyn_cgroup_mem",
    "ompx_bare",
    "ompx_attribute",
    "device",
    "nowait",
    "depend",
];

/// One `if_device(kind[, subarch]) construct-set [resources(n)]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its device kind.
    pub arch: Arch,
    /// NVIDIA compute capability (`sm_90` -> 90); 0: any.
    pub subarch: u32,
    /// Its construct-set.
    pub set: ConstructSet,
    /// Its `resources`.
    pub cost: Cost,
    /// Token of the kind name (where duplicates are reported).
    pub tok: usize,
}

/// A map item the runtime is told about (for locality and lazy coherence).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapItem {
    /// Address of its first byte.
    pub ptr: String,
    /// Its size in bytes (an `int64_t` expression, C casts; `cxx_bytes` for C++).
    pub bytes: String,
    /// Its size in bytes, C++ casts.
    pub cxx_bytes: String,
    /// `__SPREAD_ANY_MAP_*` flags, or `0`.
    pub map_type: &'static str,
}

/// A `#pragma omp target ... device(any) ...` line, parsed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnyTarget {
    /// Token of the `device` clause.
    pub device_tok: usize,
    /// Clauses each version's `target` gets, verbatim.
    pub target_clauses: Vec<String>,
    /// Map items of known extent.
    pub maps: Vec<MapItem>,
    /// Variables the instance's task shares with the encountering code (map item bases).
    pub shared: Vec<String>,
    /// `depend` clauses, verbatim (for the task).
    pub depend: Vec<String>,
    /// The condition of `if([target:] c)`.
    pub cond: Option<String>,
    /// `nowait` is present.
    pub nowait: bool,
    /// The construct-set on the target line (single-set form).
    pub set: ConstructSet,
    /// Token of the set's first word, if any.
    pub set_tok: Option<usize>,
    /// `resources` on the target line, with its token.
    pub cost: Option<(Cost, usize)>,
    /// `if_device` entries written on the target line itself.
    pub entries: Vec<Entry>,
    /// Warnings (`resources(auto)`).
    pub warnings: Vec<PError>,
}

/// What an `omp` pragma is to this module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// `target ... device(any) ...`: a task-sharing construct.
    Target,
    /// `#pragma omp if_device ...`: entries of the construct before it (if any).
    Entries,
    /// A misuse (`device(any)` on a data construct, `resources` elsewhere).
    Misplaced(PError),
    /// Something else.
    Other,
}

/// Top-level clauses of tokens `from..end`: (name token, parentheses).
fn scan(c: &Cursor, from: usize) -> Vec<(usize, Option<(usize, usize)>)> {
    let mut out = Vec::new();
    let mut i = from;
    while i < c.end {
        if c.toks[i].kind == TokKind::Ident && c.text(i + 1) == "(" {
            match matching_close(c.src, c.toks, i + 1, c.end) {
                Some(close) => {
                    out.push((i, Some((i + 1, close))));
                    i = close + 1;
                    continue;
                }
                None => return out,
            }
        }
        if c.toks[i].kind == TokKind::Ident {
            out.push((i, None));
        }
        i += 1;
    }
    out
}

fn is_device_any(c: &Cursor, name: usize, parens: Option<(usize, usize)>) -> bool {
    matches!(parens, Some((open, close)) if c.is_ident(name, "device") && close == open + 2 && c.is_ident(open + 1, "any"))
}

/// Classifies the pragma `toks[first..end]`.
pub fn classify(src: &str, toks: &[Token], first: usize, end: usize) -> Found {
    let c = Cursor { src, toks, end };
    if !(c.text(first) == "#" && c.is_ident(first + 1, "pragma") && c.is_ident(first + 2, "omp")) {
        return Found::Other;
    }
    if c.is_ident(first + 3, "if_device") {
        return Found::Entries;
    }
    let clauses = scan(&c, first + 3);
    if let Some(&(dev, _)) = clauses.iter().find(|(n, p)| is_device_any(&c, *n, *p)) {
        if !c.is_ident(first + 3, "target") {
            return Found::Misplaced(PError {
                tok: dev,
                msg: format!(
                    "'device(any)' is only allowed on a 'target' construct, not on '{}'",
                    c.text(first + 3)
                ),
            });
        }
        let w = c.text(first + 4);
        let data = match w {
            "data" | "update" => Some(w.to_string()),
            "enter" | "exit" => Some(format!("{w} data")),
            "spread" => Some("spread".to_string()),
            _ => None,
        };
        if let Some(d) = data {
            let what = if d == "spread" {
                "'target spread' divides one loop among the devices it lists"
            } else {
                "a data construct maps or copies data to one device, which it must name"
            };
            return Found::Misplaced(PError {
                tok: dev,
                msg: format!("'device(any)' is only allowed on a 'target' construct (a region the runtime may run on any device), not on 'target {d}': {what}"),
            });
        }
        return Found::Target;
    }
    if let Some(&(r, _)) = clauses
        .iter()
        .find(|(n, p)| p.is_some() && c.is_ident(*n, "resources"))
    {
        return Found::Misplaced(PError {
            tok: r,
            msg: "'resources' is only allowed on a 'target device(any)' construct or after an 'if_device' entry's construct-set (clang would ignore it here)".into(),
        });
    }
    Found::Other
}

/// Parses a `resources(...)` clause whose parentheses are `open..close`.
fn parse_cost(
    c: &Cursor,
    name: usize,
    open: usize,
    close: usize,
    warnings: &mut Vec<PError>,
) -> Result<Cost, PError> {
    if open + 1 == close {
        return err(
            close,
            "expected a number of tokens (0 to 100) or 'auto' in 'resources'",
        );
    }
    if close == open + 2 && c.is_ident(open + 1, "auto") {
        warnings.push(PError {
            tok: name,
            msg: "'resources(auto)' is treated as 0: no token limit (tokens are not tuned automatically)".into(),
        });
        return Ok(Cost::Auto);
    }
    let text = c.span(open + 1, close);
    let bare = text
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim();
    let (neg, digits) = match bare.strip_prefix('-') {
        Some(d) => (true, d.trim()),
        None => (false, bare),
    };
    if let Some(v) = int_literal(digits) {
        if neg && v != 0 || v > 100 {
            return err(
                open + 1,
                format!("resources({text}) is out of range: an instance holds 0 to 100 of its device's tokens"),
            );
        }
    }
    Ok(Cost::Expr(text))
}

/// Parses a construct-set from token `i` up to the next `if_device` or the end: its words,
/// clauses and `resources`. `what` names the construct in messages. Returns the set, its cost
/// (with the token of `resources`) and the index where it stopped.
#[allow(clippy::type_complexity)]
fn parse_set(
    c: &Cursor,
    mut i: usize,
    what: &str,
    warnings: &mut Vec<PError>,
) -> Result<(ConstructSet, Option<(Cost, usize)>, usize), PError> {
    let mut set = ConstructSet::default();
    let start = i;
    while i < c.end
        && c.toks[i].kind == TokKind::Ident
        && c.text(i + 1) != "("
        && (LEAF_WORDS.contains(&c.text(i)) || !ALL_CLAUSES.contains(&c.text(i)))
    {
        let w = c.text(i);
        if w == "target" {
            return err(i, format!("'target' cannot appear in the construct-set of {what}: the construct is already a 'target device(any)'; give the directives that run inside it (e.g. 'teams distribute parallel for')"));
        }
        if !LEAF_WORDS.contains(&w) {
            return err(i, format!("unknown directive '{w}' in the construct-set of {what}; a construct-set is made of 'teams', 'distribute', 'parallel', 'for', 'simd' and 'loop' with their clauses"));
        }
        set.words.push(w.to_string());
        i += 1;
    }
    let name = set.name();
    if !SETS.contains(&name.as_str()) {
        return err(start, format!("'{name}' is not a construct-set {what} accepts; use 'teams distribute parallel for [simd]', 'teams distribute [simd]', 'distribute parallel for [simd]', 'parallel for [simd]', 'parallel', 'teams', 'simd', 'loop', 'teams loop', 'parallel loop' or nothing"));
    }
    let mut cost = None;
    while i < c.end {
        if c.text(i) == "," {
            i += 1;
            continue;
        }
        if c.is_ident(i, "if_device") {
            break;
        }
        if c.toks[i].kind != TokKind::Ident {
            return err(
                i,
                format!("expected a clause in the construct-set of {what}"),
            );
        }
        let cname = c.text(i);
        let parens = if c.text(i + 1) == "(" {
            match matching_close(c.src, c.toks, i + 1, c.end) {
                Some(close) => Some((i + 1, close)),
                None => return err(i + 1, format!("expected ')' to end the '{cname}' clause")),
            }
        } else {
            None
        };
        let next = parens.map_or(i + 1, |(_, close)| close + 1);
        if cname == "resources" {
            let Some((open, close)) = parens else {
                return err(i + 1, "expected '(' after 'resources'");
            };
            if cost.is_some() {
                return err(
                    i,
                    format!("the 'resources' clause can appear only once in {what}"),
                );
            }
            cost = Some((parse_cost(c, i, open, close, warnings)?, i));
            i = next;
            continue;
        }
        if LEAF_WORDS.contains(&cname) && parens.is_none() {
            return err(i, format!("directive '{cname}' must come before the clauses of the construct-set of {what}"));
        }
        if TARGET_ONLY.contains(&cname) {
            return err(i, format!("clause '{cname}' belongs on the 'target device(any)' line, not in the construct-set of {what}"));
        }
        if !ALL_CLAUSES.contains(&cname) {
            let mut known: Vec<&str> = set
                .words
                .iter()
                .flat_map(|w| word_clauses(w))
                .copied()
                .collect();
            known.push("resources");
            return err(
                i,
                format!(
                    "unknown clause '{cname}' in the construct-set of {what}{}",
                    clause_suggestion(cname, &known)
                ),
            );
        }
        if set.words.is_empty() {
            return err(i, format!("clause '{cname}' needs a directive in the construct-set of {what} (an empty construct-set runs the statement as written)"));
        }
        if !set.words.iter().any(|w| word_clauses(w).contains(&cname)) {
            return err(
                i,
                format!("clause '{cname}' is not allowed on '{name}' in {what}"),
            );
        }
        if cname == "reduction" {
            if let Some((open, close)) = parens {
                set.reduction_vars.extend(reduction_vars(c, open, close));
            }
        }
        set.clauses.push(c.span(i, next));
        i = next;
    }
    Ok((set, cost, i))
}

/// The plain variable names of a `reduction([mod,] op: list)` clause.
fn reduction_vars(c: &Cursor, open: usize, close: usize) -> Vec<String> {
    let colons = section_colons(c, open + 1, close);
    let Some(&colon) = colons.last() else {
        return Vec::new();
    };
    c.split(colon + 1, close, ",")
        .into_iter()
        .filter(|&(lo, hi)| hi == lo + 1 && c.toks[lo].kind == TokKind::Ident)
        .map(|(lo, _)| c.text(lo).to_string())
        .collect()
}

/// Parses `if_device` entries from token `i` to the end of the pragma.
pub fn parse_entries(
    src: &str,
    toks: &[Token],
    i: usize,
    end: usize,
    warnings: &mut Vec<PError>,
) -> Result<Vec<Entry>, PError> {
    let c = Cursor { src, toks, end };
    entries_at(&c, i, warnings)
}

fn entries_at(c: &Cursor, mut i: usize, warnings: &mut Vec<PError>) -> Result<Vec<Entry>, PError> {
    let mut out = Vec::new();
    while i < c.end {
        if !c.is_ident(i, "if_device") {
            return err(i, "expected 'if_device(kind[, subarch])'");
        }
        let open = i + 1;
        if c.text(open) != "(" {
            return err(open, "expected '(' after 'if_device'");
        }
        let Some(close) = matching_close(c.src, c.toks, open, c.end) else {
            return err(open, "expected ')' to end 'if_device(...)'");
        };
        let parts = c.split(open + 1, close, ",");
        let (alo, ahi) = parts[0];
        if alo == ahi {
            return err(
                close,
                "expected a device kind in 'if_device' (host, cpu or nvidia)",
            );
        }
        let known = "known kinds: host (the host's own cores), cpu or x86_64 (Spread's host devices), nvidia, nvptx or nvptx64 (NVIDIA GPUs)";
        let aname = c.span(alo, ahi);
        let arch = match (ahi == alo + 1, Arch::parse(&aname)) {
            (true, Some(a)) => a,
            _ => {
                return err(
                    alo,
                    format!("unknown device kind '{aname}' in 'if_device'; {known}"),
                )
            }
        };
        let mut subarch = 0;
        if let Some(&(slo, shi)) = parts.get(1) {
            if slo == shi {
                return err(
                    shi,
                    "expected a subarch after ',' in 'if_device' (e.g. sm_90 or cc35)",
                );
            }
            let s = c.span(slo, shi);
            if arch != Arch::Nvidia {
                return err(slo, format!("'if_device({aname}, ...)' takes no subarch: only nvidia has subarchs (sm_XY or ccXY)"));
            }
            subarch = match (shi == slo + 1, parse_subarch(&s)) {
                (true, Some(v)) => v,
                _ => return err(slo, format!("malformed subarch '{s}' in 'if_device'; expected sm_XY or ccXY (compute capability X.Y, e.g. sm_90, cc35)")),
            };
        }
        if let Some(&(lo, _)) = parts.get(2) {
            return err(
                lo - 1,
                "'if_device' takes a device kind and at most one subarch",
            );
        }
        let what = if subarch == 0 {
            format!("'if_device({})'", aname)
        } else {
            format!("'if_device({}, {})'", aname, c.span(parts[1].0, parts[1].1))
        };
        if let Some(prev) = out
            .iter()
            .find(|e: &&Entry| e.arch == arch && e.subarch == subarch)
        {
            let prev_name = c.text(prev.tok);
            return err(alo, format!("{what} duplicates the earlier entry 'if_device({prev_name}{})': each device kind and subarch can have one construct-set", if subarch == 0 { String::new() } else { format!(", sm_{subarch}") }));
        }
        let (set, cost, next) = parse_set(c, close + 1, &what, warnings)?;
        out.push(Entry {
            arch,
            subarch,
            set,
            cost: cost.map_or(Cost::None, |(c, _)| c),
            tok: alo,
        });
        i = next;
    }
    Ok(out)
}

/// The map items of a `map([modifiers,] [type:] list)` clause with parentheses `open..close`
/// whose extent is known, and the base variable of every item.
fn map_items(c: &Cursor, open: usize, close: usize) -> (Vec<MapItem>, Vec<String>) {
    let colons = section_colons(c, open + 1, close);
    let (ty, list_lo) = match colons.first() {
        Some(&colon) => {
            let parts = c.split(open + 1, colon, ",");
            let (lo, hi) = parts[parts.len() - 1];
            (c.span(lo, hi), colon + 1)
        }
        None => ("tofrom".to_string(), open + 1),
    };
    let map_type = match ty.as_str() {
        "to" => "__SPREAD_ANY_MAP_TO",
        "from" => "__SPREAD_ANY_MAP_FROM",
        "alloc" | "release" | "delete" => "0",
        _ => "__SPREAD_ANY_MAP_TO | __SPREAD_ANY_MAP_FROM",
    };
    let mut items = Vec::new();
    let mut bases = Vec::new();
    for (lo, hi) in c.split(list_lo, close, ",") {
        if lo == hi {
            continue;
        }
        if c.toks[lo].kind == TokKind::Ident && c.text(lo) != "this" {
            bases.push(c.text(lo).to_string());
        }
        if let Some(m) = map_item(c, lo, hi, map_type) {
            items.push(m);
        }
    }
    (items, bases)
}

/// One map item of known extent: a variable, or `base[lower:length]` where only the last
/// subscript is a section.
fn map_item(c: &Cursor, lo: usize, hi: usize, map_type: &'static str) -> Option<MapItem> {
    let groups = c.subscripts(lo, hi);
    let sections: Vec<usize> = groups
        .iter()
        .enumerate()
        .filter(|(_, &(o, cl))| !section_colons(c, o + 1, cl).is_empty())
        .map(|(g, _)| g)
        .collect();
    if sections.is_empty() {
        let e = c.span(lo, hi);
        return Some(MapItem {
            ptr: format!("&({e})"),
            bytes: format!("(int64_t)sizeof({e})"),
            cxx_bytes: format!("static_cast<int64_t>(sizeof({e}))"),
            map_type,
        });
    }
    let (o, cl) = *groups.last()?;
    if sections != [groups.len() - 1] || cl + 1 != hi || o == lo {
        return None;
    }
    let colons = section_colons(c, o + 1, cl);
    if colons.len() != 1 || colons[0] + 1 == cl {
        return None; // strided, or the length is omitted
    }
    let base = c.span(lo, o);
    let lower = if colons[0] == o + 1 {
        "0".to_string()
    } else {
        c.span(o + 1, colons[0])
    };
    let len = c.span(colons[0] + 1, cl);
    Some(MapItem {
        ptr: format!("&({base})[{lower}]"),
        bytes: format!("(int64_t)({len}) * (int64_t)sizeof(({base})[{lower}])"),
        cxx_bytes: format!(
            "static_cast<int64_t>({len}) * static_cast<int64_t>(sizeof(({base})[{lower}]))"
        ),
        map_type,
    })
}

/// Parses a pragma [`classify`] found to be [`Found::Target`].
pub fn parse_target(
    src: &str,
    toks: &[Token],
    first: usize,
    end: usize,
) -> Result<AnyTarget, PError> {
    let c = Cursor { src, toks, end };
    let mut t = AnyTarget::default();
    let raw = target_line(&c, first + 4, &mut t)?;
    let set_words = t.set.words.clone();
    let cname = if set_words.is_empty() {
        "target device(any)".to_string()
    } else {
        format!("target device(any) {}", set_words.join(" "))
    };
    for (name_tok, parens) in raw {
        sort_clause(&c, &mut t, &set_words, &cname, name_tok, parens)?;
    }
    if !t.entries.is_empty() {
        if let Some(tok) = t.set_tok {
            return err(tok, "a 'target device(any)' with 'if_device' entries cannot also have a construct-set of its own (which version would it belong to?); move it into an 'if_device' entry");
        }
    }
    Ok(t)
}

/// Reads the target line from token `i`: its construct-set words, its `device(any)` and its
/// `if_device` entries go into `t`; the other clauses are returned (name token,
/// parentheses) to be sorted once the construct-set, which decides where they go, is known.
#[allow(clippy::type_complexity)]
fn target_line(
    c: &Cursor,
    mut i: usize,
    t: &mut AnyTarget,
) -> Result<Vec<(usize, Option<(usize, usize)>)>, PError> {
    let mut raw: Vec<(usize, Option<(usize, usize)>)> = Vec::new();
    let mut words_end = None;
    let mut have_device = false;
    while i < c.end {
        if c.text(i) == "," {
            i += 1;
            continue;
        }
        if c.is_ident(i, "if_device") {
            t.entries = entries_at(c, i, &mut t.warnings)?;
            break;
        }
        if c.toks[i].kind != TokKind::Ident {
            return err(i, "expected a clause on 'target device(any)'");
        }
        let w = c.text(i);
        if LEAF_WORDS.contains(&w) && c.text(i + 1) != "(" {
            if words_end.is_some() {
                return err(i, format!("directive '{w}' must come right after 'target' or right after 'device(any)', with the other words of its construct-set"));
            }
            let next = set_words_at(c, i, t)?;
            words_end = Some(next);
            i = next;
            continue;
        }
        let parens = if c.text(i + 1) == "(" {
            match matching_close(c.src, c.toks, i + 1, c.end) {
                Some(close) => Some((i + 1, close)),
                None => return err(i + 1, format!("expected ')' to end the '{w}' clause")),
            }
        } else {
            None
        };
        if is_device_any(c, i, parens) {
            if have_device {
                return err(
                    i,
                    "the 'device' clause can appear only once on 'target device(any)'",
                );
            }
            have_device = true;
            t.device_tok = i;
        } else if w == "device" {
            return err(
                i,
                "the 'device' clause can appear only once on 'target device(any)'",
            );
        } else {
            raw.push((i, parens));
        }
        i = parens.map_or(i + 1, |(_, close)| close + 1);
    }
    Ok(raw)
}

/// The construct-set words of the target line from token `i` into `t.set` (the words only:
/// the clauses after them are sorted out later), checked to be a set the lowering knows;
/// the token after them.
fn set_words_at(c: &Cursor, i: usize, t: &mut AnyTarget) -> Result<usize, PError> {
    let mut next = i;
    while next < c.end && LEAF_WORDS.contains(&c.text(next)) && c.text(next + 1) != "(" {
        t.set.words.push(c.text(next).to_string());
        next += 1;
    }
    if !SETS.contains(&t.set.name().as_str()) {
        return err(i, format!("'target device(any) {}' is not supported; the construct-set can be 'teams distribute parallel for [simd]', 'teams distribute [simd]', 'distribute parallel for [simd]', 'parallel for [simd]', 'parallel', 'teams', 'simd', 'loop', 'teams loop' or 'parallel loop'", t.set.name()));
    }
    t.set_tok = Some(i);
    Ok(next)
}

/// Puts one clause of the target line (name token `name_tok`) where it belongs: on each
/// version's `target`, on the construct-set, or into `t`'s own fields (`resources`,
/// `nowait`, `depend`, the target's `if`, the map items the runtime is told about).
fn sort_clause(
    c: &Cursor,
    t: &mut AnyTarget,
    set_words: &[String],
    cname: &str,
    name_tok: usize,
    parens: Option<(usize, usize)>,
) -> Result<(), PError> {
    let on_set = |n: &str| set_words.iter().any(|w| word_clauses(w).contains(&n));
    let target_clauses = word_clauses("target");
    let name = c.text(name_tok);
    let text = c.span(
        name_tok,
        parens.map_or(name_tok + 1, |(_, close)| close + 1),
    );
    match name {
        "resources" => {
            let Some((open, close)) = parens else {
                return err(name_tok + 1, "expected '(' after 'resources'");
            };
            if t.cost.is_some() {
                return err(
                    name_tok,
                    format!("the 'resources' clause can appear only once on '{cname}'"),
                );
            }
            let cost = parse_cost(c, name_tok, open, close, &mut t.warnings)?;
            t.cost = Some((cost, name_tok));
        }
        "nowait" => t.nowait = true,
        "depend" => t.depend.push(text),
        "if" => {
            let Some((open, close)) = parens else {
                return err(name_tok + 1, "expected '(' after 'if'");
            };
            if_clause(c, t, set_words, cname, name_tok, (open, close), text)?;
        }
        "map" => {
            let Some((open, close)) = parens else {
                return err(name_tok + 1, "expected '(' after 'map'");
            };
            let (items, bases) = map_items(c, open, close);
            t.maps.extend(items);
            for b in bases {
                if !t.shared.contains(&b) {
                    t.shared.push(b);
                }
            }
            t.target_clauses.push(text);
        }
        _ if TARGET_ONLY.contains(&name) => t.target_clauses.push(text),
        "firstprivate" if !set_words.is_empty() && on_set(name) => {
            t.target_clauses.push(text.clone());
            t.set.clauses.push(text);
        }
        "thread_limit" if set_words.iter().any(|w| w == "teams") => t.set.clauses.push(text),
        _ if !set_words.is_empty() && on_set(name) => {
            if name == "reduction" {
                if let Some((open, close)) = parens {
                    t.set.reduction_vars.extend(reduction_vars(c, open, close));
                }
            }
            t.set.clauses.push(text)
        }
        _ if target_clauses.contains(&name) => t.target_clauses.push(text),
        _ if ALL_CLAUSES.contains(&name) => {
            return err(
                name_tok,
                format!("clause '{name}' is not allowed on '{cname}'"),
            )
        }
        _ => {
            let mut known: Vec<&str> = target_clauses.to_vec();
            known.extend(set_words.iter().flat_map(|w| word_clauses(w)));
            known.extend(["device", "resources", "if_device"]);
            return err(
                name_tok,
                format!(
                    "unknown clause '{name}' on '{cname}'{}",
                    clause_suggestion(name, &known)
                ),
            );
        }
    }
    Ok(())
}

/// An `if` clause of the target line (its parentheses, `text` as written): without
/// a modifier or with `target:` it is the condition of the whole construct (the host
/// fallback), once; with a construct-set word it goes to the construct-set.
fn if_clause(
    c: &Cursor,
    t: &mut AnyTarget,
    set_words: &[String],
    cname: &str,
    name_tok: usize,
    (open, close): (usize, usize),
    text: String,
) -> Result<(), PError> {
    let modifier = (c.toks[open + 1].kind == TokKind::Ident
        && c.text(open + 2) == ":"
        && c.text(open + 3) != ":")
        .then(|| c.text(open + 1));
    match modifier {
        None | Some("target") => {
            if t.cond.is_some() {
                return err(
                    name_tok,
                    format!("'{cname}' can have only one 'if' clause for its target"),
                );
            }
            let from = if modifier.is_some() {
                open + 3
            } else {
                open + 1
            };
            if from == close {
                return err(close, "expected a condition in 'if'");
            }
            t.cond = Some(c.span(from, close));
        }
        Some(m) if set_words.iter().any(|w| w == m) => t.set.clauses.push(text),
        Some(m) => {
            return err(
                open + 1,
                format!("'if({m}: ...)' does not name a construct of '{cname}'"),
            )
        }
    }
    Ok(())
}

/// One version of a site: which kind runs which arm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    /// Device kind.
    pub arch: Arch,
    /// NVIDIA compute capability, 0: any.
    pub subarch: u32,
    /// Switch arm.
    pub arm: usize,
    /// Runs only under if(false) or when no device is a candidate.
    pub fallback: bool,
    /// Its cost.
    pub cost: Cost,
}

impl Version {
    /// Its `__spread_any_version_t` initializer.
    pub fn initializer(&self) -> String {
        let mut flags = Vec::new();
        if self.fallback {
            flags.push("__SPREAD_ANY_FALLBACK");
        }
        if self.cost == Cost::Auto {
            flags.push("__SPREAD_ANY_COST_AUTO");
        }
        let flags = if flags.is_empty() {
            "0".to_string()
        } else {
            flags.join(" | ")
        };
        format!(
            "{{ {}, {}, {}, {flags} }}",
            self.arch.abi_name(),
            self.subarch,
            self.arm
        )
    }
}

/// One arm of the lowered switch: the construct-set it runs the statement with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arm {
    /// The set (already reduced or completed with `teams`).
    pub set: ConstructSet,
    /// It runs on the host: a `parallel` gets the picked number of threads.
    pub host: bool,
}

/// The versions and arms of a construct; `missing_host` when the entries do not list `host`
/// (its instances then run on the host only as a fallback).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Versions, in order.
    pub versions: Vec<Version>,
    /// Arms, in order.
    pub arms: Vec<Arm>,
    /// No `if_device(host)`.
    pub missing_host: bool,
}

/// A device version of `set`: OpenMP has no `distribute` outside `teams` (MACC accepts it).
pub fn device_set(set: &ConstructSet) -> ConstructSet {
    let mut s = set.clone();
    if s.words.first().map(String::as_str) == Some("distribute") {
        s.words.insert(0, "teams".into());
    }
    s
}

/// The paper's host IR reducer (§3.2): the outermost loop directive becomes `parallel for`
/// (`simd` kept), `teams` becomes `parallel`, and the clauses the result does not take
/// (`num_teams`, `thread_limit`, `dist_schedule`, `bind`, ...) are dropped.
pub fn host_reduce(set: &ConstructSet) -> ConstructSet {
    let name = set.name();
    let simd = name.ends_with(" simd");
    let words: &[&str] = match name.as_str() {
        "teams distribute parallel for"
        | "teams distribute parallel for simd"
        | "teams distribute"
        | "teams distribute simd"
        | "distribute parallel for"
        | "distribute parallel for simd"
        | "distribute"
        | "distribute simd" => {
            if simd {
                &["parallel", "for", "simd"]
            } else {
                &["parallel", "for"]
            }
        }
        "teams loop" | "loop" => &["parallel", "for"],
        "teams" => &["parallel"],
        _ => return set.clone(),
    };
    let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    let clauses = set
        .clauses
        .iter()
        .filter(|c| {
            let n = clause_name(c);
            !matches!(n, "num_teams" | "thread_limit" | "dist_schedule")
                && words.iter().any(|w| word_clauses(w).contains(&n))
        })
        .cloned()
        .collect();
    ConstructSet {
        words,
        clauses,
        reduction_vars: set.reduction_vars.clone(),
    }
}

/// A host version of an explicit `if_device(host)` set: as written, except that a `distribute`
/// without `teams` (not OpenMP) is reduced.
fn host_set(set: &ConstructSet) -> ConstructSet {
    if set.words.first().map(String::as_str) == Some("distribute") {
        host_reduce(set)
    } else {
        set.clone()
    }
}

/// The versions and arms of construct `t` with entries `entries` (those of the target line and
/// of the `if_device` lines after it).
pub fn plan(t: &AnyTarget, entries: &[Entry]) -> Plan {
    if entries.is_empty() {
        let cost = t.cost.as_ref().map_or(Cost::None, |(c, _)| c.clone());
        let v = |arch, arm| Version {
            arch,
            subarch: 0,
            arm,
            fallback: false,
            cost: cost.clone(),
        };
        return Plan {
            versions: vec![v(Arch::Nvidia, 0), v(Arch::Cpu, 0), v(Arch::Host, 1)],
            arms: vec![
                Arm {
                    set: device_set(&t.set),
                    host: false,
                },
                Arm {
                    set: host_reduce(&t.set),
                    host: true,
                },
            ],
            missing_host: false,
        };
    }
    let mut p = Plan {
        versions: Vec::new(),
        arms: Vec::new(),
        missing_host: !entries.iter().any(|e| e.arch == Arch::Host),
    };
    for (k, e) in entries.iter().enumerate() {
        let host = e.arch == Arch::Host;
        p.versions.push(Version {
            arch: e.arch,
            subarch: e.subarch,
            arm: k,
            fallback: false,
            cost: e.cost.clone(),
        });
        p.arms.push(Arm {
            set: if host {
                host_set(&e.set)
            } else {
                device_set(&e.set)
            },
            host,
        });
    }
    if p.missing_host {
        p.versions.push(Version {
            arch: Arch::Host,
            subarch: 0,
            arm: entries.len(),
            fallback: true,
            cost: Cost::None,
        });
        p.arms.push(Arm {
            set: host_reduce(&entries[0].set),
            host: true,
        });
    }
    p
}

impl Arm {
    /// The arm's construct directive, `threads` being the picked number of host threads.
    pub fn pragma(&self, threads: &str) -> Option<String> {
        let mut s = self.set.pragma()?;
        if self.host && self.set.words[0] == "parallel" && !self.set.has_clause("num_threads") {
            s.push_str(&format!(" num_threads({threads})"));
        }
        Some(s)
    }
}

/// The costs array's initializers (one per version) and, when one non-literal expression
/// serves several versions, the declaration that evaluates it once (`tmp` is its name).
pub fn cost_inits(p: &Plan, tmp: &str, cxx: bool) -> (String, Vec<String>) {
    let conv = |e: &str| {
        if int_literal(e).is_some() {
            format!("({e})")
        } else if cxx {
            format!("static_cast<int64_t>({e})")
        } else {
            format!("({e})")
        }
    };
    let shared = p.versions.len() > 1
        && p.versions.iter().all(|v| v.cost == p.versions[0].cost)
        && !p.versions[0].cost.is_literal();
    if shared {
        let Cost::Expr(e) = &p.versions[0].cost else {
            return (String::new(), Vec::new());
        };
        let decl = format!("const int64_t {tmp} = {}; ", conv(e));
        return (decl, p.versions.iter().map(|_| tmp.to_string()).collect());
    }
    let inits = p
        .versions
        .iter()
        .map(|v| match &v.cost {
            Cost::Expr(e) => conv(e),
            _ => "0".to_string(),
        })
        .collect();
    (String::new(), inits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::lex;

    fn pragma(s: &str) -> (String, Vec<Token>) {
        let l = lex(s, false);
        (s.to_string(), l.tokens)
    }

    fn target(s: &str) -> Result<AnyTarget, String> {
        let (src, toks) = pragma(s);
        assert_eq!(classify(&src, &toks, 0, toks.len()), Found::Target);
        parse_target(&src, &toks, 0, toks.len()).map_err(|e| e.msg)
    }

    fn entries(s: &str) -> Result<Vec<Entry>, String> {
        let (src, toks) = pragma(s);
        assert_eq!(classify(&src, &toks, 0, toks.len()), Found::Entries);
        parse_entries(&src, &toks, 3, toks.len(), &mut Vec::new()).map_err(|e| e.msg)
    }

    fn set(words: &str, clauses: &[&str]) -> ConstructSet {
        ConstructSet {
            words: words.split_whitespace().map(String::from).collect(),
            clauses: clauses.iter().map(|c| c.to_string()).collect(),
            reduction_vars: Vec::new(),
        }
    }

    #[test]
    fn arch_names() {
        assert_eq!(Arch::parse("NVIDIA"), Some(Arch::Nvidia));
        assert_eq!(Arch::parse("nvptx"), Some(Arch::Nvidia));
        assert_eq!(Arch::parse("NvPtx64"), Some(Arch::Nvidia));
        assert_eq!(Arch::parse("Host"), Some(Arch::Host));
        assert_eq!(Arch::parse("x86_64"), Some(Arch::Cpu));
        assert_eq!(Arch::parse("cpu"), Some(Arch::Cpu));
        assert_eq!(Arch::parse("amd"), None);
    }

    #[test]
    fn subarchs() {
        assert_eq!(parse_subarch("sm_90"), Some(90));
        assert_eq!(parse_subarch("cc35"), Some(35));
        assert_eq!(parse_subarch("SM_100"), Some(100));
        assert_eq!(parse_subarch("sm_90a"), None);
        assert_eq!(parse_subarch("sm_"), None);
        assert_eq!(parse_subarch("35"), None);
        assert_eq!(parse_subarch("cc3.5"), None);
    }

    #[test]
    fn resources_range() {
        let e = entries("#pragma omp if_device(host) parallel for resources(40)").unwrap();
        assert_eq!(e[0].cost, Cost::Expr("40".into()));
        let e = entries("#pragma omp if_device(host) resources(0x64)").unwrap();
        assert_eq!(e[0].cost, Cost::Expr("0x64".into()));
        for bad in ["101", "-1", "(200)", "1000000000000000000000000"] {
            let m = entries(&format!("#pragma omp if_device(host) resources({bad})")).unwrap_err();
            assert!(m.contains("out of range"), "{bad}: {m}");
        }
        let e = entries("#pragma omp if_device(host) resources(n * 2)").unwrap();
        assert_eq!(e[0].cost, Cost::Expr("n * 2".into()));
        let (src, toks) = pragma("#pragma omp if_device(host) resources(auto)");
        let mut w = Vec::new();
        let e = parse_entries(&src, &toks, 3, toks.len(), &mut w).unwrap();
        assert_eq!(e[0].cost, Cost::Auto);
        assert!(w[0].msg.contains("treated as 0"));
    }

    #[test]
    fn several_entries_on_one_line() {
        // Fig. 1's continuation form, as the preprocessor joins it
        let e = entries("#pragma omp if_device(nvidia, sm_90) teams distribute parallel for resources(10) if_device(host) parallel for resources(50)").unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!((e[0].arch, e[0].subarch), (Arch::Nvidia, 90));
        assert_eq!(e[0].set.name(), "teams distribute parallel for");
        assert_eq!(e[0].cost, Cost::Expr("10".into()));
        assert_eq!((e[1].arch, e[1].subarch), (Arch::Host, 0));
        assert_eq!(e[1].set.name(), "parallel for");
        let e = entries("#pragma omp if_device(NVIDIA,cc35) teams distribute parallel for num_teams(4) resources(2) thread_limit(64)").unwrap();
        assert_eq!(e[0].set.clauses, vec!["num_teams(4)", "thread_limit(64)"]);
        let e = entries("#pragma omp if_device(host) resources(40)").unwrap();
        assert!(e[0].set.words.is_empty());
    }

    #[test]
    fn entry_errors() {
        let m = entries("#pragma omp if_device(amd) parallel for").unwrap_err();
        assert!(
            m.contains("unknown device kind 'amd'") && m.contains("nvptx64"),
            "{m}"
        );
        let m = entries("#pragma omp if_device(host, sm_90)").unwrap_err();
        assert!(m.contains("takes no subarch"), "{m}");
        let m = entries("#pragma omp if_device(nvidia, sm9)").unwrap_err();
        assert!(m.contains("malformed subarch"), "{m}");
        let m = entries("#pragma omp if_device(NVIDIA) teams if_device(nvptx) teams").unwrap_err();
        assert!(m.contains("duplicates"), "{m}");
        entries("#pragma omp if_device(nvidia, sm_80) teams if_device(nvptx, sm_90) teams")
            .unwrap();
        let m = entries("#pragma omp if_device(host) target parallel for").unwrap_err();
        assert!(m.contains("'target' cannot appear"), "{m}");
        let m = entries("#pragma omp if_device(host) parallel foo").unwrap_err();
        assert!(m.contains("unknown directive 'foo'"), "{m}");
        let m = entries("#pragma omp if_device(host) parallel for map(to: a)").unwrap_err();
        assert!(
            m.contains("belongs on the 'target device(any)' line"),
            "{m}"
        );
        let m = entries("#pragma omp if_device(host) parallel for num_teams(2)").unwrap_err();
        assert!(m.contains("not allowed on 'parallel for'"), "{m}");
        let m = entries("#pragma omp if_device(host) for").unwrap_err();
        assert!(m.contains("not a construct-set"), "{m}");
    }

    #[test]
    fn target_line() {
        let t = target("#pragma omp target device(any) map(tofrom:vx[k:BS],vy[k:BS]) map(to: x[0:n], s, p[:]) nowait depend(in: x[0]) if(target: n > 10)").unwrap();
        assert!(t.nowait);
        assert_eq!(t.cond.as_deref(), Some("n > 10"));
        assert_eq!(t.depend, vec!["depend(in: x[0])"]);
        assert_eq!(t.shared, vec!["vx", "vy", "x", "s", "p"]);
        assert_eq!(t.maps.len(), 4);
        assert_eq!(t.maps[0].ptr, "&(vx)[k]");
        assert_eq!(t.maps[0].bytes, "(int64_t)(BS) * (int64_t)sizeof((vx)[k])");
        assert_eq!(
            t.maps[0].map_type,
            "__SPREAD_ANY_MAP_TO | __SPREAD_ANY_MAP_FROM"
        );
        assert_eq!(t.maps[2].ptr, "&(x)[0]");
        assert_eq!(t.maps[2].map_type, "__SPREAD_ANY_MAP_TO");
        assert_eq!(t.maps[3].ptr, "&(s)");
        assert_eq!(t.target_clauses.len(), 2);
        let t = target("#pragma omp target device(any) teams distribute parallel for simd map(always, from: a[1:n]) m[i][0:n] nowait resources(5)");
        assert!(t.is_err()); // a stray item is not a clause
        let t = target("#pragma omp target device(any) teams distribute parallel for simd map(always, from: a[1:n], m[i][0:n], q[0:n][0:m], r[0:n:2]) nowait resources(5) private(t) firstprivate(f) num_teams(8) thread_limit(4) reduction(+: s)").unwrap();
        assert_eq!(t.set.name(), "teams distribute parallel for simd");
        assert_eq!(t.maps.len(), 2);
        assert_eq!(t.maps[0].map_type, "__SPREAD_ANY_MAP_FROM");
        assert_eq!(t.maps[1].ptr, "&(m[i])[0]");
        assert_eq!(t.cost.as_ref().map(|c| &c.0), Some(&Cost::Expr("5".into())));
        assert_eq!(
            t.set.clauses,
            vec![
                "private(t)",
                "firstprivate(f)",
                "num_teams(8)",
                "thread_limit(4)",
                "reduction(+: s)"
            ]
        );
        assert_eq!(t.set.reduction_vars, vec!["s"]);
        assert_eq!(
            t.target_clauses,
            vec![
                "map(always, from: a[1:n], m[i][0:n], q[0:n][0:m], r[0:n:2])",
                "firstprivate(f)"
            ]
        );
        // MACC's form: distribute without teams, after the device clause
        let t = target("#pragma omp target device( any ) distribute parallel for map(a)").unwrap();
        assert_eq!(device_set(&t.set).name(), "teams distribute parallel for");
        let t = target("#pragma omp target teams loop device(any) thread_limit(3)").unwrap();
        assert_eq!(t.set.clauses, vec!["thread_limit(3)"]);
        let t = target("#pragma omp target device(any) map(a) thread_limit(3) private(x)").unwrap();
        assert_eq!(
            t.target_clauses,
            vec!["map(a)", "thread_limit(3)", "private(x)"]
        );
        let m =
            target("#pragma omp target device(any) teams if_device(host) parallel").unwrap_err();
        assert!(m.contains("cannot also have a construct-set"), "{m}");
        let m = target("#pragma omp target device(any) map(a) device(any)").unwrap_err();
        assert!(m.contains("only once"), "{m}");
        let m = target("#pragma omp target device(any) resources(101)").unwrap_err();
        assert!(m.contains("out of range"), "{m}");
        let m = target("#pragma omp target device(any) foo(1)").unwrap_err();
        assert!(m.contains("unknown clause 'foo'"), "{m}");
    }

    #[test]
    fn misplaced() {
        for (s, what) in [
            (
                "#pragma omp target data device(any) map(a)",
                "'target data'",
            ),
            (
                "#pragma omp target enter data map(to: a) device(any)",
                "'target enter data'",
            ),
            (
                "#pragma omp target exit data device(any) map(from: a)",
                "'target exit data'",
            ),
            (
                "#pragma omp target update device(any) to(a)",
                "'target update'",
            ),
            ("#pragma omp target spread device(any)", "'target spread'"),
        ] {
            let (src, toks) = pragma(s);
            match classify(&src, &toks, 0, toks.len()) {
                Found::Misplaced(e) => {
                    assert!(e.msg.contains(what), "{}", e.msg);
                    assert_eq!(&src[toks[e.tok].start..toks[e.tok].end], "device");
                }
                f => panic!("{s}: {f:?}"),
            }
        }
        let (src, toks) = pragma("#pragma omp parallel for resources(4)");
        assert!(
            matches!(classify(&src, &toks, 0, toks.len()), Found::Misplaced(e) if e.msg.contains("'resources' is only allowed"))
        );
        let (src, toks) = pragma("#pragma omp target map(to: resources[0:2]) device(1)");
        assert_eq!(classify(&src, &toks, 0, toks.len()), Found::Other);
    }

    #[test]
    fn host_reducer() {
        let r = |w: &str, cl: &[&str]| host_reduce(&set(w, cl));
        assert_eq!(
            r("teams distribute parallel for", &[]).name(),
            "parallel for"
        );
        assert_eq!(
            r("teams distribute parallel for simd", &[]).name(),
            "parallel for simd"
        );
        assert_eq!(r("teams distribute", &[]).name(), "parallel for");
        assert_eq!(r("teams distribute simd", &[]).name(), "parallel for simd");
        assert_eq!(r("distribute parallel for", &[]).name(), "parallel for");
        assert_eq!(r("teams loop", &[]).name(), "parallel for");
        assert_eq!(r("loop", &[]).name(), "parallel for");
        assert_eq!(r("parallel for", &[]).name(), "parallel for");
        assert_eq!(r("simd", &[]).name(), "simd");
        assert_eq!(r("teams", &[]).name(), "parallel");
        assert_eq!(r("", &[]).name(), "");
        let s = r(
            "teams distribute parallel for",
            &[
                "num_teams(4)",
                "thread_limit(8)",
                "dist_schedule(static)",
                "collapse(2)",
                "reduction(+: s)",
                "schedule(static)",
            ],
        );
        assert_eq!(
            s.clauses,
            vec!["collapse(2)", "reduction(+: s)", "schedule(static)"]
        );
        assert_eq!(
            r("teams loop", &["bind(teams)", "order(concurrent)"]).clauses,
            vec!["order(concurrent)"]
        );
    }

    #[test]
    fn plans() {
        let t = target(
            "#pragma omp target device(any) teams distribute parallel for map(a) resources(5)",
        )
        .unwrap();
        let p = plan(&t, &[]);
        let v: Vec<String> = p.versions.iter().map(|v| v.initializer()).collect();
        assert_eq!(
            v,
            vec![
                "{ __SPREAD_ANY_NVIDIA, 0, 0, 0 }",
                "{ __SPREAD_ANY_CPU, 0, 0, 0 }",
                "{ __SPREAD_ANY_HOST, 0, 1, 0 }"
            ]
        );
        assert_eq!(
            p.arms[1].pragma("T").as_deref(),
            Some("#pragma omp parallel for num_threads(T)")
        );
        assert_eq!(
            cost_inits(&p, "r", false),
            (String::new(), vec!["(5)".to_string(); 3])
        );
        let e = entries("#pragma omp if_device(NVIDIA,cc35) teams distribute parallel for resources(2) if_device(cpu) distribute resources(n)").unwrap();
        let p = plan(&t, &e);
        assert!(p.missing_host);
        let v: Vec<String> = p.versions.iter().map(|v| v.initializer()).collect();
        assert_eq!(
            v,
            vec![
                "{ __SPREAD_ANY_NVIDIA, 35, 0, 0 }",
                "{ __SPREAD_ANY_CPU, 0, 1, 0 }",
                "{ __SPREAD_ANY_HOST, 0, 2, __SPREAD_ANY_FALLBACK }"
            ]
        );
        assert_eq!(p.arms[1].set.name(), "teams distribute");
        assert_eq!(
            p.arms[2].pragma("T").as_deref(),
            Some("#pragma omp parallel for num_threads(T)")
        );
        assert_eq!(
            cost_inits(&p, "r", true).1,
            vec!["(2)", "static_cast<int64_t>(n)", "0"]
        );
        let e = entries("#pragma omp if_device(host) parallel for num_threads(3) resources(auto)")
            .unwrap();
        let p = plan(&t, &e);
        assert_eq!(
            p.versions[0].initializer(),
            "{ __SPREAD_ANY_HOST, 0, 0, __SPREAD_ANY_COST_AUTO }"
        );
        assert_eq!(
            p.arms[0].pragma("T").as_deref(),
            Some("#pragma omp parallel for num_threads(3)")
        );
        let t = target("#pragma omp target device(any) map(a) resources(f(x))").unwrap();
        let p = plan(&t, &[]);
        assert_eq!(p.arms[0].pragma("T"), None);
        let (decl, inits) = cost_inits(&p, "r", false);
        assert_eq!(decl, "const int64_t r = (f(x)); ");
        assert_eq!(inits, vec!["r"; 3]);
    }
}
