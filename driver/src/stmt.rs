//! Statements after a directive: where a statement ends, and the canonical `for` loop that
//! follows `target spread`.

use crate::lexer::{Lexed, TokKind, Token};

/// How deep statements may nest (`if (a) if (b) ...`) before [`View::statement_end`] gives up.
pub const MAX_NESTING: usize = 100_000;

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
    /// where no statement could be recognized (also where statements nest more than
    /// [`MAX_NESTING`] deep, far beyond what clang accepts, instead of overflowing the stack).
    pub fn statement_end(&self, k: usize) -> Result<usize, usize> {
        self.statement_end_at(k, 0)
    }

    fn statement_end_at(&self, k: usize, depth: usize) -> Result<usize, usize> {
        if depth > MAX_NESTING {
            return Err(k);
        }
        let d = depth + 1;
        match self.items.get(k) {
            None => return Err(k),
            Some(Item::Pragma(_)) => return self.statement_end_at(k + 1, d),
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
                let s = self.statement_end_at(close + 1, d)?;
                if self.is_ident(s + 1, "else") {
                    self.statement_end_at(s + 2, d)
                } else {
                    Ok(s)
                }
            }
            "for" | "while" | "switch" => {
                let close = self.paren_group(k + 1)?;
                self.statement_end_at(close + 1, d)
            }
            "do" => {
                let s = self.statement_end_at(k + 1, d)?;
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
                self.statement_end_at(k + 2, d)
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
    check_body(v, close + 1, body_end, &var, cname)?;
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

/// The checks OpenMP makes on a loop's body that change what a spread loop means: no `break`
/// that leaves the loop itself (each chunk would stop on its own) and no write to the loop
/// variable (each chunk would step through its own range differently). `lo..=hi` are the
/// body's items.
fn check_body(v: &View, lo: usize, hi: usize, var: &str, cname: &str) -> Result<(), LoopError> {
    // the statements inside the body that a `break` may leave: loops and switches
    let mut breakable: Vec<(usize, usize)> = Vec::new();
    // a declaration of a variable named like the loop variable shadows it: its writes are not
    // the loop variable's (the check is skipped rather than guessing scopes)
    let mut shadowed = false;
    for j in lo..=hi {
        let Some(t) = v.tok(j) else { continue };
        if t.kind == TokKind::Ident {
            match v.text(j) {
                "for" | "while" | "switch" | "do" => {
                    if let Ok(e) = v.statement_end(j) {
                        breakable.push((j, e));
                    }
                }
                w if w == var
                    && j > lo
                    && v.tok(j - 1).map(|p| p.kind) == Some(TokKind::Ident)
                    && !matches!(v.text(j - 1), "return" | "sizeof" | "case" | "else" | "do") =>
                {
                    shadowed = true;
                }
                _ => {}
            }
        }
    }
    for j in lo..=hi {
        let Some(t) = v.tok(j) else { continue };
        if t.kind != TokKind::Ident {
            continue;
        }
        let w = v.text(j);
        if w == "break" && !breakable.iter().any(|&(a, b)| a < j && j <= b) {
            return Err(LoopError {
                item: j,
                msg: format!("'break' statement cannot be used in the loop of '{cname}' (every iteration of an OpenMP loop must run; each chunk would stop on its own)"),
            });
        }
        if w != var || shadowed {
            continue;
        }
        let prev = if j > lo { v.text(j - 1) } else { "" };
        if matches!(prev, "." | "->" | "::") {
            continue;
        }
        let next = v.text(j + 1);
        let assigned = matches!(
            next,
            "=" | "+="
                | "-="
                | "*="
                | "/="
                | "%="
                | "&="
                | "|="
                | "^="
                | "<<="
                | ">>="
                | "++"
                | "--"
        );
        let incremented = matches!(prev, "++" | "--");
        let address = prev == "&" && !prev_is_operand_at(v, lo, j - 1);
        if assigned || incremented || address {
            let what = if address {
                "its address cannot be taken"
            } else {
                "it cannot be modified"
            };
            return Err(LoopError {
                item: j,
                msg: format!("'{var}' is the loop variable of '{cname}': {what} in the loop body (OpenMP loops compute it from the iteration number)"),
            });
        }
    }
    Ok(())
}

/// Checks the structured block `lo..=hi` of a data construct (`target data spread`): no
/// `return`, no `goto` to a label outside it, no `break`/`continue` that leaves it (any of them
/// would skip the unmapping at its end). Lambda bodies (C++) are not part of the block's
/// control flow.
pub fn check_structured_block(
    v: &View,
    lo: usize,
    hi: usize,
    cname: &str,
) -> Result<(), LoopError> {
    let mut skip: Vec<(usize, usize)> = Vec::new(); // lambda bodies
    let mut loops: Vec<(usize, usize)> = Vec::new(); // statements `break` may leave
    let mut switches: Vec<(usize, usize)> = Vec::new();
    let mut labels: Vec<&str> = Vec::new();
    for j in lo..=hi {
        let Some(t) = v.tok(j) else { continue };
        let w = v.text(j);
        match t.kind {
            TokKind::Punct if w == "[" && !prev_is_operand_at(v, lo, j) => {
                if let Some(body) = lambda_body(v, j, hi) {
                    skip.push(body);
                }
            }
            TokKind::Ident => match w {
                "for" | "while" | "do" => {
                    if let Ok(e) = v.statement_end(j) {
                        loops.push((j, e));
                    }
                }
                "switch" => {
                    if let Ok(e) = v.statement_end(j) {
                        switches.push((j, e));
                    }
                }
                _ if v.text(j + 1) == ":"
                    && v.text(j + 2) != ":"
                    && matches!(v.text(j.saturating_sub(1)), ";" | "{" | "}" | ")" | ":")
                    && !matches!(w, "default" | "case" | "public" | "private" | "protected") =>
                {
                    labels.push(w);
                }
                _ => {}
            },
            _ => {}
        }
    }
    let inside = |ranges: &[(usize, usize)], j: usize| ranges.iter().any(|&(a, b)| a < j && j <= b);
    let fail = |item: usize, msg: String| Err(LoopError { item, msg });
    for j in lo..=hi {
        if v.tok(j).map(|t| t.kind) != Some(TokKind::Ident) || inside(&skip, j) {
            continue;
        }
        match v.text(j) {
            "return" | "co_return" => {
                return fail(
                    j,
                    format!("'{}' cannot be used in the structured block of '{cname}' (it would leave the block without unmapping its data)", v.text(j)),
                )
            }
            "goto" => {
                let target = v.text(j + 1);
                if v.tok(j + 1).map(|t| t.kind) != Some(TokKind::Ident) || !labels.contains(&target) {
                    return fail(
                        j,
                        format!("'goto' cannot jump out of the structured block of '{cname}' (it would leave the block without unmapping its data)"),
                    );
                }
            }
            "break" if !inside(&loops, j) && !inside(&switches, j) => {
                return fail(
                    j,
                    format!("'break' cannot leave the structured block of '{cname}' (it would skip the unmapping of its data)"),
                );
            }
            "continue" if !inside(&loops, j) => {
                return fail(
                    j,
                    format!("'continue' cannot leave the structured block of '{cname}' (it would skip the unmapping of its data)"),
                );
            }
            _ => {}
        }
    }
    Ok(())
}

/// The body `{...}` of the lambda whose introducer `[` is item `open` (before `hi`), if any.
fn lambda_body(v: &View, open: usize, hi: usize) -> Option<(usize, usize)> {
    let close = v.matching(open)?;
    let mut j = close + 1;
    while j <= hi {
        let w = v.text(j);
        match w {
            "{" => return v.matching(j).map(|e| (j, e)),
            "(" => j = v.matching(j)? + 1,
            "->" | "::" | "<" | ">" | "*" | "&" | "&&" => j += 1,
            _ if v.tok(j).map(|t| t.kind) == Some(TokKind::Ident) => j += 1,
            _ => return None,
        }
    }
    None
}

/// Whether the item before `k` (within the body starting at `lo`) ends an operand, so that the
/// operator at `k` is binary.
fn prev_is_operand_at(v: &View, lo: usize, k: usize) -> bool {
    if k <= lo {
        return false;
    }
    let p = v.text(k - 1);
    if matches!(p, ")" | "]") {
        return true;
    }
    match v.tok(k - 1).map(|t| t.kind) {
        Some(TokKind::Number) | Some(TokKind::Str) => true,
        Some(TokKind::Ident) => !matches!(p, "return" | "case" | "sizeof"),
        _ => false,
    }
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
    fn structured_blocks() {
        let ok = [
            "{ for (;;) { if (x) break; continue; } switch (y) { case 1: break; } }",
            "{ if (x) goto done; f(); done: g(); }",
            "{ auto f = [&](int a) -> int { return a; }; f(1); }",
            "{ int a[2] = { [0] = 1 }; }",
        ];
        for src in ok {
            with_view(src, |v| {
                let e = v.statement_end(0).unwrap();
                if let Err(e) = check_structured_block(v, 0, e, "target data spread") {
                    panic!("{src}: {}", e.msg);
                }
            });
        }
        let bad = [
            ("{ if (x) return; }", "return", "'return' cannot be used"),
            ("{ if (x) goto out; }", "goto", "'goto' cannot jump out"),
            ("{ if (x) break; }", "break", "'break' cannot leave"),
            (
                "{ switch (x) { case 1: continue; } }",
                "continue",
                "'continue' cannot leave",
            ),
        ];
        for (src, tok, msg) in bad {
            with_view(src, |v| {
                let e = v.statement_end(0).unwrap();
                let err = check_structured_block(v, 0, e, "target data spread").unwrap_err();
                assert_eq!(v.text(err.item), tok, "{src}");
                assert!(err.msg.contains(msg), "{src}: {}", err.msg);
            });
        }
    }

    #[test]
    fn bodies_that_keep_the_loop_canonical() {
        let ok = [
            "for (int i = 0; i < n; i++) { for (int k = 0; k < 3; k++) if (k) break; }",
            "for (int i = 0; i < n; i++) { switch (a[i]) { case 1: break; default: break; } }",
            "for (int i = 0; i < n; i++) { while (x) { break; } do { break; } while (y); }",
            "for (int i = 0; i < n; i++) { a[i] = i + 1; b[i] &= i; c = a & i; s.i = 3; p->i++; }",
            "for (int i = 0; i < n; i++) { if (a[i]) continue; a[i] = b[i] == i; }",
            "for (int i = 0; i < n; i++) { for (int i = 0; i < 3; i++) a[i] = 0; }",
        ];
        for src in ok {
            with_view(src, |v| {
                if let Err(e) = parse_loop(v, 0, "target spread") {
                    panic!("{src}: {}", e.msg);
                }
            });
        }
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
            (
                "for (int i = 0; i < n; i++) { if (a[i]) break; }",
                "break",
                "'break' statement cannot be used",
            ),
            (
                "for (int i = 0; i < n; i++) { for (;;) break; break; }",
                "break",
                "'break'",
            ),
            (
                "for (int i = 0; i < n; i++) { i += 2; }",
                "i",
                "cannot be modified",
            ),
            (
                "for (int i = 0; i < n; i++) a[i++] = 0;",
                "i",
                "cannot be modified",
            ),
            (
                "for (int i = 0; i < n; i++) { --i; }",
                "i",
                "cannot be modified",
            ),
            ("for (i = 0; i < n; i++) { f(&i); }", "i", "address"),
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
