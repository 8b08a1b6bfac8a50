//! One-device `target data` regions around `target spread` constructs.
//!
//! `#pragma omp target data map(...)` without `spread` (with or without `device(...)`) maps its
//! list items on one device. A `target spread` in its block runs chunks on several devices: on
//! the others those items are not present, so a chunk gets host addresses (a pointer) or a
//! copy of its own that neither the host nor the first device sees (an array). The lowering
//! warns when a spread construct uses a variable such a region maps; the check is lexical
//! (the construct inside the region's block, in the same function), which is where the
//! pattern appears when an existing program gets `spread` added to its loops.

use std::collections::HashSet;

use crate::directive::{section_colons, Cursor};
use crate::lexer::{matching_close, TokKind, Token};
use crate::stmt::View;

/// The name of the warning, for the message and for `-Wno-spread-target-data`.
pub const WARNING_FLAG: &str = "spread-target-data";

/// A `target data` directive: whether it is `target data spread`, and the variables its map
/// clauses name (the base variable of each list item: `f` for `f[0:n]`, `s` for `s.a[0:n]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataDirective {
    /// `target data spread`: it maps on every device of its `devices` clause.
    pub spread: bool,
    /// The variables mapped, in order, without repeats.
    pub vars: Vec<String>,
}

/// Recognizes `#pragma omp target data ...` in `toks[first..end]`.
pub fn parse(src: &str, toks: &[Token], first: usize, end: usize) -> Option<DataDirective> {
    let c = Cursor { src, toks, end };
    if !(c.text(first) == "#"
        && c.is_ident(first + 1, "pragma")
        && c.is_ident(first + 2, "omp")
        && c.is_ident(first + 3, "target")
        && c.is_ident(first + 4, "data")
        && c.text(first + 5) != "(")
    {
        return None;
    }
    let spread = c.is_ident(first + 5, "spread");
    let mut vars: Vec<String> = Vec::new();
    let mut i = first + 5;
    while i < end {
        if c.text(i + 1) != "(" {
            i += 1;
            continue;
        }
        let Some(close) = matching_close(src, toks, i + 1, end) else {
            break;
        };
        if c.is_ident(i, "map") {
            for v in map_bases(&c, i + 1, close) {
                if !vars.contains(&v) {
                    vars.push(v);
                }
            }
        }
        i = close + 1;
    }
    Some(DataDirective { spread, vars })
}

/// The base variable of each list item of the `map` clause with parentheses `open..close`.
fn map_bases(c: &Cursor, open: usize, close: usize) -> Vec<String> {
    let list = section_colons(c, open + 1, close)
        .first()
        .map_or(open + 1, |&colon| colon + 1);
    c.split(list, close, ",")
        .into_iter()
        .filter_map(|(lo, hi)| {
            (lo..hi)
                .find(|&k| c.toks[k].kind == TokKind::Ident && c.text(k) != "this")
                .map(|k| c.text(k).to_string())
        })
        .collect()
}

/// The variables named in view items `lo..hi` (identifiers that are not members: not after
/// `.`, `->` or `::`).
pub fn names_used(v: &View, lo: usize, hi: usize) -> HashSet<String> {
    (lo..hi.min(v.items.len()))
        .filter(|&k| v.tok(k).map(|t| t.kind) == Some(TokKind::Ident))
        .filter(|&k| k == lo || !matches!(v.text(k - 1), "." | "->" | "::"))
        .map(|k| v.text(k).to_string())
        .collect()
}

/// The variables named in tokens `lo..hi` of a directive (identifiers not after `.`, `->`,
/// `::`).
pub fn names_in_tokens(src: &str, toks: &[Token], lo: usize, hi: usize) -> HashSet<String> {
    let c = Cursor {
        src,
        toks,
        end: hi.min(toks.len()),
    };
    (lo..c.end)
        .filter(|&k| c.toks[k].kind == TokKind::Ident)
        .filter(|&k| k == lo || !matches!(c.text(k - 1), "." | "->" | "::"))
        .map(|k| c.text(k).to_string())
        .collect()
}

/// A `target data` region of the file: its directive and where its block is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// The directive.
    pub directive: DataDirective,
    /// Byte offset of the pragma in the preprocessed text.
    pub start: usize,
    /// Byte offset just past its structured block.
    pub end: usize,
    /// `file:line` of the pragma, for messages.
    pub at: String,
}

/// The `target data` regions open at the directive being lowered, outermost first.
#[derive(Debug, Clone, Default)]
pub struct Regions {
    regions: Vec<Region>,
}

impl Regions {
    /// Records a region; regions are recorded in the order of their pragmas, so those that
    /// ended before it are closed for good and are dropped.
    pub fn push(&mut self, r: Region) {
        self.regions.retain(|open| open.end > r.start);
        self.regions.push(r);
    }

    /// Whether a one-device region is around byte `at`.
    pub fn one_device_around(&self, at: usize) -> bool {
        self.regions
            .iter()
            .any(|r| !r.directive.spread && r.start < at && at < r.end)
    }

