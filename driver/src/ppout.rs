//! The preprocessor's output (`clang -E`): its tokens and, for every physical line, the source
//! file and line it came from (from the `# LINE "FILE" FLAGS` markers clang writes).

use crate::lexer::{lex, Lexed, TokKind};

/// Where a physical line of the preprocessed output comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PpLine {
    /// Index into [`PpOutput::files`].
    pub file: u32,
    /// Presumed line (1-based).
    pub line: u32,
    /// The line is a line marker (it is not part of the program).
    pub marker: bool,
}

/// Preprocessed output with its line map.
#[derive(Debug, Clone)]
pub struct PpOutput {
    /// The text clang printed.
    pub text: String,
    /// Its tokens.
    pub lexed: Lexed,
    /// Presumed file names, as clang spelled them in the markers (unescaped).
    pub files: Vec<String>,
    /// Index of the main source file in `files`.
    pub main_file: u32,
    /// One entry per physical line of `text`.
    pub lines: Vec<PpLine>,
    /// The text is C++ (else C).
    pub cxx: bool,
}

/// Undoes the escaping of a C string literal's body (only what clang's markers use).
pub fn unescape_c(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut it = body.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(o) => out.push(o),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Escapes `s` for use inside a C string literal.
pub fn escape_c(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\{:03o}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

impl PpOutput {
    /// Parses `text`, the output of `clang -E` for `main_name` (used when the output has no
    /// marker at all).
    pub fn parse(text: String, cxx: bool, main_name: &str) -> PpOutput {
        let lexed = lex(&text, cxx);
        let nlines = lexed.line_starts.len();
        // marker directive starting at each physical line: (line, file name)
        let mut marker_at: Vec<Option<(u32, String)>> = vec![None; nlines];
        for d in &lexed.directives {
            let t = &lexed.tokens;
            let first = d.first_tok;
            let mut k = first + 1;
            if k < d.end_tok && t[k].kind == TokKind::Ident && lexed.text(&text, k) == "line" {
                k += 1;
            }
            if k + 1 < d.end_tok && t[k].kind == TokKind::Number && t[k + 1].kind == TokKind::Str {
                let num: u32 = lexed.text(&text, k).parse().unwrap_or(1);
                let s = lexed.text(&text, k + 1);
                let name = if s.len() >= 2 {
                    unescape_c(&s[1..s.len() - 1])
                } else {
                    String::new()
                };
                marker_at[d.line as usize] = Some((num, name));
            }
        }
        let mut files: Vec<String> = Vec::new();
        let mut main_file: Option<u32> = None;
        let mut lines = Vec::with_capacity(nlines);
        let mut cur_file = 0u32;
        let mut cur_line = 1u32;
        let file_id = |files: &mut Vec<String>, name: &str| -> u32 {
            match files.iter().position(|f| f == name) {
                Some(i) => i as u32,
                None => {
                    files.push(name.to_string());
                    (files.len() - 1) as u32
                }
            }
        };
        for (phys, m) in marker_at.iter().enumerate() {
            let continued = !lexed
                .lines
                .get(phys)
                .map(|l| l.starts_clean)
                .unwrap_or(true);
            match m {
                Some((num, name)) => {
                    let id = file_id(&mut files, name);
                    if main_file.is_none() {
                        main_file = Some(id);
                    }
                    lines.push(PpLine {
                        file: id,
                        line: cur_line,
                        marker: true,
                    });
                    cur_file = id;
                    cur_line = *num;
                }
                None if continued => {
                    // inside a token that spans lines (a raw string): clang does not count
                    // these newlines, the line belongs to the token's first line
                    lines.push(PpLine {
                        file: cur_file,
                        line: cur_line.saturating_sub(1).max(1),
                        marker: false,
                    });
                }
                None => {
                    if files.is_empty() {
                        files.push(main_name.to_string());
                        main_file = Some(0);
                    }
                    lines.push(PpLine {
                        file: cur_file,
                        line: cur_line,
                        marker: false,
                    });
                    cur_line += 1;
                }
            }
        }
        if files.is_empty() {
            files.push(main_name.to_string());
        }
        PpOutput {
            text,
            lexed,
            files,
            main_file: main_file.unwrap_or(0),
            lines,
            cxx,
        }
    }

    /// The physical line holding byte offset `off` (a newline belongs to the line it ends).
    pub fn phys_line_of(&self, off: usize) -> u32 {
        match self.lexed.line_starts.binary_search(&off) {
            Ok(i) => i as u32,
            Err(i) => i.saturating_sub(1) as u32,
        }
    }

    /// Presumed location of physical line `phys`.
    pub fn line_info(&self, phys: u32) -> PpLine {
        self.lines.get(phys as usize).copied().unwrap_or(PpLine {
            file: self.main_file,
            line: 1,
            marker: false,
        })
    }

    /// Whether directive `d` is a line marker.
    pub fn is_marker(&self, d: usize) -> bool {
        self.lexed
            .directives
            .get(d)
            .map(|dl| self.line_info(dl.line).marker)
            .unwrap_or(false)
    }

    /// Presumed file name of index `f`.
    pub fn file_name(&self, f: u32) -> &str {
        self.files.get(f as usize).map(|s| s.as_str()).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_map_lines() {
        let text = "# 1 \"a.c\"\n# 1 \"<built-in>\" 1\n# 1 \"a.c\" 2\nint x;\n\n# 7 \"a\\\\b.h\" 1\nint y;\n# 3 \"a.c\" 2\nint z;\n";
        let pp = PpOutput::parse(text.to_string(), false, "a.c");
        assert_eq!(pp.file_name(pp.main_file), "a.c");
        let l = pp.line_info(3);
        assert_eq!((pp.file_name(l.file), l.line, l.marker), ("a.c", 1, false));
        let l = pp.line_info(6);
        assert_eq!((pp.file_name(l.file), l.line), ("a\\b.h", 7));
        let l = pp.line_info(8);
        assert_eq!((pp.file_name(l.file), l.line), ("a.c", 3));
        assert!(pp.line_info(7).marker);
        assert_eq!(pp.phys_line_of(text.find("int z").unwrap_or(0)), 8);
    }

    #[test]
    fn raw_string_lines_are_not_counted() {
        // clang -E does not count the newlines inside a raw string
        let text = "# 1 \"a.cpp\"\nauto s = R\"(\n)\";\n\nint x;\n";
        let pp = PpOutput::parse(text.to_string(), true, "a.cpp");
        assert_eq!(pp.line_info(2).line, 1);
        assert_eq!(pp.line_info(3).line, 2);
        assert_eq!(pp.line_info(4).line, 3);
    }

    #[test]
    fn escapes() {
        assert_eq!(escape_c("a\"b\\c"), "a\\\"b\\\\c");
        assert_eq!(unescape_c("a\\\"b\\\\c"), "a\"b\\c");
    }
}
