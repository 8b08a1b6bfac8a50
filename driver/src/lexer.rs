//! A small C/C++ tokenizer, good enough to find directives, delimit statements and map
//! positions back to the source: it knows comments, string and character literals (raw strings
//! in C++), line continuations and preprocessor directive lines, and nothing about grammar.

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokKind {
    /// Identifier or keyword.
    Ident,
    /// Preprocessing number.
    Number,
    /// String literal (any prefix, raw strings included).
    Str,
    /// Character literal.
    Char,
    /// Punctuator (`::`, `<=`, `(`, ...).
    Punct,
    /// Any other character (stray `\`, `@`, ...).
    Other,
}

/// One token of a lexed text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokKind,
    /// Byte offset of its first character.
    pub start: usize,
    /// Byte offset just past its last character.
    pub end: usize,
    /// Physical line of its first character (0-based).
    pub line: u32,
    /// Byte column of its first character (0-based).
    pub col: u32,
    /// Directive the token belongs to: an index into [`Lexed::directives`], or `None` for code.
    pub dir: Option<u32>,
}

/// A preprocessor directive line (`#` first on a logical line, through its end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirectiveLine {
    /// Index of its `#` token.
    pub first_tok: usize,
    /// Index just past its last token.
    pub end_tok: usize,
    /// Byte offset of the `#`.
    pub start: usize,
    /// Byte offset of the newline that ends it (or the end of the text).
    pub end: usize,
    /// Physical line of the `#` (0-based).
    pub line: u32,
    /// Physical line of its last character (0-based); larger than `line` with continuations.
    pub last_line: u32,
}

/// Per physical line facts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineInfo {
    /// The line does not begin inside a comment, a raw string or a continued line.
    pub starts_clean: bool,
    /// A code token (not part of a directive) starts on this line.
    pub has_code: bool,
    /// Some directive covers (part of) this line.
    pub in_directive: bool,
}

/// The result of lexing a text.
#[derive(Debug, Clone, Default)]
pub struct Lexed {
    /// Tokens in order; comments and whitespace are dropped.
    pub tokens: Vec<Token>,
    /// Directive lines in order.
    pub directives: Vec<DirectiveLine>,
    /// Byte offset of the start of each physical line.
    pub line_starts: Vec<usize>,
    /// Facts about each physical line.
    pub lines: Vec<LineInfo>,
}

impl Lexed {
    /// The text of token `i` in `src`.
    pub fn text<'a>(&self, src: &'a str, i: usize) -> &'a str {
        let t = &self.tokens[i];
        &src[t.start..t.end]
    }

    /// Byte range of physical line `line` (0-based), without its newline.
    pub fn line_range(&self, src: &str, line: u32) -> (usize, usize) {
        let l = line as usize;
        let start = self.line_starts.get(l).copied().unwrap_or(src.len());
        let mut end = self
            .line_starts
            .get(l + 1)
            .map(|&s| s.saturating_sub(1))
            .unwrap_or(src.len());
        if end < start {
            end = start;
        }
        (start, end)
    }
}

const PUNCTS: &[&str] = &[
    "...", "<<=", ">>=", "->*", "<=>", "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=",
    "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##", ".*",
];

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80
}

fn is_ident_char(c: u8) -> bool {
    is_ident_start(c) || c.is_ascii_digit()
}

struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
    line: u32,
    line_start: usize,
    cxx: bool,
    out: Lexed,
    /// No token yet on the current logical line.
    at_line_start: bool,
    cur_dir: Option<u32>,
}

impl<'a> Lexer<'a> {
    fn peek(&self, k: usize) -> u8 {
        self.s.get(self.pos + k).copied().unwrap_or(0)
    }

