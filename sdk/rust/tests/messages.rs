//! Reading the host's messages: the examples of PROTOCOL.md §5 (with their `...` filled in) and
//! messages built around them.

use holdem_legacy_sdk::json::{self, Value};
use holdem_legacy_sdk::{ActionCode, Blinds, Card, Event, HistoryEntry, Message, ParseError, RaiseRange};

/// PROTOCOL §5 `start`, the level list completed.
const START: &str = r#"{"type":"start","protocol":1,"slot":2,"alias":"Lovelace","variant":"series-100","tournaments":100,"format":{"name":"sng-6","seats":6,"starting_stack":1000,"hands_per_level":4,"hand_cap":60,"levels":[[10,20,0],[15,30,0],[25,50,0],[40,80,0],[60,120,120]],"payouts_ppm":[333000,267000,200000,133000,67000,0]},"clock":{"shot_ns":20000000,"bank_ns":1000000000,"decision_max_ns":200000000,"notify_ns":5000000,"start_ns":1000000000},"limits":{"memory_bytes":67108864,"reply_bytes":4096,"chat_chars":140,"chat_lines_per_hand":2},"emotes":["applause","facepalm","gg","laugh","sigh","thumbs_up","tip_hat","wave"],"seed":[2718281828,3141592653]}"#;

/// PROTOCOL §5 `act`, with events and the history completed (`EVENTS` is spliced in).
const ACT: &str = r#"{"type":"act","events":EVENTS,"tournament":0,"hand":3,"street":1,"seat":4,"decision":1,"button":2,"sb":3,"bb":4,"blinds":[10,20,0],"stacks":[980,0,940,1010,960,1070],"bets":[0,0,0,0,20,0],"contrib":[20,0,20,0,40,20],"in_hand":[true,false,true,false,true,true],"folded":[false,false,false,true,false,false],"allin":[false,false,false,false,false,false],"alive":[true,false,true,true,true,true],"hole":["Ah","Kd"],"board":["2c","7d","Ks"],"pot":120,"history":[[0,5,3,60],[0,2,2,60],[0,3,0,0],[0,4,2,60],[0,0,2,60],[1,4,3,20]],"legal":{"fold":true,"check":false,"call":20,"raise":[80,1000]},"clock":{"budget_ns":220000000,"bank_ns":1000000000},"away":false}"#;

/// One event of every kind in the table of PROTOCOL §5, plus one unknown and one malformed.
const EVENTS: &str = r#"[{"aliases":["Ada","Bob","Lovelace","Dee","Eve","Fay"],"seat":4,"stacks":[1000,1000,1000,1000,1000,1000],"tournament":0,"type":"tournament_start"},{"bb":4,"blinds":[10,20,0],"button":2,"hand":3,"hole":["Ah","Kd"],"in_hand":[true,false,true,false,true,true],"sb":3,"stacks":[1000,0,960,1010,1000,1090],"type":"hand_start"},{"added":60,"auto":null,"code":3,"seat":5,"street":0,"to":60,"type":"action"},{"added":0,"auto":"timeout","code":0,"seat":3,"street":0,"to":0,"type":"action"},{"cards":["2c","7d","Ks"],"street":1,"type":"board"},{"cards":[[0,"Qs","Qd"],[4,"Ah","Kd"]],"type":"showdown"},{"stacks":[1100,0,940,1010,960,1070],"type":"result","winnings":[120,0,0,0,0,0]},{"place":6,"seat":1,"type":"eliminated"},{"say":true,"seat":0,"text":"nice \"hand\"","type":"chat"},{"emote":"gg","seat":1,"type":"emote"},{"seat":3,"type":"away"},{"seat":3,"type":"back"},{"seat":5,"type":"faulted"},{"type":"rabbit_hunt","cards":["9h"]},{"seat":"two","type":"away"}]"#;

fn act_text() -> String {
    ACT.replace("EVENTS", EVENTS)
}

fn card(s: &str) -> Card {
    Card::parse(s).unwrap()
}

fn parse_act(text: &str) -> holdem_legacy_sdk::Act {
    match Message::parse(text) {
        Ok(Message::Act(act)) => act,
        other => panic!("expected an act message, got {:?}", other),
    }
}

