//! The host's messages (PROTOCOL §5) as Rust values.

use std::fmt;

use crate::cards::{ActionCode, Blinds, Card, HistoryEntry};
use crate::event::{parse_events, Event};
use crate::fields::Fields;
use crate::json::{self, JsonError, Value};

/// Why a message could not be read as its type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The bytes are not UTF-8; `offset` is where the first bad byte starts.
    NotUtf8 { offset: usize },
    /// Not JSON.
    Json(JsonError),
    /// JSON, but not an object with a string `type`.
    NoType,
    /// A key of a known message is missing or has the wrong type.
    Field { path: &'static str, key: String, expected: &'static str },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::NotUtf8 { offset } => write!(f, "message is not UTF-8 (byte {})", offset),
            ParseError::Json(e) => write!(f, "message is not JSON: {}", e),
            ParseError::NoType => write!(f, "message is not an object with a string \"type\""),
            ParseError::Field { path, key, expected } if key.is_empty() => {
                write!(f, "{}: should be {}", path, expected)
            }
            ParseError::Field { path, key, expected } => {
                write!(f, "{}: key \"{}\" missing or not {}", path, key, expected)
            }
        }
    }
}

impl std::error::Error for ParseError {}

/// One message from the host.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    Start(Start),
    Act(Act),
    HandEnd(HandEnd),
    TournamentEnd(TournamentEnd),
    /// A `type` this SDK does not know (a later protocol may add some); kept raw.
    Other {
        kind: String,
        value: Value,
    },
}

impl Message {
    /// Reads a message from the bytes the host wrote.
    pub fn parse_bytes(bytes: &[u8]) -> Result<Message, ParseError> {
        let text = std::str::from_utf8(bytes).map_err(|e| ParseError::NotUtf8 { offset: e.valid_up_to() })?;
        Message::parse(text)
    }

    /// Reads a message from JSON text.
    pub fn parse(text: &str) -> Result<Message, ParseError> {
        let value = json::parse(text).map_err(ParseError::Json)?;
        Message::from_value(value)
    }

    /// Reads a message from an already parsed JSON value.
    pub fn from_value(value: Value) -> Result<Message, ParseError> {
        let kind = match value.get("type").and_then(Value::as_str) {
            Some("start") => return Start::from_value(&value).map(Message::Start),
            Some("act") => return Act::from_value(&value).map(Message::Act),
            Some("hand_end") => return HandEnd::from_value(&value).map(Message::HandEnd),
            Some("tournament_end") => return TournamentEnd::from_value(&value).map(Message::TournamentEnd),
            Some(other) => other.to_string(),
            None => return Err(ParseError::NoType),
        };
        Ok(Message::Other { kind, value })
    }
}

/// The `start` message: once, at the start of the series (its reply is ignored).
#[derive(Clone, Debug, PartialEq)]
pub struct Start {
    pub protocol: i64,
    /// This policy's slot in the series.
    pub slot: i64,
    pub alias: String,
    pub variant: String,
    pub tournaments: i64,
    pub format: Format,
    pub clock: StartClock,
    pub limits: Limits,
    pub emotes: Vec<String>,
    /// This slot's key: two unsigned 32-bit words; the only randomness a policy is given.
    pub seed: [u32; 2],
}

/// The tournament format of a `start` message.
#[derive(Clone, Debug, PartialEq)]
pub struct Format {
    pub name: String,
    pub seats: usize,
    pub starting_stack: i64,
    pub hands_per_level: i64,
    pub hand_cap: i64,
    /// The blind ladder; the last level repeats.
    pub levels: Vec<Blinds>,
    pub payouts_ppm: Vec<i64>,
}

/// The clock of a `start` message, in virtual nanoseconds (fuel units).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StartClock {
    pub shot_ns: i64,
    pub bank_ns: i64,
    pub decision_max_ns: i64,
    pub notify_ns: i64,
    pub start_ns: i64,
}

