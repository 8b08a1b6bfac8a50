//! Spread's words on the `target` directives the driver leaves to clang.
//!
//! clang stops reading an OpenMP directive at the first word it does not know and ignores the
//! rest with a warning ("extra tokens at the end of '#pragma omp target' are ignored"). So a
//! misspelt `spread` (`#pragma omp target sprad teams distribute ... devices(0, 1)`), a
//! `spread` in the wrong place, or a Spread clause on a directive without `spread` would
//! silently make the construct a one-device `target` without its clauses. The driver reports
//! these as errors instead; any other directive is clang's to judge.

use crate::directive::{err, Cursor, PError, ALL_CLAUSES, LEAF_WORDS, SPREAD_CLAUSES};
use crate::lexer::{matching_close, TokKind, Token};
use crate::suggest;

/// The words clang accepts after `target` in a directive name.
const DIRECTIVE_WORDS: &[&str] = &["data", "enter", "exit", "update"];

/// Whether `w` is a word of OpenMP or of Spread (a directive or clause name), which is never
/// taken for a misspelling.
pub fn is_known_word(w: &str) -> bool {
    ALL_CLAUSES.contains(&w)
        || LEAF_WORDS.contains(&w)
        || DIRECTIVE_WORDS.contains(&w)
        || matches!(w, "target" | "spread" | "peer" | "any")
        // clang's extensions
        || w.starts_with("ompx_")
}

/// Whether the word `w` is a misspelling of `spread` (and no other known word).
fn misspells_spread(w: &str) -> bool {
    !is_known_word(w) && suggest::misspells(w, "spread")
}

/// The construct a plain `target` directive names.
struct Construct {
    /// `target`, `target data`, `target enter data`, `target exit data` or `target update`:
    /// the words `spread` goes after.
    prefix: String,
    /// A data construct (`target data`, `enter data`, `exit data`, `update`).
    data: bool,
    /// The construct as written (`target teams distribute parallel for`).
    name: String,
    /// Token index just past the prefix.
    after_prefix: usize,
    /// Token index of the first clause.
    clauses: usize,
}

fn construct(c: &Cursor, target: usize) -> Construct {
    let word = |i: usize| {
        if c.toks.get(i).map(|t| t.kind) == Some(TokKind::Ident) && c.text(i + 1) != "(" {
            c.text(i)
        } else {
            ""
        }
    };
    let i = target + 1;
    let prefix_words: &[&str] = match (word(i), word(i + 1)) {
        ("data", _) => &["data"],
        ("enter", "data") => &["enter", "data"],
        ("exit", "data") => &["exit", "data"],
        ("update", _) => &["update"],
        _ => &[],
    };
    let after_prefix = i + prefix_words.len();
    let mut prefix = "target".to_string();
    for w in prefix_words {
        prefix.push(' ');
        prefix.push_str(w);
    }
    let leaves = if prefix_words.is_empty() {
        c.leaf_words(after_prefix, LEAF_WORDS)
    } else {
        Vec::new()
    };
    let mut name = prefix.clone();
    for w in &leaves {
        name.push(' ');
        name.push_str(w);
    }
    Construct {
        prefix,
        data: !prefix_words.is_empty(),
        name,
        after_prefix,
        clauses: after_prefix + leaves.len(),
    }
}

/// The words at the top level of tokens `from..c.end` (clause names and stray words, not what
/// is inside parentheses), each with whether a `(` follows it; the scan stops at unbalanced
/// parentheses, which clang reports.
fn top_level_words(c: &Cursor, from: usize) -> Vec<(usize, bool)> {
    let mut out = Vec::new();
    let mut i = from;
    while i < c.end {
        if c.text(i) == "(" {
            match matching_close(c.src, c.toks, i, c.end) {
                Some(close) => i = close + 1,
                None => break,
            }
            continue;
        }
        if c.toks[i].kind == TokKind::Ident {
            out.push((i, c.text(i + 1) == "("));
        }
        i += 1;
    }
    out
}

/// The Spread construct clause `clause` belongs on, for a message about it on `k`.
fn needed_construct(k: &Construct, clause: &str) -> String {
    match clause {
        "to_device" | "from_device" => "'target update peer'".to_string(),
        "spread_schedule" => "'target spread'".to_string(),
        "range" | "chunk_size" if !k.data => "a spread data construct ('target data spread', 'target enter data spread', 'target exit data spread' or 'target update spread')".to_string(),
        _ if k.data => format!("'{} spread'", k.prefix),
        _ => "'target spread'".to_string(),
    }
}

