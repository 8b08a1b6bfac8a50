//! Clang's diagnostics on the lines the driver rewrote, pointed back at the user's code.
//!
//! The lines a construct touches (the pragma through the loop header, and the construct's last
//! line) are replaced in the lowered file by generated code that keeps their presumed line
//! numbers (`#line`), but not their columns: clang would report `f.c:4:108` and quote
//! `{ static const __spread_construct_t ...` for a type error in a `map` clause. The driver
//! reads clang's stderr and rewrites each diagnostic whose quoted line is not the user's line:
//! the token under the caret is looked up, with its neighbours as context, in the user's source
//! lines from the presumed line on, and the location, the quoted line and the caret are replaced
//! by the user's. Diagnostics on untouched lines (the quoted line is the user's) and those whose
//! token cannot be found are passed on unchanged.

use crate::lexer::{lex, TokKind};

/// A lowered input: the file name clang prints for it and the user's source text.
#[derive(Debug, Clone)]
pub struct Lowered {
    /// Presumed file name (as the `#line` directives of the lowered file spell it).
    pub name: String,
    /// The user's source.
    pub text: String,
    /// C++.
    pub cxx: bool,
}

/// How many source lines from the presumed line on are searched (a pragma continued over
/// several lines, a loop header after its pragma).
const SEARCH_LINES: usize = 24;
/// How many tokens on each side of the caret's token serve as context.
const CONTEXT: usize = 3;

/// Removes ANSI escape sequences (clang's colors).
fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\u{1b}' {
            if it.peek() == Some(&'[') {
                it.next();
                for d in it.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// `file:line:col: kind: message` → (file, line, col, rest after the column).
fn parse_header(s: &str) -> Option<(&str, u32, u32, &str)> {
    // the file name may contain ':'; the kinds clang prints follow ": "
    for kind in [
        ": error: ",
        ": warning: ",
        ": note: ",
        ": remark: ",
        ": fatal error: ",
    ] {
        let Some(k) = s.find(kind) else { continue };
        let head = &s[..k];
        let mut parts = head.rsplitn(3, ':');
        let col = parts.next()?.parse().ok()?;
        let line = parts.next()?.parse().ok()?;
        let file = parts.next()?;
        return Some((file, line, col, &s[k..]));
    }
    None
}

/// `  12 | text` → text.
fn parse_snippet(s: &str) -> Option<&str> {
    let bar = s.find(" | ")?;
    let num = s[..bar].trim();
    if num.is_empty() || !num.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some(&s[bar + 3..])
}

/// `     |      ^~~~` → (display column of '^' (0-based), the marker text).
fn parse_caret(s: &str) -> Option<(usize, String)> {
    let bar = s.find('|')?;
    if !s[..bar].trim().is_empty() {
        return None;
    }
    let rest = s.get(bar + 2..)?;
    let col = rest.find('^')?;
    Some((col, rest[col..].trim_end().to_string()))
}

/// Token texts of `line` with their byte columns.
fn tokens(line: &str, cxx: bool) -> Vec<(String, usize)> {
    let l = lex(line, cxx);
    l.tokens
        .iter()
        .filter(|t| t.kind != TokKind::Other || t.end > t.start)
        .map(|t| (line[t.start..t.end].to_string(), t.start))
        .collect()
}

/// Where, in `src` lines `from..`, the token at byte column `col` of `quoted` is: (1-based
/// line, 0-based byte column).
fn find(src: &[&str], from: usize, quoted: &str, col: usize, cxx: bool) -> Option<(u32, usize)> {
    let q = tokens(quoted, cxx);
    let qi = q
        .iter()
        .position(|(t, c)| col >= *c && col < c + t.len().max(1))?;
    let want = &q[qi].0;
    let mut best: Option<(usize, u32, usize)> = None; // (score, line, col)
    let to = (from + SEARCH_LINES).min(src.len());
    // the tokens of the searched lines, in order, with their positions
    let mut all: Vec<(String, u32, usize)> = Vec::new();
    for (l, text) in src.iter().enumerate().take(to).skip(from) {
        for (t, c) in tokens(text, cxx) {
            all.push((t, l as u32 + 1, c));
        }
    }
    for (k, (t, line, c)) in all.iter().enumerate() {
        if t != want {
            continue;
        }
        let mut score = 1;
        for d in 1..=CONTEXT {
            if qi >= d && k >= d && q[qi - d].0 == all[k - d].0 {
                score += 1;
            }
            if qi + d < q.len() && k + d < all.len() && q[qi + d].0 == all[k + d].0 {
                score += 1;
            }
        }
        if best.is_none_or(|(s, _, _)| score > s) {
            best = Some((score, *line, *c));
        }
    }
    best.map(|(_, l, c)| (l, c))
}

/// Display column of byte column `col` in `line` (tabs to multiples of 8, as clang shows them)
/// and the line as displayed.
fn display(line: &str, col: usize) -> (String, usize) {
    let mut out = String::new();
    let mut caret = None;
    for (i, ch) in line.char_indices() {
        if i == col {
            caret = Some(out.chars().count());
        }
        if ch == '\t' {
            let n = 8 - out.chars().count() % 8;
            out.push_str(&" ".repeat(n));
        } else {
            out.push(ch);
        }
    }
    let caret = caret.unwrap_or(out.chars().count());
    (out, caret)
}

/// Rewrites clang's stderr `text` (whole lines) for the `lowered` inputs.
pub fn remap(text: &str, lowered: &[Lowered]) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < lines.len() {
        if let Some((r, used)) = remap_one(&lines[i..], lowered) {
            out.push_str(&r);
            i += used;
        } else {
            out.push_str(lines[i]);
            i += 1;
        }
    }
    out
}

