//! What the pass knows about one spread construct, and the texts it reports about it.
//!
//! The first argument of `__spread_region_begin` points at a constant
//! `__spread_construct_t { const char *file; i32 line; i32 kind; i32 flags; i32 reserved }`
//! written by the driver (docs/spread-abi.md §1). Everything here is plain Rust so that it
//! can be unit-tested without LLVM.

use std::fmt;

/// `__SPREAD_KIND_TARGET`.
pub const KIND_TARGET: i64 = 1;
/// `__SPREAD_KIND_DATA`.
pub const KIND_DATA: i64 = 2;
/// `__SPREAD_KIND_ENTER_DATA`.
pub const KIND_ENTER_DATA: i64 = 3;
/// `__SPREAD_KIND_EXIT_DATA`.
pub const KIND_EXIT_DATA: i64 = 4;
/// `__SPREAD_KIND_UPDATE`.
pub const KIND_UPDATE: i64 = 5;

/// The fields of a `__spread_construct_t` the pass could read from the IR.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Construct {
    /// Presumed source file, as the user wrote it.
    pub file: Option<String>,
    /// Line of the pragma.
    pub line: Option<i64>,
    /// One of the `KIND_*` values.
    pub kind: Option<i64>,
}

impl Construct {
    /// The directive the construct came from, e.g. `target spread`.
    pub fn directive(&self) -> &'static str {
        match self.kind {
            Some(KIND_TARGET) => "target spread",
            Some(KIND_DATA) => "target data spread",
            Some(KIND_ENTER_DATA) => "target enter data spread",
            Some(KIND_EXIT_DATA) => "target exit data spread",
            Some(KIND_UPDATE) => "target update spread",
            _ => "spread",
        }
    }

    /// `FILE:LINE` when both are known, otherwise what is known.
    pub fn location(&self) -> Option<String> {
        match (&self.file, self.line) {
            (Some(f), Some(l)) => Some(format!("{f}:{l}")),
            (Some(f), None) => Some(f.clone()),
            (None, Some(l)) => Some(format!("line {l}")),
            (None, None) => None,
        }
    }
}

/// What one rewritten region contains.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegionStats {
    /// `__tgt_target_kernel` calls redirected to `__spread_target_kernel`.
    pub launches: usize,
    /// `__tgt_target_data_*_mapper` calls redirected to `__spread_target_data_*_mapper`.
    pub transfers: usize,
    /// Target tasks created per chunk (`nowait` constructs; their launches stay in the task).
    pub target_tasks: usize,
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The `-Rpass=spread` remark for a rewritten region.
///
/// `where_` is the construct's `FILE:LINE` (or a fallback such as the function name).
pub fn remark_message(where_: &str, stats: &RegionStats) -> String {
    let mut msg = format!(
        "spread region at {where_} rewritten into per-device chunked launches ({}, {})",
        plural(stats.launches, "launch", "launches"),
        plural(stats.transfers, "data transfer", "data transfers"),
    );
    if stats.target_tasks > 0 {
        msg.push_str(&format!(
            " plus {} per chunk",
            plural(stats.target_tasks, "target task", "target tasks")
        ));
    }
    msg
}

/// Why a region cannot be rewritten.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegionError {
    /// No `__spread_region_end(r)` for this begin in the same function.
    NoEnd,
    /// More than one `__spread_region_end(r)` for this begin.
    MultipleEnds(usize),
    /// A path from the begin leaves the function without passing the end.
    NotPostDominated,
    /// No path from the begin reaches the end.
    EndUnreachable,
    /// Control gets back to the begin before reaching the end.
    Reentered,
    /// The end can be reached without passing the begin.
    NotDominated,
    /// Another region begins between this region's begin and end.
    Nested,
    /// The IR around the begin call has a shape the pass cannot transform.
    Unsupported(String),
}

