//! Parsing and checking of the directives the driver lowers: the spread directives
//! (`#pragma omp target spread ...`, `target data spread`, `target enter data spread`,
//! `target exit data spread`, `target update spread`) and the peer-copy and device-wait
//! extensions (`target update peer`, `wait device`).

use crate::lexer::{matching_close, TokKind, Token};
use crate::suggest;

/// Which spread construct a directive is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `target spread [teams distribute parallel for ...]`: a loop.
    Target,
    /// `target data spread`: a structured block.
    Data,
    /// `target enter data spread` (standalone).
    EnterData,
    /// `target exit data spread` (standalone).
    ExitData,
    /// `target update spread` (standalone).
    Update,
    /// `target update peer to(..) to_device(d) from(..) from_device(e)` (standalone).
    UpdatePeer,
    /// `wait device(d)` (standalone).
    WaitDevice,
    /// `teams [distribute | loop] num_teams(count:family:size, ...)`: a compute-unit region
    /// (seed 004), parsed by [`crate::cu`].
    Cu,
}

impl Kind {
    /// The `__SPREAD_KIND_*` constant of spread.h.
    pub fn abi_name(self) -> &'static str {
        match self {
            Kind::Target => "__SPREAD_KIND_TARGET",
            Kind::Data => "__SPREAD_KIND_DATA",
            Kind::EnterData => "__SPREAD_KIND_ENTER_DATA",
            Kind::ExitData => "__SPREAD_KIND_EXIT_DATA",
            Kind::Update => "__SPREAD_KIND_UPDATE",
            Kind::UpdatePeer => "__SPREAD_KIND_UPDATE_PEER",
            Kind::WaitDevice => "__SPREAD_KIND_WAIT_DEVICE",
            Kind::Cu => "__SPREAD_KIND_CU",
        }
    }

    /// The construct's name in messages (`target spread` for every loop form).
    pub fn construct_name(self) -> String {
        construct_name(self, "")
    }
}

/// The loop constructs `target spread` can be combined with.
pub const COMBINED: &[&str] = &[
    "",
    "teams distribute parallel for",
    "teams distribute parallel for simd",
    "teams distribute",
    "teams distribute simd",
    "parallel for",
    "parallel for simd",
    "simd",
    "teams loop",
    "parallel loop",
];

pub(crate) const LEAF_WORDS: &[&str] = &["teams", "distribute", "parallel", "for", "simd", "loop"];

/// The clauses leaf construct `word` (`target`, `teams`, `distribute`, `parallel`, `for`, `simd`, `loop`)
/// takes; shared with `target device(any)`'s construct-sets (crate::any).
pub(crate) fn word_clauses(word: &str) -> &'static [&'static str] {
    match word {
        "teams" => TEAMS_CLAUSES,
        "distribute" => DISTRIBUTE_CLAUSES,
        "parallel" => PARALLEL_CLAUSES,
        "for" => FOR_CLAUSES,
        "simd" => SIMD_CLAUSES,
        "loop" => LOOP_CLAUSES,
        "target" => TARGET_CLAUSES,
        _ => &[],
    }
}

const TARGET_CLAUSES: &[&str] = &[
    "if",
    "map",
    "private",
    "firstprivate",
    "is_device_ptr",
    "has_device_addr",
    "defaultmap",
    "nowait",
    "depend",
    "allocate",
    "uses_allocators",
    "in_reduction",
    "thread_limit",
    "ompx_dyn_cgroup_mem",
    "ompx_bare",
    "ompx_attribute",
];
const TEAMS_CLAUSES: &[&str] = &[
    "num_teams",
    "thread_limit",
    "default",
    "private",
    "firstprivate",
    "shared",
    "reduction",
    "allocate",
    "if",
    "ompx_attribute",
];
const DISTRIBUTE_CLAUSES: &[&str] = &[
    "private",
    "firstprivate",
    "lastprivate",
    "collapse",
    "dist_schedule",
    "allocate",
    "order",
];
const PARALLEL_CLAUSES: &[&str] = &[
    "if",
    "num_threads",
    "default",
    "private",
    "firstprivate",
    "shared",
    "copyin",
    "reduction",
    "proc_bind",
    "allocate",
];
const FOR_CLAUSES: &[&str] = &[
    "private",
    "firstprivate",
    "lastprivate",
    "linear",
    "reduction",
    "schedule",
    "collapse",
    "ordered",
    "allocate",
    "order",
];
const SIMD_CLAUSES: &[&str] = &[
    "if",
    "safelen",
    "simdlen",
    "linear",
    "aligned",
    "nontemporal",
    "private",
    "lastprivate",
    "reduction",
    "collapse",
    "order",
];
const LOOP_CLAUSES: &[&str] = &[
    "bind",
    "collapse",
    "order",
    "private",
    "lastprivate",
    "reduction",
];

/// Every clause name OpenMP 5.2 (and clang's `ompx_` extensions) knows, to tell an unknown
/// clause from one that is not allowed on a construct.
pub(crate) const ALL_CLAUSES: &[&str] = &[
    "absent",
    "acq_rel",
    "acquire",
    "adjust_args",
    "affinity",
    "align",
    "aligned",
    "allocate",
    "allocator",
    "append_args",
    "at",
    "atomic_default_mem_order",
    "bind",
    "capture",
    "collapse",
    "compare",
    "contains",
    "copyin",
    "copyprivate",
    "default",
    "defaultmap",
    "depend",
    "destroy",
    "detach",
    "device",
    "device_type",
    "dist_schedule",
    "doacross",
    "dynamic_allocators",
    "enter",
    "exclusive",
    "fail",
    "filter",
    "final",
    "firstprivate",
    "from",
    "full",
    "grainsize",
    "has_device_addr",
    "hint",
    "holds",
    "if",
    "in_reduction",
    "inbranch",
    "inclusive",
    "indirect",
    "init",
    "is_device_ptr",
    "lastprivate",
    "linear",
    "link",
    "map",
    "match",
    "mergeable",
    "message",
    "nocontext",
    "nogroup",
    "nontemporal",
    "notinbranch",
    "novariants",
    "nowait",
    "num_tasks",
    "num_teams",
    "num_threads",
    "order",
    "ordered",
    "partial",
    "priority",
    "private",
    "proc_bind",
    "read",
    "reduction",
    "relaxed",
    "release",
    "reverse_offload",
    "safelen",
    "schedule",
    "seq_cst",
    "severity",
    "shared",
    "simd",
    "simdlen",
    "sizes",
    "task_reduction",
    "thread_limit",
    "threads",
    "to",
    "unified_address",
    "unified_shared_memory",
    "uniform",
    "untied",
    "update",
    "use",
    "use_device_addr",
    "use_device_ptr",
    "uses_allocators",
    "weak",
    "when",
    "write",
    "ompx_attribute",
    "ompx_bare",
    "ompx_dyn_cgroup_mem",
    "devices",
    "spread_schedule",
    "range",
    "chunk_size",
    "to_device",
    "from_device",
];

/// The clauses that exist only on Spread's constructs (`target spread`, the spread data
/// constructs, `target update peer`).
pub const SPREAD_CLAUSES: &[&str] = &[
    "devices",
    "spread_schedule",
    "range",
    "chunk_size",
    "to_device",
    "from_device",
];

/// The tail of an "unknown clause" message: `"; did you mean 'x'?"` for the clause among
/// `allowed` (the construct's), else among Spread's clauses, that `name` most likely
/// misspells, or `""`.
pub(crate) fn clause_suggestion(name: &str, allowed: &[&str]) -> String {
    let s = suggest::did_you_mean(name, allowed.iter().copied());
    if s.is_empty() {
        suggest::did_you_mean(name, SPREAD_CLAUSES.iter().copied())
    } else {
        s
    }
}

/// One clause as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clause {
    /// Its name.
    pub name: String,
    /// Token index of the name.
    pub name_tok: usize,
    /// Token indices of its parentheses, if it has arguments.
    pub parens: Option<(usize, usize)>,
}

/// A parse or check error, located at a token of the directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PError {
    /// Token index (in the token slice the directive was parsed from).
    pub tok: usize,
    /// The message, without "error: ".
    pub msg: String,
}

/// A parse error at token `tok`.
pub(crate) fn err<T>(tok: usize, msg: impl Into<String>) -> Result<T, PError> {
    Err(PError {
        tok,
        msg: msg.into(),
    })
}

/// A `map` clause of `target data spread`, split into its enter and exit halves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataMap {
    /// The clause for `target enter data`.
    pub enter: String,
    /// The clause for `target exit data`.
    pub exit: String,
}

