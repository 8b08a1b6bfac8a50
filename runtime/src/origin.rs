//! What device work was issued for: the construct, or the chunk of a spread construct, whose
//! thread enqueued it.
//!
//! The thread that issues a construct sets its origin for as long as it enqueues the
//! construct's work ([`enter`] for a spread chunk, [`enter_construct`] for a construct clang
//! located with an `ident_t`); a backend that records a kernel to run later keeps
//! [`current`] with it (an `Arc` clone, or one word), and what reports a failure of that kernel,
//! a fault handler included, formats it then without allocating ([`Origin`]'s `Display`). A
//! construct that is not a spread chunk costs three accesses to one thread-local word.

use std::cell::{Cell, RefCell};
use std::ffi::CStr;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// Reads an `ident_t`'s location string (`;file;function;line;column;;`, a constant of the
/// program's image): the C ABI layer's, registered with its first construct.
pub type Locator = fn(usize) -> Option<&'static CStr>;

static LOCATOR: OnceLock<Locator> = OnceLock::new();

/// The construct (and chunk) a device operation belongs to.
#[derive(Clone, Default)]
pub enum Origin {
    /// Issued outside any construct the runtime knows of.
    #[default]
    Unknown,
    /// A construct located by clang's `ident_t` at this address (read with the [`Locator`]).
    Construct(usize),
    /// Chunk `[lo, hi)` (the second and third fields) of the spread construct at the site.
    Chunk(Arc<Site>, i64, i64),
    /// An instance of the `target device(any)` construct at the site, whose arm the thread runs.
    Instance(Arc<Site>),
}

/// A spread construct, made once per execution of it: its chunks' origins share it.
#[derive(Debug)]
pub struct Site {
    /// The construct's name (`target spread`).
    pub what: &'static str,
    /// Its source file.
    pub file: Arc<str>,
    /// The line of its pragma.
    pub line: i32,
}

impl Origin {
    /// Whether the work belongs to a chunk of a spread construct.
    pub fn is_chunk(&self) -> bool {
        matches!(self, Origin::Chunk(..))
    }

    /// The Spread construct's site (a chunk's or an instance's), which the driver located even
    /// where clang's `ident_t` has no location (a program built without `-g`).
    pub fn site(&self) -> Option<&Site> {
        match self {
            Origin::Chunk(s, ..) | Origin::Instance(s) => Some(s),
            _ => None,
        }
    }
}

/// How reports name the work's construct: `target spread a.c:57 chunk [64,128)`, `the target
/// construct at a.c:12:3`, or, without a location, a hint to compile with `-g`.
impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Unknown => f.write_str("a construct of unknown location"),
            Origin::Construct(ident) => {
                let psource = LOCATOR.get().and_then(|read| read(*ident));
                match psource.and_then(|s| Location::parse(s.to_bytes())) {
                    Some(l) => write!(f, "the target construct at {l}"),
                    None => f.write_str(
                        "a target construct (compile with -g or -gline-tables-only for its location)",
                    ),
                }
            }
            Origin::Chunk(site, lo, hi) => write!(
                f,
                "{} {}:{} chunk [{lo},{hi})",
                site.what, site.file, site.line
            ),
            Origin::Instance(site) => {
                write!(
                    f,
                    "an instance of {} {}:{}",
                    site.what, site.file, site.line
                )
            }
        }
    }
}

/// A source location read from clang's `;file;function;line;column;;` bytes without copying.
struct Location<'a> {
    file: &'a str,
    line: &'a str,
    column: &'a str,
}

impl<'a> Location<'a> {
    /// `None` for clang's "unknown" location (a program built without `-g`) or another form.
    fn parse(bytes: &'a [u8]) -> Option<Location<'a>> {
        let s = std::str::from_utf8(bytes).ok()?;
        let mut parts = s.strip_prefix(';')?.split(';');
        let file = parts.next()?;
        let _function = parts.next()?;
        let line = parts.next()?;
        let column = parts.next()?;
        if (file == "unknown" && line == "0") || line.is_empty() {
            return None;
        }
        Some(Location { file, line, column })
    }
}

impl fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.column {
            "" | "0" => write!(f, "{}:{}", self.file, self.line),
            c => write!(f, "{}:{}:{c}", self.file, self.line),
        }
    }
}