/// The act message with `key` (top level) replaced by `value` (JSON text), or removed if `None`.
fn act_with(key: &str, value: Option<&str>) -> String {
    let mut v = json::parse(&act_text()).unwrap();
    if let Value::Object(pairs) = &mut v {
        pairs.retain(|(k, _)| k != key);
        if let Some(text) = value {
            pairs.push((key.to_string(), json::parse(text).unwrap()));
        }
    }
    v.to_json()
}

#[test]
fn start_message_reads_every_key() {
    let start = match Message::parse(START).unwrap() {
        Message::Start(s) => s,
        other => panic!("not start: {:?}", other),
    };
    assert_eq!((start.protocol, start.slot, start.tournaments), (1, 2, 100));
    assert_eq!((start.alias.as_str(), start.variant.as_str()), ("Lovelace", "series-100"));
    let f = &start.format;
    assert_eq!(
        (f.name.as_str(), f.seats, f.starting_stack, f.hands_per_level, f.hand_cap),
        ("sng-6", 6, 1000, 4, 60)
    );
    assert_eq!(f.levels.len(), 5);
    assert_eq!(f.levels[4], Blinds { small: 60, big: 120, ante: 120 });
    assert_eq!(f.payouts_ppm, vec![333000, 267000, 200000, 133000, 67000, 0]);
    assert_eq!(start.clock.shot_ns, 20_000_000);
    assert_eq!(start.clock.decision_max_ns, 200_000_000);
    assert_eq!(start.clock.notify_ns, 5_000_000);
    assert_eq!(start.limits.memory_bytes, 67_108_864);
    assert_eq!(start.limits.chat_lines_per_hand, 2);
    assert_eq!(start.emotes.len(), 8);
    // Both words above 2^31: they must not be read as negative i32.
    assert_eq!(start.seed, [2_718_281_828, 3_141_592_653]);
}

#[test]
fn act_message_reads_every_key() {
    let act = parse_act(&act_text());
    assert_eq!((act.tournament, act.hand, act.street, act.seat, act.decision), (0, 3, 1, 4, 1));
    assert_eq!((act.button, act.sb, act.bb), (2, 3, 4));
    assert_eq!(act.blinds, Blinds { small: 10, big: 20, ante: 0 });
    assert_eq!(act.stacks, vec![980, 0, 940, 1010, 960, 1070]);
    assert_eq!(act.bets, vec![0, 0, 0, 0, 20, 0]);
    assert_eq!(act.contrib, vec![20, 0, 20, 0, 40, 20]);
    assert_eq!(act.in_hand, vec![true, false, true, false, true, true]);
    assert_eq!(act.folded, vec![false, false, false, true, false, false]);
    assert_eq!(act.allin, vec![false; 6]);
    assert_eq!(act.alive, vec![true, false, true, true, true, true]);
    assert_eq!(act.hole, vec![card("Ah"), card("Kd")]);
    assert_eq!(act.board, vec![card("2c"), card("7d"), card("Ks")]);
    assert_eq!(act.pot, 120);
    assert_eq!(act.history.len(), 6);
    assert_eq!(act.history[0], HistoryEntry { street: 0, seat: 5, code: ActionCode::Raise, to: 60 });
    assert_eq!(act.history[2].code, ActionCode::Fold);
    assert!(act.legal.fold && !act.legal.check);
    assert_eq!(act.legal.call, 20);
    assert_eq!(act.legal.raise, Some(RaiseRange { min: 80, max: 1000 }));
    assert_eq!((act.clock.budget_ns, act.clock.bank_ns), (220_000_000, 1_000_000_000));
    assert!(!act.away);
    assert_eq!(act.events.len(), 15);
    // Helpers.
    assert_eq!(act.my_stack(), 960);
    assert_eq!(act.hole_pair(), Some((card("Ah"), card("Kd"))));
    assert_eq!(act.live_seats().collect::<Vec<_>>(), vec![0, 2, 4, 5]);
    assert_eq!(act.raises_this_street(), 1);
}