/// A parsed and checked spread directive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpreadDirective {
    /// The construct.
    pub kind: Kind,
    /// For `target spread`: the construct it is combined with (`teams distribute ...`), or "".
    pub combined: String,
    /// Token index of `target`.
    pub target_tok: usize,
    /// All clauses in order.
    pub clauses: Vec<Clause>,
    /// `devices(...)` items, if the clause is there.
    pub devices: Option<Vec<String>>,
    /// The chunk size (`spread_schedule(kind, c)` / `chunk_size(c)`).
    pub chunk: Option<String>,
    /// The `__SPREAD_SCHED_*` constant of `spread_schedule(kind)`, if the clause is there.
    pub schedule: Option<&'static str>,
    /// `reduction` clauses of `target spread`, in order.
    pub reductions: Vec<Reduction>,
    /// `range(start:length)`.
    pub range: Option<(String, String)>,
    /// `nowait` is present.
    pub nowait: bool,
    /// Clauses kept verbatim on the inner construct, in order.
    pub kept: Vec<String>,
    /// For `target data spread`: the map clauses, split.
    pub data_maps: Vec<DataMap>,
    /// For `target update peer`: the copies and devices.
    pub peer: Option<PeerUpdate>,
    /// For `wait device(d)`: the device expression.
    pub wait_device: Option<String>,
}

/// One `reduction(op: list)` clause of `target spread`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reduction {
    /// The operator as written (`+`, `max`, `&&`).
    pub op: String,
    /// Its `__SPREAD_RED_*` constant.
    pub abi: &'static str,
    /// The variables, in order, each with the token index of its name.
    pub vars: Vec<(String, usize)>,
    /// Where the clause stands among [`SpreadDirective::kept`]: the inner directive gets its
    /// rewritten form just before `kept[kept_pos]` (or at the end).
    pub kept_pos: usize,
}

impl SpreadDirective {
    /// Every reduction variable of the construct, in order (its number `j` in the lowering).
    pub fn reduction_vars(&self) -> impl Iterator<Item = (&Reduction, &str, usize)> {
        self.reductions
            .iter()
            .flat_map(|r| r.vars.iter().map(move |(v, t)| (r, v.as_str(), *t)))
    }
}

/// The reduction operators `target spread` accepts, with their `__SPREAD_RED_*` constants.
pub const REDUCTION_OPS: &[(&str, &str)] = &[
    ("+", "__SPREAD_RED_ADD"),
    ("-", "__SPREAD_RED_SUB"),
    ("*", "__SPREAD_RED_MUL"),
    ("max", "__SPREAD_RED_MAX"),
    ("min", "__SPREAD_RED_MIN"),
    ("&", "__SPREAD_RED_BAND"),
    ("|", "__SPREAD_RED_BOR"),
    ("^", "__SPREAD_RED_BXOR"),
    ("&&", "__SPREAD_RED_LAND"),
    ("||", "__SPREAD_RED_LOR"),
];

/// The kinds of `spread_schedule` with their `__SPREAD_SCHED_*` constants.
pub const SPREAD_SCHEDULES: &[(&str, &str)] = &[
    ("static", "__SPREAD_SCHED_STATIC"),
    ("dynamic", "__SPREAD_SCHED_DYNAMIC"),
    ("adaptive", "__SPREAD_SCHED_ADAPTIVE"),
];

/// A list item of `target update peer`: what the driver passes to `__spread_update_peer`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PeerItem {
    /// A variable, an lvalue or a whole array: `x`, `s.f`, `*p`, `a[3]`, `a`.
    Whole(String),
    /// An array section `base[lower:length]` (`lower` is `0` when omitted).
    Section {
        /// The expression subscripted (`a`, `a[i]`, `s.p`).
        base: String,
        /// The lower bound.
        lower: String,
        /// The length, in elements.
        length: String,
    },
}

impl PeerItem {
    /// Address of the item's first byte.
    pub fn address(&self) -> String {
        match self {
            PeerItem::Whole(e) => format!("&({e})"),
            PeerItem::Section { base, lower, .. } => format!("&({base})[{lower}]"),
        }
    }

    /// The item's size in bytes.
    pub fn bytes(&self) -> String {
        match self {
            PeerItem::Whole(e) => format!("sizeof({e})"),
            PeerItem::Section { base, length, .. } => {
                format!("(size_t)({length}) * sizeof(({base})[0])")
            }
        }
    }
}

/// The clauses of `target update peer`, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerUpdate {
    /// The `to` items (destinations, on `to_device`).
    pub to: Vec<PeerItem>,
    /// The `from` items (sources, on `from_device`), as many as `to`.
    pub from: Vec<PeerItem>,
    /// The `to_device` expression.
    pub to_device: String,
    /// The `from_device` expression.
    pub from_device: String,
    /// `to_device` is written before `from_device` (the order they are evaluated in).
    pub to_device_first: bool,
}

impl SpreadDirective {
    /// The construct's name as the user wrote it (`target spread teams distribute`).
    pub fn name(&self) -> String {
        construct_name(self.kind, &self.combined)
    }
}

fn construct_name(kind: Kind, combined: &str) -> String {
    match kind {
        Kind::Target if combined.is_empty() => "target spread".to_string(),
        Kind::Target => format!("target spread {combined}"),
        Kind::Data => "target data spread".to_string(),
        Kind::EnterData => "target enter data spread".to_string(),
        Kind::ExitData => "target exit data spread".to_string(),
        Kind::Update => "target update spread".to_string(),
        Kind::UpdatePeer => "target update peer".to_string(),
        Kind::WaitDevice => "wait".to_string(),
        Kind::Cu if combined.is_empty() => "teams".to_string(),
        Kind::Cu => format!("teams {combined}"),
    }
}

/// The name of a clause kept as text (`depend(in: x)` -> `depend`).
pub fn clause_name(c: &str) -> &str {
    let end = c
        .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
        .unwrap_or(c.len());
    &c[..end]
}

/// Token view of one directive.
pub(crate) struct Cursor<'a> {
    pub(crate) src: &'a str,
    pub(crate) toks: &'a [Token],
    pub(crate) end: usize,
}

impl<'a> Cursor<'a> {
    /// The subscripts at the top level of the list item in tokens `lo..hi`: (`[`, `]`) pairs.
    pub fn subscripts(&self, lo: usize, hi: usize) -> Vec<(usize, usize)> {
        let mut groups = Vec::new();
        let mut depth = 0i32;
        let mut open = 0;
        for k in lo..hi {
            if self.toks[k].kind != TokKind::Punct {
                continue;
            }
            match self.text(k) {
                "[" if depth == 0 => {
                    open = k;
                    depth += 1;
                }
                "]" if depth == 1 => {
                    groups.push((open, k));
                    depth -= 1;
                }
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth -= 1,
                _ => {}
            }
        }
        groups
    }

    pub(crate) fn text(&self, i: usize) -> &'a str {
        match self.toks.get(i) {
            Some(t) if i < self.end => &self.src[t.start..t.end],
            _ => "",
        }
    }

    /// The construct words from token `from` on (identifiers in `leaves` not followed by `(`,
    /// which would make them clauses): `teams distribute parallel for`.
    pub(crate) fn leaf_words(&self, from: usize, leaves: &[&str]) -> Vec<&'a str> {
        let mut words = Vec::new();
        let mut i = from;
        while i < self.end
            && self.toks[i].kind == TokKind::Ident
            && leaves.contains(&self.text(i))
            && self.text(i + 1) != "("
        {
            words.push(self.text(i));
            i += 1;
        }
        words
    }

    pub(crate) fn is_ident(&self, i: usize, w: &str) -> bool {
        i < self.end && self.toks[i].kind == TokKind::Ident && self.text(i) == w
    }

    /// Source text of tokens `lo..hi` (empty if none), on one line.
    pub(crate) fn span(&self, lo: usize, hi: usize) -> String {
        if lo >= hi {
            return String::new();
        }
        one_line(&self.src[self.toks[lo].start..self.toks[hi - 1].end])
    }

    /// Indices of the punctuators in `lo..hi` outside any bracket (brackets themselves excluded).
    pub(crate) fn top_level_puncts(&self, lo: usize, hi: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut depth = 0i32;
        for i in lo..hi {
            if self.toks[i].kind != TokKind::Punct {
                continue;
            }
            match self.text(i) {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth -= 1,
                _ if depth == 0 => out.push(i),
                _ => {}
            }
        }
        out
    }

    /// Splits tokens `lo..hi` at top-level `sep` punctuators.
    pub(crate) fn split(&self, lo: usize, hi: usize, sep: &str) -> Vec<(usize, usize)> {
        let mut parts = Vec::new();
        let mut start = lo;
        for i in self.top_level_puncts(lo, hi) {
            if self.text(i) == sep {
                parts.push((start, i));
                start = i + 1;
            }
        }
        parts.push((start, hi));
        parts
    }
}

