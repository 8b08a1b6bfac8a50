//! Writes the lowered source: the user's file as written, except for the lines a construct
//! touches, which are replaced by their preprocessed text with the lowering applied. `#line`
//! directives keep every line at its original line number, so that clang's diagnostics and
//! debug information point at the user's file, and each host/device compilation still
//! preprocesses the rest of the file itself.

use crate::diag::Loc;
use crate::lower::{Edit, Piece};
use crate::ppout::{escape_c, PpOutput};
use crate::source::SourceFile;

/// Output with presumed-line tracking.
struct Out {
    s: String,
    /// Presumed line of the current output line.
    cur: u32,
    /// A raw line was written: the next line needs a `#line`.
    resync: bool,
    at_bol: bool,
    file_lit: String,
}

impl Out {
    /// Makes what follows belong to presumed line `n`.
    fn sync(&mut self, n: u32) {
        if !self.at_bol {
            if self.cur == n {
                return;
            }
            self.newline();
        }
        if self.cur == n && !self.resync {
            return;
        }
        if !self.resync && n > self.cur && n - self.cur <= 4 {
            for _ in self.cur..n {
                self.s.push('\n');
            }
        } else {
            self.s
                .push_str(&format!("#line {n} \"{}\"\n", self.file_lit));
        }
        self.cur = n;
        self.resync = false;
    }

    fn newline(&mut self) {
        self.s.push('\n');
        self.cur += 1;
        self.at_bol = true;
    }

    fn text(&mut self, t: &str) {
        if !t.is_empty() {
            self.s.push_str(t);
            self.at_bol = false;
        }
    }

    fn pieces(&mut self, ps: &[Piece]) {
        for p in ps {
            match p {
                Piece::Text(t) => self.text(t),
                Piece::Line(n) => self.sync(*n),
                Piece::Raw(text) => {
                    if !self.at_bol {
                        self.newline();
                    }
                    self.s.push_str(text);
                    self.s.push('\n');
                    self.at_bol = true;
                    self.resync = true;
                }
                Piece::Directive { line, text } => {
                    if !self.at_bol {
                        self.newline();
                    }
                    self.sync(*line);
                    self.s.push_str(text);
                    self.s.push('\n');
                    self.cur += 1;
                    self.at_bol = true;
                }
            }
        }
    }
}

/// A problem that keeps the lowering from being written (reported like a compile error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpliceError {
    /// Where (line and column in the main file; file left empty).
    pub loc: Loc,
    /// Why.
    pub msg: String,
}

/// Builds the lowered file. `header` is the `#include` line for spread.h.
pub fn splice(
    src: &SourceFile,
    pp: &PpOutput,
    edits: &[Edit],
    header: &str,
) -> Result<String, SpliceError> {
    let main = pp.main_file;
    let nlines = src.line_count().max(1);
    let phys_of = phys_lines_of(pp, nlines);
    let groups = edited_lines(src, pp, edits, nlines)?;
    let groups = widen_groups(src, groups, &lines_with_tokens(pp, nlines), nlines);
    check_directives(src, &groups)?;

    let file_lit = escape_c(pp.file_name(main));
    let mut out = Out {
        s: String::with_capacity(src.text.len() + 1024),
        cur: 0,
        resync: false,
        at_bol: true,
        file_lit,
    };
    out.s.push_str(header);
    out.s.push('\n');
    out.s.push_str(&format!("#line 1 \"{}\"\n", out.file_lit));
    out.cur = 1;

    let mut gi = 0;
    let mut line = 1u32;
    let mut ei = 0usize;
    while line <= nlines {
        if let Some(&(a, b)) = groups.get(gi) {
            if a == line {
                emit_group(&mut out, pp, &phys_of, a, b, edits, &mut ei)
                    .map_err(|m| splice_error(src, a, 1, m))?;
                gi += 1;
                line = b + 1;
                continue;
            }
        }
        out.sync(line);
        let t = src.line_with_newline(line);
        out.s.push_str(t);
        if !t.ends_with('\n') {
            out.s.push('\n');
        }
        out.cur += 1;
        out.at_bol = true;
        line += 1;
    }
    if !out.at_bol {
        out.s.push('\n');
    }
    Ok(out.s)
}

