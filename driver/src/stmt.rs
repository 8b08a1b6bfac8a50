//! Statements after a directive: where a statement ends, and the canonical `for` loop that
//! follows `target spread`.

use crate::lexer::{Lexed, TokKind, Token};

/// One element of the code view: a token, or a whole `#pragma` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// Token index.
    Tok(usize),
    /// Directive index (a `#pragma` line).
    Pragma(usize),
}

/// The code of a lexed text without line markers, with each pragma line as one item.
#[derive(Debug, Clone)]
pub struct View<'a> {
    /// The text.
    pub src: &'a str,
    /// Its tokens.
    pub toks: &'a [Token],
    /// The items in order.
    pub items: Vec<Item>,
}

impl<'a> View<'a> {
    /// Builds the view of `lexed`; `is_marker(d)` tells which directives to leave out.
    pub fn new(src: &'a str, lexed: &'a Lexed, is_marker: impl Fn(usize) -> bool) -> View<'a> {
        let mut items = Vec::with_capacity(lexed.tokens.len());
        for (i, t) in lexed.tokens.iter().enumerate() {
            match t.dir {
                None => items.push(Item::Tok(i)),
                Some(d) => {
                    let d = d as usize;
                    let first = lexed.directives.get(d).map(|dl| dl.first_tok) == Some(i);
                    if first && !is_marker(d) {
                        items.push(Item::Pragma(d));
                    }
                }
            }
        }
        View {
            src,
            toks: &lexed.tokens,
            items,
        }
    }

    /// Text of item `k` ("" for pragmas and past the end).
    pub fn text(&self, k: usize) -> &'a str {
        match self.items.get(k) {
            Some(Item::Tok(i)) => {
                let t = &self.toks[*i];
                &self.src[t.start..t.end]
            }
            _ => "",
        }
    }

    /// The token of item `k`, if it is a token.
    pub fn tok(&self, k: usize) -> Option<&'a Token> {
        match self.items.get(k) {
            Some(Item::Tok(i)) => self.toks.get(*i),
            _ => None,
        }
    }

    fn is_punct(&self, k: usize, p: &str) -> bool {
        self.tok(k)
            .map(|t| t.kind == TokKind::Punct)
            .unwrap_or(false)
            && self.text(k) == p
    }

    fn is_ident(&self, k: usize, w: &str) -> bool {
        self.tok(k)
            .map(|t| t.kind == TokKind::Ident)
            .unwrap_or(false)
            && self.text(k) == w
    }

    /// The item closing the bracket opened at item `k`.
    pub fn matching(&self, k: usize) -> Option<usize> {
        let mut depth = 0i32;
        for j in k..self.items.len() {
            if self.tok(j).map(|t| t.kind) != Some(TokKind::Punct) {
                continue;
            }
            match self.text(j) {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(j);
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

    /// Source text of items `lo..hi` (tokens only), on one line.
    pub fn span(&self, lo: usize, hi: usize) -> String {
        if lo >= hi {
            return String::new();
        }
        match (self.tok(lo), self.tok(hi - 1)) {
            (Some(a), Some(b)) => crate::directive::one_line(&self.src[a.start..b.end]),
            _ => String::new(),
        }
    }

    fn paren_group(&self, k: usize) -> Result<usize, usize> {
        if !self.is_punct(k, "(") {
            return Err(k);
        }
        self.matching(k).ok_or(k)
    }

    /// Index of the last item of the statement that starts at item `k`; on failure, the item
    /// where no statement could be recognized.
    pub fn statement_end(&self, k: usize) -> Result<usize, usize> {
        match self.items.get(k) {
            None => return Err(k),
            Some(Item::Pragma(_)) => return self.statement_end(k + 1),
            Some(Item::Tok(_)) => {}
        }
        let w = self.text(k);
        match w {
            "{" => self.matching(k).ok_or(k),
            ";" => Ok(k),
            "}" | ")" | "]" | "else" => Err(k),
            "if" => {
                let mut p = k + 1;
                if self.is_ident(p, "constexpr") {
                    p += 1;
                }
                let close = self.paren_group(p)?;
                let s = self.statement_end(close + 1)?;
                if self.is_ident(s + 1, "else") {
                    self.statement_end(s + 2)
                } else {
                    Ok(s)
                }
            }
            "for" | "while" | "switch" => {
                let close = self.paren_group(k + 1)?;
                self.statement_end(close + 1)
            }
            "do" => {
                let s = self.statement_end(k + 1)?;
                if !self.is_ident(s + 1, "while") {
                    return Err(s + 1);
                }
                let close = self.paren_group(s + 2)?;
                if self.is_punct(close + 1, ";") {
                    Ok(close + 1)
                } else {
                    Err(close + 1)
                }
            }
            "try" => {
                if !self.is_punct(k + 1, "{") {
                    return Err(k + 1);
                }
                let mut end = self.matching(k + 1).ok_or(k + 1)?;
                while self.is_ident(end + 1, "catch") {
                    let close = self.paren_group(end + 2)?;
                    if !self.is_punct(close + 1, "{") {
                        return Err(close + 1);
                    }
                    end = self.matching(close + 1).ok_or(close + 1)?;
                }
                Ok(end)
            }
            _ if self.tok(k).map(|t| t.kind) == Some(TokKind::Ident)
                && self.is_punct(k + 1, ":")
                && !matches!(w, "default" | "case" | "public" | "private" | "protected") =>
            {
                // a label
                self.statement_end(k + 2)
            }
            _ => {
                let mut depth = 0i32;
                for j in k..self.items.len() {
                    if self.tok(j).map(|t| t.kind) != Some(TokKind::Punct) {
                        continue;
                    }
                    match self.text(j) {
                        "(" | "[" | "{" => depth += 1,
                        ")" | "]" | "}" => {
                            depth -= 1;
                            if depth < 0 {
                                return Err(j);
                            }
                        }
                        ";" if depth == 0 => return Ok(j),
                        _ => {}
                    }
                }
                Err(self.items.len())
            }
        }
    }
}

/// A canonical loop `for (T i = lb; i < ub; i++) body`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loop {
    /// Item of `for`.
    pub for_item: usize,
    /// Item of the `)` closing the header.
    pub close: usize,
    /// Item of the last token of the body.
    pub body_end: usize,
    /// The loop variable.
    pub var: String,
    /// Its type when the loop declares it (`int`, `long long`).
    pub decl_type: Option<String>,
    /// Lower bound expression.
    pub lb: String,
    /// Upper bound expression.
    pub ub: String,
    /// The condition is `<=` (or `>=` reversed).
    pub inclusive: bool,
    /// The increment as written.
    pub incr: String,
}

/// A loop that is not canonical: where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopError {
    /// Item to point at.
    pub item: usize,
    /// Message.
    pub msg: String,
}