/// The limits of a `start` message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub memory_bytes: i64,
    pub reply_bytes: i64,
    pub chat_chars: i64,
    pub chat_lines_per_hand: i64,
}

impl Start {
    fn from_value(value: &Value) -> Result<Start, ParseError> {
        let f = Fields::of(value, "start")?;
        let format = f.object("format", "start.format")?;
        let clock = f.object("clock", "start.clock")?;
        let limits = f.object("limits", "start.limits")?;
        let seed = f.ints("seed")?;
        let word = |n: i64| u32::try_from(n).ok();
        let seed = match seed.as_slice() {
            [a, b] => [word(*a), word(*b)],
            _ => [None, None],
        };
        let seed = match seed {
            [Some(a), Some(b)] => [a, b],
            _ => return Err(f.wrong("seed", "two unsigned 32-bit words")),
        };
        Ok(Start {
            protocol: f.int("protocol")?,
            slot: f.int("slot")?,
            alias: f.string("alias")?,
            variant: f.string("variant")?,
            tournaments: f.int("tournaments")?,
            format: Format {
                name: format.string("name")?,
                seats: format.seat("seats")?,
                starting_stack: format.int("starting_stack")?,
                hands_per_level: format.int("hands_per_level")?,
                hand_cap: format.int("hand_cap")?,
                levels: format.blinds_list("levels")?,
                payouts_ppm: format.ints("payouts_ppm")?,
            },
            clock: StartClock {
                shot_ns: clock.int("shot_ns")?,
                bank_ns: clock.int("bank_ns")?,
                decision_max_ns: clock.int("decision_max_ns")?,
                notify_ns: clock.int("notify_ns")?,
                start_ns: clock.int("start_ns")?,
            },
            limits: Limits {
                memory_bytes: limits.int("memory_bytes")?,
                reply_bytes: limits.int("reply_bytes")?,
                chat_chars: limits.int("chat_chars")?,
                chat_lines_per_hand: limits.int("chat_lines_per_hand")?,
            },
            emotes: f.strings("emotes")?,
            seed,
        })
    }
}

/// `legal.raise`: the raise-to range (`min == max` when the stack is short of a full raise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaiseRange {
    pub min: i64,
    /// All-in.
    pub max: i64,
}

/// The `legal` object of an `act` message: what this decision offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Legal {
    /// Always true.
    pub fold: bool,
    /// Nothing to call.
    pub check: bool,
    /// Chips a call adds (0 when checking; less than the bet means all-in).
    pub call: i64,
    /// `None` when raising is closed.
    pub raise: Option<RaiseRange>,
}

/// The `clock` object of an `act` message, in virtual nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActClock {
    /// The compute budget of this call.
    pub budget_ns: i64,
    /// The time bank left before this call.
    pub bank_ns: i64,
}

/// The `act` message: a decision of this seat. Arrays indexed by seat have one entry per seat.
#[derive(Clone, Debug, PartialEq)]
pub struct Act {
    pub events: Vec<Event>,
    pub tournament: i64,
    pub hand: i64,
    /// 0 pre-flop, 1 flop, 2 turn, 3 river.
    pub street: i64,
    /// This seat (seating is shuffled every tournament).
    pub seat: usize,
    /// Decisions already made in this hand.
    pub decision: i64,
    pub button: usize,
    pub sb: usize,
    pub bb: usize,
    pub blinds: Blinds,
    pub stacks: Vec<i64>,
    pub bets: Vec<i64>,
    pub contrib: Vec<i64>,
    pub in_hand: Vec<bool>,
    pub folded: Vec<bool>,
    pub allin: Vec<bool>,
    pub alive: Vec<bool>,
    pub hole: Vec<Card>,
    pub board: Vec<Card>,
    pub pot: i64,
    pub history: Vec<HistoryEntry>,
    pub legal: Legal,
    pub clock: ActClock,
    /// While away the table acts for the seat; reply `sit_in` to come back.
    pub away: bool,
}