    /// Length of a backslash-newline at `pos`, if there is one.
    fn splice_len(&self, pos: usize) -> usize {
        if self.s.get(pos) != Some(&b'\\') {
            return 0;
        }
        match (self.s.get(pos + 1), self.s.get(pos + 2)) {
            (Some(b'\n'), _) => 2,
            (Some(b'\r'), Some(b'\n')) => 3,
            _ => 0,
        }
    }

    /// Records that a newline ends at `nl` (the index of `\n`); `clean` tells whether the next
    /// line starts outside comments and continuations.
    fn newline_at(&mut self, nl: usize, clean: bool) {
        self.line += 1;
        self.line_start = nl + 1;
        self.out.line_starts.push(nl + 1);
        self.out.lines.push(LineInfo {
            starts_clean: clean,
            ..LineInfo::default()
        });
        if let Some(d) = self.cur_dir {
            if !clean {
                // a continued directive line
                if let Some(li) = self.out.lines.last_mut() {
                    li.in_directive = true;
                }
            } else {
                self.end_directive(d, nl);
            }
        }
    }

    fn end_directive(&mut self, d: u32, end: usize) {
        let n = self.out.tokens.len();
        let line = self.line.saturating_sub(1);
        if let Some(dl) = self.out.directives.get_mut(d as usize) {
            dl.end_tok = n;
            dl.end = end;
            dl.last_line = line.max(dl.line);
        }
        self.cur_dir = None;
    }

    /// Advances over `n` bytes that contain no newline other than inside splices.
    fn advance_over(&mut self, end: usize) {
        // Count newlines inside (they can only come from splices or raw strings).
        while self.pos < end {
            if self.s[self.pos] == b'\n' {
                let p = self.pos;
                self.pos += 1;
                self.newline_at(p, false);
            } else {
                self.pos += 1;
            }
        }
    }

    fn push(&mut self, kind: TokKind, start: usize, start_line: u32, start_col: u32) {
        if self.at_line_start && self.cur_dir.is_none() && kind == TokKind::Punct && {
            let t = &self.s[start..self.pos];
            t == b"#"
        } {
            let id = self.out.directives.len() as u32;
            self.out.directives.push(DirectiveLine {
                first_tok: self.out.tokens.len(),
                end_tok: self.out.tokens.len() + 1,
                start,
                end: self.s.len(),
                line: start_line,
                last_line: start_line,
            });
            self.cur_dir = Some(id);
            if let Some(li) = self.out.lines.get_mut(start_line as usize) {
                li.in_directive = true;
            }
        } else if self.cur_dir.is_none() {
            if let Some(li) = self.out.lines.get_mut(start_line as usize) {
                li.has_code = true;
            }
        }
        self.at_line_start = false;
        self.out.tokens.push(Token {
            kind,
            start,
            end: self.pos,
            line: start_line,
            col: start_col,
            dir: self.cur_dir,
        });
    }

    /// Scans a quoted literal starting at the opening quote `q`.
    fn quoted(&mut self, q: u8) {
        self.pos += 1;
        while self.pos < self.s.len() {
            let c = self.s[self.pos];
            if c == b'\\' {
                let sl = self.splice_len(self.pos);
                if sl > 0 {
                    let end = self.pos + sl;
                    self.advance_over(end);
                } else {
                    self.pos = (self.pos + 2).min(self.s.len());
                }
            } else if c == q {
                self.pos += 1;
                return;
            } else if c == b'\n' {
                return; // unterminated: stop at the end of the line
            } else {
                self.pos += 1;
            }
        }
    }

    /// Scans a raw string whose `"` is at the current position.
    fn raw_string(&mut self) {
        let open = self.pos;
        let mut p = open + 1;
        while p < self.s.len() && self.s[p] != b'(' && self.s[p] != b'\n' && p - open <= 17 {
            p += 1;
        }
        if self.s.get(p) != Some(&b'(') {
            self.quoted(b'"');
            return;
        }
        let delim = &self.s[open + 1..p];
        let mut close = Vec::with_capacity(delim.len() + 2);
        close.push(b')');
        close.extend_from_slice(delim);
        close.push(b'"');
        let body = &self.s[p + 1..];
        let end = body
            .windows(close.len())
            .position(|w| w == close.as_slice())
            .map(|i| p + 1 + i + close.len())
            .unwrap_or(self.s.len());
        self.advance_over(end);
    }

