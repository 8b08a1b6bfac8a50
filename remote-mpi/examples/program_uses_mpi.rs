//! A program that initialises MPI itself and then asks the plugin to: `spread_mpi_init` must
//! refuse (-1) with a message, touch nothing, and leave the program's MPI working.
//!
//! ```text
//! mpirun --allow-run-as-root -np 1 remote-mpi/target/release/examples/program_uses_mpi
//! ```

use std::ffi::c_char;
use std::ptr;

use mpi::ffi;
use spread_remote_mpi::{spread_mpi_finalize, spread_mpi_init, LOCAL_ERROR};

fn main() {
    // SAFETY: MPI is not initialised yet; NULL argc/argv are allowed.
    let rc = unsafe { ffi::MPI_Init(ptr::null_mut(), ptr::null_mut()) };
    assert_eq!(rc, 0, "MPI_Init");
    let mut err = [0 as c_char; 256];
    // SAFETY: NULL outputs are allowed; `err` holds 256 bytes.
    let rc = unsafe {
        spread_mpi_init(
            ptr::null_mut(),
            ptr::null_mut(),
            ptr::null_mut(),
            ptr::null_mut(),
            ptr::null_mut(),
            0,
            err.as_mut_ptr(),
            err.len(),
        )
    };
    let bytes: Vec<u8> = err
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    let msg = String::from_utf8_lossy(&bytes);
    println!("program_uses_mpi: spread_mpi_init returned {rc}: {msg}");
    assert_eq!(rc, LOCAL_ERROR);
    assert!(msg.contains("already initialised"), "{msg}");
    // The plugin holds nothing, so there is nothing for it to finalise.
    assert_eq!(spread_mpi_finalize(), LOCAL_ERROR);
    let mut size = 0;
    // SAFETY: MPI is initialised; `size` is a local.
    let rc = unsafe { ffi::MPI_Comm_size(ffi::RSMPI_COMM_WORLD, &mut size) };
    assert_eq!(rc, 0, "MPI_Comm_size");
    // SAFETY: MPI is initialised, nothing pending.
    let rc = unsafe { ffi::MPI_Finalize() };
    assert_eq!(rc, 0, "MPI_Finalize");
    println!("program_uses_mpi: OK");
}
