//! Property tests of the two entry points' parsing and validation: whatever arrives, the answer
//! is never a 5xx (and never a panic, which would be a 500 page), every refusal is JSON or a
//! page that says what was wrong, and a real lead however dressed in hostile characters is
//! stored, cleaned.
//!
//! Not run again on PostgreSQL: it tests the parsing and validation in front of the store; the
//! store on PostgreSQL is tests/rest.rs's.

use crate::common;

use std::sync::OnceLock;

use axum::body::Body;
use axum::http::Request;
use proptest::prelude::*;

/// One app for all cases: the properties are about parsing, not about a fresh database.
fn app() -> &'static (tokio::runtime::Runtime, common::TestApp) {
    static APP: OnceLock<(tokio::runtime::Runtime, common::TestApp)> = OnceLock::new();
    APP.get_or_init(|| {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        // Generated leads may share a phone; each must be stored, not merged as a duplicate.
        let app = runtime.block_on(common::test_app_with(|s| s.duplicate_window_hours = 0));
        (runtime, app)
    })
}

fn post(path: &str, content_type: &str, body: Vec<u8>) -> common::Answer {
    let (runtime, app) = app();
    let request = Request::post(path)
        .header("apikey", common::KEY)
        .header("content-type", content_type)
        .header("prefer", "return=representation")
        .body(Body::from(body))
        .unwrap();
    runtime.block_on(app.call(request))
}

/// Text that mixes what real visitors type with what attackers send.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ а-яіїєґА-ЯІЇЄҐ'a-zA-Z0-9+()\\-]{0,40}",
        "\\PC{0,60}",
        ".{0,20}",
        Just("=cmd|'/c calc'!A1".to_owned()),
        Just("<script>alert(1)</script>".to_owned()),
        Just("\u{202E}\u{0000}\u{FEFF}".to_owned()),
        hostile_text(),
    ]
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    prop_oneof![
        text().prop_map(serde_json::Value::String),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<bool>().prop_map(serde_json::Value::from),
        Just(serde_json::Value::Null),
        Just(serde_json::json!({"nested": [1, 2]})),
    ]
}

/// Characters that show nothing, the ones issue 17 names: the cleaning drops them wherever they
/// are (controls, direction marks and overrides, zero-width characters, the BOM, the soft hyphen,
/// tag characters, a blank Hangul filler).
const INVISIBLE: &str = "\u{0000}\u{0007}\u{001B}\u{007F}\u{009B}\u{00AD}\u{061C}\u{200B}\
    \u{200C}\u{200D}\u{200E}\u{200F}\u{202A}\u{202E}\u{2060}\u{2066}\u{2069}\u{3164}\
    \u{FEFF}\u{E0001}\u{E0041}\u{E007F}";

fn dropped_character() -> impl Strategy<Value = char> {
    prop::sample::select(INVISIBLE.chars().collect::<Vec<_>>())
}

/// Whether `c` shows nothing, by the ranges the issue names (independent of how `clean` decides).
fn shows_nothing(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{00AD}' | '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}'
                | '\u{2060}'..='\u{2069}' | '\u{3164}' | '\u{FEFF}' | '\u{E0000}'..='\u{E007F}'
        )
}

/// Text as hostile as it gets for the cleaning: anything, invisible characters, emoji and their
/// joiners and selectors, letters with separate accents, breaks.
fn hostile_text() -> impl Strategy<Value = String> {
    let character = prop_oneof![
        any::<char>(),
        dropped_character(),
        prop::sample::select(&['👩', '💻', '❤', '🔥', '🏽', '\u{FE0F}', '\u{FE0E}', '\u{E0100}'][..]),
        prop::sample::select(&['а', 'и', '\u{0306}', '1', ' ', '\n', '\r', '\u{2028}', '\u{2029}'][..]),
    ];
    proptest::collection::vec(character, 0..40).prop_map(|chars| chars.into_iter().collect())
}