/// The value of an integer literal (`42`, `0x2A`, `052`, `0b101`, with `u`/`l` suffixes and `'`
/// separators); `None` for anything else, or a value beyond `u128`.
pub fn int_literal(s: &str) -> Option<u128> {
    let t = s.trim().replace('\'', "");
    let t = t.trim_end_matches(['u', 'U', 'l', 'L', 'z', 'Z']);
    let (digits, radix) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        (b, 2)
    } else if t.len() > 1 && t.starts_with('0') {
        (&t[1..], 8)
    } else {
        (t, 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u128::from_str_radix(digits, radix).ok()
}

/// Joins continued lines and newlines into one line of text.
pub fn one_line(s: &str) -> String {
    let s = s.replace("\\\r\n", " ").replace("\\\n", " ");
    s.replace(['\n', '\r'], " ")
}

/// What the `num_teams` clause of a directive says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumTeams {
    /// No `num_teams` clause.
    Absent,
    /// `num_teams(n)`: clang's.
    Plain,
    /// `num_teams(lower:upper)` (OpenMP 5.1): the tokens to delete, `lower` and the `:`, so that
    /// clang 19 gets `num_teams(upper)`, a conforming number of teams.
    Range {
        /// First token deleted.
        first: usize,
        /// The `:` (deleted too).
        colon: usize,
    },
    /// Compute-unit descriptors (or something that tries to be: errors come from
    /// [`crate::cu::parse`]).
    Cu,
}

/// A descriptor's parts: split at top-level `:` and `::` (not the `:` of a `?:`).
pub(crate) fn descriptor_parts(c: &Cursor, lo: usize, hi: usize) -> Vec<(usize, usize)> {
    let mut seps: Vec<usize> = section_colons(c, lo, hi);
    seps.extend(
        c.top_level_puncts(lo, hi)
            .into_iter()
            .filter(|&k| c.text(k) == "::"),
    );
    seps.sort_unstable();
    let mut parts = Vec::new();
    let mut start = lo;
    for k in seps {
        parts.push((start, k));
        start = k + 1;
    }
    parts.push((start, hi));
    parts
}

const FAMILIES: &[&str] = &["CPU", "GPU", "FPGA"];

/// The parentheses of the first top-level `num_teams(...)` among tokens `from..end`.
fn num_teams_parens(c: &Cursor, from: usize, end: usize) -> Option<(usize, usize, usize)> {
    let mut i = from;
    while i < end {
        if c.is_ident(i, "num_teams") && c.text(i + 1) == "(" {
            let close = matching_close(c.src, c.toks, i + 1, end)?;
            return Some((i, i + 1, close));
        }
        if c.text(i) == "(" {
            i = matching_close(c.src, c.toks, i, end)? + 1;
        } else {
            i += 1;
        }
    }
    None
}

/// Classifies the `num_teams` clause among tokens `from..end` of a directive.
pub fn num_teams_form(src: &str, toks: &[Token], from: usize, end: usize) -> NumTeams {
    let c = Cursor { src, toks, end };
    let Some((_, open, close)) = num_teams_parens(&c, from, end) else {
        return NumTeams::Absent;
    };
    if open + 1 == close {
        // `num_teams()`: reported by the CU parser, which knows what is expected
        return NumTeams::Cu;
    }
    let items = c.split(open + 1, close, ",");
    let mut range = None;
    for &(lo, hi) in &items {
        let parts = descriptor_parts(&c, lo, hi);
        let names_family = parts
            .iter()
            .any(|&(a, b)| b == a + 1 && FAMILIES.contains(&c.text(a)));
        if parts.len() >= 3 || (parts.len() == 2 && names_family) {
            return NumTeams::Cu;
        }
        if parts.len() == 2 {
            range = Some((lo, parts[0].1));
        }
    }
    match range {
        // several items with colons but no family: let the CU parser explain
        Some(_) if items.len() > 1 => NumTeams::Cu,
        Some((first, colon)) if c.text(colon) == ":" && first < colon => {
            NumTeams::Range { first, colon }
        }
        Some(_) => NumTeams::Cu,
        None => NumTeams::Plain,
    }
}

/// Recognizes a directive the driver lowers: `toks[first..end]` are the tokens of a `#pragma`
/// line. Returns the construct kind and the index of the token after its name (`spread`,
/// `peer`, `wait`), or `None` when the directive is not one of the driver's.
pub fn classify(src: &str, toks: &[Token], first: usize, end: usize) -> Option<(Kind, usize)> {
    let c = Cursor { src, toks, end };
    if !(c.text(first) == "#" && c.is_ident(first + 1, "pragma") && c.is_ident(first + 2, "omp")) {
        return None;
    }
    // not an OpenMP directive: clang would reject it, so every form is the driver's
    if c.is_ident(first + 3, "wait") {
        return Some((Kind::WaitDevice, first + 4));
    }
    // a host `teams` whose num_teams names compute units (seed 004); every other `teams` is
    // clang's
    if c.is_ident(first + 3, "teams") {
        return match num_teams_form(src, toks, first + 4, end) {
            NumTeams::Cu => Some((Kind::Cu, first + 4)),
            _ => None,
        };
    }
    if !c.is_ident(first + 3, "target") {
        return None;
    }
    let i = first + 4;
    let seqs: [(&[&str], Kind); 6] = [
        (&["spread"], Kind::Target),
        (&["data", "spread"], Kind::Data),
        (&["enter", "data", "spread"], Kind::EnterData),
        (&["exit", "data", "spread"], Kind::ExitData),
        (&["update", "spread"], Kind::Update),
        (&["update", "peer"], Kind::UpdatePeer),
    ];
    for (words, kind) in seqs {
        if words.iter().enumerate().all(|(k, w)| c.is_ident(i + k, w)) {
            return Some((kind, i + words.len()));
        }
    }
    None
}

fn allowed_clauses(kind: Kind, combined: &str) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = Vec::new();
    match kind {
        Kind::Target => {
            v.extend_from_slice(TARGET_CLAUSES);
            for w in combined.split_whitespace() {
                v.extend_from_slice(word_clauses(w));
            }
            v.extend_from_slice(&["devices", "spread_schedule"]);
        }
        Kind::Data => v.extend_from_slice(&["devices", "range", "chunk_size", "map", "if"]),
        Kind::EnterData | Kind::ExitData => v.extend_from_slice(&[
            "devices",
            "range",
            "chunk_size",
            "map",
            "if",
            "nowait",
            "depend",
        ]),
        Kind::Update => v.extend_from_slice(&[
            "devices",
            "range",
            "chunk_size",
            "to",
            "from",
            "if",
            "nowait",
            "depend",
        ]),
        Kind::UpdatePeer => v.extend_from_slice(&["to", "from", "to_device", "from_device"]),
        Kind::WaitDevice => v.push("device"),
        Kind::Cu => {}
    }
    v
}

/// The message for a clause that is not among the clauses `allowed` on `kind`.
fn disallowed_message(kind: Kind, name: &str, cname: &str, allowed: &[&str]) -> String {
    match (kind, name) {
        (Kind::UpdatePeer, "device") => format!(
            "the 'device' clause cannot be used on '{cname}'; use 'to_device' and 'from_device'"
        ),
        (Kind::UpdatePeer, "devices" | "range" | "chunk_size" | "spread_schedule" | "spread") => {
            format!("'{name}' cannot be used on '{cname}': a peer copy is not spread; it copies between the devices named by 'to_device' and 'from_device'")
        }
        (Kind::Update, "peer") => format!(
            "'{cname}' cannot be combined with 'peer'; write 'target update peer' for a copy between two devices"
        ),
        (Kind::WaitDevice, "devices") => format!(
            "'{name}' cannot be used on '{cname}'; use 'device(d)', one 'wait' per device"
        ),
        (_, "device") => format!(
            "the 'device' clause cannot be used on '{cname}'; use 'devices' to list the devices"
        ),
        (Kind::Target, "range") => format!(
            "'range' cannot be used on '{cname}': the iteration range is the loop's"
        ),
        (Kind::Target, "chunk_size") => format!(
            "'chunk_size' cannot be used on '{cname}'; use 'spread_schedule(static, chunk)'"
        ),
        (_, "spread_schedule") => format!(
            "'spread_schedule' cannot be used on '{cname}'; use 'chunk_size(chunk)' (data is always spread round-robin)"
        ),
        (Kind::Data, "nowait") | (Kind::Data, "depend") => format!(
            "'{name}' cannot be used on '{cname}' (use 'target enter data spread' and 'target exit data spread' for asynchronous transfers)"
        ),
        (Kind::Data, "use_device_ptr") | (Kind::Data, "use_device_addr") => format!(
            "'{name}' cannot be used on '{cname}': its data lives on several devices"
        ),
        _ if ALL_CLAUSES.contains(&name) => {
            format!("clause '{name}' is not allowed on '{cname}'")
        }
        _ => format!(
            "unknown clause '{name}' on '{cname}'{}",
            clause_suggestion(name, allowed)
        ),
    }
}

