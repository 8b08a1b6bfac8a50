//! The crates' layering: every top-level module of `runtime`, `driver` and `pass` imports only
//! modules below it in the order its crate's `lib.rs` writes under `# Layers` (one place per
//! crate), so no two modules import each other and nothing imports upwards.
//!
//! A module's imports are read from its source: `crate::m` paths (`use` lines and inline paths,
//! `crate::{a, b::c}` groups included) and `super::` paths that climb out of the module. Test
//! code at the end of a file (`#[cfg(test)] mod tests`) is read too, except `super::` paths inside
//! it, which count one level less deep.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The modules of a crate's `# Layers` section, top to bottom, with the layer each belongs to.
fn layer_order(lib: &str) -> Vec<(String, String)> {
    let mut order = Vec::new();
    let mut inside = false;
    for line in lib.lines() {
        let Some(doc) = line.strip_prefix("//!") else {
            if inside {
                break;
            }
            continue;
        };
        let doc = doc.trim();
        if doc.starts_with('#') {
            inside = doc == "# Layers";
            continue;
        }
        if !inside {
            continue;
        }
        // "1. Layer name: `a`, `b`, `c` (why)"
        let Some((head, rest)) = doc.split_once(". ") else {
            continue;
        };
        if head.is_empty() || !head.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let Some((layer, mods)) = rest.split_once(':') else {
            continue;
        };
        let mods = mods.split(" (").next().unwrap_or("");
        for m in mods.split(',') {
            let m = m.trim().trim_matches('`');
            if !m.is_empty() {
                order.push((m.to_string(), layer.trim().to_string()));
            }
        }
    }
    order
}

/// The crate's `.rs` files under `src` with their module paths (`a/b/mod.rs` is `[a, b]`).
fn sources(src: &Path) -> Vec<(PathBuf, Vec<String>)> {
    let mut out = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension() != Some(std::ffi::OsStr::new("rs")) {
                continue;
            }
            let rel = p.strip_prefix(src).unwrap_or(&p);
            let mut parts: Vec<String> = rel
                .iter()
                .map(|s| s.to_string_lossy().into_owned())
                .collect();
            let file = parts.pop().unwrap_or_default();
            let stem = file.trim_end_matches(".rs");
            if parts.first().is_some_and(|d| d == "bin") || (parts.is_empty() && stem == "lib") {
                continue; // binaries and the crate root are above every module
            }
            if stem != "mod" {
                parts.push(stem.to_string());
            }
            out.push((p, parts));
        }
    }
    out.sort();
    out
}

