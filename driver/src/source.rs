//! The user's source file as written, and the mapping of positions in the preprocessed output
//! back to it for diagnostics.

use crate::diag::Loc;
use crate::lexer::{lex, Lexed, TokKind, Token};
use crate::ppout::{unescape_c, PpOutput};

/// A source file and its tokens.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Its text.
    pub text: String,
    /// Its tokens and line facts.
    pub lexed: Lexed,
}

impl SourceFile {
    /// Lexes `text`.
    pub fn new(text: String, cxx: bool) -> SourceFile {
        let lexed = lex(&text, cxx);
        SourceFile { text, lexed }
    }

    /// Number of lines.
    pub fn line_count(&self) -> u32 {
        let n = self.lexed.line_starts.len() as u32;
        // a final newline does not start a line
        if self.text.ends_with('\n') {
            n - 1
        } else {
            n
        }
    }

    /// Text of 1-based line `line` including its newline (if any).
    pub fn line_with_newline(&self, line: u32) -> &str {
        let i = line.saturating_sub(1) as usize;
        let start = self
            .lexed
            .line_starts
            .get(i)
            .copied()
            .unwrap_or(self.text.len());
        let end = self
            .lexed
            .line_starts
            .get(i + 1)
            .copied()
            .unwrap_or(self.text.len());
        &self.text[start..end.max(start)]
    }

    /// Text of 1-based line `line`, without newline.
    pub fn line_text(&self, line: u32) -> String {
        self.line_with_newline(line)
            .trim_end_matches(['\n', '\r'])
            .to_string()
    }

    /// Indices of the tokens that start on 0-based physical line `line`.
    fn tokens_on_line(&self, line: u32) -> std::ops::Range<usize> {
        let t = &self.lexed.tokens;
        let lo = t.partition_point(|x| x.line < line);
        let hi = t.partition_point(|x| x.line <= line);
        lo..hi
    }

    /// The 1-based line of the first `#line` directive or line marker, if any (after one,
    /// presumed lines are not physical lines).
    pub fn first_line_directive(&self) -> Option<u32> {
        self.lexed
            .directives
            .iter()
            .find(|d| {
                let k = d.first_tok + 1;
                k < d.end_tok
                    && (self.lexed.tokens[k].kind == TokKind::Number
                        || self.lexed.text(&self.text, k) == "line")
            })
            .map(|d| d.line + 1)
    }
}

fn texts<'a>(src: &'a str, toks: &[Token]) -> Vec<&'a str> {
    toks.iter().map(|t| &src[t.start..t.end]).collect()
}

/// Finds the token of `to` that corresponds to token `idx` of `from`: by common prefix, by
/// common suffix, and else the first token where the two differ (typically the macro that
/// produced the rest).
fn align(from: &[&str], idx: usize, to: &[&str]) -> Option<usize> {
    if to.is_empty() {
        return None;
    }
    let p = from
        .iter()
        .zip(to.iter())
        .take_while(|(a, b)| a == b)
        .count();
    if idx < p {
        return Some(idx);
    }
    let q = from
        .iter()
        .rev()
        .zip(to.iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let from_end = from.len().saturating_sub(idx);
    if from_end <= q && from_end > 0 && from.len() - p >= from_end {
        return Some(to.len() - from_end);
    }
    Some(p.min(to.len() - 1))
}

/// Maps positions of the preprocessed output to the files the user wrote.
pub struct Locator<'a> {
    pp: &'a PpOutput,
    main: &'a SourceFile,
}