#[test]
fn every_event_kind_is_read() {
    let act = parse_act(&act_text());
    let e = &act.events;
    assert!(matches!(&e[0], Event::TournamentStart { tournament: 0, seat: 4, aliases, stacks }
        if aliases[2] == "Lovelace" && stacks.len() == 6));
    assert!(matches!(&e[1], Event::HandStart { hand: 3, button: 2, sb: 3, bb: 4, hole, in_hand, .. }
        if *hole == vec![card("Ah"), card("Kd")] && !in_hand[1]));
    assert_eq!(
        e[2],
        Event::Action { street: 0, seat: 5, code: ActionCode::Raise, to: 60, added: 60, auto: None }
    );
    assert_eq!(
        e[3],
        Event::Action {
            street: 0,
            seat: 3,
            code: ActionCode::Fold,
            to: 0,
            added: 0,
            auto: Some("timeout".into())
        }
    );
    assert_eq!(e[4], Event::Board { street: 1, cards: vec![card("2c"), card("7d"), card("Ks")] });
    assert_eq!(
        e[5],
        Event::Showdown { cards: vec![(0, card("Qs"), card("Qd")), (4, card("Ah"), card("Kd"))] }
    );
    assert_eq!(
        e[6],
        Event::Result { winnings: vec![120, 0, 0, 0, 0, 0], stacks: vec![1100, 0, 940, 1010, 960, 1070] }
    );
    assert_eq!(e[7], Event::Eliminated { seat: 1, place: 6 });
    assert_eq!(e[8], Event::Chat { seat: 0, text: "nice \"hand\"".into(), say: true });
    assert_eq!(e[9], Event::Emote { seat: 1, emote: "gg".into() });
    assert_eq!(e[10], Event::Away { seat: 3 });
    assert_eq!(e[11], Event::Back { seat: 3 });
    assert_eq!(e[12], Event::Faulted { seat: 5 });
    // Unknown kind and malformed event: kept raw, the message still reads.
    match &e[13] {
        Event::Other(v) => assert_eq!(v.get("type").and_then(Value::as_str), Some("rabbit_hunt")),
        other => panic!("unknown event read as {:?}", other),
    }
    assert!(matches!(&e[14], Event::Other(v) if v.get("seat").and_then(Value::as_str) == Some("two")));
}

#[test]
fn hand_start_without_hole_cards() {
    for hole in ["", r#","hole":null"#, r#","hole":[]"#] {
        let text = format!(
            r#"{{"type":"hand_end","tournament":0,"hand":1,"events":[{{"type":"hand_start","hand":1,"button":0,"sb":1,"bb":2,"blinds":[10,20,0],"stacks":[1,2,3],"in_hand":[true,true,false]{}}}]}}"#,
            hole
        );
        match Message::parse(&text).unwrap() {
            Message::HandEnd(m) => {
                assert!(matches!(&m.events[0], Event::HandStart { hole, .. } if hole.is_empty()), "{}", text)
            }
            other => panic!("{:?}", other),
        }
    }
}

