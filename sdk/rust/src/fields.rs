//! Typed reads of an object's keys, with errors that name the message, the key and the type
//! wanted. Unknown keys are never looked at, so a later host may add keys (PROTOCOL §2).

use crate::cards::{ActionCode, Blinds, Card, HistoryEntry};
use crate::json::Value;
use crate::message::ParseError;

/// The keys of one object; `path` names it in errors (`"act"`, `"act.legal"`, ...).
pub(crate) struct Fields<'a> {
    pub obj: &'a Value,
    pub path: &'static str,
}

impl<'a> Fields<'a> {
    pub fn of(obj: &'a Value, path: &'static str) -> Result<Fields<'a>, ParseError> {
        match obj {
            Value::Object(_) => Ok(Fields { obj, path }),
            _ => Err(ParseError::Field { path, key: String::new(), expected: "an object" }),
        }
    }

    pub fn wrong(&self, key: &str, expected: &'static str) -> ParseError {
        ParseError::Field { path: self.path, key: key.to_string(), expected }
    }

    pub fn raw(&self, key: &str) -> Option<&'a Value> {
        self.obj.get(key)
    }

    pub fn value(&self, key: &str, expected: &'static str) -> Result<&'a Value, ParseError> {
        self.obj.get(key).ok_or_else(|| self.wrong(key, expected))
    }

    pub fn object(&self, key: &str, path: &'static str) -> Result<Fields<'a>, ParseError> {
        let value = self.value(key, "an object")?;
        Fields::of(value, path).map_err(|_| self.wrong(key, "an object"))
    }

    pub fn int(&self, key: &str) -> Result<i64, ParseError> {
        self.value(key, "an integer")?.as_i64().ok_or_else(|| self.wrong(key, "an integer"))
    }

    pub fn seat(&self, key: &str) -> Result<usize, ParseError> {
        match self.value(key, "a seat index")?.as_i64() {
            Some(n) if n >= 0 => Ok(n as usize),
            _ => Err(self.wrong(key, "a seat index")),
        }
    }

    pub fn boolean(&self, key: &str) -> Result<bool, ParseError> {
        self.value(key, "true or false")?.as_bool().ok_or_else(|| self.wrong(key, "true or false"))
    }

    pub fn string(&self, key: &str) -> Result<String, ParseError> {
        match self.value(key, "a string")? {
            Value::Str(s) => Ok(s.clone()),
            _ => Err(self.wrong(key, "a string")),
        }
    }

    fn array(&self, key: &str, expected: &'static str) -> Result<&'a [Value], ParseError> {
        self.value(key, expected)?.as_array().ok_or_else(|| self.wrong(key, expected))
    }

    pub fn ints(&self, key: &str) -> Result<Vec<i64>, ParseError> {
        let wanted = "a list of integers";
        self.array(key, wanted)?.iter().map(|v| v.as_i64().ok_or_else(|| self.wrong(key, wanted))).collect()
    }

    pub fn bools(&self, key: &str) -> Result<Vec<bool>, ParseError> {
        let wanted = "a list of booleans";
        self.array(key, wanted)?.iter().map(|v| v.as_bool().ok_or_else(|| self.wrong(key, wanted))).collect()
    }

    pub fn strings(&self, key: &str) -> Result<Vec<String>, ParseError> {
        let wanted = "a list of strings";
        self.array(key, wanted)?
            .iter()
            .map(|v| v.as_str().map(str::to_string).ok_or_else(|| self.wrong(key, wanted)))
            .collect()
    }

    pub fn cards(&self, key: &str) -> Result<Vec<Card>, ParseError> {
        let wanted = "a list of cards like \"As\"";
        self.array(key, wanted)?
            .iter()
            .map(|v| v.as_str().and_then(Card::parse).ok_or_else(|| self.wrong(key, wanted)))
            .collect()
    }

    /// Cards under `key`, or none when the key is absent or `null` (a seat not dealt in).
    pub fn cards_or_none(&self, key: &str) -> Result<Vec<Card>, ParseError> {
        match self.raw(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(_) => self.cards(key),
        }
    }

    pub fn blinds(&self, key: &str) -> Result<Blinds, ParseError> {
        blinds_of(self.value(key, "[small, big, ante]")?).ok_or_else(|| self.wrong(key, "[small, big, ante]"))
    }

    pub fn blinds_list(&self, key: &str) -> Result<Vec<Blinds>, ParseError> {
        let wanted = "a list of [small, big, ante]";
        self.array(key, wanted)?.iter().map(|v| blinds_of(v).ok_or_else(|| self.wrong(key, wanted))).collect()
    }

    pub fn code(&self, key: &str) -> Result<ActionCode, ParseError> {
        let wanted = "an action code 0..3";
        self.value(key, wanted)?
            .as_i64()
            .and_then(ActionCode::from_i64)
            .ok_or_else(|| self.wrong(key, wanted))
    }

    pub fn history(&self, key: &str) -> Result<Vec<HistoryEntry>, ParseError> {
        let wanted = "a list of [street, seat, code, to]";
        self.array(key, wanted)?
            .iter()
            .map(|v| history_of(v).ok_or_else(|| self.wrong(key, wanted)))
            .collect()
    }
}

fn ints_exact<const N: usize>(value: &Value) -> Option<[i64; N]> {
    let items = value.as_array()?;
    if items.len() != N {
        return None;
    }
    let mut out = [0i64; N];
    for (slot, item) in out.iter_mut().zip(items) {
        *slot = item.as_i64()?;
    }
    Some(out)
}

fn blinds_of(value: &Value) -> Option<Blinds> {
    let [small, big, ante] = ints_exact::<3>(value)?;
    Some(Blinds { small, big, ante })
}

fn history_of(value: &Value) -> Option<HistoryEntry> {
    let [street, seat, code, to] = ints_exact::<4>(value)?;
    if seat < 0 {
        return None;
    }
    Some(HistoryEntry { street, seat: seat as usize, code: ActionCode::from_i64(code)?, to })
}