    fn run(mut self) -> Lexed {
        self.out.line_starts.push(0);
        self.out.lines.push(LineInfo {
            starts_clean: true,
            ..LineInfo::default()
        });
        while self.pos < self.s.len() {
            let c = self.s[self.pos];
            let start = self.pos;
            let start_line = self.line;
            let start_col = (self.pos - self.line_start) as u32;
            match c {
                b'\n' => {
                    self.pos += 1;
                    self.at_line_start = true;
                    self.newline_at(start, true);
                }
                b' ' | b'\t' | b'\r' | 0x0b | 0x0c => self.pos += 1,
                b'\\' if self.splice_len(self.pos) > 0 => {
                    let end = self.pos + self.splice_len(self.pos);
                    self.advance_over(end);
                }
                b'/' if self.peek(1) == b'/' => {
                    // line comment, possibly continued
                    while self.pos < self.s.len() && self.s[self.pos] != b'\n' {
                        let sl = self.splice_len(self.pos);
                        if sl > 0 {
                            let end = self.pos + sl;
                            self.advance_over(end);
                        } else {
                            self.pos += 1;
                        }
                    }
                }
                b'/' if self.peek(1) == b'*' => {
                    let end = self.s[self.pos + 2..]
                        .windows(2)
                        .position(|w| w == b"*/")
                        .map(|i| self.pos + 2 + i + 2)
                        .unwrap_or(self.s.len());
                    self.advance_over(end);
                }
                b'"' | b'\'' => {
                    self.quoted(c);
                    let kind = if c == b'"' {
                        TokKind::Str
                    } else {
                        TokKind::Char
                    };
                    self.push(kind, start, start_line, start_col);
                }
                c if c.is_ascii_digit() || (c == b'.' && self.peek(1).is_ascii_digit()) => {
                    self.pos += 1;
                    loop {
                        let d = self.peek(0);
                        let exponent_sign = (d == b'+' || d == b'-')
                            && matches!(self.s[self.pos - 1], b'e' | b'E' | b'p' | b'P');
                        if exponent_sign || is_ident_char(d) || d == b'.' {
                            self.pos += 1;
                        } else if d == b'\'' && self.cxx && is_ident_char(self.peek(1)) {
                            self.pos += 2;
                        } else {
                            break;
                        }
                    }
                    self.push(TokKind::Number, start, start_line, start_col);
                }
                c if is_ident_start(c) => {
                    while self.pos < self.s.len() && is_ident_char(self.s[self.pos]) {
                        self.pos += 1;
                    }
                    let word = &self.s[start..self.pos];
                    let next = self.peek(0);
                    let prefix = matches!(word, b"L" | b"u" | b"U" | b"u8");
                    let raw_prefix = matches!(word, b"R" | b"LR" | b"uR" | b"UR" | b"u8R");
                    if raw_prefix && self.cxx && next == b'"' {
                        self.raw_string();
                        self.push(TokKind::Str, start, start_line, start_col);
                    } else if prefix && (next == b'"' || next == b'\'') {
                        self.quoted(next);
                        let kind = if next == b'"' {
                            TokKind::Str
                        } else {
                            TokKind::Char
                        };
                        self.push(kind, start, start_line, start_col);
                    } else {
                        self.push(TokKind::Ident, start, start_line, start_col);
                    }
                }
                _ => {
                    let rest = &self.s[self.pos..];
                    let len = PUNCTS
                        .iter()
                        .find(|p| rest.starts_with(p.as_bytes()))
                        .map(|p| p.len())
                        .unwrap_or(1);
                    let kind = if c.is_ascii_punctuation() {
                        TokKind::Punct
                    } else {
                        TokKind::Other
                    };
                    // keep multi-byte UTF-8 characters whole
                    let mut end = self.pos + len;
                    while end < self.s.len() && (self.s[end] & 0xc0) == 0x80 {
                        end += 1;
                    }
                    self.pos = end;
                    self.push(kind, start, start_line, start_col);
                }
            }
        }
        if let Some(d) = self.cur_dir {
            let end = self.s.len();
            self.line += 1;
            self.end_directive(d, end);
        }
        self.out
    }
}

