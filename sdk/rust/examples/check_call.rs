//! The smallest useful policy: check or call with a strong hand, otherwise check or fold, and
//! one line of table talk at its first decision of the series.
//!
//! Build: `cargo build --release --target wasm32-unknown-unknown --example check_call`
//! (with Debian's `/usr/bin/cargo`; see the crate README), giving
//! `target/wasm32-unknown-unknown/release/examples/check_call.wasm`.

use holdem_legacy_sdk::{holdem_policy, log, Act, Card, Policy, Reply, Start};

/// The greeting, sent once.
const HELLO: &str = "gl hf from a Rust policy";

#[derive(Default)]
struct CheckCall {
    greeted: bool,
}

/// A pocket pair, two cards ten or higher, or a hole card paired on the board.
fn strong(hole: (Card, Card), board: &[Card]) -> bool {
    let (a, b) = hole;
    a.rank == b.rank
        || (a.rank >= 10 && b.rank >= 10)
        || board.iter().any(|c| c.rank == a.rank || c.rank == b.rank)
}

impl Policy for CheckCall {
    fn start(&mut self, start: &Start) {
        log(&format!(
            "check_call: slot {} as {}, {} tournaments",
            start.slot, start.alias, start.tournaments
        ));
    }

    fn act(&mut self, act: &Act) -> Reply {
        let is_strong = act.hole_pair().map_or(false, |hole| strong(hole, &act.board));
        let action = if is_strong { act.legal.check_or_call() } else { act.legal.check_or_fold() };
        let mut reply = Reply::action(action);
        if !self.greeted {
            self.greeted = true;
            reply = reply.chat(HELLO);
        }
        if act.away {
            // Come back at once: being away only ever check/folds.
            reply = reply.sit_in();
        }
        reply
    }
}

holdem_policy!(CheckCall);

#[cfg(test)]
mod tests {
    use super::*;

    fn card(s: &str) -> Card {
        Card::parse(s).unwrap()
    }

    #[test]
    fn strong_hands() {
        assert!(strong((card("7c"), card("7d")), &[]));
        assert!(strong((card("Ah"), card("Td")), &[]));
        assert!(strong((card("9h"), card("2d")), &[card("9c"), card("Kd"), card("3s")]));
        assert!(!strong((card("9h"), card("2d")), &[card("Tc"), card("Kd"), card("3s")]));
        assert!(!strong((card("Ah"), card("9d")), &[]));
    }
}
