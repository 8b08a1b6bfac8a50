//! The program's call site of an entry point, for OMPT's `codeptr_ra`.
//!
//! Tools attribute device work to the code that asked for it: every target callback carries the
//! return address of the program's call into the runtime (libomptarget takes
//! `__builtin_return_address(0)` in each entry point). Rust cannot read its own return address,
//! so the entry points that start constructs are naked shims ([`call_site_shim`]) that record
//! it for the calling thread ([`record`], `crate::ompt::set_return_address`) and jump to the
//! function that does the work, with the caller's arguments, registers and stack untouched.

/// Records `ra` as the calling thread's call site (called by the shims only).
pub(super) extern "C" fn record(ra: usize) {
    crate::ompt::set_return_address(ra);
}

/// The body of a naked entry point that records its return address, then jumps to `$body`
/// (an `extern "C"` function with the entry point's signature, of at most six register
/// arguments plus stack arguments, none floating-point and none variadic): the six argument
/// registers are saved around the call to [`record`] (which may clobber them), the stack is
/// restored before the jump, so `$body` sees the call exactly as the program made it and
/// returns to the program.
macro_rules! call_site_shim {
    ($body:path) => {
        // Entry rsp is 8 mod 16; six pushes and 8 bytes keep the call to `record` aligned; the
        // return address is then at rsp + 56.
        core::arch::naked_asm!(
            "push rdi",
            "push rsi",
            "push rdx",
            "push rcx",
            "push r8",
            "push r9",
            "sub rsp, 8",
            "mov rdi, qword ptr [rsp + 56]",
            "call {record}",
            "add rsp, 8",
            "pop r9",
            "pop r8",
            "pop rcx",
            "pop rdx",
            "pop rsi",
            "pop rdi",
            "jmp {body}",
            record = sym $crate::capi::call_site::record,
            body = sym $body,
        )
    };
}
pub(super) use call_site_shim;
