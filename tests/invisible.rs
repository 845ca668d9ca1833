//! Characters that show nothing are not a value: a lead whose name is only invisible characters
//! is refused as if the name were empty, on the API the site uses.

use crate::common;

use common::test_app;

#[tokio::test]
async fn a_name_of_only_invisible_characters_is_refused_as_missing() {
    let app = test_app().await;
    let empty = app.insert(r#"{"name":"","phone":"0671234567","confirmation":"Так"}"#, "").await;
    for name in ["\u{200B}", "\u{200B}\u{2060}\u{FEFF}", "\u{202E}\u{2066}\u{200D}", "\u{3164}", "\u{E0041}"]
    {
        let body = serde_json::json!({"name": name, "phone": "0671234567", "confirmation": "Так"});
        let answer = app.insert(&body.to_string(), "").await;
        assert_eq!(answer.status, empty.status, "{name:?}");
        assert_eq!(answer.json(), empty.json(), "{name:?}: the same refusal as an empty name");
    }
    assert!(app.stored().await.is_empty());
    let details = empty.json()["details"].as_str().unwrap().to_owned();
    assert!(details.contains("Поле «Ваше ім'я» обов'язкове."), "{details}");
}