impl fmt::Display for RegionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegionError::NoEnd => write!(
                f,
                "no matching __spread_region_end in the same function (the region's begin and \
                 end must be in one function)"
            ),
            RegionError::MultipleEnds(n) => write!(
                f,
                "{n} calls to __spread_region_end end this region; a region must have exactly one"
            ),
            RegionError::NotPostDominated => write!(
                f,
                "a path from the region's begin leaves the function without reaching \
                 __spread_region_end (return, break or goto out of the region?)"
            ),
            RegionError::EndUnreachable => {
                write!(
                    f,
                    "__spread_region_end cannot be reached from the region's begin"
                )
            }
            RegionError::Reentered => write!(
                f,
                "control returns to the region's begin before reaching __spread_region_end"
            ),
            RegionError::NotDominated => write!(
                f,
                "__spread_region_end can be reached without passing the region's begin"
            ),
            RegionError::Nested => write!(
                f,
                "another spread region begins before this one ends (nested or overlapping \
                 spread regions are not supported)"
            ),
            RegionError::Unsupported(what) => write!(f, "{what}"),
        }
    }
}

/// The compile error for a region that cannot be rewritten.
///
/// `where_` is the construct's `FILE:LINE` (or a fallback such as the function name).
pub fn error_message(construct: &Construct, where_: &str, err: &RegionError) -> String {
    format!(
        "spread: cannot rewrite {} region at {where_}: {err}",
        construct.directive()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(file: &str, line: i64) -> Construct {
        Construct {
            file: Some(file.into()),
            line: Some(line),
            kind: Some(KIND_TARGET),
        }
    }

    #[test]
    fn directive_names() {
        let mut c = target("a.c", 1);
        assert_eq!(c.directive(), "target spread");
        for (k, name) in [
            (KIND_DATA, "target data spread"),
            (KIND_ENTER_DATA, "target enter data spread"),
            (KIND_EXIT_DATA, "target exit data spread"),
            (KIND_UPDATE, "target update spread"),
            (99, "spread"),
        ] {
            c.kind = Some(k);
            assert_eq!(c.directive(), name);
        }
        c.kind = None;
        assert_eq!(c.directive(), "spread");
    }

    #[test]
    fn locations() {
        assert_eq!(
            target("file.c", 12).location().as_deref(),
            Some("file.c:12")
        );
        let c = Construct {
            file: Some("x.c".into()),
            ..Default::default()
        };
        assert_eq!(c.location().as_deref(), Some("x.c"));
        let c = Construct {
            line: Some(3),
            ..Default::default()
        };
        assert_eq!(c.location().as_deref(), Some("line 3"));
        assert_eq!(Construct::default().location(), None);
    }

    #[test]
    fn remark_text() {
        let s = RegionStats {
            launches: 1,
            transfers: 2,
            target_tasks: 0,
        };
        assert_eq!(
            remark_message("file.c:12", &s),
            "spread region at file.c:12 rewritten into per-device chunked launches \
             (1 launch, 2 data transfers)"
        );
        let s = RegionStats {
            launches: 0,
            transfers: 1,
            target_tasks: 1,
        };
        assert_eq!(
            remark_message("f.c:3", &s),
            "spread region at f.c:3 rewritten into per-device chunked launches \
             (0 launches, 1 data transfer) plus 1 target task per chunk"
        );
    }

    #[test]
    fn error_text() {
        let msg = error_message(&target("file.c", 12), "file.c:12", &RegionError::NoEnd);
        assert!(msg
            .starts_with("spread: cannot rewrite target spread region at file.c:12: no matching"));
        let msg = error_message(
            &Construct::default(),
            "function 'f'",
            &RegionError::MultipleEnds(2),
        );
        assert_eq!(
            msg,
            "spread: cannot rewrite spread region at function 'f': 2 calls to \
             __spread_region_end end this region; a region must have exactly one"
        );
        for e in [
            RegionError::NotPostDominated,
            RegionError::EndUnreachable,
            RegionError::Reentered,
            RegionError::NotDominated,
            RegionError::Nested,
            RegionError::Unsupported("odd".into()),
        ] {
            assert!(!e.to_string().is_empty());
        }
    }
}