/// [`STATE`] while the origin is in [`CHUNK`].
const IN_CHUNK: usize = usize::MAX;

thread_local! {
    /// The calling thread's origin in one word, read on every launch: 0 none, [`IN_CHUNK`]
    /// the one in [`CHUNK`], else the `ident_t` of the construct it issues.
    static STATE: Cell<usize> = const { Cell::new(0) };
    /// The origin set with [`enter`].
    static CHUNK: RefCell<Origin> = const { RefCell::new(Origin::Unknown) };
}

/// An origin set on the calling thread with [`enter`]: the one before it, restored when dropped.
pub struct Scope(Option<(usize, Origin)>);

impl Drop for Scope {
    fn drop(&mut self) {
        if let Some((state, previous)) = self.0.take() {
            let _ = CHUNK.try_with(|c| *c.borrow_mut() = previous);
            let _ = STATE.try_with(|s| s.set(state));
        }
    }
}

/// Makes `origin` the calling thread's until the scope is dropped.
pub fn enter(origin: Origin) -> Scope {
    let Ok(previous) = CHUNK.try_with(|c| c.replace(origin)) else {
        return Scope(None);
    };
    let state = STATE.with(|s| s.replace(IN_CHUNK));
    Scope(Some((state, previous)))
}

/// A construct set on the calling thread with [`enter_construct`], cleared when dropped (one
/// word: this is on every launch's path).
pub struct ConstructScope(bool);

impl Drop for ConstructScope {
    fn drop(&mut self) {
        if self.0 {
            let _ = STATE.try_with(|s| s.set(0));
        }
    }
}

/// Makes the construct at `ident`, read with `locator` (always the same function), the calling
/// thread's origin until the scope is dropped, unless one is set already (a spread chunk's,
/// which names the chunk too).
pub fn enter_construct(ident: usize, locator: Locator) -> ConstructScope {
    if LOCATOR.get().is_none() {
        let _ = LOCATOR.set(locator);
    }
    let set = STATE.try_with(|s| {
        let free = s.get() == 0 && ident != 0;
        if free {
            s.set(ident);
        }
        free
    });
    ConstructScope(set == Ok(true))
}

/// The calling thread's origin, for work recorded now and run later.
pub fn current() -> Origin {
    match STATE.with(Cell::get) {
        0 => Origin::Unknown,
        IN_CHUNK => CHUNK.try_with(|c| c.borrow().clone()).unwrap_or_default(),
        ident => Origin::Construct(ident),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn site(file: &str, line: i32) -> Arc<Site> {
        Arc::new(Site {
            what: "target spread",
            file: file.into(),
            line,
        })
    }

    fn located(ident: usize) -> Option<&'static CStr> {
        match ident {
            1 => Some(c";jacobi.c;main;57;3;;"),
            _ => Some(c";unknown;unknown;0;0;;"),
        }
    }

    #[test]
    fn origins_name_their_construct() {
        let chunk = Origin::Chunk(site("jacobi.c", 57), 64, 128);
        assert_eq!(
            chunk.to_string(),
            "target spread jacobi.c:57 chunk [64,128)"
        );
        assert!(chunk.is_chunk());
        let _ = LOCATOR.set(located);
        assert_eq!(
            Origin::Construct(1).to_string(),
            "the target construct at jacobi.c:57:3"
        );
        let u = Origin::Construct(2).to_string();
        assert!(u.contains("compile with -g"), "{u}");
    }

    #[test]
    fn a_chunk_origin_is_kept_over_its_construct() {
        assert!(matches!(current(), Origin::Unknown));
        {
            let _chunk = enter(Origin::Chunk(site("a.c", 1), 0, 4));
            let _inner = enter_construct(1, located);
            assert!(current().is_chunk(), "the chunk names more");
        }
        assert!(matches!(current(), Origin::Unknown));
        {
            let _c = enter_construct(1, located);
            let _inner = enter_construct(2, located);
            assert!(
                matches!(current(), Origin::Construct(1)),
                "the outer one stays"
            );
        }
        assert!(matches!(current(), Origin::Unknown));
    }
}
