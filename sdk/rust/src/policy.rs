//! The `Policy` trait, and the message round trip that the `holdem_policy!` exports run.

use crate::host;
use crate::json::Value;
use crate::message::{Act, HandEnd, Message, ParseError, Start, TournamentEnd};
use crate::reply::Reply;

/// A poker policy. Only `act` is required; every other message is ignored by default.
///
/// One value lives for the whole series (memory carries over from call to call), so fields
/// may learn about opponents. A panic traps, and a trap benches the seat for the series.
pub trait Policy {
    /// The `start` message (once; the reply is ignored by the host, so none is asked for).
    fn start(&mut self, _start: &Start) {}

    /// A decision. Return an action the message's `legal` offers (see `Legal::allows`); while
    /// `act.away` the action is ignored and only `chat`, `emote` and `sit_in` are read.
    fn act(&mut self, act: &Act) -> Reply;

    /// The `hand_end` notification (5 ms budget); the reply is read for chat/emote/sit_in.
    fn hand_end(&mut self, _msg: &HandEnd) -> Reply {
        Reply::none()
    }

    /// The `tournament_end` notification (5 ms budget).
    fn tournament_end(&mut self, _msg: &TournamentEnd) -> Reply {
        Reply::none()
    }

    /// A message of a type this SDK does not know, as raw JSON.
    fn other(&mut self, _kind: &str, _value: &Value) -> Reply {
        Reply::none()
    }

    /// A message that could not be read. The default logs the error and sends no reply (at a
    /// decision the table then checks if free, else folds).
    fn bad_message(&mut self, _raw: &[u8], error: &ParseError) -> Reply {
        host::log(&format!("holdem-legacy-sdk: unreadable message: {}", error));
        Reply::none()
    }

    /// Every message; the default parses and calls the method for its type. Override it to
    /// read the raw bytes yourself.
    fn on_message(&mut self, raw: &[u8]) -> Reply {
        match Message::parse_bytes(raw) {
            Ok(Message::Start(m)) => {
                self.start(&m);
                Reply::none()
            }
            Ok(Message::Act(m)) => self.act(&m),
            Ok(Message::HandEnd(m)) => self.hand_end(&m),
            Ok(Message::TournamentEnd(m)) => self.tournament_end(&m),
            Ok(Message::Other { kind, value }) => self.other(&kind, &value),
            Err(e) => self.bad_message(raw, &e),
        }
    }
}

/// One round trip, as the exported `holdem_on_message` does it: the message bytes in, the reply
/// JSON out, or `None` for no reply. Runs natively too, which is how policies are unit tested.
pub fn handle<P: Policy + ?Sized>(policy: &mut P, message: &[u8]) -> Option<String> {
    let reply = policy.on_message(message);
    if reply.is_empty() {
        None
    } else {
        Some(reply.to_json())
    }
}