/// Parses and checks the spread directive in `toks[first..end]` (a `#pragma` line, as
/// [`classify`] recognized it).
pub fn parse(
    src: &str,
    toks: &[Token],
    first: usize,
    end: usize,
) -> Result<SpreadDirective, PError> {
    let (kind, i) = match classify(src, toks, first, end) {
        Some((Kind::Cu, _)) | None => return err(first, "not a spread directive"),
        Some(k) => k,
    };
    let c = Cursor { src, toks, end };
    let target_tok = first + 3;
    let (combined, i) = combined_words(&c, kind, i)?;
    let cname = construct_name(kind, &combined);
    let clauses = clause_list(&c, i, &cname)?;

    let allowed = allowed_clauses(kind, &combined);
    let mut d = SpreadDirective {
        kind,
        combined,
        target_tok,
        clauses: clauses.clone(),
        devices: None,
        chunk: None,
        schedule: None,
        reductions: Vec::new(),
        range: None,
        nowait: false,
        kept: Vec::new(),
        data_maps: Vec::new(),
        peer: None,
        wait_device: None,
    };
    if matches!(kind, Kind::UpdatePeer | Kind::WaitDevice) {
        return parse_extension(&c, d, &cname);
    }
    let red_vars = if kind == Kind::Target {
        reduction_var_names(&c, &clauses, &allowed, &cname)?
    } else {
        Vec::new()
    };
    let mut seen: Vec<&str> = Vec::new();
    for cl in &clauses {
        let (open, close) = check_clause(&c, kind, cl, &allowed, &cname, &mut seen)?;
        take_clause(&c, &mut d, cl, open, close, &red_vars, &cname)?;
    }
    if kind == Kind::Target && d.nowait && !d.reductions.is_empty() {
        check_task_depends(&c, &clauses, &cname)?;
    }
    check_required(&d, &clauses, &cname)?;
    Ok(d)
}

/// The construct words after `target spread` (at token `i`) and the token after them: only
/// the combinations in [`COMBINED`] are lowered, so any other is refused here, at its first
/// word, before its clauses are looked at.
fn combined_words(c: &Cursor, kind: Kind, i: usize) -> Result<(String, usize), PError> {
    let words = if kind == Kind::Target {
        c.leaf_words(i, LEAF_WORDS)
    } else {
        Vec::new()
    };
    let combined = words.join(" ");
    if !COMBINED.contains(&combined.as_str()) {
        return err(
            i,
            format!(
                "'target spread {combined}' is not supported; 'target spread' combines with 'teams distribute [parallel for] [simd]', 'parallel for [simd]', 'simd', 'teams loop' and 'parallel loop'"
            ),
        );
    }
    Ok((combined, i + words.len()))
}

/// The clauses from token `i` to the end of the line, as written (names and parentheses
/// only): splitting them first lets the checks below look at the whole list, e.g. for the
/// reduction variables a `map` before its `reduction` names.
fn clause_list(c: &Cursor, mut i: usize, cname: &str) -> Result<Vec<Clause>, PError> {
    let mut clauses = Vec::new();
    while i < c.end {
        if c.text(i) == "," {
            i += 1;
            continue;
        }
        if c.toks[i].kind != TokKind::Ident {
            return err(i, format!("expected a clause on '{cname}'"));
        }
        let name = c.text(i).to_string();
        let parens = if c.text(i + 1) == "(" {
            match matching_close(c.src, c.toks, i + 1, c.end) {
                Some(close) => Some((i + 1, close)),
                None => return err(i + 1, format!("expected ')' to end the '{name}' clause")),
            }
        } else {
            None
        };
        clauses.push(Clause {
            name,
            name_tok: i,
            parens,
        });
        i = parens.map(|(_, close)| close + 1).unwrap_or(i + 1);
    }
    Ok(clauses)
}

/// The variables of every `reduction` clause of `target spread`, in order, each checked to
/// be in one list only. Collected before the clauses are taken one by one because a `map`
/// clause may name a reduction variable before its `reduction` clause.
fn reduction_var_names(
    c: &Cursor,
    clauses: &[Clause],
    allowed: &[&str],
    cname: &str,
) -> Result<Vec<String>, PError> {
    let mut red_vars: Vec<String> = Vec::new();
    for cl in clauses {
        if cl.name != "reduction" {
            continue;
        }
        if !allowed.contains(&"reduction") {
            return err(
                cl.name_tok,
                format!("'reduction' cannot be used on '{cname}' alone: combine it with 'teams distribute', 'parallel for', 'simd' or 'loop' (plain 'target' has no reduction clause)"),
            );
        }
        let Some((open, close)) = cl.parens else {
            return err(cl.name_tok + 1, "expected '(' after 'reduction'");
        };
        let r = parse_reduction(c, open, close, cname)?;
        for (v, t) in &r.vars {
            if red_vars.contains(v) {
                return err(
                    *t,
                    format!("'{v}' appears in more than one reduction list of '{cname}'"),
                );
            }
            red_vars.push(v.clone());
        }
    }
    Ok(red_vars)
}

/// Checks what every clause must satisfy whatever it is (allowed on the construct, a spread
/// clause at most once, arguments where they are required, no per-chunk names in a spread
/// clause, which is evaluated before any chunk exists); its parentheses, `(0, 0)` without.
fn check_clause<'n>(
    c: &Cursor,
    kind: Kind,
    cl: &'n Clause,
    allowed: &[&str],
    cname: &str,
    seen: &mut Vec<&'n str>,
) -> Result<(usize, usize), PError> {
    let name = cl.name.as_str();
    if !allowed.contains(&name) {
        return err(cl.name_tok, disallowed_message(kind, name, cname, allowed));
    }
    let spread_clause = matches!(name, "devices" | "spread_schedule" | "range" | "chunk_size");
    if spread_clause {
        if seen.contains(&name) {
            return err(
                cl.name_tok,
                format!("the '{name}' clause can appear only once on '{cname}'"),
            );
        }
        seen.push(name);
    }
    let needs_args = spread_clause || matches!(name, "map" | "to" | "from" | "depend");
    let (open, close) = match cl.parens {
        Some(p) => p,
        None if needs_args => return err(cl.name_tok + 1, format!("expected '(' after '{name}'")),
        None => (0, 0),
    };
    if spread_clause {
        if let Some((k, w)) = chunk_name_in(c, open, close) {
            return err(
                k,
                format!("'{w}' cannot be used in the '{name}' clause; it only has a value inside each chunk"),
            );
        }
    }
    Ok((open, close))
}

/// The first `omp_spread_start` / `omp_spread_size` between the parentheses `open` and
/// `close`, with its token: those names have a value only inside a chunk.
fn chunk_name_in<'a>(c: &Cursor<'a>, open: usize, close: usize) -> Option<(usize, &'a str)> {
    for (k, t) in c.toks.iter().enumerate().take(close).skip(open + 1) {
        let w = c.text(k);
        if t.kind == TokKind::Ident && (w == "omp_spread_start" || w == "omp_spread_size") {
            return Some((k, w));
        }
    }
    None
}

