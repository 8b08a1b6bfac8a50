//! Source locations of constructs and variables, as clang encodes them.

/// A decoded `";file;function;line;column;;"` string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLoc {
    pub file: String,
    pub function: String,
    pub line: u32,
    pub column: u32,
}

impl SourceLoc {
    /// Decodes clang's location string; `None` for the "unknown" location clang emits without
    /// debug information.
    pub fn parse(s: &str) -> Option<SourceLoc> {
        let mut parts = s.strip_prefix(';')?.split(';');
        let file = parts.next()?.to_string();
        let function = parts.next()?.to_string();
        let line = parts.next()?.parse().ok()?;
        let column = parts.next()?.parse().ok()?;
        if file == "unknown" && line == 0 {
            return None;
        }
        Some(SourceLoc {
            file,
            function,
            line,
            column,
        })
    }

    /// The variable name of a map-clause name string (`;name;file;line;col;;`).
    pub fn var_name(s: &str) -> String {
        s.strip_prefix(';')
            .and_then(|r| r.split(';').next())
            .unwrap_or("unknown")
            .to_string()
    }
}

impl std::fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.column == 0 {
            // Spread constructs carry the pragma's line only.
            write!(f, "{}:{}", self.file, self.line)
        } else {
            write!(f, "{}:{}:{}", self.file, self.line, self.column)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_clang_locations() {
        let l = SourceLoc::parse(";/src/a.c;main;12;3;;").expect("valid");
        assert_eq!(l.to_string(), "/src/a.c:12:3");
        assert_eq!(l.function, "main");
        assert_eq!(SourceLoc::parse(";unknown;unknown;0;0;;"), None);
        assert_eq!(SourceLoc::parse("garbage"), None);
        assert_eq!(SourceLoc::var_name(";x[0:n];a.c;3;4;;"), "x[0:n]");
    }
}