/// The source without comments (line comments, doc comments, block comments) and string
/// literals, so that paths in prose or messages are not imports.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i] == b'"' && (i == 0 || b[i - 1] != b'\'') {
            // A plain string (raw strings never hold `crate::` paths in this code base).
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else {
            let c = text[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first segments named by `crate::` at the start of `rest`: one for `crate::a::…`, each
/// item's for `crate::{a, b::{c}}`.
fn crate_targets(rest: &str) -> Vec<String> {
    let rest = rest.trim_start();
    if let Some(group) = rest.strip_prefix('{') {
        let mut names = Vec::new();
        let mut depth = 0;
        let mut item_start = true;
        let mut i = 0;
        let g = group.as_bytes();
        while i < g.len() {
            match g[i] {
                b'{' => depth += 1,
                b'}' if depth == 0 => break,
                b'}' => depth -= 1,
                b',' if depth == 0 => item_start = true,
                c if item_start && (c.is_ascii_alphabetic() || c == b'_') => {
                    let id = ident_at(&group[i..]);
                    names.push(id.to_string());
                    item_start = false;
                    i += id.len();
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        names
    } else {
        vec![ident_at(rest).to_string()]
    }
}

/// The top-level modules each top-level module imports, with the files that do.
fn imports(src: &Path, modules: &[String]) -> BTreeMap<String, BTreeMap<String, Vec<String>>> {
    let mut graph: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for (path, modpath) in sources(src) {
        let Some(top) = modpath.first().cloned() else {
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let code = code_only(&text);
        let tests_at = code.find("#[cfg(test)]\nmod tests").unwrap_or(code.len());
        let rel = path
            .strip_prefix(src)
            .unwrap_or(&path)
            .display()
            .to_string();
        let mut add = |target: String| {
            if target != top && modules.contains(&target) {
                let files = graph
                    .entry(top.clone())
                    .or_default()
                    .entry(target)
                    .or_default();
                if !files.contains(&rel) {
                    files.push(rel.clone());
                }
            }
        };
        for (at, _) in code.match_indices("crate::") {
            let before = code[..at].chars().next_back().unwrap_or(' ');
            if before.is_ascii_alphanumeric() || before == '_' || before == '$' {
                continue; // `$crate::`, `foo_crate::`
            }
            for t in crate_targets(&code[at + "crate::".len()..]) {
                add(t);
            }
        }
        for (at, _) in code.match_indices("super::") {
            let before = code[..at].chars().next_back().unwrap_or(' ');
            if before.is_ascii_alphanumeric() || before == '_' || before == ':' {
                continue; // counted from the first `super::` of a chain
            }
            let mut rest = &code[at..];
            let mut ups = 0;
            while let Some(r) = rest.strip_prefix("super::") {
                ups += 1;
                rest = r;
            }
            if at >= tests_at {
                ups -= 1; // inside `mod tests`, the first `super` is the file's module
            }
            if ups < modpath.len() {
                continue; // stays inside the top-level module
            }
            if ups == modpath.len() {
                for t in crate_targets(rest) {
                    add(t);
                }
            }
        }
    }
    graph
}

/// Checks crate `dir` (relative to the workspace); returns the violations.
fn check(dir: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).expect("lib.rs");
    let order = layer_order(&lib);
    let mut problems = Vec::new();
    if order.is_empty() {
        problems.push(format!("{dir}/src/lib.rs has no `# Layers` section"));
        return problems;
    }
    let names: Vec<String> = order.iter().map(|(m, _)| m.clone()).collect();
    let position = |m: &str| names.iter().position(|n| n == m);
    // Every top-level module is placed exactly once.
    let mut declared = Vec::new();
    for line in lib.lines() {
        let l = line.trim();
        let l = l.strip_prefix("pub ").unwrap_or(l);
        let l = l.strip_prefix("pub(crate) ").unwrap_or(l);
        if let Some(m) = l.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
            declared.push(m.trim().to_string());
        }
    }
    for m in &declared {
        if position(m).is_none() {
            problems.push(format!(
                "{dir}: module `{m}` is not placed in lib.rs's `# Layers`"
            ));
        }
    }
    for m in &names {
        if !declared.contains(m) {
            problems.push(format!(
                "{dir}: `# Layers` names `{m}`, which lib.rs does not declare"
            ));
        }
        if names.iter().filter(|n| *n == m).count() > 1 {
            problems.push(format!("{dir}: `# Layers` names `{m}` twice"));
        }
    }
    let graph = imports(&root.join("src"), &declared);
    for (from, targets) in &graph {
        let (Some(pf), Some(layer)) = (
            position(from),
            order.iter().find(|(m, _)| m == from).map(|x| &x.1),
        ) else {
            continue;
        };
        for (to, files) in targets {
            let Some(pt) = position(to) else { continue };
            if pt < pf {
                let to_layer = &order[pt].1;
                problems.push(format!(
                    "{dir}: `{from}` ({layer}) imports `{to}` ({to_layer}), which is above it: {}",
                    files.join(", ")
                ));
            }
        }
    }
    problems
}

fn assert_layered(dir: &str) {
    let problems = check(dir);
    assert!(
        problems.is_empty(),
        "upward imports (fix the import, or move the code to the layer it belongs to):\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn runtime_imports_only_downwards() {
    assert_layered("runtime");
}

/// `unsafe` blocks, functions and impls outside `allowed` top-level modules of crate `dir`.
fn unsafe_outside(dir: &str, allowed: &[&str]) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(dir)
        .join("src");
    let mut found = Vec::new();
    for (path, modpath) in sources(&src) {
        if modpath
            .first()
            .is_some_and(|m| allowed.contains(&m.as_str()))
        {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(&path).unwrap_or_default());
        let hit = code.match_indices("unsafe").any(|(at, w)| {
            let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
            let before = code[..at].chars().next_back().unwrap_or(' ');
            let after = code[at + w.len()..].chars().next().unwrap_or(' ');
            !word(before) && !word(after)
        });
        if hit {
            found.push(
                path.strip_prefix(&src)
                    .unwrap_or(&path)
                    .display()
                    .to_string(),
            );
        }
    }
    found
}

#[test]
fn runtime_unsafe_code_is_only_in_the_bindings_and_the_c_abi() {
    let found = unsafe_outside("runtime", &["capi", "sys"]);
    assert!(
        found.is_empty(),
        "`unsafe` outside capi/ and sys/ (add a safe wrapper in sys/): {found:?}"
    );
}

#[test]
fn driver_imports_only_downwards() {
    assert_layered("driver");
}

#[test]
fn pass_imports_only_downwards() {
    assert_layered("pass");
}

#[test]
fn an_upward_import_is_found() {
    let dir = std::env::temp_dir().join(format!("spread-layers-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("low")).expect("temp dir");
    std::fs::write(
        src.join("lib.rs"),
        "//! # Layers\n//!\n//! 1. Top: `high`\n//! 2. Bottom: `low`\n\nmod high;\nmod low;\n",
    )
    .expect("lib");
    std::fs::write(src.join("high.rs"), "use crate::low::f;\n").expect("high");
    std::fs::write(
        src.join("low/mod.rs"),
        "mod inner;\n// crate::high in a comment is no import\n",
    )
    .expect("low");
    std::fs::write(
        src.join("low/inner.rs"),
        "fn g() { super::super::high::h(\"crate::high\") }\n#[cfg(test)]\nmod tests {\n    use super::super::x;\n}\n",
    )
    .expect("inner");
    let graph = imports(&src, &["high".to_string(), "low".to_string()]);
    let _ = std::fs::remove_dir_all(&dir);
    let low: Vec<_> = graph
        .get("low")
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default();
    assert_eq!(low, vec!["high".to_string()], "{graph:?}");
    let high: Vec<_> = graph
        .get("high")
        .map(|t| t.keys().cloned().collect())
        .unwrap_or_default();
    assert_eq!(high, vec!["low".to_string()]);
    assert_eq!(crate_targets("{a, b::{c, d}, e as f}"), vec!["a", "b", "e"]);
}
