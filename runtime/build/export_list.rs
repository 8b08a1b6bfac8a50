//! `exports.list`, the one list of the runtime's versioned exports, and what is written from it:
//! the linker's version script and each source file's `.symver` directives. Shared by build.rs,
//! which writes them, and tests/exports.rs, which checks the list against the sources.

use std::collections::BTreeMap;

/// One `[NODE FILE]` section: the symbols FILE defines that get version NODE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// The version node (`VERS1.0`, `VERSION`).
    pub node: String,
    /// The defining source file, from the crate root (`src/capi/exports.rs`).
    pub file: String,
    /// The symbols, each with its line in the list (from 1).
    pub names: Vec<(String, usize)>,
}

fn is_symbol(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Reads the list: `#` comments and blank lines aside, `[NODE FILE]` headers each followed by
/// symbols, one per line. A symbol listed twice, a symbol before any header, a malformed header
/// or name is an error naming its line.
pub fn parse(text: &str) -> Result<Vec<Group>, String> {
    let mut groups: Vec<Group> = Vec::new();
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        if let Some(h) = l.strip_prefix('[') {
            let parts: Vec<&str> = h
                .strip_suffix(']')
                .unwrap_or("")
                .split_whitespace()
                .collect();
            match parts[..] {
                [node, file] if file.starts_with("src/") && file.ends_with(".rs") => {
                    groups.push(Group {
                        node: node.to_string(),
                        file: file.to_string(),
                        names: Vec::new(),
                    })
                }
                _ => {
                    return Err(format!(
                        "line {line}: expected `[NODE src/FILE.rs]`, found `{l}`"
                    ))
                }
            }
            continue;
        }
        if !is_symbol(l) {
            return Err(format!("line {line}: `{l}` is not a symbol name"));
        }
        let Some(group) = groups.last_mut() else {
            return Err(format!(
                "line {line}: `{l}` comes before any `[NODE FILE]` header"
            ));
        };
        if let Some(first) = seen.insert(l, line) {
            return Err(format!(
                "line {line}: `{l}` is listed twice (first on line {first})"
            ));
        }
        group.names.push((l.to_string(), line));
    }
    Ok(groups)
}

/// The version script: one node per distinct NODE, in the order they first appear, each listing
/// its symbols sorted; the first node also hides every other symbol (`local: *`), which does not
/// hide rustc's own `#[no_mangle]` exports (rustc gives the linker a script of its own).
pub fn version_script(groups: &[Group]) -> String {
    let mut order: Vec<&str> = Vec::new();
    let mut by_node: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for g in groups {
        if !order.contains(&g.node.as_str()) {
            order.push(&g.node);
        }
        let names = by_node.entry(&g.node).or_default();
        names.extend(g.names.iter().map(|(n, _)| n.as_str()));
    }
    let mut out = String::from("/* Written by build.rs from exports.list. */\n");
    for (k, node) in order.iter().enumerate() {
        let mut names = by_node.remove(node).unwrap_or_default();
        names.sort_unstable();
        out.push_str(&format!("{node} {{\n  global:\n"));
        for n in names {
            out.push_str(&format!("    {n};\n"));
        }
        if k == 0 {
            out.push_str("  local: *;\n");
        }
        out.push_str("};\n");
    }
    out
}

/// The key a source file's `symvers!` call names: its path under `src/` without `.rs`
/// (`src/capi/ompt/mod.rs` → `capi/ompt/mod`).
pub fn key(file: &str) -> &str {
    let f = file.strip_prefix("src/").unwrap_or(file);
    f.strip_suffix(".rs").unwrap_or(f)
}

/// Each listed file's assembler text: one `.symver name, name@@NODE` line per symbol it defines,
/// keyed by [`key`].
pub fn symver_asm(groups: &[Group]) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    for g in groups {
        let asm = out.entry(key(&g.file).to_string()).or_default();
        for (n, _) in &g.names {
            asm.push_str(&format!(".symver {n}, {n}@@{}\n", g.node));
        }
    }
    out
}
