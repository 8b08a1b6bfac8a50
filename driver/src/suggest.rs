//! "Did you mean": which known name an unknown word most likely misspells.
//!
//! A word misspells a name when the two differ but are a few edits apart (insertions,
//! deletions, substitutions and swaps of adjacent letters, case ignored): one edit for names of
//! up to 4 letters, two up to 9, three beyond. More than one edit counts only when the first
//! letters agree, as they do in most typos; this keeps unrelated words of the same length
//! (`thread` for `spread`, `read` for `spread`) from being taken for misspellings.

/// The optimal-string-alignment distance between `a` and `b`, ASCII case ignored: the number
/// of insertions, deletions, substitutions and adjacent transpositions that turn one into the
/// other (each letter edited once).
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<u8> = a.bytes().map(|c| c.to_ascii_lowercase()).collect();
    let b: Vec<u8> = b.bytes().map(|c| c.to_ascii_lowercase()).collect();
    // three rows of the dynamic-programming table: i-2, i-1, i
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            cur[j] = d;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// How many edits a misspelling of `name` may have.
fn budget(name: &str) -> usize {
    match name.len() {
        0..=4 => 1,
        5..=9 => 2,
        _ => 3,
    }
}

/// The number of edits from `word` to `name` when `word` is a misspelling of it (it differs
/// from `name`, in case alone or within the budget), else `None`.
fn misspelling_distance(word: &str, name: &str) -> Option<usize> {
    if word == name {
        return None;
    }
    let d = distance(word, name);
    let first = |s: &str| s.bytes().next().map(|c| c.to_ascii_lowercase());
    (d <= budget(name) && (d <= 1 || first(word) == first(name))).then_some(d)
}

/// Whether `word` is a misspelling of `name` (`sprad`, `spraed`, `Spread`, `spreads` of
/// `spread`); `name` itself is not.
pub fn misspells(word: &str, name: &str) -> bool {
    misspelling_distance(word, name).is_some()
}

/// The name among `names` that `word` most likely misspells: the fewest edits, the first
/// such name on a tie.
pub fn closest<'a>(word: &str, names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut best: Option<(usize, &'a str)> = None;
    for n in names {
        if let Some(d) = misspelling_distance(word, n) {
            if best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, n));
            }
        }
    }
    best.map(|(_, n)| n)
}

/// `"; did you mean 'name'?"` for the name of `names` that `word` most likely misspells, or
/// `""` when it misspells none: the tail of an "unknown ..." message.
pub fn did_you_mean<'a>(word: &str, names: impl IntoIterator<Item = &'a str>) -> String {
    closest(word, names)
        .map(|n| format!("; did you mean '{n}'?"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance("spread", "spread"), 0);
        assert_eq!(distance("Spread", "spread"), 0);
        assert_eq!(distance("sprad", "spread"), 1);
        assert_eq!(distance("spraed", "spread"), 1);
        assert_eq!(distance("sperad", "spread"), 1);
        assert_eq!(distance("spreads", "spread"), 1);
        assert_eq!(distance("sprd", "spread"), 2);
        assert_eq!(distance("", "map"), 3);
        assert_eq!(distance("ca", "abc"), 3);
        assert_eq!(distance("devcies", "devices"), 1);
    }

    #[test]
    fn misspellings_of_spread() {
        for w in [
            "sprad", "spraed", "sperad", "spred", "spreads", "Spread", "SPREAD", "spead", "sprea",
            "psread", "sprd", "spreaad", "sprewd",
        ] {
            assert!(misspells(w, "spread"), "{w}");
        }
        for w in [
            "spread",
            "thread",
            "read",
            "bread",
            "shared",
            "sp",
            "spreading",
            "teams",
            "simd",
        ] {
            assert!(!misspells(w, "spread"), "{w}");
        }
    }

    #[test]
    fn short_names_take_one_edit() {
        assert!(misspells("mapp", "map"));
        assert!(misspells("amp", "map"));
        assert!(!misspells("mop_", "map"));
        assert!(misspells("rnage", "range"));
        assert!(misspells("chunk_sz", "chunk_size"));
        assert!(!misspells("chunk", "chunk_size"));
    }

    #[test]
    fn closest_name() {
        let names = ["devices", "spread_schedule", "range", "chunk_size"];
        assert_eq!(closest("devcies", names), Some("devices"));
        assert_eq!(closest("spread_schedul", names), Some("spread_schedule"));
        assert_eq!(closest("bogus", names), None);
        assert_eq!(closest("devices", names), None);
        // the fewest edits win, then the first name
        assert_eq!(closest("devie", ["devices", "device"]), Some("device"));
        assert_eq!(closest("ab", ["ax", "ay"]), Some("ax"));
        assert_eq!(
            did_you_mean("devcies", names),
            "; did you mean 'devices'?".to_string()
        );
        assert_eq!(did_you_mean("bogus", names), String::new());
    }
}