impl Act {
    fn from_value(value: &Value) -> Result<Act, ParseError> {
        let f = Fields::of(value, "act")?;
        let legal = f.object("legal", "act.legal")?;
        let clock = f.object("clock", "act.clock")?;
        let raise = match legal.value("raise", "[min, max] or null")? {
            Value::Null => None,
            v => match v.as_array() {
                Some([Value::Int(min), Value::Int(max)]) => Some(RaiseRange { min: *min, max: *max }),
                _ => return Err(legal.wrong("raise", "[min, max] or null")),
            },
        };
        Ok(Act {
            events: parse_events(&f)?,
            tournament: f.int("tournament")?,
            hand: f.int("hand")?,
            street: f.int("street")?,
            seat: f.seat("seat")?,
            decision: f.int("decision")?,
            button: f.seat("button")?,
            sb: f.seat("sb")?,
            bb: f.seat("bb")?,
            blinds: f.blinds("blinds")?,
            stacks: f.ints("stacks")?,
            bets: f.ints("bets")?,
            contrib: f.ints("contrib")?,
            in_hand: f.bools("in_hand")?,
            folded: f.bools("folded")?,
            allin: f.bools("allin")?,
            alive: f.bools("alive")?,
            hole: f.cards("hole")?,
            board: f.cards("board")?,
            pot: f.int("pot")?,
            history: f.history("history")?,
            legal: Legal {
                fold: legal.boolean("fold")?,
                check: legal.boolean("check")?,
                call: legal.int("call")?,
                raise,
            },
            clock: ActClock { budget_ns: clock.int("budget_ns")?, bank_ns: clock.int("bank_ns")? },
            away: f.boolean("away")?,
        })
    }

    /// This seat's chips behind (0 if `stacks` is shorter than the seat index).
    pub fn my_stack(&self) -> i64 {
        self.stacks.get(self.seat).copied().unwrap_or(0)
    }

    /// The two hole cards, when dealt.
    pub fn hole_pair(&self) -> Option<(Card, Card)> {
        match self.hole.as_slice() {
            [a, b] => Some((*a, *b)),
            _ => None,
        }
    }

    /// Seats still in this hand: dealt in and not folded.
    pub fn live_seats(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.in_hand.len())
            .filter(move |&s| self.in_hand[s] && !self.folded.get(s).copied().unwrap_or(false))
    }

    /// The history entries of the current street.
    pub fn this_street(&self) -> impl Iterator<Item = &HistoryEntry> + '_ {
        self.history.iter().filter(move |h| h.street == self.street)
    }

    /// How many bets and raises this street has seen.
    pub fn raises_this_street(&self) -> usize {
        self.this_street().filter(|h| h.code == ActionCode::Raise).count()
    }
}

/// The `hand_end` notification.
#[derive(Clone, Debug, PartialEq)]
pub struct HandEnd {
    pub events: Vec<Event>,
    pub tournament: i64,
    pub hand: i64,
}

impl HandEnd {
    fn from_value(value: &Value) -> Result<HandEnd, ParseError> {
        let f = Fields::of(value, "hand_end")?;
        Ok(HandEnd { events: parse_events(&f)?, tournament: f.int("tournament")?, hand: f.int("hand")? })
    }
}

/// The `tournament_end` notification; `places` and `scores_ppm` are by seat.
#[derive(Clone, Debug, PartialEq)]
pub struct TournamentEnd {
    pub events: Vec<Event>,
    pub tournament: i64,
    pub places: Vec<i64>,
    pub scores_ppm: Vec<i64>,
}

impl TournamentEnd {
    fn from_value(value: &Value) -> Result<TournamentEnd, ParseError> {
        let f = Fields::of(value, "tournament_end")?;
        Ok(TournamentEnd {
            events: parse_events(&f)?,
            tournament: f.int("tournament")?,
            places: f.ints("places")?,
            scores_ppm: f.ints("scores_ppm")?,
        })
    }
}
