//! Clang-style diagnostics: `file:line:col: error: message`, the source line and a caret.

use std::fmt;

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// Stops the compilation.
    Error,
    /// Reported; the compilation goes on.
    Warning,
    /// Explains the diagnostic before it.
    Note,
}

impl Severity {
    fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// A location in a source file as the user sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loc {
    /// File name as clang would print it.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based byte column.
    pub col: u32,
    /// The text of the line, for the caret display (without newline).
    pub source_line: Option<String>,
}

/// One diagnostic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error, warning or note.
    pub severity: Severity,
    /// Where, if known.
    pub loc: Option<Loc>,
    /// What.
    pub message: String,
}

impl Diagnostic {
    /// An error at `loc`.
    pub fn error(loc: Option<Loc>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            loc,
            message: message.into(),
        }
    }
}

impl Diagnostic {
    /// A warning at `loc`.
    pub fn warning(loc: Option<Loc>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            loc,
            message: message.into(),
        }
    }
}

/// Expands tabs the way clang shows source lines (tab stops every 8 columns); returns the
/// display text and the display column of byte column `col` (0-based).
fn expand_tabs(line: &str, col: usize) -> (String, usize) {
    let mut out = String::with_capacity(line.len());
    let mut caret = None;
    let mut width = 0usize;
    for (i, c) in line.char_indices() {
        if i == col {
            caret = Some(width);
        }
        if c == '\t' {
            let n = 8 - width % 8;
            out.push_str(&" ".repeat(n));
            width += n;
        } else {
            out.push(c);
            width += 1;
        }
    }
    let caret = caret.unwrap_or(width + col.saturating_sub(line.len()));
    (out, caret)
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.loc {
            Some(loc) => {
                writeln!(
                    f,
                    "{}:{}:{}: {}: {}",
                    loc.file,
                    loc.line,
                    loc.col,
                    self.severity.as_str(),
                    self.message
                )?;
                if let Some(src) = &loc.source_line {
                    let src = src.trim_end_matches(['\r', '\n']);
                    let (shown, caret) = expand_tabs(src, loc.col.saturating_sub(1) as usize);
                    writeln!(f, "{:>5} | {}", loc.line, shown)?;
                    writeln!(f, "{:>5} | {}^", "", " ".repeat(caret))?;
                }
                Ok(())
            }
            None => writeln!(f, "{}: {}", self.severity.as_str(), self.message),
        }
    }
}

/// Prints `diags` to stderr, followed by clang's "N errors generated." summary.
pub fn emit(diags: &[Diagnostic]) {
    let mut s = String::new();
    for d in diags {
        s.push_str(&d.to_string());
    }
    let n = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    match n {
        0 => {}
        1 => s.push_str("1 error generated.\n"),
        n => s.push_str(&format!("{n} errors generated.\n")),
    }
    eprint!("{s}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_clang() {
        let d = Diagnostic::error(
            Some(Loc {
                file: "e.c".into(),
                line: 2,
                col: 10,
                source_line: Some("\tint x = y;".into()),
            }),
            "use of undeclared identifier 'y'",
        );
        assert_eq!(
            d.to_string(),
            "e.c:2:10: error: use of undeclared identifier 'y'\n    2 |         int x = y;\n      |                 ^\n"
        );
    }
}
