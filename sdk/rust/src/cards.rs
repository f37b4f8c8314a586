//! Cards and the small enums of the protocol: streets, action codes, blinds.

use std::fmt;

const RANKS: &[u8; 13] = b"23456789TJQKA";
const SUITS: &[u8; 4] = b"cdhs";

/// Pre-flop, as in `street` fields.
pub const PREFLOP: i64 = 0;
/// The flop street.
pub const FLOP: i64 = 1;
/// The turn street.
pub const TURN: i64 = 2;
/// The river street.
pub const RIVER: i64 = 3;

/// A card: `rank` 2..=14 (14 = ace), `suit` 0..=3 for clubs, diamonds, hearts, spades.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card {
    pub rank: u8,
    pub suit: u8,
}

impl Card {
    /// Parses the protocol's two-character form: rank `23456789TJQKA` then suit `cdhs` (`"As"`).
    pub fn parse(text: &str) -> Option<Card> {
        match text.as_bytes() {
            [r, s] => {
                let rank = RANKS.iter().position(|c| c == r)? as u8 + 2;
                let suit = SUITS.iter().position(|c| c == s)? as u8;
                Some(Card { rank, suit })
            }
            _ => None,
        }
    }

    /// 0..=51: `(rank - 2) * 4 + suit`, so `2c` = 0 and `As` = 51.
    pub fn index(self) -> u8 {
        (self.rank - 2) * 4 + self.suit
    }

    /// The card with this `index` (0..=51), or `None` past the deck.
    pub fn from_index(index: u8) -> Option<Card> {
        if index < 52 {
            Some(Card { rank: index / 4 + 2, suit: index % 4 })
        } else {
            None
        }
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rank = RANKS.get(self.rank.wrapping_sub(2) as usize).copied().unwrap_or(b'?');
        let suit = SUITS.get(self.suit as usize).copied().unwrap_or(b'?');
        write!(f, "{}{}", rank as char, suit as char)
    }
}

/// `[small blind, big blind, big-blind ante]` of a hand or a level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Blinds {
    pub small: i64,
    pub big: i64,
    pub ante: i64,
}

/// The `code` of a `history` entry or an `action` event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionCode {
    Fold = 0,
    Check = 1,
    Call = 2,
    /// A bet or a raise.
    Raise = 3,
}

impl ActionCode {
    /// The code for its protocol number (0 fold, 1 check, 2 call, 3 bet/raise).
    pub fn from_i64(code: i64) -> Option<ActionCode> {
        match code {
            0 => Some(ActionCode::Fold),
            1 => Some(ActionCode::Check),
            2 => Some(ActionCode::Call),
            3 => Some(ActionCode::Raise),
            _ => None,
        }
    }
}

/// One entry of an `act` message's `history`: `[street, seat, code, to]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryEntry {
    pub street: i64,
    pub seat: usize,
    pub code: ActionCode,
    /// The seat's street total after the action.
    pub to: i64,
}
