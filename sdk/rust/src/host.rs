//! The optional imports of module `holdem` (PROTOCOL §1), with safe wrappers.
//!
//! A wrapper that is never called leaves no import in the module (the linker drops it). Off
//! wasm32 (native `cargo test`) the wrappers do nothing.

/// The host keeps at most this many bytes of one log line; `log` cuts longer lines itself.
pub const LOG_LINE_BYTES: usize = 1024;

#[cfg(target_arch = "wasm32")]
mod imports {
    #[link(wasm_import_module = "holdem")]
    extern "C" {
        #[link_name = "log"]
        pub fn log(ptr: *const u8, len: usize);
        #[link_name = "time_left_ns"]
        pub fn time_left_ns() -> i64;
    }
}

/// Writes a debug line to this slot's log file (never shown to other players). Lines longer
/// than `LOG_LINE_BYTES` are cut at a character boundary; the host keeps 256 lines per
/// tournament. A no-op off wasm32.
pub fn log(line: &str) {
    let line = cut(line, LOG_LINE_BYTES);
    #[cfg(target_arch = "wasm32")]
    // SAFETY: the pointer and length describe a live, initialised byte slice.
    unsafe {
        imports::log(line.as_ptr(), line.len())
    };
    #[cfg(not(target_arch = "wasm32"))]
    let _ = line;
}

/// Virtual nanoseconds (fuel) left in the current call: answer before it reaches zero, or the
/// call times out. Off wasm32 it is `i64::MAX` (no clock).
pub fn time_left_ns() -> i64 {
    #[cfg(target_arch = "wasm32")]
    // SAFETY: a host function without arguments.
    return unsafe { imports::time_left_ns() };
    #[cfg(not(target_arch = "wasm32"))]
    return i64::MAX;
}

/// `s` cut to at most `max` bytes without splitting a character.
pub fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}