/// The diagnostic starting at `lines[0]` (header, quoted line, caret and an optional fix-it
/// line), rewritten, if it is on a rewritten line of a lowered input; and how many lines it
/// used.
fn remap_one(lines: &[&str], lowered: &[Lowered]) -> Option<(String, usize)> {
    if lines.len() < 3 {
        return None;
    }
    let header = strip_ansi(lines[0].trim_end_matches(['\n', '\r']));
    let (file, line, col, rest) = parse_header(&header)?;
    let input = lowered.iter().find(|l| l.name == file)?;
    let snippet_line = strip_ansi(lines[1].trim_end_matches(['\n', '\r']));
    let quoted = parse_snippet(&snippet_line)?;
    let caret_line = strip_ansi(lines[2].trim_end_matches(['\n', '\r']));
    let (old_caret, marker) = parse_caret(&caret_line)?;
    let src: Vec<&str> = input.text.lines().collect();
    let l0 = (line as usize).checked_sub(1)?;
    let own = src.get(l0)?;
    let (own_shown, _) = display(own, 0);
    if own_shown.trim_end() == quoted.trim_end() {
        return None; // the user's own line: clang's location is right
    }
    let (new_line, new_col) = find(&src, l0, quoted, col.checked_sub(1)? as usize, input.cxx)?;
    let text = src.get(new_line as usize - 1)?;
    let (shown, caret) = display(text, new_col);
    let width = 5.max(new_line.to_string().len());
    let marker = if marker.len() > 1 {
        // keep the '^~~~' range within the line
        let room = shown.chars().count().saturating_sub(caret).max(1);
        marker.chars().take(room).collect()
    } else {
        marker
    };
    let mut out = format!(
        "{file}:{new_line}:{}{rest}\n{new_line:>width$} | {shown}\n{:>width$} | {}{marker}\n",
        new_col + 1,
        "",
        " ".repeat(caret),
    );
    // a fix-it line under the caret line moves with the caret
    let mut used = 3;
    if let Some(fix) = lines.get(3) {
        let fix = strip_ansi(fix.trim_end_matches(['\n', '\r']));
        if let Some(bar) = fix.find('|').filter(|&b| fix[..b].trim().is_empty()) {
            if parse_header(&fix).is_none() && !fix.contains('^') {
                let body = fix.get(bar + 2..).unwrap_or("");
                let lead = body.len() - body.trim_start().len();
                let moved = (lead + caret).saturating_sub(old_caret);
                out.push_str(&format!(
                    "{:>width$} | {}{}\n",
                    "",
                    " ".repeat(moved),
                    body.trim()
                ));
                used = 4;
            }
        }
    }
    Some((out, used))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> Vec<Lowered> {
        vec![Lowered {
            name: "e6.c".into(),
            text: "struct S { int x; };\nint main(void) {\n  int n = 10; double A[10]; struct S s;\n#pragma omp target spread teams distribute parallel for devices(0) map(tofrom: A[s:n])\n  for (int i = 0; i < n; i++) A[i] = s;\n  return 0;\n}\n".into(),
            cxx: false,
        }]
    }

    #[test]
    fn map_clause_and_loop_body() {
        let clang = "e6.c:4:108: error: expression must have integral or unscoped enumeration type, not 'struct S'\n    4 | #pragma omp target teams distribute parallel for device(__spread_chunk_device(__spread_r_0)) map(tofrom: A[s:n])\n      |                                                                                                            ^\ne6.c:5:91: error: assigning to 'double' from incompatible type 'struct S'\n    5 |   for (int i = omp_spread_start; i < (int)(omp_spread_start + omp_spread_size); i++) A[i] = s; } __spread_region_end(__spread_r_0); }\n      |                                                                                           ^ ~\n2 errors generated.\n";
        let out = remap(clang, &input());
        assert_eq!(out, "e6.c:4:82: error: expression must have integral or unscoped enumeration type, not 'struct S'\n    4 | #pragma omp target spread teams distribute parallel for devices(0) map(tofrom: A[s:n])\n      |                                                                                  ^\ne6.c:5:36: error: assigning to 'double' from incompatible type 'struct S'\n    5 |   for (int i = 0; i < n; i++) A[i] = s;\n      |                                    ^ ~\n2 errors generated.\n");
    }

    #[test]
    fn untouched_lines_and_other_files_pass_through() {
        let clang = "e6.c:6:3: warning: x\n    6 |   return 0;\n      |   ^\nother.c:4:1: error: y\n    4 | zz\n      | ^\n";
        assert_eq!(remap(clang, &input()), clang);
        // colors are stripped for matching
        let colored = "\u{1b}[1me6.c:4:108: \u{1b}[0m\u{1b}[0;1;31merror: \u{1b}[0mbad\n    4 | #pragma omp target teams distribute parallel for device(__spread_chunk_device(__spread_r_0)) map(tofrom: A[s:n])\n      | \u{1b}[0;1;32m                                                                                                           ^\n\u{1b}[0m";
        assert!(remap(colored, &input()).starts_with("e6.c:4:82: error: bad\n"));
    }
}