/// Records a checked clause in `d`: the spread clauses and reductions are taken apart for
/// the lowering, the rest is kept verbatim for the inner construct (a `map` without the
/// reduction variables, which are mapped through their partials; a `map` of `target data
/// spread` split into its enter and exit halves).
fn take_clause(
    c: &Cursor,
    d: &mut SpreadDirective,
    cl: &Clause,
    open: usize,
    close: usize,
    red_vars: &[String],
    cname: &str,
) -> Result<(), PError> {
    let kind = d.kind;
    match cl.name.as_str() {
        "devices" => d.devices = Some(devices_items(c, open, close, cname)?),
        "spread_schedule" => spread_schedule(c, d, open, close)?,
        "chunk_size" => {
            if open + 1 == close {
                return err(close, "expected a chunk size in 'chunk_size'");
            }
            d.chunk = Some(c.span(open + 1, close));
        }
        "range" => {
            d.range = Some(split_range(c, open, close)?);
        }
        "reduction" if kind == Kind::Target => {
            // checked above; rewritten onto the per-chunk partials by the lowering
            let mut r = parse_reduction(c, open, close, cname)?;
            r.kept_pos = d.kept.len();
            d.reductions.push(r);
        }
        "map" if kind == Kind::Target && !red_vars.is_empty() => {
            // the reduction variable is mapped (tofrom) through its partial instead
            if let Some(m) = map_without(c, open, close, red_vars) {
                d.kept.push(m);
            }
        }
        name => {
            if name == "nowait" {
                d.nowait = true;
            }
            if kind == Kind::Data && name == "map" {
                d.data_maps.push(split_data_map(c, open, close)?);
            } else {
                let end_tok = if cl.parens.is_some() {
                    close + 1
                } else {
                    cl.name_tok + 1
                };
                d.kept.push(c.span(cl.name_tok, end_tok));
            }
        }
    }
    Ok(())
}

/// The items of `devices(...)` (between `open` and `close`), each non-empty; a literal must
/// fit the `int` the runtime takes a device number as.
fn devices_items(
    c: &Cursor,
    open: usize,
    close: usize,
    cname: &str,
) -> Result<Vec<String>, PError> {
    if open + 1 == close {
        return err(
            close,
            "the 'devices' clause needs at least one device number",
        );
    }
    let mut items = Vec::new();
    for (lo, hi) in c.split(open + 1, close, ",") {
        if lo == hi {
            return err(hi, "expected a device number in 'devices'");
        }
        let item = c.span(lo, hi);
        if let Some(v) = int_literal(&item) {
            if v > i32::MAX as u128 {
                return err(
                    lo,
                    format!("device number {item} in the 'devices' clause of '{cname}' does not fit an int"),
                );
            }
        }
        items.push(item);
    }
    Ok(items)
}

/// `spread_schedule(kind[, chunk])` (between `open` and `close`) into `d`'s schedule constant
/// and chunk size.
fn spread_schedule(
    c: &Cursor,
    d: &mut SpreadDirective,
    open: usize,
    close: usize,
) -> Result<(), PError> {
    let parts = c.split(open + 1, close, ",");
    let (klo, khi) = parts[0];
    if klo == khi {
        return err(close, "expected a schedule kind in 'spread_schedule'");
    }
    let sched = SPREAD_SCHEDULES
        .iter()
        .find(|(k, _)| khi == klo + 1 && c.is_ident(klo, k));
    let Some(&(_, abi)) = sched else {
        return err(
            klo,
            format!(
                "spread schedule kind '{}' is not supported; use 'static', 'dynamic' or 'adaptive'",
                c.span(klo, khi)
            ),
        );
    };
    d.schedule = Some(abi);
    if parts.len() > 2 {
        return err(
            parts[2].0.saturating_sub(1),
            "'spread_schedule' takes a kind and at most one chunk size",
        );
    }
    if let Some(&(lo, hi)) = parts.get(1) {
        if lo == hi {
            return err(hi, "expected a chunk size in 'spread_schedule'");
        }
        d.chunk = Some(c.span(lo, hi));
    }
    Ok(())
}

/// `nowait` with reductions runs the construct in one task, which takes the `depend`
/// clauses: they cannot name a chunk.
fn check_task_depends(c: &Cursor, clauses: &[Clause], cname: &str) -> Result<(), PError> {
    for cl in clauses.iter().filter(|cl| cl.name == "depend") {
        let Some((open, close)) = cl.parens else {
            continue;
        };
        if let Some((k, w)) = chunk_name_in(c, open, close) {
            return err(
                k,
                format!("per-chunk depend clauses cannot be combined with reduction and nowait on '{cname}': this 'depend' uses '{w}', which only has a value inside each chunk"),
            );
        }
    }
    Ok(())
}

/// The clauses a construct cannot do without (the range of a data construct, what it maps
/// or updates), reported at `target` once every clause written is known to be valid.
fn check_required(d: &SpreadDirective, clauses: &[Clause], cname: &str) -> Result<(), PError> {
    let kind = d.kind;
    let target_tok = d.target_tok;
    let has = |n: &str| clauses.iter().any(|cl| cl.name == n);
    if kind != Kind::Target && d.range.is_none() {
        return err(
            target_tok,
            format!("'{cname}' requires a 'range(start:length)' clause"),
        );
    }
    match kind {
        Kind::Data | Kind::EnterData | Kind::ExitData if !has("map") => err(
            target_tok,
            format!("'{cname}' requires at least one 'map' clause"),
        ),
        Kind::Update if !has("to") && !has("from") => err(
            target_tok,
            format!("'{cname}' requires a 'to' or 'from' clause"),
        ),
        _ => Ok(()),
    }
}

/// `target update peer` and `wait device`: every clause exactly once, with arguments.
fn parse_extension(
    c: &Cursor,
    mut d: SpreadDirective,
    cname: &str,
) -> Result<SpreadDirective, PError> {
    let kind = d.kind;
    let allowed = allowed_clauses(kind, "");
    let mut lists: Vec<(&str, usize, Vec<PeerItem>)> = Vec::new(); // (name, name token, items)
    let mut devices: Vec<(&str, String)> = Vec::new();
    for (k, cl) in d.clauses.iter().enumerate() {
        let name = cl.name.as_str();
        if !allowed.contains(&name) {
            return err(cl.name_tok, disallowed_message(kind, name, cname, &allowed));
        }
        if d.clauses[..k].iter().any(|p| p.name == name) {
            return err(
                cl.name_tok,
                format!("the '{name}' clause can appear only once on '{cname}'"),
            );
        }
        let Some((open, close)) = cl.parens else {
            return err(cl.name_tok + 1, format!("expected '(' after '{name}'"));
        };
        if name == "to" || name == "from" {
            lists.push((name, cl.name_tok, peer_list(c, name, open, close)?));
            continue;
        }
        // to_device, from_device, device: one expression
        if open + 1 == close {
            return err(close, format!("expected a device number in '{name}'"));
        }
        let parts = c.split(open + 1, close, ",");
        if parts.len() > 1 {
            let msg = if kind == Kind::WaitDevice {
                format!("'{name}' takes one device number; write one 'wait' per device")
            } else {
                format!("'{name}' takes one device number")
            };
            return err(parts[1].0 - 1, msg);
        }
        devices.push((name, c.span(open + 1, close)));
    }
    let required: &[&str] = match kind {
        Kind::UpdatePeer => &["to", "to_device", "from", "from_device"],
        _ => &["device"],
    };
    for r in required {
        if !d.clauses.iter().any(|cl| cl.name == *r) {
            return err(d.target_tok, format!("'{cname}' requires a '{r}' clause"));
        }
    }
    let device = |n: &str| {
        devices
            .iter()
            .find(|(name, _)| *name == n)
            .map(|(_, e)| e.clone())
            .unwrap_or_default()
    };
    if kind == Kind::WaitDevice {
        d.wait_device = Some(device("device"));
        return Ok(d);
    }
    let (to, from) = if lists[0].0 == "to" {
        (&lists[0], &lists[1])
    } else {
        (&lists[1], &lists[0])
    };
    if to.2.len() != from.2.len() {
        let plural = |n: usize| if n == 1 { "item" } else { "items" };
        return err(
            lists[1].1,
            format!(
                "'to' has {} list {} but 'from' has {}; on '{cname}' the i-th 'to' item receives the i-th 'from' item",
                to.2.len(),
                plural(to.2.len()),
                from.2.len()
            ),
        );
    }
    d.peer = Some(PeerUpdate {
        to: to.2.clone(),
        from: from.2.clone(),
        to_device: device("to_device"),
        from_device: device("from_device"),
        to_device_first: devices[0].0 == "to_device",
    });
    Ok(d)
}

