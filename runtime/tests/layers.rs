//! The crates' layering: every top-level module of `runtime`, `driver` and `pass` imports only
//! modules below it in the order its crate's `lib.rs` writes under `# Layers` (one place per
//! crate), so no two modules import each other and nothing imports upwards.
//!
//! A module's imports are read from its source: `crate::m` paths (`use` lines and inline paths,
//! `crate::{a, b::c}` groups included) and `super::` paths that climb out of the module. Test
//! code at the end of a file (`#[cfg(test)] mod tests`) is read too, except `super::` paths inside
//! it, which count one level less deep.

mod common;

use common::{close_of, ident, lex, punct, Tok, Token};
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

/// Whether tokens `i..` spell `seq` (identifiers and single punctuation characters).
fn spells(t: &[Token], i: usize, seq: &[&str]) -> bool {
    seq.iter().enumerate().all(|(k, w)| match w.chars().next() {
        Some(c) if w.len() == 1 && !c.is_alphanumeric() && c != '_' => punct(t, i + k, c),
        _ => ident(t, i + k) == Some(*w),
    })
}

/// Where a file's `#[cfg(test)] mod tests` starts (its length when it has none).
fn tests_start(t: &[Token]) -> usize {
    (0..t.len())
        .find(|&i| {
            spells(
                t,
                i,
                &["#", "[", "cfg", "(", "test", ")", "]", "mod", "tests"],
            )
        })
        .unwrap_or(t.len())
}

/// The first segments named by a path that continues at token `i` (after `crate::` or the last
/// `super::`): one for `a::…`, each item's for `{a, b::{c}, d as e}`.
fn path_targets(t: &[Token], i: usize) -> Vec<String> {
    if !punct(t, i, '{') {
        return ident(t, i).map(str::to_string).into_iter().collect();
    }
    let end = close_of(t, i);
    let mut names = Vec::new();
    let mut depth = 0;
    let mut item_start = true;
    for tok in &t[i + 1..end] {
        match &tok.tok {
            Tok::Punct('{' | '(' | '[') => depth += 1,
            Tok::Punct('}' | ')' | ']') => depth -= 1,
            Tok::Punct(',') if depth == 0 => item_start = true,
            Tok::Ident(name) if item_start && depth == 0 => {
                names.push(name.clone());
                item_start = false;
            }
            _ => {}
        }
    }
    names
}