#[test]
fn raise_closed_is_none() {
    let act = parse_act(&act_with("legal", Some(r#"{"call":0,"check":true,"fold":true,"raise":null}"#)));
    assert_eq!(act.legal.raise, None);
    assert!(act.legal.check);
}

#[test]
fn keys_are_read_by_name_not_position() {
    // Reverse the key order at every level and add unknown keys: the same act comes out.
    fn reverse(v: &mut Value) {
        match v {
            Value::Object(pairs) => {
                pairs.reverse();
                pairs.iter_mut().for_each(|(_, x)| reverse(x));
                pairs.push(("zz_future_key".into(), Value::Array(vec![Value::Int(1)])));
            }
            Value::Array(items) => items.iter_mut().for_each(reverse),
            _ => {}
        }
    }
    let mut v = json::parse(&act_text()).unwrap();
    reverse(&mut v);
    let spaced = v.to_json().replace(',', " ,\n ").replace(':', " : ");
    // Events kept raw (`Other`) keep the reordered JSON too; every typed field must agree.
    let typed = |mut act: holdem_legacy_sdk::Act| {
        act.events.retain(|e| !matches!(e, Event::Other(_)));
        act
    };
    let (turned, plain) = (parse_act(&spaced), parse_act(&act_text()));
    assert_eq!(turned.events.len(), plain.events.len());
    assert_eq!(typed(turned), typed(plain));
}

#[test]
fn missing_or_wrong_keys_are_named() {
    let cases = [
        (act_with("pot", None), "\"pot\""),
        (act_with("stacks", Some(r#""many""#)), "\"stacks\""),
        (act_with("hole", Some(r#"["Ah","1x"]"#)), "\"hole\""),
        (act_with("seat", Some("-1")), "\"seat\""),
        (act_with("history", Some("[[0,1,7,0]]")), "\"history\""),
        (
            act_with("legal", Some(r#"{"call":0,"check":true,"fold":true,"raise":[80]}"#)),
            "act.legal: key \"raise\"",
        ),
        (act_with("clock", Some(r#"{"budget_ns":1}"#)), "act.clock: key \"bank_ns\""),
        (act_with("events", Some("{}")), "\"events\""),
    ];
    for (text, named) in cases.iter() {
        let err = Message::parse(text).expect_err(named);
        assert!(matches!(err, ParseError::Field { .. }), "{:?}", err);
        assert!(err.to_string().contains(named), "{} does not name {}", err, named);
    }
    let seed = START.replace("[2718281828,3141592653]", "[1,-2]");
    assert!(Message::parse(&seed).unwrap_err().to_string().contains("\"seed\""));
}

#[test]
fn notifications_and_unknown_types() {
    let hand_end = r#"{"events":[],"hand":3,"tournament":0,"type":"hand_end"}"#;
    assert!(
        matches!(Message::parse(hand_end), Ok(Message::HandEnd(m)) if m.hand == 3 && m.events.is_empty())
    );
    let t_end = r#"{"events":[{"place":1,"seat":2,"type":"eliminated"}],"places":[3,6,1,2,5,4],"scores_ppm":[200000,0,333000,267000,67000,133000],"tournament":0,"type":"tournament_end"}"#;
    match Message::parse(t_end).unwrap() {
        Message::TournamentEnd(m) => {
            assert_eq!(m.places, vec![3, 6, 1, 2, 5, 4]);
            assert_eq!(m.scores_ppm[2], 333000);
            assert_eq!(m.events, vec![Event::Eliminated { seat: 2, place: 1 }]);
        }
        other => panic!("{:?}", other),
    }
    match Message::parse(r#"{"type":"series_end","x":1}"#).unwrap() {
        Message::Other { kind, value } => {
            assert_eq!(kind, "series_end");
            assert_eq!(value.get("x"), Some(&Value::Int(1)));
        }
        other => panic!("{:?}", other),
    }
    assert_eq!(Message::parse(r#"{"kind":"act"}"#), Err(ParseError::NoType));
    assert_eq!(Message::parse("[1]"), Err(ParseError::NoType));
    assert!(matches!(Message::parse(r#"{"type":"act""#), Err(ParseError::Json(_))));
    assert_eq!(Message::parse_bytes(b"{\"type\":\"a\xffct\"}"), Err(ParseError::NotUtf8 { offset: 10 }));
}

#[test]
fn cards() {
    for i in 0..52u8 {
        let c = Card::from_index(i).unwrap();
        assert_eq!(c.index(), i);
        assert_eq!(Card::parse(&c.to_string()), Some(c));
    }
    assert_eq!(Card::from_index(52), None);
    assert_eq!(card("2c").index(), 0);
    assert_eq!(card("As").index(), 51);
    assert_eq!(card("Td"), Card { rank: 10, suit: 1 });
    for bad in ["", "A", "Asd", "1c", "Ax", "as", "10h"] {
        assert_eq!(Card::parse(bad), None, "{:?}", bad);
    }
}

#[test]
fn mangled_messages_never_panic() {
    // A panic would trap and bench the seat, so no input may cause one: cut, flip and splice
    // bytes of real messages (a fixed xorshift stream, so a failure replays).
    let sources = [START.to_string(), act_text(), r#"{"type":"x","s":"\ud83d\ude00\u00e9\n"}"#.to_string()];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let alphabet = b"{}[]\",:\\u0123456789-+.eEtrufalsn \x01\xff\xc3\xa9";
    let mut read = 0;
    for round in 0..20_000 {
        let source = sources[round % sources.len()].as_bytes();
        let mut bytes = source.to_vec();
        for _ in 0..1 + next() % 4 {
            let at = (next() % (bytes.len() as u64 + 1)) as usize;
            match next() % 4 {
                0 => bytes.truncate(at),
                1 if at < bytes.len() => bytes[at] = alphabet[(next() % alphabet.len() as u64) as usize],
                2 => bytes.insert(at, alphabet[(next() % alphabet.len() as u64) as usize]),
                _ if at < bytes.len() => {
                    bytes.remove(at);
                }
                _ => {}
            }
        }
        read += Message::parse_bytes(&bytes).is_ok() as usize;
    }
    // Both outcomes were reached, so the mangling exercised the readers, not only the JSON check.
    assert!((500..19_500).contains(&read), "{} of 20000 still read", read);
}
