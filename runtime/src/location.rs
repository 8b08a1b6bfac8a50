//! Source locations of constructs and variables, as clang encodes them.

/// A decoded `";file;function;line;column;;"` string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLoc {
    /// Source file, as named on the compiler's command line (or an `#include`).
    pub file: String,
    /// Name of the function that contains the construct.
    pub function: String,
    /// 1-based line of the construct.
    pub line: u32,
    /// 1-based column of the construct.
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

/// A construct's location, decoded from the program's `ident_t` only when something reports it
/// (most constructs never need it, and decoding costs more than a small launch).
#[derive(Clone)]
pub struct LazyLoc {
    /// The `ident_t`'s address (0: none).
    addr: usize,
    read: fn(usize) -> Option<SourceLoc>,
    value: std::sync::OnceLock<Option<SourceLoc>>,
}

impl LazyLoc {
    /// The location of the `ident_t` at `addr`, which `read` decodes when first asked.
    pub fn new(addr: usize, read: fn(usize) -> Option<SourceLoc>) -> Self {
        LazyLoc {
            addr,
            read,
            value: std::sync::OnceLock::new(),
        }
    }

    /// A location known already.
    pub fn known(loc: Option<SourceLoc>) -> Self {
        LazyLoc {
            addr: 0,
            read: |_| None,
            value: std::sync::OnceLock::from(loc),
        }
    }

    /// The location, if the program has one.
    pub fn get(&self) -> Option<&SourceLoc> {
        self.value
            .get_or_init(|| match self.addr {
                0 => None,
                a => (self.read)(a),
            })
            .as_ref()
    }
}

impl std::fmt::Debug for LazyLoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LazyLoc({:?})", self.get())
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