/// Checks the `#pragma omp target ...` directive in `toks[first..end]`, one the driver does not
/// lower (neither `classify` of [`crate::directive`] nor of [`crate::any`] took it): a word
/// right after `target` (`target data`, `target enter data`, `target exit data`,
/// `target update`) that misspells `spread`, a `spread` elsewhere, or a Spread clause
/// ([`SPREAD_CLAUSES`]) is an error. Any other directive gives `Ok`.
pub fn check(src: &str, toks: &[Token], first: usize, end: usize) -> Result<(), PError> {
    let c = Cursor { src, toks, end };
    if !(c.text(first) == "#"
        && c.is_ident(first + 1, "pragma")
        && c.is_ident(first + 2, "omp")
        && c.is_ident(first + 3, "target"))
    {
        return Ok(());
    }
    let k = construct(&c, first + 3);
    let consequence = "clang would ignore it and everything after it";
    let w = c.text(k.after_prefix);
    if c.toks.get(k.after_prefix).map(|t| t.kind) == Some(TokKind::Ident) && misspells_spread(w) {
        return err(
            k.after_prefix,
            format!(
                "unknown word '{w}' after '{}' ({consequence}); did you mean 'spread'?",
                k.prefix
            ),
        );
    }
    let words = top_level_words(&c, k.after_prefix);
    if let Some(&(i, _)) = words
        .iter()
        .find(|&&(i, paren)| !paren && c.text(i) == "spread")
    {
        return err(
            i,
            format!(
                "'spread' must come right after '{}' ({consequence})",
                k.prefix
            ),
        );
    }
    let Some(&(i, _)) = words
        .iter()
        .find(|&&(i, _)| i >= k.clauses && SPREAD_CLAUSES.contains(&c.text(i)))
    else {
        return Ok(());
    };
    let name = c.text(i);
    let typo = words
        .iter()
        .map(|&(j, _)| c.text(j))
        .find(|w| misspells_spread(w))
        .map(|w| format!("; did you mean 'spread' instead of '{w}'?"))
        .unwrap_or_default();
    err(
        i,
        format!(
            "the '{name}' clause needs {} ({consequence} on '{}'){typo}",
            needed_construct(&k, name),
            k.name
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::lex;

    /// The error's token and message, or `None`.
    fn check_str(s: &str) -> Option<(String, String)> {
        let l = lex(s, false);
        check(s, &l.tokens, 0, l.tokens.len()).err().map(|e| {
            let t = l
                .tokens
                .get(e.tok)
                .map(|t| &s[t.start..t.end])
                .unwrap_or("");
            (t.to_string(), e.msg)
        })
    }

    /// Every directive word and clause name clang 19 accepts in a `target` directive (from
    /// LLVM 19's OMP.td: the `target*` directives and their clauses).
    const CLANG_TARGET_WORDS: &[&str] = &[
        "data",
        "enter",
        "exit",
        "update",
        "parallel",
        "teams",
        "distribute",
        "for",
        "simd",
        "loop",
        "aligned",
        "allocate",
        "allocator",
        "bind",
        "collapse",
        "copyin",
        "default",
        "defaultmap",
        "depend",
        "device",
        "dist_schedule",
        "firstprivate",
        "from",
        "has_device_addr",
        "if",
        "in_reduction",
        "is_device_ptr",
        "lastprivate",
        "linear",
        "map",
        "nontemporal",
        "nowait",
        "num_teams",
        "num_threads",
        "ompx_attribute",
        "ompx_bare",
        "ompx_dyn_cgroup_mem",
        "order",
        "ordered",
        "private",
        "proc_bind",
        "reduction",
        "safelen",
        "schedule",
        "shared",
        "simdlen",
        "thread_limit",
        "to",
        "use_device_addr",
        "use_device_ptr",
        "uses_allocators",
    ];

    #[test]
    fn clang_words_are_never_misspellings() {
        for w in CLANG_TARGET_WORDS.iter().chain(ALL_CLAUSES) {
            assert!(is_known_word(w), "{w}");
            assert!(!misspells_spread(w), "{w}");
            if SPREAD_CLAUSES.contains(w) {
                continue;
            }
            for prefix in [
                "target",
                "target data",
                "target enter data",
                "target update",
            ] {
                for tail in ["", "(x)", " map(to: a)"] {
                    let s = format!("#pragma omp {prefix} {w}{tail}");
                    assert_eq!(check_str(&s), None, "{s}");
                }
            }
        }
    }

    #[test]
    fn valid_directives_pass() {
        for s in [
            "#pragma omp target",
            "#pragma omp target teams distribute parallel for map(tofrom: range[0:n]) device(1) nowait",
            "#pragma omp target data map(to: devices[0:n]) use_device_ptr(p)",
            "#pragma omp target enter data map(to: a[0:n]) depend(out: a) nowait",
            "#pragma omp target update to(a[0:n]) if(n > 0)",
            "#pragma omp target parallel for simd ompx_attribute(x) ompx_whatever(1)",
            "#pragma omp target parallel proc_bind(spread)",
            "#pragma omp target map(",
            "#pragma omp targets sprad",
            "#pragma omp declare target",
            "#pragma omp target teams sprad distribute",
        ] {
            assert_eq!(check_str(s), None, "{s}");
        }
    }

    #[test]
    fn misspelt_spread_right_after_target() {
        for (s, w, prefix) in [
            (
                "#pragma omp target sprad teams distribute parallel for devices(0, 1)",
                "sprad",
                "target",
            ),
            ("#pragma omp target Spread", "Spread", "target"),
            (
                "#pragma omp target spreads parallel for",
                "spreads",
                "target",
            ),
            ("#pragma omp target sperad(", "sperad", "target"),
            (
                "#pragma omp target data spraed map(to: a[0:n]) range(0:n)",
                "spraed",
                "target data",
            ),
            (
                "#pragma omp target enter data spred map(to: a[0:n])",
                "spred",
                "target enter data",
            ),
            (
                "#pragma omp target exit data sprad map(from: a[0:n])",
                "sprad",
                "target exit data",
            ),
            (
                "#pragma omp target update sprad to(a[0:n])",
                "sprad",
                "target update",
            ),
        ] {
            let (tok, msg) = check_str(s).expect(s);
            assert_eq!(tok, w, "{s}");
            assert_eq!(
                msg,
                format!("unknown word '{w}' after '{prefix}' (clang would ignore it and everything after it); did you mean 'spread'?")
            );
        }
    }

    #[test]
    fn spread_clauses_need_spread() {
        let cases = [
            ("#pragma omp target teams distribute parallel for devices(0, 1)", "devices", "the 'devices' clause needs 'target spread' (clang would ignore it and everything after it on 'target teams distribute parallel for')"),
            ("#pragma omp target map(a) spread_schedule(static)", "spread_schedule", "the 'spread_schedule' clause needs 'target spread' (clang would ignore it and everything after it on 'target')"),
            ("#pragma omp target data map(to: a[0:n]) range(0:n)", "range", "the 'range' clause needs 'target data spread' (clang would ignore it and everything after it on 'target data')"),
            ("#pragma omp target update devices(0) to(a)", "devices", "the 'devices' clause needs 'target update spread' (clang would ignore it and everything after it on 'target update')"),
            ("#pragma omp target parallel for chunk_size(4)", "chunk_size", "the 'chunk_size' clause needs a spread data construct ('target data spread', 'target enter data spread', 'target exit data spread' or 'target update spread') (clang would ignore it and everything after it on 'target parallel for')"),
            ("#pragma omp target update to(a) to_device(1)", "to_device", "the 'to_device' clause needs 'target update peer' (clang would ignore it and everything after it on 'target update')"),
            ("#pragma omp target teams sprad distribute devices(0)", "devices", "the 'devices' clause needs 'target spread' (clang would ignore it and everything after it on 'target teams'); did you mean 'spread' instead of 'sprad'?"),
            ("#pragma omp target teams spread distribute", "spread", "'spread' must come right after 'target' (clang would ignore it and everything after it)"),
            ("#pragma omp target data map(to: a) spread range(0:n)", "spread", "'spread' must come right after 'target data' (clang would ignore it and everything after it)"),
        ];
        for (s, tok, msg) in cases {
            assert_eq!(
                check_str(s),
                Some((tok.to_string(), msg.to_string())),
                "{s}"
            );
        }
    }
}
