//! Replies: exact JSON, round trips through a parser, the 4,096-byte limit, legality helpers.

use holdem_legacy_sdk::json::{self, Value};
use holdem_legacy_sdk::{Action, Emote, Legal, RaiseRange, Reply, REPLY_BYTES};

/// A tiny check of a reply's shape (PROTOCOL §2): an object whose keys are among the six, each
/// of its type; returns the parsed value.
fn check_reply(text: &str) -> Value {
    let v = json::parse(text).unwrap_or_else(|e| panic!("{}: {}", text, e));
    let pairs = v.as_object().unwrap_or_else(|| panic!("not an object: {}", text));
    for (key, value) in pairs {
        let ok = match key.as_str() {
            "action" => matches!(value.as_str(), Some("fold" | "check" | "call" | "raise")),
            "amount" => value.as_i64().is_some(),
            "say" | "emote" => value.as_str().is_some(),
            "chat" => value.as_array().map_or(false, |l| l.iter().all(|x| x.as_str().is_some())),
            "sit_in" => *value == Value::Bool(true),
            _ => false,
        };
        assert!(ok, "key {:?} = {:?} in {}", key, value, text);
    }
    let mut keys: Vec<&str> = pairs.iter().map(|(k, _)| k.as_str()).collect();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(keys.len(), pairs.len(), "repeated key in {}", text);
    v
}

#[test]
fn actions_encode_exactly() {
    assert_eq!(Reply::fold().to_json(), r#"{"action":"fold"}"#);
    assert_eq!(Reply::check().to_json(), r#"{"action":"check"}"#);
    assert_eq!(Reply::call().to_json(), r#"{"action":"call"}"#);
    assert_eq!(Reply::raise_to(120).to_json(), r#"{"action":"raise","amount":120}"#);
    assert_eq!(Reply::none().to_json(), "{}");
    assert_eq!(Reply::none().sit_in().to_json(), r#"{"sit_in":true}"#);
    assert_eq!(Reply::none().emote(Emote::TipHat).to_json(), r#"{"emote":"tip_hat"}"#);
}

#[test]
fn full_reply_round_trips() {
    let r = Reply::raise_to(1_000_000_007)
        .say("all \"in\"\n")
        .chat("gl")
        .chat("tab\there ♠")
        .emote(Emote::ThumbsUp)
        .sit_in();
    let v = check_reply(&r.to_json());
    assert_eq!(v.get("action").and_then(Value::as_str), Some("raise"));
    assert_eq!(v.get("amount").and_then(Value::as_i64), Some(1_000_000_007));
    assert_eq!(v.get("say").and_then(Value::as_str), Some("all \"in\"\n"));
    let chat: Vec<&str> =
        v.get("chat").and_then(Value::as_array).unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!(chat, vec!["gl", "tab\there ♠"]);
    assert_eq!(v.get("emote").and_then(Value::as_str), Some("thumbs_up"));
    assert_eq!(v.get("sit_in"), Some(&Value::Bool(true)));
}

#[test]
fn emote_names_are_the_protocol_list() {
    let all = [
        Emote::ThumbsUp,
        Emote::Applause,
        Emote::Laugh,
        Emote::Facepalm,
        Emote::Sigh,
        Emote::TipHat,
        Emote::Gg,
        Emote::Wave,
    ];
    let mut names: Vec<&str> = all.iter().map(|e| e.name()).collect();
    names.sort_unstable();
    assert_eq!(names, ["applause", "facepalm", "gg", "laugh", "sigh", "thumbs_up", "tip_hat", "wave"]);
}

#[test]
fn long_replies_drop_text_but_keep_the_action() {
    let line = "x".repeat(300);
    let mut r = Reply::call().say(&"y".repeat(300)).emote(Emote::Gg);
    for _ in 0..20 {
        r = r.chat(&line);
    }
    let text = r.to_json();
    assert!(text.len() <= REPLY_BYTES, "{} bytes", text.len());
    let v = check_reply(&text);
    assert_eq!(v.get("action").and_then(Value::as_str), Some("call"));
    assert_eq!(v.get("emote").and_then(Value::as_str), Some("gg"));
    assert!(v.get("say").is_some(), "say should survive when dropping chat lines is enough");
    let kept = v.get("chat").and_then(Value::as_array).unwrap().len();
    assert!((1..20).contains(&kept), "kept {} lines", kept);
    // As many lines as fit: one more (`,"x..x"`, 303 bytes) would pass the limit.
    assert!(text.len() + 303 > REPLY_BYTES, "{} bytes with {} lines", text.len(), kept);
    // A say line alone past the limit is dropped too.
    let v = check_reply(&Reply::fold().say(&"\u{1}".repeat(1000)).to_json());
    assert_eq!(v.get("say"), None);
    assert_eq!(v.get("action").and_then(Value::as_str), Some("fold"));
    // Escaping counts: 700 quotes are 1,400 bytes, under the limit, and kept whole.
    let quotes = "\"".repeat(700);
    let v = check_reply(&Reply::fold().say(&quotes).to_json());
    assert_eq!(v.get("say").and_then(Value::as_str), Some(quotes.as_str()));
}

#[test]
fn legality_helpers() {
    let facing = Legal { fold: true, check: false, call: 20, raise: Some(RaiseRange { min: 80, max: 1000 }) };
    let free = Legal { fold: true, check: true, call: 0, raise: None };
    assert!(facing.allows(Action::Fold) && facing.allows(Action::Call));
    assert!(!facing.allows(Action::Check));
    assert!(facing.allows(Action::Raise(80)) && facing.allows(Action::Raise(1000)));
    assert!(!facing.allows(Action::Raise(79)) && !facing.allows(Action::Raise(1001)));
    assert!(free.allows(Action::Check));
    assert!(!free.allows(Action::Call), "a call with nothing to call is not offered");
    assert!(!free.allows(Action::Raise(40)));
    assert_eq!(facing.check_or_fold(), Action::Fold);
    assert_eq!(free.check_or_fold(), Action::Check);
    assert_eq!(facing.check_or_call(), Action::Call);
    assert_eq!(free.check_or_call(), Action::Check);
    assert_eq!(facing.raise_to(10), Some(Action::Raise(80)));
    assert_eq!(facing.raise_to(500), Some(Action::Raise(500)));
    assert_eq!(facing.raise_to(5000), Some(Action::Raise(1000)));
    assert_eq!(free.raise_to(100), None);
}
