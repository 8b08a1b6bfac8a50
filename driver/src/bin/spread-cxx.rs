//! `spread-c++` (built as `spread-cxx`): clang++-19 for OpenMP programs using Spread's
//! directives.

fn main() {
    let code = spread_driver::main_with(spread_driver::Flavor::Cxx, std::env::args().collect());
    std::process::exit(code);
}