/// A [`SpliceError`] at `line:col` of the main file, with that line quoted.
fn splice_error(src: &SourceFile, line: u32, col: u32, msg: String) -> SpliceError {
    SpliceError {
        loc: Loc {
            file: String::new(),
            line,
            col,
            source_line: Some(src.line_text(line)),
        },
        msg,
    }
}

/// The preprocessed physical lines of each main-file line `1..=nlines` (index = line): a
/// rewritten line is written from these.
fn phys_lines_of(pp: &PpOutput, nlines: u32) -> Vec<Vec<u32>> {
    let mut phys_of: Vec<Vec<u32>> = vec![Vec::new(); nlines as usize + 2];
    for (p, li) in pp.lines.iter().enumerate() {
        if !li.marker && li.file == pp.main_file && li.line >= 1 && li.line <= nlines {
            phys_of[li.line as usize].push(p as u32);
        }
    }
    phys_of
}

/// Which main-file lines `1..=nlines` have tokens in the preprocessed text (index = line):
/// a line with code but none there was swallowed by a macro call that spans lines.
fn lines_with_tokens(pp: &PpOutput, nlines: u32) -> Vec<bool> {
    let mut pp_has = vec![false; nlines as usize + 2];
    for t in &pp.lexed.tokens {
        let li = pp.line_info(t.line);
        let marker = t.dir.map(|d| pp.is_marker(d as usize)).unwrap_or(false);
        if !marker && li.file == pp.main_file && li.line >= 1 && li.line <= nlines {
            pp_has[li.line as usize] = true;
        }
    }
    pp_has
}

/// The main-file lines each edit touches, as sorted, merged ranges `(first, last)`; an edit
/// reaching into an included file cannot be written over the user's lines.
fn edited_lines(
    src: &SourceFile,
    pp: &PpOutput,
    edits: &[Edit],
    nlines: u32,
) -> Result<Vec<(u32, u32)>, SpliceError> {
    let main = pp.main_file;
    let mut groups: Vec<(u32, u32)> = Vec::new();
    for e in edits {
        let p0 = pp.phys_line_of(e.start);
        let p1 = pp.phys_line_of(e.end);
        let mut lo = u32::MAX;
        let mut hi = 0;
        for p in p0..=p1 {
            let li = pp.line_info(p);
            if li.marker {
                continue;
            }
            if li.file != main || li.line > nlines {
                let at = pp.line_info(p0);
                return Err(splice_error(
                    src,
                    at.line,
                    1,
                    "a spread construct must be written in the source file itself, not partly in an included file".into(),
                ));
            }
            lo = lo.min(li.line);
            hi = hi.max(li.line);
        }
        if lo <= hi {
            groups.push((lo, hi));
        }
    }
    groups.sort();
    Ok(merge(groups))
}

/// Extends each group over the lines that macros or comments tie to their neighbours
/// (`pp_has`: [`lines_with_tokens`]): a group must start and end on whole lines of its own,
/// since it replaces them with preprocessed text. Sorted and merged again.
fn widen_groups(
    src: &SourceFile,
    mut groups: Vec<(u32, u32)>,
    pp_has: &[bool],
    nlines: u32,
) -> Vec<(u32, u32)> {
    let info = |l: u32| {
        src.lexed
            .lines
            .get(l as usize - 1)
            .copied()
            .unwrap_or_default()
    };
    for g in groups.iter_mut() {
        loop {
            let a = g.0;
            if a <= 1 {
                break;
            }
            let li = info(a);
            if li.starts_clean && (!li.has_code || pp_has[a as usize]) {
                break;
            }
            g.0 -= 1;
        }
        loop {
            let b = g.1;
            if b >= nlines {
                break;
            }
            let li = info(b + 1);
            if li.starts_clean && (!li.has_code || pp_has[b as usize + 1]) {
                break;
            }
            g.1 += 1;
        }
    }
    groups.sort();
    merge(groups)
}

