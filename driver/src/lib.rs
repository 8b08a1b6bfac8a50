//! `spread-cc` / `spread-c++`: drop-in clang-19 drivers for OpenMP programs that use Spread's
//! multi-device directives (`#pragma omp target spread ...` and the data constructs, and the
//! device-to-device extensions `target update peer` and `wait device`).
//!
//! For each C/C++ input the driver runs the preprocessor (so that directives written through
//! macros or `_Pragma` are seen), finds and checks the spread directives, lowers them into
//! standard OpenMP plus calls to the runtime's `__spread_*` entry points
//! (docs/spread-abi.md §2), and compiles the lowered file with clang, `-fopenmp`, the offload
//! targets, Spread's pass plugin and, when linking, Spread's runtime. See docs/driver.md.
//!
//! # Layers
//!
//! Top to bottom; a module imports only modules listed after it (checked by
//! `runtime/tests/layers.rs`):
//!
//! 1. Driver: `compile` (runs the steps for each input, then clang)
//! 2. Command line: `paths`, `args`, `offload` (Spread's options, where its pieces are, the
//!    offload targets)
//! 3. Source rewriting: `splice`, `remap`, `source` (the lowered file written over the user's
//!    source, positions and clang's diagnostics pointed back at it)
//! 4. Lowering: `lower`, `target_data` (the constructs into OpenMP and `__spread_*` calls;
//!    one-device `target data` regions around spread constructs)
//! 5. Directive parsing: `plain_target`, `any`, `cu`, `stmt`, `directive` (the constructs and
//!    the statements they apply to; Spread's words misused on the `target` directives left to
//!    clang)
//! 6. Preprocessed input: `ppout` (`clang -E`'s tokens and line markers)
//! 7. Lexing and diagnostics: `lexer`, `diag`, `suggest` (with "did you mean")

#![warn(missing_docs)]

pub mod any;
pub mod args;
pub mod compile;
pub mod cu;
pub mod diag;
pub mod directive;
pub mod lexer;
pub mod lower;
pub mod offload;
pub mod paths;
pub mod plain_target;
pub mod ppout;
pub mod remap;
pub mod source;
pub mod splice;
pub mod stmt;
pub mod suggest;
pub mod target_data;

pub use args::Flavor;
pub use compile::main_with;