/// The list of a `to`/`from` clause of `target update peer` (between `open` and `close`).
fn peer_list(c: &Cursor, name: &str, open: usize, close: usize) -> Result<Vec<PeerItem>, PError> {
    if open + 1 == close {
        return err(close, format!("expected a list item in '{name}'"));
    }
    let mut items = Vec::new();
    for (lo, hi) in c.split(open + 1, close, ",") {
        if lo == hi {
            return err(hi, format!("expected a list item in '{name}'"));
        }
        items.push(peer_item(c, name, lo, hi)?);
    }
    Ok(items)
}

/// The top-level `:` of tokens `lo..hi` that are not part of a `?:`, in order.
pub(crate) fn section_colons(c: &Cursor, lo: usize, hi: usize) -> Vec<usize> {
    let mut pending_q = 0i32;
    let mut out = Vec::new();
    for k in c.top_level_puncts(lo, hi) {
        match c.text(k) {
            "?" => pending_q += 1,
            ":" if pending_q > 0 => pending_q -= 1,
            ":" => out.push(k),
            _ => {}
        }
    }
    out
}

/// One list item of `target update peer`: a variable/lvalue, or `base[lower:length]`.
fn peer_item(c: &Cursor, name: &str, lo: usize, hi: usize) -> Result<PeerItem, PError> {
    if let Some(&k) = section_colons(c, lo, hi).first() {
        return err(
            k,
            format!("expected a variable or an array section in '{name}' (modifiers are not supported on 'target update peer')"),
        );
    }
    let groups = c.subscripts(lo, hi);
    let last = groups.len().saturating_sub(1);
    for (g, &(open, close)) in groups.iter().enumerate() {
        let colons = section_colons(c, open + 1, close);
        let Some(&colon) = colons.first() else {
            continue;
        };
        if g != last {
            return err(
                colon,
                "only the last subscript of a list item of 'target update peer' can be an array section (the data copied must be contiguous)",
            );
        }
        if close + 1 != hi {
            return err(
                close + 1,
                "an array section must end the list item on 'target update peer'",
            );
        }
        if let Some(&stride) = colons.get(1) {
            return err(
                stride,
                "strided array sections are not supported on 'target update peer' (the data copied must be contiguous)",
            );
        }
        if open == lo {
            return err(
                open,
                format!("expected a variable or an array section in '{name}'"),
            );
        }
        if colon + 1 == close {
            return err(
                close,
                "the length of an array section on 'target update peer' must be given",
            );
        }
        let lower = if colon == open + 1 {
            "0".to_string()
        } else {
            c.span(open + 1, colon)
        };
        return Ok(PeerItem::Section {
            base: c.span(lo, open),
            lower,
            length: c.span(colon + 1, close),
        });
    }
    Ok(PeerItem::Whole(c.span(lo, hi)))
}

/// `reduction([default,] op: list)` on `target spread`: an operator of [`REDUCTION_OPS`] and
/// plain variable names (the lowering reduces each into a per-device partial of the runtime's).
fn parse_reduction(
    c: &Cursor,
    open: usize,
    close: usize,
    cname: &str,
) -> Result<Reduction, PError> {
    let Some(&colon) = section_colons(c, open + 1, close).first() else {
        return err(
            open + 1,
            "expected 'operator: list' in 'reduction' (e.g. 'reduction(+: sum)')",
        );
    };
    // an optional modifier before the operator: only `default` means the plain reduction
    let mut lo = open + 1;
    let commas: Vec<usize> = c
        .top_level_puncts(open + 1, colon)
        .into_iter()
        .filter(|&k| c.text(k) == ",")
        .collect();
    if let Some(&comma) = commas.last() {
        let modifier = c.span(open + 1, comma);
        if modifier != "default" {
            return err(
                open + 1,
                format!("the reduction modifier '{modifier}' is not supported on '{cname}'"),
            );
        }
        lo = comma + 1;
    }
    let op = c.span(lo, colon);
    let Some(&(_, abi)) = REDUCTION_OPS.iter().find(|(o, _)| *o == op) else {
        let what = if lo == colon {
            "expected a reduction operator".to_string()
        } else if lo + 1 == colon && c.toks[lo].kind == TokKind::Ident {
            format!("user-defined reduction '{op}' is not supported on '{cname}'")
        } else {
            format!("reduction operator '{op}' is not supported on '{cname}'")
        };
        return err(
            if lo == colon { colon } else { lo },
            format!("{what}; use one of + - * max min & | ^ && ||"),
        );
    };
    if colon + 1 == close {
        return err(close, "expected a variable in 'reduction'");
    }
    let mut vars = Vec::new();
    for (a, b) in c.split(colon + 1, close, ",") {
        if a == b {
            return err(b, "expected a variable in 'reduction'");
        }
        if b != a + 1 || c.toks[a].kind != TokKind::Ident {
            return err(
                a,
                format!("only variables can be reduced on '{cname}', not '{}' (array sections, array elements and members are not supported)", c.span(a, b)),
            );
        }
        vars.push((c.text(a).to_string(), a));
    }
    Ok(Reduction {
        op,
        abi,
        vars,
        kept_pos: 0,
    })
}

/// A `map` clause of `target spread` without the list items that are reduction variables
/// (`None` when none is left).
fn map_without(c: &Cursor, open: usize, close: usize, vars: &[String]) -> Option<String> {
    let colon = c
        .top_level_puncts(open + 1, close)
        .into_iter()
        .find(|&k| c.text(k) == ":");
    let list_lo = colon.map(|k| k + 1).unwrap_or(open + 1);
    let all: Vec<String> = c
        .split(list_lo, close, ",")
        .into_iter()
        .map(|(a, b)| c.span(a, b))
        .collect();
    let items: Vec<&String> = all.iter().filter(|s| !vars.contains(s)).collect();
    if items.len() == all.len() {
        return Some(c.span(open - 1, close + 1));
    }
    if items.is_empty() {
        return None;
    }
    let list = items
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    Some(match colon {
        Some(k) => format!("map({}: {list})", c.span(open + 1, k)),
        None => format!("map({list})"),
    })
}

/// `range(start:length)`: splits at the top-level `:` that is not part of a `?:`.
fn split_range(c: &Cursor, open: usize, close: usize) -> Result<(String, String), PError> {
    let colons = section_colons(c, open + 1, close);
    if let Some(&k) = colons.get(1) {
        return err(k, "expected 'start:length' in 'range'");
    }
    let Some(&colon) = colons.first() else {
        return err(open + 1, "expected 'start:length' in 'range'");
    };
    if colon == open + 1 {
        return err(colon, "expected a start before ':' in 'range'");
    }
    if colon + 1 == close {
        return err(close, "expected a length after ':' in 'range'");
    }
    Ok((c.span(open + 1, colon), c.span(colon + 1, close)))
}