/// Refuses directives other than pragmas in the groups' lines: they cannot be rewritten
/// through the preprocessed text (the directives are in line order: only those from the
/// group's first line on are looked at).
fn check_directives(src: &SourceFile, groups: &[(u32, u32)]) -> Result<(), SpliceError> {
    let dirs = &src.lexed.directives;
    for &(a, b) in groups {
        let from = dirs.partition_point(|d| d.last_line + 1 < a);
        for d in &dirs[from..] {
            let (l0, l1) = (d.line + 1, d.last_line + 1);
            if l0 > b {
                break;
            }
            if l1 < a {
                continue;
            }
            let name = if d.first_tok + 1 < d.end_tok {
                src.lexed.text(&src.text, d.first_tok + 1)
            } else {
                ""
            };
            if name != "pragma" {
                let t = src.lexed.tokens[d.first_tok];
                return Err(splice_error(
                    src,
                    l0,
                    t.col + 1,
                    format!("preprocessor directive '#{name}' inside the lines of a spread construct is not supported; move it out of the loop header and the construct's first and last lines"),
                ));
            }
        }
    }
    Ok(())
}

fn merge(v: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for (a, b) in v {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// Writes main-file lines `a..=b` from the preprocessed text, with the edits applied.
fn emit_group(
    out: &mut Out,
    pp: &PpOutput,
    phys_of: &[Vec<u32>],
    a: u32,
    b: u32,
    edits: &[Edit],
    ei: &mut usize,
) -> Result<(), String> {
    let mut phys: Vec<u32> = (a..=b)
        .flat_map(|l| phys_of.get(l as usize).cloned().unwrap_or_default())
        .collect();
    phys.sort_unstable();
    let (Some(&first), Some(&last)) = (phys.first(), phys.last()) else {
        // nothing of these lines survived preprocessing: keep line numbering only
        out.sync(b + 1);
        return Ok(());
    };
    for p in first..=last {
        if !pp.line_info(p).marker && phys.binary_search(&p).is_err() {
            return Err(
                "a spread construct cannot span an #include or lines of another file".into(),
            );
        }
    }
    let text = pp.text.as_str();
    let starts = &pp.lexed.line_starts;
    let line_end = |p: u32| -> usize {
        starts
            .get(p as usize + 1)
            .map(|s| s.saturating_sub(1))
            .unwrap_or(text.len())
    };
    let end = line_end(last);
    // physical line `q` of the preprocessed text is a directive line (`#pragma ...`)
    let is_directive = |q: u32| {
        pp.lexed
            .lines
            .get(q as usize)
            .is_some_and(|l| l.in_directive)
            && starts
                .get(q as usize)
                .is_some_and(|&s| text[s..].trim_start().starts_with('#'))
    };
    let mut p = first;
    let mut pos = starts[p as usize];
    out.sync(pp.line_info(p).line);
    // the current output line holds a directive's text as written (up to its line's end)
    let mut dir_open = false;
    loop {
        let nl = line_end(p).min(end);
        let verbatim_directive = |from: usize| from == starts[p as usize] && is_directive(p);
        if let Some(e) = edits.get(*ei).filter(|e| e.start >= pos && e.start <= nl) {
            dir_open |= e.start > pos && verbatim_directive(pos);
            out.text(&text[pos..e.start]);
            out.pieces(&e.pieces);
            pos = e.end;
            *ei += 1;
            let before = p;
            p = pp.phys_line_of(pos);
            if p != before {
                dir_open = false;
            }
            out.sync(pp.line_info(p).line);
            continue;
        }
        dir_open |= verbatim_directive(pos);
        out.text(&text[pos..nl]);
        if nl >= end {
            break;
        }
        p += 1;
        while p < last && pp.line_info(p).marker {
            p += 1;
        }
        pos = starts[p as usize];
        let continued = !pp
            .lexed
            .lines
            .get(p as usize)
            .map(|l| l.starts_clean)
            .unwrap_or(true);
        if continued {
            // a newline inside a token (raw string): keep it
            out.newline();
        } else {
            // a directive written as it is (several `_Pragma`s in one macro expansion share a
            // presumed line) needs a line of its own, and so does what follows it
            let next_verbatim = is_directive(p) && edits.get(*ei).is_none_or(|e| e.start != pos);
            if (next_verbatim || dir_open) && !out.at_bol {
                out.newline();
            }
            out.sync(pp.line_info(p).line);
        }
        dir_open = false;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::lower;

    fn run(orig: &str, pp_text: &str) -> Result<String, SpliceError> {
        let src = SourceFile::new(orig.to_string(), false);
        let pp = PpOutput::parse(pp_text.to_string(), false, "a.c");
        let l = lower(&pp).map_err(|e| SpliceError {
            loc: Loc {
                file: String::new(),
                line: 0,
                col: 0,
                source_line: None,
            },
            msg: format!("{e:?}"),
        })?;
        splice(&src, &pp, &l.edits, "#include \"spread.h\"")
    }

    #[test]
    fn untouched_lines_stay_as_written() {
        let orig = "#include <x.h>\n#define N 10\n#pragma omp target spread \\\n  devices(1)\nfor (int i = 0; i < N; i++)\n{\n#ifdef X\n  f(i);\n#endif\n}\nint y = N;\n";
        let pp = "# 1 \"a.c\"\n# 1 \"x.h\" 1\nint x;\n# 2 \"a.c\" 2\n\n#pragma omp target spread devices(1)\n\nfor (int i = 0; i < 10; i++)\n{\n\n  f(i);\n\n}\nint y = 10;\n";
        let out = run(orig, pp).unwrap();
        let expect = "#include \"spread.h\"\n#line 1 \"a.c\"\n#include <x.h>\n#define N 10\n{ static const __spread_construct_t __spread_c_0 = { \"a.c\", 3, __SPREAD_KIND_TARGET, 0, 0 }; const int32_t __spread_devs_0[] = { (int32_t)(1) }; __spread_region_t *__spread_r_0 = __spread_region_begin(&__spread_c_0, (0), (10), __spread_devs_0, 1, 0); { const int64_t omp_spread_start = __spread_chunk_start(__spread_r_0); const int64_t omp_spread_size = __spread_chunk_size(__spread_r_0); (void)omp_spread_start; (void)omp_spread_size;\n#line 3 \"a.c\"\n#pragma omp target device(__spread_chunk_device(__spread_r_0))\n\nfor (int i = omp_spread_start; i < (int)(omp_spread_start + omp_spread_size); i++)\n{\n#ifdef X\n  f(i);\n#endif\n} } __spread_region_end(__spread_r_0); }\nint y = N;\n";
        assert_eq!(out, expect);
    }

    #[test]
    fn macro_spanning_lines_is_taken_whole() {
        let orig = "#define P _Pragma(\"omp target spread\")\nvoid f() {\n  P for (int i = 0; i < n; i++) g(1,\n     2);\n  h();\n}\n";
        let pp = "# 1 \"a.c\"\n\nvoid f() {\n#pragma omp target spread\n# 3 \"a.c\"\n    for (int i = 0; i < n; i++) g(1, 2);\n\n  h();\n}\n";
        let out = run(orig, pp).unwrap();
        assert!(out.contains("\n#line 3 \"a.c\"\n#pragma omp target device(__spread_chunk_device(__spread_r_0))\n#line 3 \"a.c\"\n    for (int i = omp_spread_start; i < (int)(omp_spread_start + omp_spread_size); i++) g(1, 2); } __spread_region_end(__spread_r_0); }\n\n  h();\n}\n"), "{out}");
        assert!(!out.contains("     2);"), "{out}");
    }

    #[test]
    fn pragmas_of_one_macro_line_keep_their_own_lines() {
        // `F` expands to a spread construct and a `_Pragma` after it, all on line 2
        let orig = "#define F _Pragma(\"omp target spread\") for (int i = 0; i < n; i++) g(i); _Pragma(\"omp taskwait\") h();\nvoid f(int n) { F }\n";
        let pp = "# 1 \"a.c\"\n\nvoid f(int n) {\n# 2 \"a.c\"\n#pragma omp target spread\n# 2 \"a.c\"\n for (int i = 0; i < n; i++) g(i);\n# 2 \"a.c\"\n#pragma omp taskwait\n# 2 \"a.c\"\n h(); }\n";
        let out = run(orig, pp).unwrap();
        assert!(out.contains(" g(i); } __spread_region_end(__spread_r_0); }\n#line 2 \"a.c\"\n#pragma omp taskwait\n#line 2 \"a.c\"\n h(); }\n"), "{out}");
    }

    #[test]
    fn directive_inside_rewritten_lines_is_an_error() {
        let orig = "#pragma omp target spread\n#ifdef X\nfor (int i = 0; i < n; i++) ;\n#endif\n";
        let pp = "# 1 \"a.c\"\n#pragma omp target spread\n\nfor (int i = 0; i < n; i++) ;\n\n";
        let e = run(orig, pp).unwrap_err();
        assert_eq!((e.loc.line, e.loc.col), (2, 1));
        assert!(e.msg.contains("'#ifdef'"));
    }
}