impl<'a> Locator<'a> {
    /// A locator for `pp`, the preprocessed `main`.
    pub fn new(pp: &'a PpOutput, main: &'a SourceFile) -> Locator<'a> {
        Locator { pp, main }
    }

    /// The location, in the user's files, of byte `off` of the preprocessed output.
    pub fn locate(&self, off: usize) -> Loc {
        let pp = self.pp;
        let phys = pp.phys_line_of(off);
        let info = pp.line_info(phys);
        let file = pp.file_name(info.file).to_string();
        let line_start = pp
            .lexed
            .line_starts
            .get(phys as usize)
            .copied()
            .unwrap_or(0);
        let pp_col = off.saturating_sub(line_start);
        if info.file != pp.main_file {
            let source_line = std::fs::read_to_string(&file).ok().and_then(|t| {
                t.lines()
                    .nth(info.line.saturating_sub(1) as usize)
                    .map(String::from)
            });
            return Loc {
                file,
                line: info.line,
                col: pp_col as u32 + 1,
                source_line,
            };
        }
        // the preprocessed token at (or just before) `off`
        let toks = &pp.lexed.tokens;
        let ti = toks.partition_point(|t| t.start <= off).saturating_sub(1);
        let past_end = toks
            .get(ti)
            .map(|t| off >= t.end && off > t.start)
            .unwrap_or(true);
        if let Some(t) = toks.get(ti).filter(|t| t.line == phys || t.dir.is_some()) {
            if let Some(d) = t.dir {
                if let Some(loc) = self.locate_in_pragma(d as usize, ti, past_end, info.line) {
                    return Loc { file, ..loc };
                }
            } else if !past_end {
                if let Some(loc) = self.locate_code(ti, info.line, pp_col as u32) {
                    return Loc { file, ..loc };
                }
            }
        }
        let text = self.main.line_text(info.line);
        let col = (pp_col.min(text.len()) + 1) as u32;
        Loc {
            file,
            line: info.line,
            col,
            source_line: Some(text),
        }
    }

    fn loc_at(&self, line0: u32, col0: u32) -> Loc {
        Loc {
            file: String::new(),
            line: line0 + 1,
            col: col0 + 1,
            source_line: Some(self.main.line_text(line0 + 1)),
        }
    }

    /// A token of a preprocessed pragma: find the pragma (or `_Pragma`) on the source line.
    fn locate_in_pragma(&self, d: usize, ti: usize, past_end: bool, line: u32) -> Option<Loc> {
        let pp = self.pp;
        let dl = pp.lexed.directives.get(d)?;
        let pp_toks = &pp.lexed.tokens[dl.first_tok..dl.end_tok];
        let pp_texts = texts(&pp.text, pp_toks);
        let idx = ti.checked_sub(dl.first_tok)?;
        let src = &self.main;
        // a #pragma line starting on `line`
        let dirs = &src.lexed.directives;
        let first = dirs.partition_point(|od| od.line + 1 < line);
        if let Some(od) = dirs.get(first).filter(|od| od.line + 1 == line) {
            let otoks = &src.lexed.tokens[od.first_tok..od.end_tok];
            let otexts = texts(&src.text, otoks);
            let j = align(&pp_texts, idx, &otexts)?;
            let t = otoks[j];
            if past_end {
                let end_col = t.col + (t.end - t.start) as u32;
                return Some(self.loc_at(t.line, end_col));
            }
            return Some(self.loc_at(t.line, t.col));
        }
        // _Pragma("...") on the line
        let range = src.tokens_on_line(line - 1);
        let toks = &src.lexed.tokens;
        let kw = range
            .clone()
            .find(|&i| toks[i].kind == TokKind::Ident && src.lexed.text(&src.text, i) == "_Pragma");
        if let Some(kw) = kw {
            let s = toks.get(kw + 2).filter(|t| t.kind == TokKind::Str);
            if let Some(st) = s {
                let lit = &src.text[st.start..st.end];
                let q = lit.find('"').unwrap_or(0);
                let body = unescape_c(lit.get(q + 1..lit.len().saturating_sub(1)).unwrap_or(""));
                let inner = lex(&body, false);
                let itexts = texts(&body, &inner.tokens);
                // the string holds the directive without "#pragma"
                if idx >= 2 {
                    if let Some(j) = align(&pp_texts[2..], idx - 2, &itexts) {
                        let it = inner.tokens[j];
                        let col = st.col + q as u32 + 1 + it.start as u32;
                        if st.line == toks[kw].line {
                            return Some(self.loc_at(st.line, col));
                        }
                    }
                }
            }
            return Some(self.loc_at(toks[kw].line, toks[kw].col));
        }
        // produced by a macro: the first token of the line
        let first = range.clone().next()?;
        Some(self.loc_at(toks[first].line, toks[first].col))
    }

    /// A code token: the source token with the same text at (or nearest to) its column.
    fn locate_code(&self, ti: usize, line: u32, pp_col: u32) -> Option<Loc> {
        let pp = self.pp;
        let t = pp.lexed.tokens.get(ti)?;
        let want = &pp.text[t.start..t.end];
        let src = &self.main;
        let range = src.tokens_on_line(line.checked_sub(1)?);
        let best = range
            .filter(|&i| src.lexed.text(&src.text, i) == want)
            .min_by_key(|&i| (src.lexed.tokens[i].col as i64 - pp_col as i64).abs())?;
        let ot = src.lexed.tokens[best];
        Some(self.loc_at(ot.line, ot.col))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc_of(orig: &str, pp_text: &str, needle: &str, nth: usize) -> (u32, u32) {
        let src = SourceFile::new(orig.to_string(), false);
        let pp = PpOutput::parse(pp_text.to_string(), false, "a.c");
        let off = pp_text
            .match_indices(needle)
            .nth(nth)
            .map(|(i, _)| i)
            .unwrap_or(0);
        let l = Locator::new(&pp, &src).locate(off);
        (l.line, l.col)
    }

    #[test]
    fn pragma_with_continuations() {
        let orig = "#define DEVS 2,0\nint x;\n#pragma omp target spread \\\n   devices(DEVS) \\\n  spread_schedule(dynamic)\nfor (;;);\n";
        let pp = "# 1 \"a.c\"\n\nint x;\n#pragma omp target spread devices(2,0) spread_schedule(dynamic)\n\n\nfor (;;);\n";
        assert_eq!(loc_of(orig, pp, "dynamic", 0), (5, 19));
        assert_eq!(loc_of(orig, pp, "devices", 0), (4, 4));
        // inside the macro expansion: the macro
        assert_eq!(loc_of(orig, pp, "0)", 0), (4, 12));
        assert_eq!(loc_of(orig, pp, "for", 0), (6, 1));
    }

    #[test]
    fn underscore_pragma() {
        let orig = "void f() {\n  x = 1; _Pragma(\"omp target spread devices()\") for (;;);\n}\n";
        let pp = "# 1 \"a.c\"\nvoid f() {\n  x = 1;\n# 2 \"a.c\"\n#pragma omp target spread devices()\n# 2 \"a.c\"\n                                              for (;;);\n}\n";
        assert_eq!(loc_of(orig, pp, ")\n# 2", 0), (2, 45));
        assert_eq!(loc_of(orig, pp, "for", 0), (2, 49));
    }

    #[test]
    fn line_count() {
        assert_eq!(SourceFile::new("a\nb\n".into(), false).line_count(), 2);
        assert_eq!(SourceFile::new("a\nb".into(), false).line_count(), 2);
        assert_eq!(
            SourceFile::new("x;\n#line 3 \"x\"\n".into(), false).first_line_directive(),
            Some(2)
        );
    }
}
