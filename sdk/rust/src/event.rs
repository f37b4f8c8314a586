//! The `events` of a message (PROTOCOL §5, Events): everything public since the previous call.

use crate::cards::{ActionCode, Blinds, Card};
use crate::fields::Fields;
use crate::json::Value;
use crate::message::ParseError;

/// One event, oldest first in `events`. An event of an unknown `type`, or one whose keys do not
/// read, is kept as `Other` with its raw JSON rather than failing the whole message.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    TournamentStart {
        tournament: i64,
        seat: usize,
        aliases: Vec<String>,
        stacks: Vec<i64>,
    },
    /// `hole` is empty when this seat was not dealt in.
    HandStart {
        hand: i64,
        button: usize,
        sb: usize,
        bb: usize,
        blinds: Blinds,
        stacks: Vec<i64>,
        in_hand: Vec<bool>,
        hole: Vec<Card>,
    },
    /// `auto` says why the table acted for the seat (`"timeout"`, `"away"`, `"fault"`,
    /// `"bad_reply"`), `None` when the seat chose.
    Action {
        street: i64,
        seat: usize,
        code: ActionCode,
        to: i64,
        added: i64,
        auto: Option<String>,
    },
    Board {
        street: i64,
        cards: Vec<Card>,
    },
    /// `(seat, card, card)` of every live seat.
    Showdown {
        cards: Vec<(usize, Card, Card)>,
    },
    Result {
        winnings: Vec<i64>,
        stacks: Vec<i64>,
    },
    Eliminated {
        seat: usize,
        place: i64,
    },
    Chat {
        seat: usize,
        text: String,
        say: bool,
    },
    Emote {
        seat: usize,
        emote: String,
    },
    Away {
        seat: usize,
    },
    Back {
        seat: usize,
    },
    Faulted {
        seat: usize,
    },
    Other(Value),
}

impl Event {
    /// Reads one event object; never fails (see `Other`).
    pub fn from_value(value: &Value) -> Event {
        read(value).unwrap_or_else(|_| Event::Other(value.clone()))
    }
}

fn read(value: &Value) -> Result<Event, ParseError> {
    let f = Fields::of(value, "event")?;
    let kind = f.string("type")?;
    Ok(match kind.as_str() {
        "tournament_start" => Event::TournamentStart {
            tournament: f.int("tournament")?,
            seat: f.seat("seat")?,
            aliases: f.strings("aliases")?,
            stacks: f.ints("stacks")?,
        },
        "hand_start" => Event::HandStart {
            hand: f.int("hand")?,
            button: f.seat("button")?,
            sb: f.seat("sb")?,
            bb: f.seat("bb")?,
            blinds: f.blinds("blinds")?,
            stacks: f.ints("stacks")?,
            in_hand: f.bools("in_hand")?,
            hole: f.cards_or_none("hole")?,
        },
        "action" => Event::Action {
            street: f.int("street")?,
            seat: f.seat("seat")?,
            code: f.code("code")?,
            to: f.int("to")?,
            added: f.int("added")?,
            auto: match f.raw("auto") {
                None | Some(Value::Null) => None,
                Some(Value::Str(why)) => Some(why.clone()),
                Some(_) => return Err(f.wrong("auto", "a string or null")),
            },
        },
        "board" => Event::Board { street: f.int("street")?, cards: f.cards("cards")? },
        "showdown" => Event::Showdown { cards: showdown_cards(&f)? },
        "result" => Event::Result { winnings: f.ints("winnings")?, stacks: f.ints("stacks")? },
        "eliminated" => Event::Eliminated { seat: f.seat("seat")?, place: f.int("place")? },
        "chat" => Event::Chat {
            seat: f.seat("seat")?,
            text: f.string("text")?,
            // Absent means a standalone line.
            say: f.raw("say").and_then(Value::as_bool).unwrap_or(false),
        },
        "emote" => Event::Emote { seat: f.seat("seat")?, emote: f.string("emote")? },
        "away" => Event::Away { seat: f.seat("seat")? },
        "back" => Event::Back { seat: f.seat("seat")? },
        "faulted" => Event::Faulted { seat: f.seat("seat")? },
        _ => Event::Other(value.clone()),
    })
}

fn showdown_cards(f: &Fields<'_>) -> Result<Vec<(usize, Card, Card)>, ParseError> {
    let wanted = "a list of [seat, card, card]";
    let rows = f.value("cards", wanted)?.as_array().ok_or_else(|| f.wrong("cards", wanted))?;
    rows.iter()
        .map(|row| match row.as_array() {
            Some([Value::Int(seat), Value::Str(a), Value::Str(b)]) if *seat >= 0 => {
                match (Card::parse(a), Card::parse(b)) {
                    (Some(a), Some(b)) => Ok((*seat as usize, a, b)),
                    _ => Err(f.wrong("cards", wanted)),
                }
            }
            _ => Err(f.wrong("cards", wanted)),
        })
        .collect()
}

/// The `events` list of a message: required, and a list; each element read by `Event::from_value`.
pub(crate) fn parse_events(f: &Fields<'_>) -> Result<Vec<Event>, ParseError> {
    let wanted = "a list of event objects";
    let items = f.value("events", wanted)?.as_array().ok_or_else(|| f.wrong("events", wanted))?;
    Ok(items.iter().map(Event::from_value).collect())
}
