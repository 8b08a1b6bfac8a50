//! Errors of the runtime and how they reach the user.
//!
//! An [`Error`] carries the cause (what libomptarget prints as `omptarget message:`) and the
//! steps it went through on its way up (printed as `omptarget error:` lines), so the report of a
//! failed construct reads like libomptarget's and tests written for it keep matching.

use std::fmt;

/// What went wrong, coarsely; the message says precisely.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A mapping the program asked for cannot be honoured (`present`, a section too large, ...).
    Mapping,
    /// A section extends one already mapped on the device, or lies partly inside it
    /// (libomptarget's "explicit extension not allowed"): a mapping error that chunks of a
    /// spread construct may cause by overlapping, which the construct can resolve.
    Extension,
    /// A device number outside `0..num_devices`.
    BadDevice,
    /// A device ran out of memory.
    OutOfMemory,
    /// A kernel the program launches is not in any image loaded on the device.
    MissingKernel,
    /// An offload image could not be read or loaded.
    Image,
    /// The backend failed an operation.
    Backend,
    /// An argument the program passed is not valid (unknown trait value, foreign pointer, ...).
    Invalid,
    /// A valid request the present devices cannot satisfy (a memory space they cannot share).
    Unsupported,
    /// A kernel faulted on the device (a GPU's illegal or misaligned address): the device
    /// cannot tell which kernel or address, and its context fails every later operation.
    DeviceFault,
}

/// A runtime error with its cause and context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The class of failure, which decides how callers react (e.g. [`ErrorKind::Extension`]).
    pub kind: ErrorKind,
    /// The cause, in libomptarget's words where libomptarget has words for it.
    pub message: String,
    /// Outermost last: each layer that saw the error and gave up.
    pub context: Vec<String>,
}

impl Error {
    /// An error of `kind` with its cause, no context yet.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            context: Vec::new(),
        }
    }

    /// Adds the step that failed because of this error.
    pub fn context(mut self, step: impl Into<String>) -> Self {
        self.context.push(step.into());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        for c in &self.context {
            write!(f, "; {c}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Shorthand used throughout the runtime.
pub type Result<T> = std::result::Result<T, Error>;

/// Adds context to a failing result.
pub trait ResultExt<T> {
    /// On an error, adds the step `step()` names (computed only then) as [`Error::context`].
    fn context(self, step: impl FnOnce() -> String) -> Result<T>;
}

impl<T> ResultExt<T> for Result<T> {
    fn context(self, step: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| e.context(step()))
    }
}