/// A name as a person writes it, and the same name with dropped characters put anywhere, `й`
/// and `ї` decomposed (NFD) and spaces around it: what a careless client or an attacker sends.
fn dressed_name() -> impl Strategy<Value = (String, String)> {
    let name = "[а-яіїєґйА-ЯІЇЄҐЙa-zA-Z][а-яіїєґйА-ЯІЇЄҐЙa-zA-Z' -]{0,38}[а-яіїєґйА-ЯІЇЄҐЙa-zA-Z]";
    (name, proptest::collection::vec((any::<prop::sample::Index>(), dropped_character()), 0..4), " {0,2}")
        .prop_map(|(name, insertions, padding): (String, Vec<(prop::sample::Index, char)>, String)| {
            let mut sent: Vec<char> =
                name.replace('й', "и\u{0306}").replace('ї', "і\u{0308}").chars().collect();
            for (at, c) in insertions {
                sent.insert(at.index(sent.len() + 1), c);
            }
            (name, format!("{padding}{}{padding}", sent.into_iter().collect::<String>()))
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_bytes_to_the_insert_get_a_json_answer_below_500(body in proptest::collection::vec(any::<u8>(), 0..300)) {
        let answer = post("/rest/v1/CRN", "application/json", body);
        prop_assert!(answer.status.as_u16() < 500, "{}", answer.status);
        if !answer.status.is_success() {
            prop_assert!(serde_json::from_slice::<serde_json::Value>(&answer.body).is_ok());
        }
    }

    #[test]
    fn any_lead_shaped_object_is_stored_or_refused_with_a_reason(
        fields in proptest::collection::btree_map(
            prop_oneof![
                Just("name".to_owned()),
                Just("phone".to_owned()),
                Just("confirmation".to_owned()),
                Just("comment".to_owned()),
                Just("id".to_owned()),
                ".{0,8}",
            ],
            json_value(),
            0..6,
        ),
        as_array in any::<bool>(),
    ) {
        let object = serde_json::Value::Object(fields.into_iter().collect());
        let body = if as_array { serde_json::json!([object]) } else { object };
        let answer = post("/rest/v1/CRN", "application/json", body.to_string().into_bytes());
        let status = answer.status.as_u16();
        prop_assert!(status == 201 || status == 400, "{status}: {}", answer.text());
        let json: serde_json::Value = serde_json::from_slice(&answer.body).unwrap();
        if status == 400 {
            prop_assert!(json["code"].is_string() && json["message"].is_string());
        } else {
            // What was stored passed every rule: nothing invisible, a phone with 7-15 digits.
            let row = &json[0];
            let name = row["name"].as_str().unwrap();
            prop_assert!(!name.is_empty() && !name.chars().any(shows_nothing), "{name:?}");
            let digits = row["phone"].as_str().unwrap().chars().filter(char::is_ascii_digit).count();
            prop_assert!((7..=15).contains(&digits));
        }
    }

    #[test]
    fn a_real_lead_however_dressed_is_stored_clean(
        (name, sent_name) in dressed_name(),
        phone in "(\\+38 ?|38)?\\(?0[1-9][0-9]\\)?[ -]?[0-9]{3}[ -]?[0-9]{2}[ -]?[0-9]{2}",
        confirmation in "( ?)(Так|Ні)( ?)",
        comment in proptest::option::of(prop_oneof!["\\PC{0,200}", hostile_text()]),
    ) {
        let body = serde_json::json!({
            "name": sent_name, "phone": phone, "confirmation": confirmation, "comment": comment,
        });
        let answer = post("/rest/v1/CRN", "application/json", body.to_string().into_bytes());
        prop_assert_eq!(answer.status.as_u16(), 201, "{}", answer.text());
        let row = &answer.json()[0];
        prop_assert_eq!(row["name"].as_str().unwrap(), name.as_str());
        prop_assert_eq!(row["phone"].as_str().unwrap(), phone.trim());
        prop_assert_eq!(row["confirmation"].as_str().unwrap(), confirmation.trim());
        if let Some(stored) = row["comment"].as_str() {
            let hidden = |c: char| shows_nothing(c) && c != '\n' && c != '\u{200D}';
            prop_assert!(!stored.chars().any(hidden), "{stored:?}");
            prop_assert!(unicode_normalization::is_nfc(stored), "{stored:?}");
        }
    }

    #[test]
    fn any_form_body_gets_a_page_below_500(body in proptest::collection::vec(any::<u8>(), 0..300)) {
        let answer = post("/leads", "application/x-www-form-urlencoded", body);
        prop_assert!(answer.status.as_u16() < 500, "{}", answer.status);
    }
}

proptest! {
    // Pure functions, no app: many more cases cost little.
    #![proptest_config(ProptestConfig {
        cases: 2000, failure_persistence: None, ..ProptestConfig::default()
    })]

    #[test]
    fn cleaned_text_shows_all_it_holds_and_cleaning_again_changes_nothing(raw in hostile_text()) {
        use zayavka::lead::clean::{multi_line, single_line};
        let line = single_line(&raw);
        prop_assert!(!line.chars().any(shows_nothing), "{raw:?} -> {line:?}");
        prop_assert_eq!(single_line(&line), line.clone());

        let comment = multi_line(&raw);
        let chars: Vec<char> = comment.chars().collect();
        for (at, &c) in chars.iter().enumerate() {
            if c == '\u{200D}' {
                // A joiner stays only inside an emoji sequence: never at an end, never next to
                // ASCII, a space or a Cyrillic letter.
                let beside = [at.checked_sub(1).map(|i| chars[i]), chars.get(at + 1).copied()];
                let in_emoji = |b: char| {
                    !b.is_ascii() && !b.is_whitespace() && !('\u{0400}'..='\u{04FF}').contains(&b)
                };
                prop_assert!(
                    beside.iter().all(|b| b.is_some_and(in_emoji)),
                    "{raw:?} -> {comment:?}"
                );
            } else {
                prop_assert!(c == '\n' || !shows_nothing(c), "{raw:?} -> {comment:?}");
            }
        }
        prop_assert_eq!(multi_line(&comment), comment.clone());
    }
}
