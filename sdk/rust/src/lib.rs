//! `holdem-legacy-sdk`: the plumbing of a holdemjax poker policy compiled to WebAssembly
//! (player protocol version 1, `holdemjax/series/PROTOCOL.md`).
//!
//! Write a type that implements [`Policy`], then let [`holdem_policy!`] export the module's
//! entry points (`holdem_abi_version`, `holdem_alloc`, `holdem_on_message`):
//!
//! ```
//! use holdem_legacy_sdk::{holdem_policy, Act, Policy, Reply};
//!
//! #[derive(Default)]
//! struct Passive;
//!
//! impl Policy for Passive {
//!     fn act(&mut self, act: &Act) -> Reply {
//!         Reply::action(act.legal.check_or_fold())
//!     }
//! }
//!
//! holdem_policy!(Passive);
//! ```
//!
//! Build it as a `cdylib` for `wasm32-unknown-unknown` (see the crate's README). The crate has
//! no dependencies and builds with Rust 1.63.

mod abi;
mod cards;
mod event;
mod fields;
mod host;
pub mod json;
mod message;
mod policy;
mod reply;

pub use abi::{pack_reply, unpack_reply, MessageBuffer, ABI_VERSION, MAX_MESSAGE_BYTES};
pub use cards::{ActionCode, Blinds, Card, HistoryEntry, FLOP, PREFLOP, RIVER, TURN};
pub use event::Event;
pub use host::{cut, log, time_left_ns, LOG_LINE_BYTES};
pub use message::{
    Act, ActClock, Format, HandEnd, Legal, Limits, Message, ParseError, RaiseRange, Start, StartClock,
    TournamentEnd,
};
pub use policy::{handle, Policy};
pub use reply::{Action, Emote, Reply, REPLY_BYTES};

#[doc(hidden)]
#[cfg(target_arch = "wasm32")]
pub use abi::rt as __rt;
#[doc(hidden)]
pub use abi::Global;

/// Exports the module's entry points for a [`Policy`] type.
///
/// `holdem_policy!(MyPolicy)` makes the policy with `Default::default()`;
/// `holdem_policy!(MyPolicy, MyPolicy::new(7))` with the expression given. The value is made on
/// the first message and lives for the whole series. Use the macro once, in a `cdylib` crate.
/// Off wasm32 it exports nothing (it only type-checks the policy), so `cargo test` runs natively;
/// test a policy there with [`handle`].
#[macro_export]
macro_rules! holdem_policy {
    ($policy:ty) => {
        $crate::holdem_policy!($policy, <$policy as ::core::default::Default>::default());
    };
    ($policy:ty, $init:expr) => {
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            static HOLDEM_POLICY: $crate::__rt::PolicySlot<$policy> =
                $crate::Global::new(::core::option::Option::None);

            /// The protocol version (PROTOCOL §1).
            #[no_mangle]
            pub extern "C" fn holdem_abi_version() -> i32 {
                $crate::ABI_VERSION
            }

            /// A buffer of at least `len` bytes for the next message; 0 = refused.
            #[no_mangle]
            pub extern "C" fn holdem_alloc(len: i32) -> i32 {
                $crate::__rt::alloc(len)
            }

            /// Reads the message at `ptr` and returns `(reply_ptr << 32) | reply_len`, or 0.
            #[no_mangle]
            pub extern "C" fn holdem_on_message(ptr: i32, len: i32) -> i64 {
                $crate::__rt::on_message(&HOLDEM_POLICY, || -> $policy { $init }, ptr, len)
            }
        };
        #[cfg(not(target_arch = "wasm32"))]
        const _: () = {
            // Natively nothing is exported; this checks the policy type and its constructor.
            #[allow(dead_code)]
            fn holdem_policy_check() -> impl $crate::Policy {
                let policy: $policy = $init;
                policy
            }
        };
    };
}