/// The top-level modules each top-level module imports, with the files that do.
fn imports(src: &Path, modules: &[String]) -> BTreeMap<String, BTreeMap<String, Vec<String>>> {
    let mut graph: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for (path, modpath) in sources(src) {
        let Some(top) = modpath.first().cloned() else {
            continue;
        };
        let t = lex(&std::fs::read_to_string(&path).unwrap_or_default());
        let tests_at = tests_start(&t);
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
        for i in 0..t.len() {
            // `$crate::` in a macro is the crate the macro is used in, not an import.
            if spells(&t, i, &["crate", ":", ":"]) && !(i > 0 && punct(&t, i - 1, '$')) {
                path_targets(&t, i + 3).into_iter().for_each(&mut add);
            }
            // A chain of `super::` counts from its first one.
            if !spells(&t, i, &["super", ":", ":"]) || (i >= 2 && spells(&t, i - 2, &[":", ":"])) {
                continue;
            }
            let mut j = i;
            let mut ups = 0;
            while spells(&t, j, &["super", ":", ":"]) {
                ups += 1;
                j += 3;
            }
            if i >= tests_at {
                ups -= 1; // inside `mod tests`, the first `super` is the file's module
            }
            // Fewer: it stays inside the top-level module.
            if ups == modpath.len() {
                path_targets(&t, j).into_iter().for_each(&mut add);
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
        let t = lex(&std::fs::read_to_string(&path).unwrap_or_default());
        if (0..t.len()).any(|i| ident(&t, i) == Some("unsafe")) {
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
    assert_eq!(
        path_targets(&lex("{a, b::{c, d}, e as f}"), 0),
        vec!["a", "b", "e"]
    );
}

/// The backends below the device layer, and the types that would name one from outside.
const BACKENDS: [&str; 3] = ["host", "cuda", "remote"];
const BACKEND_TYPES: [&str; 3] = ["HostDevice", "CudaDevice", "RemoteDevice"];

/// Places in `text` (one source file) that name a backend: a `device::host`-style path or a
/// backend's device type, outside its `#[cfg(test)] mod tests` (tests may build a concrete
/// device to stand in for any). Each as `line: what`.
fn backend_names(text: &str) -> Vec<String> {
    let t = lex(text);
    let tests_at = tests_start(&t);
    let mut found = Vec::new();
    for i in 0..tests_at {
        for b in BACKENDS {
            if spells(&t, i, &["device", ":", ":", b]) {
                found.push(format!("{}: device::{b}", t[i].line));
            }
        }
        if let Some(name) = ident(&t, i).filter(|n| BACKEND_TYPES.contains(n)) {
            found.push(format!("{}: {name}", t[i].line));
        }
    }
    found
}

/// Files of the runtime outside `device/` that name a backend.
fn backends_named_above_the_device_layer() -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for (path, modpath) in sources(&src) {
        if modpath.first().map(String::as_str) == Some("device") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let rel = path.strip_prefix(&src).unwrap_or(&path).display();
        found.extend(
            backend_names(&text)
                .into_iter()
                .map(|w| format!("{rel}:{w}")),
        );
    }
    found
}

#[test]
fn only_the_device_layer_names_a_backend() {
    let found = backends_named_above_the_device_layer();
    assert!(
        found.is_empty(),
        "a backend named outside device/ (reach its services through device::registry):\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn a_backend_named_outside_the_device_layer_is_found() {
    let text = "// device::host in a comment is fine\n\
                use crate::device::registry;\n\
                fn f() { crate::device::cuda::discover(); }\n\
                fn g(d: &spread_rt::device::remote::RemoteDevice) {}\n\
                fn h() -> HostDevice { todo!() }\n\
                #[cfg(test)]\nmod tests {\n    use crate::device::host::HostDevice;\n}\n";
    assert_eq!(
        backend_names(text),
        vec![
            "3: device::cuda",
            "4: device::remote",
            "4: RemoteDevice",
            "5: HostDevice"
        ]
    );
}

/// The longest a non-test function of the four crates may be (issue 46): past it a function
/// does several things that want names of their own.
const MAX_FUNCTION_LINES: usize = 150;

/// The functions of one source file longer than `max` lines, outside its test module, as
/// `line: name (N lines)`. A function's lines run from its `fn` to its body's closing brace.
fn long_functions(text: &str, max: usize) -> Vec<String> {
    let t = lex(text);
    let end = tests_start(&t);
    let mut found = Vec::new();
    let mut i = 0;
    while i < end {
        let Some(name) = (ident(&t, i) == Some("fn"))
            .then(|| ident(&t, i + 1))
            .flatten()
        else {
            i += 1;
            continue;
        };
        // The body is the first `{` after the signature; a `;` first is a declaration.
        let mut j = i + 2;
        while j < end && !punct(&t, j, '{') && !punct(&t, j, ';') {
            if punct(&t, j, '(') || punct(&t, j, '[') {
                j = close_of(&t, j);
            }
            j += 1;
        }
        if j >= end || punct(&t, j, ';') {
            i = j + 1;
            continue;
        }
        let close = close_of(&t, j);
        let lines = t[close.min(t.len() - 1)].line + 1 - t[i].line;
        if lines > max {
            found.push(format!("{}: {name} ({lines} lines)", t[i].line));
        }
        // Nested functions are counted inside their parent's lines, not again.
        i = close + 1;
    }
    found
}

#[test]
fn no_function_is_longer_than_150_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for krate in ["runtime", "driver", "pass", "remote-mpi"] {
        let src = root.join(krate).join("src");
        let mut stack = vec![src.clone()];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let text = std::fs::read_to_string(&p).unwrap_or_default();
                    let rel = p.strip_prefix(&root).unwrap_or(&p).display().to_string();
                    found.extend(
                        long_functions(&text, MAX_FUNCTION_LINES)
                            .into_iter()
                            .map(|f| format!("{rel}:{f}")),
                    );
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines (cut them into their steps):\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn a_long_function_is_found() {
    let body = "    let x = 1;\n".repeat(8);
    let text = format!(
        "fn short() {{\n{body}}}\nextern \"C\" {{ fn decl(a: [u8; 4]); }}\n\
         pub fn long<T: Fn(u8)>(f: T) -> Vec<u8> {{\n{body}{body}}}\n\
         #[cfg(test)]\nmod tests {{\n    fn long_test() {{\n{body}{body}{body}    }}\n}}\n"
    );
    assert_eq!(long_functions(&text, 12), vec!["12: long (18 lines)"]);
}