fn split_top(v: &View, lo: usize, hi: usize, sep: &str) -> Vec<(usize, usize)> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = lo;
    for j in lo..hi {
        if v.tok(j).map(|t| t.kind) != Some(TokKind::Punct) {
            continue;
        }
        match v.text(j) {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            s if s == sep && depth == 0 => {
                parts.push((start, j));
                start = j + 1;
            }
            _ => {}
        }
    }
    parts.push((start, hi));
    parts
}

fn is_one(s: &str) -> bool {
    let t = s.trim_end_matches(['u', 'U', 'l', 'L']);
    t == "1"
}

/// Parses the canonical loop starting at item `k` (which must be `for`); `cname` names the
/// construct in messages.
pub fn parse_loop(v: &View, k: usize, cname: &str) -> Result<Loop, LoopError> {
    let fail = |item: usize, msg: String| Err(LoopError { item, msg });
    if !v.is_ident(k, "for") {
        return fail(k, format!("'{cname}' must be followed by a for loop"));
    }
    let open = k + 1;
    let close = match v.paren_group(open) {
        Ok(c) => c,
        Err(e) => {
            return fail(
                e,
                format!("expected '(' after 'for' in the loop of '{cname}'"),
            )
        }
    };
    let canon = "for (T i = start; i < end; i++)";
    let parts = split_top(v, open + 1, close, ";");
    if parts.len() != 3 {
        return fail(
            open + 1,
            format!("the loop of '{cname}' must be a canonical loop '{canon}'"),
        );
    }
    // init
    let (ilo, ihi) = parts[0];
    if ilo == ihi {
        return fail(
            ihi,
            format!(
                "the loop of '{cname}' must initialize its variable ('T i = start' or 'i = start')"
            ),
        );
    }
    if split_top(v, ilo, ihi, ",").len() > 1 {
        return fail(
            ilo,
            format!("the loop of '{cname}' must have a single loop variable"),
        );
    }
    let eq = (ilo..ihi).find(|&j| v.is_punct(j, "="));
    let Some(eq) = eq else {
        return fail(
            ilo,
            format!(
                "the loop of '{cname}' must initialize its variable ('T i = start' or 'i = start')"
            ),
        );
    };
    if eq == ilo || v.tok(eq - 1).map(|t| t.kind) != Some(TokKind::Ident) || eq + 1 == ihi {
        return fail(
            ilo,
            format!(
                "the loop of '{cname}' must initialize its variable ('T i = start' or 'i = start')"
            ),
        );
    }
    let var = v.text(eq - 1).to_string();
    let decl_type = if eq - 1 > ilo {
        let ty = v.span(ilo, eq - 1);
        if ty.contains('*') || ty.contains('&') {
            return fail(
                ilo,
                format!("the loop variable of '{cname}' must have an integer type"),
            );
        }
        Some(ty)
    } else {
        None
    };
    let lb = v.span(eq + 1, ihi);
    // condition
    let (clo, chi) = parts[1];
    let cond_err = || LoopError {
        item: if clo < chi { clo } else { chi },
        msg: format!(
            "the condition of the loop of '{cname}' must be '{var} < end' or '{var} <= end'"
        ),
    };
    if chi < clo + 3 {
        return Err(cond_err());
    }
    let (ub, inclusive) = if v.text(clo) == var && matches!(v.text(clo + 1), "<" | "<=" | "!=") {
        (v.span(clo + 2, chi), v.text(clo + 1) == "<=")
    } else if v.text(chi - 1) == var && matches!(v.text(chi - 2), ">" | ">=" | "!=") {
        (v.span(clo, chi - 2), v.text(chi - 2) == ">=")
    } else {
        return Err(cond_err());
    };
    // increment
    let (nlo, nhi) = parts[2];
    let words: Vec<&str> = (nlo..nhi).map(|j| v.text(j)).collect();
    let unit = match words.as_slice() {
        [a, "++"] | ["++", a] => *a == var,
        [a, "+=", one] => *a == var && is_one(one),
        [a, "=", b, "+", c] => *a == var && ((*b == var && is_one(c)) || (is_one(b) && *c == var)),
        _ => false,
    };
    if !unit {
        return fail(
            if nlo < nhi { nlo } else { close },
            format!("the loop of '{cname}' must increment '{var}' by 1 ('{var}++', '++{var}' or '{var} += 1')"),
        );
    }
    let incr = v.span(nlo, nhi);
    let body_end = match v.statement_end(close + 1) {
        Ok(e) => e,
        Err(e) => {
            return fail(
                e,
                format!("expected a statement as the body of the loop of '{cname}'"),
            )
        }
    };
    Ok(Loop {
        for_item: k,
        close,
        body_end,
        var,
        decl_type,
        lb,
        ub,
        inclusive,
        incr,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::lex;

    fn with_view<R>(src: &str, f: impl FnOnce(&View) -> R) -> R {
        let l = lex(src, true);
        let v = View::new(src, &l, |_| false);
        f(&v)
    }

    #[test]
    fn statement_ends() {
        let cases = [
            ("{ a; { b; } } x;", "}"),
            ("if (a) b; else { c; } x;", "}"),
            ("if (a) b; x;", ";"),
            ("for (;;) for (;;) a[i] = (b){1, 2}; x;", ";"),
            ("do { a; } while (b); x;", ";"),
            ("while (x) if (y) a; else b; x;", ";"),
            ("f([&]{ return 1; }); x;", ";"),
            ("try { a; } catch (int) { b; } x;", "}"),
            ("\n#pragma omp simd\nfor (;;) a; x;", ";"),
        ];
        for (src, last) in cases {
            with_view(src, |v| {
                let e = v.statement_end(0).unwrap();
                assert_eq!(v.text(e), last, "{src}");
                assert_eq!(v.text(e + 1), "x", "{src}");
            });
        }
        with_view("} x;", |v| assert_eq!(v.statement_end(0), Err(0)));
        with_view("a = b", |v| assert_eq!(v.statement_end(0), Err(3)));
    }

    #[test]
    fn canonical_loops() {
        with_view("for (int i = 1; i < N - 1; i++) B[i] = A[i]; x", |v| {
            let l = parse_loop(v, 0, "target spread").unwrap();
            assert_eq!(l.var, "i");
            assert_eq!(l.decl_type.as_deref(), Some("int"));
            assert_eq!(
                (l.lb.as_str(), l.ub.as_str(), l.inclusive),
                ("1", "N - 1", false)
            );
            assert_eq!(l.incr, "i++");
            assert_eq!(v.text(l.body_end + 1), "x");
        });
        with_view("for (j = f(a, b); n >= j; j += 1) { } x", |v| {
            let l = parse_loop(v, 0, "target spread").unwrap();
            assert_eq!(l.decl_type, None);
            assert_eq!(
                (l.lb.as_str(), l.ub.as_str(), l.inclusive),
                ("f(a, b)", "n", true)
            );
        });
        with_view("for (unsigned long long k = 0; k <= n; k = k + 1) ;", |v| {
            let l = parse_loop(v, 0, "t").unwrap();
            assert_eq!(l.decl_type.as_deref(), Some("unsigned long long"));
        });
    }

    #[test]
    fn non_canonical_loops() {
        let cases = [
            ("while (1) ;", "while", "followed by a for loop"),
            ("for (int x : v) ;", "int", "canonical loop"),
            ("for (int i = 0; i < n; i += 2) ;", "i", "by 1"),
            ("for (int i = 0; i > n; i--) ;", "i", "condition"),
            (
                "for (int i = 0, j = 0; i < n; i++) ;",
                "int",
                "single loop variable",
            ),
            ("for (; i < n; i++) ;", ";", "initialize"),
            ("for (int i = 0; i < n; i++) }", "}", "body"),
            ("for (int *p = a; p < e; p++) ;", "int", "integer type"),
        ];
        for (src, tok, msg) in cases {
            with_view(src, |v| {
                let e = parse_loop(v, 0, "target spread").unwrap_err();
                assert_eq!(v.text(e.item), tok, "{src}: {}", e.msg);
                assert!(e.msg.contains(msg), "{src}: {}", e.msg);
            });
        }
    }
}