/// Splits a `map` clause of `target data spread` into its enter and exit data halves.
fn split_data_map(c: &Cursor, open: usize, close: usize) -> Result<DataMap, PError> {
    // the first top-level ':' ends the modifiers and map type
    let colon = c
        .top_level_puncts(open + 1, close)
        .into_iter()
        .find(|&k| c.text(k) == ":");
    let (prefix_lo, prefix_hi, list_lo) = match colon {
        Some(k) => (open + 1, k, k + 1),
        None => (open + 1, open + 1, open + 1),
    };
    let list = c.span(list_lo, close);
    // the map type: the last identifier of the prefix that names one
    const TYPES: &[&str] = &["to", "from", "tofrom", "alloc", "release", "delete"];
    let type_tok = (prefix_lo..prefix_hi)
        .rev()
        .find(|&k| c.toks[k].kind == TokKind::Ident && TYPES.contains(&c.text(k)));
    let (mods, map_type) = match type_tok {
        Some(k) => {
            let mods = if k > prefix_lo {
                one_line(&c.src[c.toks[prefix_lo].start..c.toks[k].start])
            } else {
                String::new()
            };
            (mods, c.text(k))
        }
        None => {
            let m = c.span(prefix_lo, prefix_hi);
            let m = m.trim().trim_end_matches(',').trim().to_string();
            (if m.is_empty() { m } else { format!("{m}, ") }, "tofrom")
        }
    };
    let (enter, exit) = match map_type {
        "to" => ("to", "release"),
        "from" => ("alloc", "from"),
        "tofrom" => ("to", "from"),
        "alloc" => ("alloc", "release"),
        other => {
            return err(
                type_tok.unwrap_or(open),
                format!("map type '{other}' is not allowed on 'target data spread'"),
            )
        }
    };
    Ok(DataMap {
        enter: format!("map({mods}{enter}: {list})"),
        exit: format!("map({mods}{exit}: {list})"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::lex;

    fn parse_str(s: &str) -> Result<SpreadDirective, (String, String)> {
        let l = lex(s, false);
        let n = l.tokens.len();
        parse(s, &l.tokens, 0, n).map_err(|e| {
            let t = l
                .tokens
                .get(e.tok)
                .map(|t| &s[t.start..t.end])
                .unwrap_or("");
            (t.to_string(), e.msg)
        })
    }

    #[test]
    fn listing4() {
        let d = parse_str("#pragma omp target spread teams distribute parallel for devices(2,0,1) spread_schedule(static, 4) num_teams(2) map(to: A[omp_spread_start-1:omp_spread_size+2]) map(from:B[omp_spread_start :omp_spread_size ])").unwrap();
        assert_eq!(d.kind, Kind::Target);
        assert_eq!(d.combined, "teams distribute parallel for");
        assert_eq!(d.devices, Some(vec!["2".into(), "0".into(), "1".into()]));
        assert_eq!(d.chunk.as_deref(), Some("4"));
        assert_eq!(
            d.kept,
            [
                "num_teams(2)",
                "map(to: A[omp_spread_start-1:omp_spread_size+2])",
                "map(from:B[omp_spread_start :omp_spread_size ])"
            ]
        );
        assert!(!d.nowait);
    }

    #[test]
    fn nested_parens_in_devices() {
        let d = parse_str("#pragma omp target spread devices(f(1,2), (a,b), x[3]) nowait").unwrap();
        assert_eq!(
            d.devices,
            Some(vec!["f(1,2)".into(), "(a,b)".into(), "x[3]".into()])
        );
        assert!(d.nowait);
        assert_eq!(d.kept, ["nowait"]);
        assert_eq!(d.chunk, None);
    }

    #[test]
    fn data_constructs() {
        let d = parse_str("#pragma omp target enter data spread devices(2,0,1) range(1:N-2) chunk_size(4) nowait depend(out: A[0]) map(to:A[omp_spread_start-1:omp_spread_size+2])").unwrap();
        assert_eq!(d.kind, Kind::EnterData);
        assert_eq!(d.range, Some(("1".into(), "N-2".into())));
        assert_eq!(d.chunk.as_deref(), Some("4"));
        assert_eq!(d.kept.len(), 3);
        let d =
            parse_str("#pragma omp target update spread range(c ? 1 : 2 : n) to(A[0:1])").unwrap();
        assert_eq!(d.range, Some(("c ? 1 : 2".into(), "n".into())));
        let d = parse_str("#pragma omp target data spread range(0:N) map(always, tofrom: A[0:N]) map(B[0:N]) map(from: C) map(alloc: D)").unwrap();
        let m: Vec<_> = d
            .data_maps
            .iter()
            .map(|m| (m.enter.as_str(), m.exit.as_str()))
            .collect();
        assert_eq!(
            m,
            [
                ("map(always, to: A[0:N])", "map(always, from: A[0:N])"),
                ("map(to: B[0:N])", "map(from: B[0:N])"),
                ("map(alloc: C)", "map(from: C)"),
                ("map(alloc: D)", "map(release: D)"),
            ]
        );
        assert!(d.kept.is_empty());
    }

    #[test]
    fn errors() {
        let cases = [
            ("#pragma omp target spread device(0)", "device", "use 'devices'"),
            ("#pragma omp target spread devices()", ")", "at least one device"),
            ("#pragma omp target spread devices(1,,2)", ",", "expected a device number"),
            ("#pragma omp target spread spread_schedule(guided, 4)", "guided", "use 'static', 'dynamic' or 'adaptive'"),
            ("#pragma omp target spread spread_schedule(dynamic, 4, 1)", ",", "at most one chunk size"),
            ("#pragma omp target spread foo(1)", "foo", "unknown clause 'foo'"),
            ("#pragma omp target spread dist_schedule(static)", "dist_schedule", "not allowed"),
            ("#pragma omp target spread teams num_teams(1)", "teams", "not supported"),
            ("#pragma omp target spread range(0:N)", "range", "loop's"),
            ("#pragma omp target spread devices(0) devices(1)", "devices", "only once"),
            ("#pragma omp target spread devices(omp_spread_start)", "omp_spread_start", "only has a value"),
            ("#pragma omp target data spread range(0:N) nowait map(A)", "nowait", "cannot be used"),
            ("#pragma omp target data spread range(0:N) depend(in: A) map(A)", "depend", "cannot be used"),
            ("#pragma omp target enter data spread map(to: A)", "target", "requires a 'range"),
            ("#pragma omp target enter data spread range(0:N)", "target", "at least one 'map'"),
            ("#pragma omp target update spread range(0:N)", "target", "'to' or 'from'"),
            ("#pragma omp target update spread range(0 N) to(A)", "0", "start:length"),
            ("#pragma omp target enter data spread range(0:N) spread_schedule(static) map(to: A)", "spread_schedule", "chunk_size"),
            ("#pragma omp target data spread range(0:N) map(delete: A)", "delete", "not allowed"),
            ("#pragma omp target spread devices(0", "(", "expected ')'"),
            ("#pragma omp target spread devices", "", "expected '('"),
            ("#pragma omp target spread reduction(+: s)", "reduction", "cannot be used on 'target spread' alone"),
            ("#pragma omp target spread parallel for reduction(foo: s)", "foo", "user-defined reduction 'foo' is not supported"),
            ("#pragma omp target spread parallel for reduction(/: s)", "/", "reduction operator '/' is not supported"),
            ("#pragma omp target spread parallel for reduction(: s)", ":", "expected a reduction operator"),
            ("#pragma omp target spread parallel for reduction(s)", "s", "expected 'operator: list'"),
            ("#pragma omp target spread parallel for reduction(+: a[0:n])", "a", "only variables can be reduced"),
            ("#pragma omp target spread parallel for reduction(+: s.x)", "s", "array sections, array elements and members"),
            ("#pragma omp target spread parallel for reduction(+: s,)", ")", "expected a variable"),
            ("#pragma omp target spread parallel for depend(in: a[omp_spread_start]) nowait reduction(+: s)", "omp_spread_start", "per-chunk depend clauses cannot be combined with reduction and nowait on 'target spread parallel for': this 'depend' uses 'omp_spread_start'"),
            ("#pragma omp target spread parallel for reduction(+: s) depend(out: a[0:omp_spread_size]) nowait", "omp_spread_size", "per-chunk depend clauses cannot be combined"),
            ("#pragma omp target spread parallel for reduction(task, +: s)", "task", "modifier 'task' is not supported"),
            ("#pragma omp target spread parallel for reduction(+: s) reduction(*: t, s)", "s", "more than one reduction list"),
            ("#pragma omp target spread parallel for reduction", "", "expected '(' after 'reduction'"),
            ("#pragma omp target spread devices(0, 4294967297LL)", "4294967297LL", "does not fit an int"),
            ("#pragma omp target enter data spread devices(0x80000000) range(0:1) map(to: a)", "0x80000000", "does not fit an int"),
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

    #[test]
    fn unknown_clauses_suggest_a_clause() {
        let cases = [
            ("#pragma omp target spread devcies(0, 1)", "unknown clause 'devcies' on 'target spread'; did you mean 'devices'?"),
            // the construct's own clauses first: 'devices', not 'device'
            ("#pragma omp target spread devcie(0)", "unknown clause 'devcie' on 'target spread'; did you mean 'devices'?"),
            ("#pragma omp target spread parallel for spread_shedule(static)", "unknown clause 'spread_shedule' on 'target spread parallel for'; did you mean 'spread_schedule'?"),
            ("#pragma omp target spread parallel for mapp(to: a)", "unknown clause 'mapp' on 'target spread parallel for'; did you mean 'map'?"),
            // then Spread's: 'range' is not a clause of 'target spread', but the likely intent
            ("#pragma omp target spread rnage(0:n)", "unknown clause 'rnage' on 'target spread'; did you mean 'range'?"),
            ("#pragma omp target data spread devices(0) range(0:n) chunk_sz(2) map(a)", "unknown clause 'chunk_sz' on 'target data spread'; did you mean 'chunk_size'?"),
            ("#pragma omp target update peer to(a) to_device(1) from(b) from_devices(0)", "unknown clause 'from_devices' on 'target update peer'; did you mean 'from_device'?"),
            ("#pragma omp target spread bogus(1)", "unknown clause 'bogus' on 'target spread'"),
        ];
        for (src, msg) in cases {
            match parse_str(src) {
                Ok(_) => panic!("{src}: no error"),
                Err((_, m)) => assert_eq!(m, msg, "{src}"),
            }
        }
    }

    #[test]
    fn schedules() {
        for (k, abi) in SPREAD_SCHEDULES {
            let d = parse_str(&format!(
                "#pragma omp target spread parallel for spread_schedule({k}, n / 4)"
            ))
            .unwrap();
            assert_eq!(d.schedule, Some(*abi));
            assert_eq!(d.chunk.as_deref(), Some("n / 4"));
            let d = parse_str(&format!("#pragma omp target spread spread_schedule({k})")).unwrap();
            assert_eq!((d.schedule, d.chunk), (Some(*abi), None));
        }
        let d = parse_str("#pragma omp target spread").unwrap();
        assert_eq!(d.schedule, None);
    }

    #[test]
    fn reductions() {
        let d = parse_str("#pragma omp target spread teams distribute parallel for map(to: a[0:n]) reduction(+: s, t) map(tofrom: s, b[0:n]) reduction(default, max: m) map(m) nowait").unwrap();
        let vars: Vec<(&str, &str)> = d.reduction_vars().map(|(r, v, _)| (r.abi, v)).collect();
        assert_eq!(
            vars,
            [
                ("__SPREAD_RED_ADD", "s"),
                ("__SPREAD_RED_ADD", "t"),
                ("__SPREAD_RED_MAX", "m")
            ]
        );
        // a map item naming a reduction variable is dropped (a clause left empty too)
        assert_eq!(d.kept, ["map(to: a[0:n])", "map(tofrom: b[0:n])", "nowait"]);
        assert_eq!(
            d.reductions.iter().map(|r| r.kept_pos).collect::<Vec<_>>(),
            [1, 2]
        );
        for (op, abi) in REDUCTION_OPS {
            let d = parse_str(&format!(
                "#pragma omp target spread parallel loop reduction({op}: x)"
            ))
            .unwrap();
            assert_eq!(d.reductions[0].abi, *abi);
            assert_eq!(d.reductions[0].op, *op);
        }
    }

    #[test]
    fn update_peer() {
        let d = parse_str("#pragma omp target update peer from(b[lo:n], y, m[i][1:k]) from_device(d - 1) to(a[c ? 1 : 2 : n], x, m[j][:k]) to_device(d)").unwrap();
        assert_eq!(d.kind, Kind::UpdatePeer);
        let p = d.peer.unwrap();
        assert_eq!(
            (p.to_device.as_str(), p.from_device.as_str()),
            ("d", "d - 1")
        );
        assert!(!p.to_device_first);
        let sec = |b: &str, l: &str, n: &str| PeerItem::Section {
            base: b.into(),
            lower: l.into(),
            length: n.into(),
        };
        assert_eq!(
            p.to,
            [
                sec("a", "c ? 1 : 2", "n"),
                PeerItem::Whole("x".into()),
                sec("m[j]", "0", "k")
            ]
        );
        assert_eq!(
            p.from,
            [
                sec("b", "lo", "n"),
                PeerItem::Whole("y".into()),
                sec("m[i]", "1", "k")
            ]
        );
        assert_eq!(p.to[0].address(), "&(a)[c ? 1 : 2]");
        assert_eq!(p.to[0].bytes(), "(size_t)(n) * sizeof((a)[0])");
        assert_eq!(p.to[1].address(), "&(x)");
        assert_eq!(p.to[1].bytes(), "sizeof(x)");
        let d = parse_str("#pragma omp target update peer to(s.f[0], *q, (*r)[f(1, 2):g(3)]) to_device(0) from(a, b, c[0:2]) from_device(1)").unwrap();
        let p = d.peer.unwrap();
        assert!(p.to_device_first);
        assert_eq!(p.to[0], PeerItem::Whole("s.f[0]".into()));
        assert_eq!(p.to[2], sec("(*r)", "f(1, 2)", "g(3)"));
        // a plain target update is clang's
        let s = "#pragma omp target update to(a[0:n]) device(1)";
        let l = lex(s, false);
        assert_eq!(classify(s, &l.tokens, 0, l.tokens.len()), None);
    }

    #[test]
    fn wait_device() {
        let d = parse_str("#pragma omp wait device(f(a, b) + 1)").unwrap();
        assert_eq!(d.kind, Kind::WaitDevice);
        assert_eq!(d.wait_device.as_deref(), Some("f(a, b) + 1"));
    }

    #[test]
    fn extension_errors() {
        // P: "#pragma omp target update peer"
        #[rustfmt::skip]
        let cases = [
            ("P to(a) to_device(1) from(b, c) from_device(0)", "from", "'to' has 1 list item but 'from' has 2"),
            ("P from(b, c) from_device(0) to(a) to_device(1)", "to", "'to' has 1 list item but 'from' has 2"),
            ("P to(a) to_device(1) from(b)", "target", "requires a 'from_device' clause"),
            ("P to_device(1) from(b) from_device(0)", "target", "requires a 'to' clause"),
            ("P to(a) from(b) from_device(0)", "target", "requires a 'to_device' clause"),
            ("P to(a) to_device(1) from_device(0)", "target", "requires a 'from' clause"),
            ("P to(a) to(b) to_device(1) from(b) from_device(0)", "to", "only once"),
            ("P to(a) to_device(1) to_device(2) from(b) from_device(0)", "to_device", "only once"),
            ("P to(a) to_device(1) from(b) from_device(0) nowait", "nowait", "not allowed on 'target update peer'"),
            ("P to(a) to_device(1) from(b) from_device(0) bogus(1)", "bogus", "unknown clause 'bogus'"),
            ("P to(a) device(1) from(b) from_device(0)", "device", "use 'to_device' and 'from_device'"),
            ("P devices(0,1) to(a) to_device(1) from(b) from_device(0)", "devices", "not spread"),
            ("P range(0:n) to(a) to_device(1) from(b) from_device(0)", "range", "not spread"),
            ("#pragma omp target update peer spread to(a) to_device(1) from(b) from_device(0)", "spread", "not spread"),
            ("#pragma omp target update spread peer range(0:n) to(a)", "peer", "cannot be combined with 'peer'"),
            ("P to() to_device(1) from(b) from_device(0)", ")", "expected a list item in 'to'"),
            ("P to(a) to_device(1) from(b,) from_device(0)", ")", "expected a list item in 'from'"),
            ("P to(a) to_device() from(b) from_device(0)", ")", "expected a device number in 'to_device'"),
            ("P to(a) to_device(1, 2) from(b) from_device(0)", ",", "takes one device number"),
            ("P to(a) to_device from(b) from_device(0)", "from", "expected '(' after 'to_device'"),
            ("P to(present: a) to_device(1) from(b) from_device(0)", ":", "modifiers"),
            ("P to(a[0:n][0:m]) to_device(1) from(b) from_device(0)", ":", "only the last subscript"),
            ("P to(a[0:n:2]) to_device(1) from(b) from_device(0)", ":", "strided"),
            ("P to(a[1:]) to_device(1) from(b) from_device(0)", "]", "length"),
            ("P to(a[0:n].x) to_device(1) from(b) from_device(0)", ".", "must end the list item"),
            ("#pragma omp wait", "wait", "'wait' requires a 'device' clause"),
            ("#pragma omp wait device()", ")", "expected a device number in 'device'"),
            ("#pragma omp wait device(0, 1)", ",", "one 'wait' per device"),
            ("#pragma omp wait device(0) device(1)", "device", "only once"),
            ("#pragma omp wait device(0) nowait", "nowait", "clause 'nowait' is not allowed on 'wait'"),
            ("#pragma omp wait device(0) foo", "foo", "unknown clause 'foo' on 'wait'"),
            ("#pragma omp wait devices(0)", "devices", "use 'device(d)'"),
            ("#pragma omp wait (0)", "(", "expected a clause on 'wait'"),
        ];
        for (src, tok, msg) in cases {
            let src = match src.strip_prefix("P ") {
                Some(rest) => format!("#pragma omp target update peer {rest}"),
                None => src.to_string(),
            };
            match parse_str(&src) {
                Ok(_) => panic!("{src}: no error"),
                Err((t, m)) => {
                    assert_eq!(t, tok, "{src}: {m}");
                    assert!(m.contains(msg), "{src}: {m}");
                }
            }
        }
    }

    #[test]
    fn not_spread() {
        let s = "#pragma omp target teams map(to: a)";
        let l = lex(s, false);
        assert_eq!(classify(s, &l.tokens, 0, l.tokens.len()), None);
    }
}
