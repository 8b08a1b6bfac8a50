//! What the source-reading tests share (`tests/exports.rs`, `tests/layers.rs`): a small Rust
//! lexer, so that comments and string literals are never mistaken for code.

// Each test crate uses part of it.
#![allow(dead_code)]

/// A token's kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Ident(String),
    Str(String),
    Punct(char),
    /// Numbers, character literals, lifetimes.
    Other,
}

/// A token and where it is.
#[derive(Debug, Clone)]
pub struct Token {
    /// What it is.
    pub tok: Tok,
    /// The line it starts on (from 1).
    pub line: usize,
}

pub fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

pub fn is_ident_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// The identifier starting at `i`, and the index after it.
pub fn read_ident(c: &[char], i: usize) -> (String, usize) {
    let mut k = i;
    while k < c.len() && is_ident_char(c[k]) {
        k += 1;
    }
    (c[i..k].iter().collect(), k)
}

/// The contents of the plain string literal whose opening quote is at `i`, and the index after
/// its closing quote.
pub fn read_str(c: &[char], i: usize, line: &mut usize) -> (String, usize) {
    let mut s = String::new();
    let mut k = i + 1;
    while k < c.len() && c[k] != '"' {
        if c[k] == '\\' && k + 1 < c.len() {
            k += 1;
            match c[k] {
                'n' => s.push('\n'),
                't' => s.push('\t'),
                'r' => s.push('\r'),
                '0' => s.push('\0'),
                'x' => {
                    s.push('?');
                    k += 2;
                }
                'u' => {
                    s.push('?');
                    while k < c.len() && c[k] != '}' {
                        k += 1;
                    }
                }
                '\n' => {
                    // A line continuation: the newline and the next line's indentation vanish.
                    while k + 1 < c.len() && c[k + 1].is_whitespace() {
                        if c[k] == '\n' {
                            *line += 1;
                        }
                        k += 1;
                    }
                    if c[k] == '\n' {
                        *line += 1;
                    }
                }
                other => s.push(other),
            }
        } else {
            if c[k] == '\n' {
                *line += 1;
            }
            s.push(c[k]);
        }
        k += 1;
    }
    (s, k + 1)
}

/// `text` as tokens: identifiers, string literals (escapes resolved, so `"\n"` splits lines),
/// punctuation one character at a time; comments (doc comments included) are dropped.
pub fn lex(text: &str) -> Vec<Token> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        let at = line;
        let next = c.get(i + 1).copied();
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && next == Some('*') {
            let mut depth = 0usize;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if c[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
        } else if let Some((s, k)) = raw_str(&c, i, &mut line) {
            out.push(Token {
                tok: Tok::Str(s),
                line: at,
            });
            i = k;
        } else if ch == '"' || (matches!(ch, 'b' | 'c') && next == Some('"')) {
            let (s, k) = read_str(&c, if ch == '"' { i } else { i + 1 }, &mut line);
            out.push(Token {
                tok: Tok::Str(s),
                line: at,
            });
            i = k;
        } else if ch == '\'' || (ch == 'b' && next == Some('\'')) {
            let q = if ch == '\'' { i } else { i + 1 };
            if c.get(q + 1) == Some(&'\\') {
                // An escaped character literal: `'\n'`, `'\''`, `'\u{..}'`.
                let mut k = q + 3;
                while k < c.len() && c[k] != '\'' {
                    k += 1;
                }
                i = k + 1;
            } else if c.get(q + 2) == Some(&'\'') {
                i = q + 3;
            } else {
                // A lifetime or a label.
                i = read_ident(&c, q + 1).1;
            }
            out.push(Token {
                tok: Tok::Other,
                line: at,
            });
        } else if ch == 'r' && next == Some('#') && c.get(i + 2).is_some_and(|x| is_ident_start(*x))
        {
            let (name, k) = read_ident(&c, i + 2);
            out.push(Token {
                tok: Tok::Ident(name),
                line: at,
            });
            i = k;
        } else if is_ident_start(ch) {
            let (name, k) = read_ident(&c, i);
            out.push(Token {
                tok: Tok::Ident(name),
                line: at,
            });
            i = k;
        } else if ch.is_ascii_digit() {
            i += 1;
            while i < c.len()
                && (is_ident_char(c[i])
                    || (c[i] == '.' && c.get(i + 1).is_some_and(|d| d.is_ascii_digit())))
            {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Other,
                line: at,
            });
        } else {
            out.push(Token {
                tok: Tok::Punct(ch),
                line: at,
            });
            i += 1;
        }
    }
    out
}

/// A raw string literal (`r"…"`, `r#"…"#`, `br"…"`, `cr"…"`) starting at `i`: its contents and
/// the index after it.
pub fn raw_str(c: &[char], i: usize, line: &mut usize) -> Option<(String, usize)> {
    let mut j = match (c[i], c.get(i + 1)) {
        ('r', _) => i + 1,
        ('b' | 'c', Some('r')) => i + 2,
        _ => return None,
    };
    if i > 0 && is_ident_char(c[i - 1]) {
        return None;
    }
    let mut hashes = 0;
    while c.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    if c.get(j) != Some(&'"') {
        return None;
    }
    let mut s = String::new();
    let mut k = j + 1;
    while k < c.len() {
        if c[k] == '"' && (0..hashes).all(|h| c.get(k + 1 + h) == Some(&'#')) {
            return Some((s, k + 1 + hashes));
        }
        if c[k] == '\n' {
            *line += 1;
        }
        s.push(c[k]);
        k += 1;
    }
    Some((s, k))
}

pub fn punct(t: &[Token], i: usize, ch: char) -> bool {
    matches!(t.get(i), Some(Token { tok: Tok::Punct(p), .. }) if *p == ch)
}

pub fn ident(t: &[Token], i: usize) -> Option<&str> {
    match t.get(i) {
        Some(Token {
            tok: Tok::Ident(s), ..
        }) => Some(s),
        _ => None,
    }
}

pub fn is_open(t: &[Token], i: usize) -> bool {
    punct(t, i, '(') || punct(t, i, '[') || punct(t, i, '{')
}

/// The index of the bracket that closes the one at `open` (`t.len()` when none does).
pub fn close_of(t: &[Token], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, tok) in t.iter().enumerate().skip(open) {
        match tok.tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    t.len()
}

pub fn line_of(t: &[Token], i: usize) -> usize {
    t.get(i).or(t.last()).map_or(1, |x| x.line)
}

/// Tokens written out without spaces: `cfg(test)`, `unsafe(no_mangle)`.
pub fn flat(t: &[Token]) -> String {
    t.iter()
        .map(|x| match &x.tok {
            Tok::Ident(s) => s.clone(),
            Tok::Str(s) => format!("{s:?}"),
            Tok::Punct(p) => p.to_string(),
            Tok::Other => "_".to_string(),
        })
        .collect()
}
