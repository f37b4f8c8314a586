//! Replies (PROTOCOL §2, policy to host): a builder that writes escaped JSON within the limit.

use crate::json::write_str;
use crate::message::Legal;

/// The most bytes a reply may have; a longer one is answered with the default action.
pub const REPLY_BYTES: usize = 4096;

/// A decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Fold,
    Check,
    Call,
    /// Bet or raise to this street total (`legal.raise` gives the range).
    Raise(i64),
}

impl Action {
    /// The protocol's name of the action.
    pub fn name(self) -> &'static str {
        match self {
            Action::Fold => "fold",
            Action::Check => "check",
            Action::Call => "call",
            Action::Raise(_) => "raise",
        }
    }
}

/// The emotes the table shows (only for a seat that folded this hand or is eliminated).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emote {
    ThumbsUp,
    Applause,
    Laugh,
    Facepalm,
    Sigh,
    TipHat,
    Gg,
    Wave,
}

impl Emote {
    /// The protocol's name of the emote.
    pub fn name(self) -> &'static str {
        match self {
            Emote::ThumbsUp => "thumbs_up",
            Emote::Applause => "applause",
            Emote::Laugh => "laugh",
            Emote::Facepalm => "facepalm",
            Emote::Sigh => "sigh",
            Emote::TipHat => "tip_hat",
            Emote::Gg => "gg",
            Emote::Wave => "wave",
        }
    }
}

impl Legal {
    /// True when the table admits `action` at this decision (PROTOCOL §4, bad replies).
    pub fn allows(&self, action: Action) -> bool {
        match action {
            Action::Fold => self.fold,
            Action::Check => self.check,
            Action::Call => !self.check && self.call > 0,
            Action::Raise(to) => matches!(self.raise, Some(r) if r.min <= to && to <= r.max),
        }
    }

    /// What the table itself does for a seat: check if checking is free, else fold.
    pub fn check_or_fold(&self) -> Action {
        if self.check {
            Action::Check
        } else {
            Action::Fold
        }
    }

    /// Check if checking is free, else call.
    pub fn check_or_call(&self) -> Action {
        if self.check {
            Action::Check
        } else {
            Action::Call
        }
    }

    /// A raise to `to`, moved into `[min, max]`; `None` when raising is closed.
    pub fn raise_to(&self, to: i64) -> Option<Action> {
        self.raise.map(|r| Action::Raise(to.max(r.min).min(r.max)))
    }
}

/// A reply. Every field is optional; an empty reply is sent as no reply at all.
///
/// ```
/// use holdem_legacy_sdk::{Action, Reply};
/// let r = Reply::action(Action::Raise(120)).say("nice hand").chat("gl all");
/// assert_eq!(r.to_json(), r#"{"action":"raise","amount":120,"say":"nice hand","chat":["gl all"]}"#);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reply {
    pub action: Option<Action>,
    pub say: Option<String>,
    pub chat: Vec<String>,
    pub emote: Option<Emote>,
    pub sit_in: bool,
}

impl Reply {
    /// No reply.
    pub fn none() -> Reply {
        Reply::default()
    }

    /// A reply carrying `action`.
    pub fn action(action: Action) -> Reply {
        Reply { action: Some(action), ..Reply::default() }
    }

    /// `Reply::action(Action::Fold)`.
    pub fn fold() -> Reply {
        Reply::action(Action::Fold)
    }

    /// `Reply::action(Action::Check)`.
    pub fn check() -> Reply {
        Reply::action(Action::Check)
    }

    /// `Reply::action(Action::Call)`.
    pub fn call() -> Reply {
        Reply::action(Action::Call)
    }

    /// `Reply::action(Action::Raise(to))`.
    pub fn raise_to(to: i64) -> Reply {
        Reply::action(Action::Raise(to))
    }

    /// Sets (or replaces) the action.
    pub fn with_action(mut self, action: Action) -> Reply {
        self.action = Some(action);
        self
    }

    /// Attaches a table-talk line to the action (shown only if the action is admitted).
    pub fn say(mut self, text: &str) -> Reply {
        self.say = Some(text.to_string());
        self
    }

    /// Adds a standalone table-talk line (the table shows two per hand at most).
    pub fn chat(mut self, text: &str) -> Reply {
        self.chat.push(text.to_string());
        self
    }

    /// Sets the emote.
    pub fn emote(mut self, emote: Emote) -> Reply {
        self.emote = Some(emote);
        self
    }

    /// Asks to come back from being away.
    pub fn sit_in(mut self) -> Reply {
        self.sit_in = true;
        self
    }

    /// True when there is nothing to send.
    pub fn is_empty(&self) -> bool {
        self.action.is_none()
            && self.say.is_none()
            && self.chat.is_empty()
            && self.emote.is_none()
            && !self.sit_in
    }

    /// The reply as compact JSON of at most `REPLY_BYTES` bytes. Text that would push it past
    /// the limit is left out (the last chat lines first, then `say`), because an over-long reply
    /// would lose the action too.
    pub fn to_json(&self) -> String {
        let mut reply = self.clone();
        loop {
            let text = reply.encode();
            if text.len() <= REPLY_BYTES {
                return text;
            }
            if reply.chat.pop().is_none() && reply.say.take().is_none() {
                // Unreachable in practice: action, amount, emote and sit_in fit in 100 bytes.
                return text;
            }
        }
    }

    fn encode(&self) -> String {
        let mut out = String::with_capacity(64);
        out.push('{');
        let mut sep = "";
        if let Some(action) = self.action {
            out.push_str("\"action\":\"");
            out.push_str(action.name());
            out.push('"');
            if let Action::Raise(to) = action {
                out.push_str(",\"amount\":");
                out.push_str(&to.to_string());
            }
            sep = ",";
        }
        if let Some(say) = &self.say {
            out.push_str(sep);
            out.push_str("\"say\":");
            write_str(&mut out, say);
            sep = ",";
        }
        if !self.chat.is_empty() {
            out.push_str(sep);
            out.push_str("\"chat\":[");
            for (i, line) in self.chat.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_str(&mut out, line);
            }
            out.push(']');
            sep = ",";
        }
        if let Some(emote) = self.emote {
            out.push_str(sep);
            out.push_str("\"emote\":\"");
            out.push_str(emote.name());
            out.push('"');
            sep = ",";
        }
        if self.sit_in {
            out.push_str(sep);
            out.push_str("\"sit_in\":true");
        }
        out.push('}');
        out
    }
}