/// Lexes `src`; `cxx` enables C++-only lexemes (raw strings, digit separators).
pub fn lex(src: &str, cxx: bool) -> Lexed {
    Lexer {
        s: src.as_bytes(),
        pos: 0,
        line: 0,
        line_start: 0,
        cxx,
        out: Lexed::default(),
        at_line_start: true,
        cur_dir: None,
    }
    .run()
}

/// Index of the token that closes the bracket opened at `open` (`(`, `[` or `{`), counting
/// all three kinds; `None` when unbalanced before `limit`.
pub fn matching_close(src: &str, toks: &[Token], open: usize, limit: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, t) in toks.iter().enumerate().take(limit).skip(open) {
        if t.kind != TokKind::Punct {
            continue;
        }
        match &src[t.start..t.end] {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
                if depth < 0 {
                    return None;
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str, cxx: bool) -> Vec<String> {
        let l = lex(src, cxx);
        (0..l.tokens.len())
            .map(|i| l.text(src, i).to_string())
            .collect()
    }

    #[test]
    fn tokens_and_comments() {
        let src = "int a = b<=c; // x\n/* y\n z */ s = \"a//b\" 'c' 1e+5 x->y ::q";
        assert_eq!(
            texts(src, false),
            [
                "int", "a", "=", "b", "<=", "c", ";", "s", "=", "\"a//b\"", "'c'", "1e+5", "x",
                "->", "y", "::", "q"
            ]
        );
        let l = lex(src, false);
        assert!(l.lines[0].starts_clean && l.lines[1].starts_clean && !l.lines[2].starts_clean);
        assert_eq!(l.tokens[7].line, 2);
        assert_eq!(l.tokens[7].col, 6);
    }

    #[test]
    fn directives_with_continuations() {
        let src = "x;\n  #pragma omp target \\\n  spread devices(1)\nfor";
        let l = lex(src, false);
        assert_eq!(l.directives.len(), 1);
        let d = l.directives[0];
        assert_eq!(d.line, 1);
        assert_eq!(d.last_line, 2);
        let words: Vec<_> = (d.first_tok..d.end_tok).map(|i| l.text(src, i)).collect();
        assert_eq!(
            words,
            ["#", "pragma", "omp", "target", "spread", "devices", "(", "1", ")"]
        );
        assert_eq!(l.tokens[d.end_tok].dir, None);
        assert!(l.lines[2].in_directive && !l.lines[2].starts_clean);
        assert!(l.lines[3].has_code && l.lines[3].starts_clean);
        // '#' not first on its line is no directive
        assert!(lex("a # b\n", false).directives.is_empty());
    }

    #[test]
    fn raw_strings_and_prefixes() {
        let src = "auto s = R\"x(a)\"\n)x\"; u8\"q\" L'c'";
        assert_eq!(
            texts(src, true),
            ["auto", "s", "=", "R\"x(a)\"\n)x\"", ";", "u8\"q\"", "L'c'"]
        );
        assert_eq!(texts("1'000", true), ["1'000"]);
    }

    #[test]
    fn brackets() {
        let src = "f(a[(1)], {2})";
        let l = lex(src, false);
        assert_eq!(matching_close(src, &l.tokens, 1, l.tokens.len()), Some(12));
        assert_eq!(matching_close(src, &l.tokens, 1, 5), None);
    }
}
