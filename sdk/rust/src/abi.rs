//! The module's exports (PROTOCOL §1, §2): ABI version, message buffer, packed reply.

use std::cell::UnsafeCell;

/// What `holdem_abi_version` returns: the protocol version this crate speaks.
pub const ABI_VERSION: i32 = 1;

/// `holdem_alloc` refuses (returns 0) messages longer than this: the policy's whole memory may
/// not exceed 64 MiB, so a longer message could not be held anyway.
pub const MAX_MESSAGE_BYTES: usize = 64 << 20;

/// The message buffer starts this large so that ordinary messages never reallocate it.
const MIN_CAPACITY: usize = 16 << 10;

/// `holdem_on_message`'s return value for a reply at `ptr` of `len` bytes:
/// `(ptr << 32) | len`, both unsigned.
pub fn pack_reply(ptr: u32, len: u32) -> i64 {
    (((ptr as u64) << 32) | len as u64) as i64
}

/// The `(ptr, len)` of a packed reply, read as the host reads it.
pub fn unpack_reply(packed: i64) -> (u32, u32) {
    let bits = packed as u64;
    ((bits >> 32) as u32, bits as u32)
}

/// The buffer `holdem_alloc` hands out: one allocation, reused for every message and grown
/// when a longer message comes.
#[derive(Debug, Default)]
pub struct MessageBuffer {
    // Always empty: the host writes into the capacity, which the SDK reads as raw memory.
    buf: Vec<u8>,
}

impl MessageBuffer {
    /// An empty buffer (allocates on first use).
    pub const fn new() -> MessageBuffer {
        MessageBuffer { buf: Vec::new() }
    }

    /// A pointer to at least `len` writable bytes, or `None` (the export returns 0: refused)
    /// when `len` is negative, above `MAX_MESSAGE_BYTES`, or memory cannot grow that far.
    pub fn alloc(&mut self, len: i32) -> Option<*mut u8> {
        if len < 0 || len as usize > MAX_MESSAGE_BYTES {
            return None;
        }
        let want = (len as usize).max(MIN_CAPACITY);
        if self.buf.capacity() < want {
            // The vector is empty, so this asks for `want` bytes in all; a failure is a refusal
            // rather than an abort.
            self.buf.try_reserve_exact(want).ok()?;
        }
        Some(self.buf.as_mut_ptr())
    }

    /// Bytes the buffer can take without growing.
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }
}

/// A mutable global for the exports. Sound only because a wasm32 module without the threads
/// feature (which the protocol forbids) runs one call at a time, so it is `Sync` only there.
#[doc(hidden)]
pub struct Global<T>(UnsafeCell<T>);

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
unsafe impl<T> Sync for Global<T> {}

impl<T> Global<T> {
    /// A global holding `value`.
    pub const fn new(value: T) -> Global<T> {
        Global(UnsafeCell::new(value))
    }

    /// The value.
    ///
    /// # Safety
    /// No other reference to the value may be alive (the exports never nest).
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get(&self) -> &mut T {
        &mut *self.0.get()
    }
}

/// What `holdem_policy!` expands to calls; not a public API.
#[doc(hidden)]
#[cfg(target_arch = "wasm32")]
pub mod rt {
    use super::{pack_reply, Global, MessageBuffer};
    use crate::host;
    use crate::policy::{handle, Policy};

    /// The one policy value of a module.
    pub type PolicySlot<P> = Global<Option<P>>;

    static INPUT: Global<MessageBuffer> = Global::new(MessageBuffer::new());
    // The last reply stays here until the next call, so the host can copy it out.
    static REPLY: Global<String> = Global::new(String::new());
    static HOOKED: Global<bool> = Global::new(false);

    /// `holdem_alloc`: the message buffer's address, or 0 when refused.
    pub fn alloc(len: i32) -> i32 {
        // SAFETY: exports run one at a time and do not nest.
        let input = unsafe { INPUT.get() };
        input.alloc(len).map_or(0, |p| p as usize as i32)
    }

    /// `holdem_on_message`: runs the policy (made by `init` on the first message) on the
    /// message at `ptr` and returns the packed reply, or 0 for none.
    pub fn on_message<P: Policy, F: FnOnce() -> P>(slot: &PolicySlot<P>, init: F, ptr: i32, len: i32) -> i64 {
        // SAFETY (all three globals): exports run one at a time and do not nest.
        let hooked = unsafe { HOOKED.get() };
        if !*hooked {
            *hooked = true;
            // The panic message reaches the slot's log before the trap benches the seat.
            std::panic::set_hook(Box::new(|info| host::log(&format!("panic: {}", info))));
        }
        let policy = unsafe { slot.get() }.get_or_insert_with(init);
        let message: &[u8] = if len <= 0 || ptr == 0 {
            &[]
        } else {
            // SAFETY: the host wrote `len` bytes at `ptr`, inside the buffer `alloc` returned.
            unsafe { std::slice::from_raw_parts(ptr as u32 as usize as *const u8, len as usize) }
        };
        match handle(policy, message) {
            None => 0,
            Some(json) => {
                let reply = unsafe { REPLY.get() };
                *reply = json;
                pack_reply(reply.as_ptr() as usize as u32, reply.len() as u32)
            }
        }
    }
}
