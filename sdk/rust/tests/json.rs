//! The JSON reader and the string escaping.

use holdem_legacy_sdk::json::{self, write_str, Value, MAX_DEPTH};

fn escaped(s: &str) -> String {
    let mut out = String::new();
    write_str(&mut out, s);
    out
}

#[test]
fn reads_values() {
    let v = json::parse(r#" {"a" : [1, -2, 3.5, 1e3, true, false, null, "x"], "b": {}, "c": []} "#).unwrap();
    let a = v.get("a").and_then(Value::as_array).unwrap();
    assert_eq!(a[0], Value::Int(1));
    assert_eq!(a[1], Value::Int(-2));
    assert_eq!(a[2], Value::Float(3.5));
    assert_eq!(a[3], Value::Float(1000.0));
    assert_eq!(&a[4..7], &[Value::Bool(true), Value::Bool(false), Value::Null]);
    assert_eq!(a[7].as_str(), Some("x"));
    assert_eq!(v.get("b"), Some(&Value::Object(vec![])));
    assert_eq!(v.get("c"), Some(&Value::Array(vec![])));
    assert_eq!(v.get("d"), None);
    // Past i64: kept as a float rather than refused.
    assert_eq!(json::parse("9223372036854775808").unwrap(), Value::Float(9223372036854775808.0));
    assert_eq!(json::parse("-9223372036854775808").unwrap(), Value::Int(i64::MIN));
}

#[test]
fn reads_string_escapes() {
    let v = json::parse(r#""q\" b\\ s\/ \b\f\n\r\t \u00e9 \ud83d\ude00 \ud800x""#).unwrap();
    assert_eq!(v.as_str(), Some("q\" b\\ s/ \u{8}\u{c}\n\r\t é 😀 \u{fffd}x"));
    assert_eq!(json::parse("\"héllo ♠\"").unwrap().as_str(), Some("héllo ♠"));
}

#[test]
fn refuses_bad_json_with_the_offset() {
    let cases: &[(&str, usize)] = &[
        ("", 0),
        ("[1,]", 3),
        ("{\"a\":1,}", 7),
        ("{\"a\" 1}", 5),
        ("{1:2}", 1),
        ("\"abc", 4),
        ("\"a\u{1}b\"", 2),
        ("\"\\x\"", 2),
        ("\"\\u12g4\"", 5),
        ("01", 0),
        ("-", 0),
        ("1.", 0),
        ("1e", 0),
        ("tru", 0),
        ("[1] 2", 4),
        ("@", 0),
    ];
    for (text, offset) in cases {
        let err = json::parse(text).expect_err(text);
        assert_eq!(err.offset, *offset, "{:?}: {}", text, err);
        assert!(err.to_string().contains(&format!("byte {}", offset)));
    }
}

#[test]
fn nesting_is_capped() {
    let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    assert!(json::parse(&ok).is_ok());
    let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
    assert_eq!(json::parse(&deep).unwrap_err().what, "nested too deep");
    let objects = format!("{}1{}", "{\"a\":".repeat(100_000), "}".repeat(100_000));
    assert!(json::parse(&objects).is_err());
}

#[test]
fn escaping_is_exact() {
    assert_eq!(escaped(r#"say "hi" \o/"#), r#""say \"hi\" \\o/""#);
    assert_eq!(escaped("a\nb\tc\rd\u{8}\u{c}"), r#""a\nb\tc\rd\b\f""#);
    assert_eq!(escaped("\u{0}\u{1f}\u{7f}"), r#""\u0000\u001f\u007f""#);
    assert_eq!(escaped("é ♠ 😀"), "\"é ♠ 😀\"");
}

#[test]
fn escaping_round_trips_every_ascii_and_some_unicode() {
    let mut text: String = (0u8..128).map(char::from).collect();
    text.push_str("é\u{2028}♠😀\u{fffd}");
    let out = escaped(&text);
    // No raw control character may reach the host.
    assert!(out.chars().all(|c| c >= ' ' && c != '\u{7f}'), "{:?}", out);
    assert_eq!(json::parse(&out).unwrap().as_str(), Some(text.as_str()));
}

#[test]
fn values_round_trip() {
    let text = r#"{"a":[1,-2,3.5,true,false,null,"x\"y\n"],"b":{"c":{}},"d":[]}"#;
    let v = json::parse(text).unwrap();
    assert_eq!(v.to_json(), text);
    assert_eq!(json::parse(&v.to_json()).unwrap(), v);
    assert_eq!(Value::Float(f64::NAN).to_json(), "null");
}