    /// The warnings for a `target spread` construct named `construct` at byte `at` that uses
    /// the variables `used`: one per one-device region whose mapping of a used variable is the
    /// innermost mapping of it around the construct (a `target data spread` inside the region
    /// that maps the variable too puts it on every device). The variables are named in the
    /// order the region maps them.
    pub fn warnings(&self, at: usize, construct: &str, used: &HashSet<String>) -> Vec<String> {
        // innermost last: the regions around `at` are nested, in the order of their pragmas
        let around: Vec<&Region> = self
            .regions
            .iter()
            .filter(|r| r.start < at && at < r.end)
            .collect();
        let mut out = Vec::new();
        for (i, r) in around.iter().enumerate() {
            if r.directive.spread {
                continue;
            }
            let vars: Vec<&str> = r
                .directive
                .vars
                .iter()
                .map(String::as_str)
                .filter(|v| used.contains(*v))
                .filter(|v| {
                    !around[i + 1..]
                        .iter()
                        .any(|inner| inner.directive.vars.iter().any(|m| m == v))
                })
                .collect();
            if !vars.is_empty() {
                out.push(message(&vars, &r.at, construct));
            }
        }
        out
    }
}

/// The warning for `vars` mapped by the one-device `target data` at `at` and used by
/// `construct`.
fn message(vars: &[&str], at: &str, construct: &str) -> String {
    let quoted: Vec<String> = vars.iter().map(|v| format!("'{v}'")).collect();
    let (names, verb, them) = match quoted.as_slice() {
        [one] => (one.clone(), "is", "it"),
        [init @ .., last] => (format!("{} and {last}", init.join(", ")), "are", "them"),
        [] => (String::new(), "are", "them"),
    };
    format!(
        "{names} {verb} mapped by the 'target data' at {at} on one device only, so the chunks of this '{construct}' on its other devices would get host addresses; map {them} on every device of the construct with 'target data spread' and a 'range' that matches the chunks, or map each chunk's section in the construct's own map clauses (see docs/porting.md) [-W{WARNING_FLAG}]"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::lex;

    fn data(s: &str) -> Option<DataDirective> {
        let l = lex(s, false);
        parse(s, &l.tokens, 0, l.tokens.len())
    }

    #[test]
    fn map_clauses() {
        let d = data("#pragma omp target data map(to: f[0:N*N], f_old[0:N*N]) map(tofrom: s.a[0:n], *p, f) device(1)").unwrap();
        assert!(!d.spread);
        assert_eq!(d.vars, ["f", "f_old", "s", "p"]);
        let d = data("#pragma omp target data spread devices(0,1) range(0:n) map(always, to: a[0:n]) if(c ? 1 : 0)").unwrap();
        assert!(d.spread);
        assert_eq!(d.vars, ["a"]);
        let d = data("#pragma omp target data map(a[i ? 0 : 1:n]) use_device_ptr(q)").unwrap();
        assert_eq!(d.vars, ["a"]);
        assert_eq!(
            data("#pragma omp target data map(to: a[0:n]"),
            Some(DataDirective {
                spread: false,
                vars: vec![]
            })
        );
        assert_eq!(data("#pragma omp target enter data map(to: a)"), None);
        assert_eq!(data("#pragma omp target map(to: a)"), None);
    }

    #[test]
    fn names() {
        let s = "f[i] = s.f + p->g + ns::h + f_old[i] + error;";
        let l = lex(s, false);
        let mut names: Vec<String> = names_in_tokens(s, &l.tokens, 0, l.tokens.len())
            .into_iter()
            .collect();
        names.sort();
        assert_eq!(names, ["error", "f", "f_old", "i", "ns", "p", "s"]);
    }

    fn region(spread: bool, vars: &[&str], start: usize, end: usize, line: u32) -> Region {
        Region {
            directive: DataDirective {
                spread,
                vars: vars.iter().map(|v| v.to_string()).collect(),
            },
            start,
            end,
            at: format!("a.c:{line}"),
        }
    }

    #[test]
    fn warnings_name_the_innermost_one_device_mapping() {
        let used: HashSet<String> = ["g", "f", "n"].iter().map(|v| v.to_string()).collect();
        let mut rs = Regions::default();
        rs.push(region(false, &["f", "g"], 0, 100, 1));
        rs.push(region(true, &["g"], 10, 90, 2));
        assert!(rs.one_device_around(50) && !rs.one_device_around(100));
        let w = rs.warnings(50, "target spread", &used);
        assert_eq!(w.len(), 1);
        assert!(w[0].starts_with("'f' is mapped by the 'target data' at a.c:1 on one device only, so the chunks of this 'target spread' on its other devices would get host addresses; map it on every device"), "{}", w[0]);
        assert!(w[0].ends_with("(see docs/porting.md) [-Wspread-target-data]"));
        assert!(rs.warnings(95, "target spread", &used)[0].starts_with(
            "'f' and 'g' are mapped by the 'target data' at a.c:1 on one device only"
        ));
        assert!(rs.warnings(110, "target spread", &used).is_empty());
        // a region that ended is dropped
        rs.push(region(false, &["n", "x"], 120, 130, 9));
        assert_eq!(rs.regions.len(), 1);
        assert!(rs.warnings(125, "target spread", &used)[0].starts_with("'n' is mapped"));
        let mut rs = Regions::default();
        rs.push(region(true, &["f"], 0, 100, 1));
        assert!(rs.warnings(50, "target spread", &used).is_empty());
    }
}
