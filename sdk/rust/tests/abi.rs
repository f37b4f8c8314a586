//! The export plumbing that runs natively: packed replies, the message buffer, `handle`, the
//! `holdem_policy!` macro and the host wrappers.

use holdem_legacy_sdk::json::{self, Value};
use holdem_legacy_sdk::{
    handle, holdem_policy, log, pack_reply, time_left_ns, unpack_reply, Act, HandEnd, MessageBuffer,
    ParseError, Policy, Reply, Start, MAX_MESSAGE_BYTES,
};

#[test]
fn packed_reply_is_ptr_high_len_low() {
    assert_eq!(pack_reply(0, 0), 0);
    assert_eq!(pack_reply(0x0001_0000, 5), 0x0001_0000_0000_0005);
    assert_eq!(pack_reply(1, 0), 1 << 32);
    // A pointer with the top bit set makes the i64 negative; the host reads it unsigned.
    let high = pack_reply(0xFFFF_FFF0, 4096);
    assert!(high < 0);
    assert_eq!((high as u64) >> 32, 0xFFFF_FFF0);
    assert_eq!(high as u64 & 0xFFFF_FFFF, 4096);
    // A full-width length must not spill into the pointer half.
    assert_eq!(unpack_reply(pack_reply(7, u32::MAX)), (7, u32::MAX));
    for &(p, l) in &[(0u32, 1u32), (1_048_576, 17), (u32::MAX, u32::MAX), (0x8000_0000, 0)] {
        assert_eq!(unpack_reply(pack_reply(p, l)), (p, l));
    }
}

#[test]
fn message_buffer_grows_and_refuses() {
    let mut buf = MessageBuffer::new();
    assert_eq!(buf.alloc(-1), None);
    assert_eq!(buf.alloc(i32::MIN), None);
    assert_eq!(buf.alloc(MAX_MESSAGE_BYTES as i32 + 1), None);
    let p = buf.alloc(100).expect("100 bytes");
    assert!(buf.capacity() >= 100);
    // The same buffer comes back for messages that fit: no allocation per message.
    assert_eq!(buf.alloc(100), Some(p));
    assert_eq!(buf.alloc(0), Some(p));
    let big = 200_000;
    let q = buf.alloc(big).expect("200 kB");
    assert!(buf.capacity() >= big as usize);
    // The host writes into the buffer; the bytes read back.
    let message = b"{\"type\":\"hand_end\"}";
    unsafe {
        std::ptr::copy_nonoverlapping(message.as_ptr(), q.add(big as usize - message.len()), message.len());
        let back = std::slice::from_raw_parts(q.add(big as usize - message.len()), message.len());
        assert_eq!(back, message);
    }
}

/// A policy that records what it was called with.
#[derive(Default)]
struct Recorder {
    calls: Vec<String>,
}

impl Policy for Recorder {
    fn start(&mut self, start: &Start) {
        self.calls.push(format!("start {}", start.slot));
    }

    fn act(&mut self, act: &Act) -> Reply {
        self.calls.push(format!("act {}", act.hand));
        Reply::action(act.legal.check_or_fold()).chat("hi")
    }

    fn hand_end(&mut self, msg: &HandEnd) -> Reply {
        self.calls.push(format!("hand_end {}", msg.hand));
        Reply::none()
    }

    fn other(&mut self, kind: &str, _value: &Value) -> Reply {
        self.calls.push(format!("other {}", kind));
        Reply::none().sit_in()
    }

    fn bad_message(&mut self, raw: &[u8], error: &ParseError) -> Reply {
        self.calls.push(format!("bad {} {:?}", raw.len(), error));
        Reply::none()
    }
}

const ACT: &str = r#"{"type":"act","events":[],"tournament":0,"hand":7,"street":0,"seat":1,"decision":0,"button":0,"sb":1,"bb":2,"blinds":[10,20,0],"stacks":[990,980,1000],"bets":[0,10,20],"contrib":[0,10,20],"in_hand":[true,true,true],"folded":[false,false,false],"allin":[false,false,false],"alive":[true,true,true],"hole":["7c","2d"],"board":[],"pot":30,"history":[],"legal":{"fold":true,"check":false,"call":10,"raise":[40,990]},"clock":{"budget_ns":20000000,"bank_ns":1000000000},"away":false}"#;

#[test]
fn handle_dispatches_by_type() {
    let mut p = Recorder::default();
    let start = r#"{"type":"start","protocol":1,"slot":3,"alias":"A","variant":"v","tournaments":1,"format":{"name":"certify","seats":3,"starting_stack":200,"hands_per_level":1,"hand_cap":8,"levels":[[10,20,0]],"payouts_ppm":[600000,400000,0]},"clock":{"shot_ns":1,"bank_ns":1,"decision_max_ns":1,"notify_ns":1,"start_ns":1},"limits":{"memory_bytes":1,"reply_bytes":4096,"chat_chars":140,"chat_lines_per_hand":2},"emotes":[],"seed":[0,4294967295]}"#;
    assert_eq!(handle(&mut p, start.as_bytes()), None, "start gets no reply");
    let reply = handle(&mut p, ACT.as_bytes()).expect("an act reply");
    let v = json::parse(&reply).unwrap();
    assert_eq!(v.get("action").and_then(Value::as_str), Some("fold"));
    assert_eq!(handle(&mut p, br#"{"type":"hand_end","events":[],"tournament":0,"hand":7}"#), None);
    assert_eq!(handle(&mut p, br#"{"type":"lunch_break"}"#).as_deref(), Some(r#"{"sit_in":true}"#));
    assert_eq!(handle(&mut p, b"\xff\xfe"), None);
    assert_eq!(handle(&mut p, b""), None);
    assert_eq!(handle(&mut p, br#"{"type":"act"}"#), None);
    assert_eq!(
        p.calls,
        vec![
            "start 3".to_string(),
            "act 7".into(),
            "hand_end 7".into(),
            "other lunch_break".into(),
            "bad 2 NotUtf8 { offset: 0 }".into(),
            "bad 0 Json(JsonError { offset: 0, what: \"unexpected end\" })".into(),
            "bad 14 Field { path: \"act\", key: \"legal\", expected: \"an object\" }".into(),
        ]
    );
}

#[derive(Default)]
struct Passive;

impl Policy for Passive {
    fn act(&mut self, act: &Act) -> Reply {
        Reply::action(act.legal.check_or_fold())
    }
}

// Natively the macro exports nothing but must accept both forms.
holdem_policy!(Passive);
// A second use would define the exports twice on wasm32 (the macro is for once per module).
#[cfg(not(target_arch = "wasm32"))]
mod with_init {
    holdem_legacy_sdk::holdem_policy!(super::Passive, super::Passive);
}

#[test]
fn default_bad_message_sends_nothing() {
    assert_eq!(handle(&mut Passive, b"not json"), None);
    assert_eq!(handle(&mut Passive, ACT.as_bytes()).as_deref(), Some(r#"{"action":"fold"}"#));
}

#[test]
fn host_wrappers_are_inert_natively() {
    log("a line that goes nowhere natively");
    log(&"long ".repeat(1000));
    assert_eq!(time_left_ns(), i64::MAX);
    assert_eq!(holdem_legacy_sdk::cut("héllo", 2), "h");
    assert_eq!(holdem_legacy_sdk::cut("héllo", 3), "hé");
    assert_eq!(holdem_legacy_sdk::cut("abc", 10), "abc");
}
