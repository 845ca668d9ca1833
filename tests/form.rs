//! `POST /leads`: the form without JavaScript. A refusal answers with the landing page itself
//! (web/dist/form-refused.html filled in by src/http/form.rs), in the toasts' words (docs/product.md, Messages).

use crate::common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::{TestApp, test_app, test_app_with};

/// The toasts' texts (docs/product.md, Messages), as the JavaScript path shows them.
const INVALID: [&str; 2] = ["Будь ласка, заповніть всі поля", "Всі обов'язкові поля мають бути заповнені"];
const FAILED: [&str; 2] = ["Сталася помилка", "Спробуйте, будь ласка, ще раз."];

async fn post_form(app: &TestApp, body: &str) -> common::Answer {
    let request = Request::post("/leads")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(Body::from(body.to_owned()))
        .unwrap();
    app.call(request).await
}

fn encode(fields: &[(&str, &str)]) -> String {
    fields
        .iter()
        .map(|(k, v)| format!("{k}={}", v.bytes().map(|b| format!("%{b:02X}")).collect::<String>()))
        .collect::<Vec<_>>()
        .join("&")
}

/// The start tag that contains `needle`.
fn tag_with<'a>(html: &'a str, needle: &str) -> &'a str {
    let at = html.find(needle).unwrap_or_else(|| panic!("no {needle} in {html}"));
    let start = html[..=at].rfind('<').unwrap();
    let end = at + html[at..].find('>').unwrap();
    &html[start..=end]
}

/// The live region at the top of the form, as text with its tags.
fn live_region(html: &str) -> &str {
    let start = html.find("role=\"alert\"").expect("a live region");
    let end = start + html[start..].find("</div>").unwrap();
    &html[start..end]
}

/// What every refusal page is: the landing page, its slots all filled, never cached.
fn assert_landing_page(answer: &common::Answer) {
    let html = answer.text();
    let landing =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/web/dist/index.html")).unwrap();
    let headline = tag_with(&landing, "<h1");
    let headline = &landing[landing.find(headline).unwrap()..landing.find("</h1>").unwrap()];
    assert!(html.contains(headline), "the landing page's headline {headline}");
    assert!(html.contains("lang=\"uk\""));
    assert!(html.contains("<form id=\"lead-form\""), "the landing page's form");
    assert!(!html.contains("data-zayavka-") && !html.contains("__ZAYAVKA_"), "every slot filled: {html}");
    assert_eq!(answer.header("cache-control"), "no-store");
    assert_eq!(html.matches("autofocus").count(), 1, "one place the focus goes");
}

fn assert_says(html: &str, texts: [&str; 2]) {
    let region = live_region(html);
    for text in texts {
        assert!(region.contains(text), "{text} in {region}");
    }
    assert_eq!(region.matches("<p").count(), 1, "one case only: {region}");
}

#[tokio::test]
async fn a_complete_form_is_stored_and_redirected_with_303() {
    let app = test_app_with(|s| s.redirect_url = "https://example.org/dyakuyemo".into()).await;
    let body = encode(&[
        ("name", " Олена "),
        ("phone", "067 123 45 67"),
        ("confirmation", "Так"),
        ("comment", ""),
        ("agreed", "on"),
        ("website", ""),
    ]);
    let answer = post_form(&app, &body).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER);
    assert_eq!(answer.header("location"), "https://example.org/dyakuyemo");
    let stored = app.stored().await;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].name, "Олена");
    assert_eq!(stored[0].comment, None);
}

#[tokio::test]
async fn a_missing_answer_gets_the_landing_page_with_the_entries_kept_and_the_question_marked() {
    let app = test_app().await;
    let body = encode(&[
        ("name", "\"><script>alert(1)</script>"),
        ("phone", "067 123 45 67"),
        ("comment", "ввечері & <i>'</i>"),
        ("agreed", "on"),
    ]);
    let answer = post_form(&app, &body).await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_landing_page(&answer);
    let html = answer.text();
    assert_says(&html, INVALID);

    let question = tag_with(&html, "role=\"radiogroup\"");
    assert!(
        question.contains("aria-invalid=\"true\" aria-describedby=\"lead-confirmation-error\""),
        "{question}"
    );
    let message = tag_with(&html, "id=\"lead-confirmation-error\"");
    assert!(html.contains(&format!("{message}Оберіть, будь ласка, «Так» або «Ні».</p>")), "{message}");
    assert!(tag_with(&html, "value=\"Так\"").contains("autofocus"), "the focus on the question");
    assert_eq!(html.matches("aria-invalid=\"true\"").count(), 1, "only the question is marked");
    assert_eq!(html.matches("class=\"field-error\"").count(), 1);

    let name = tag_with(&html, "name=\"name\"");
    assert!(name.contains("value=\"&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;\""), "{name}");
    assert!(!html.contains("<script>alert"), "nothing the visitor wrote is markup");
    assert!(tag_with(&html, "name=\"phone\"").contains("value=\"067 123 45 67\""));
    assert!(html.contains(">ввечері &amp; &lt;i&gt;&#x27;&lt;/i&gt;</textarea>"), "{html}");
    assert!(tag_with(&html, "name=\"agreed\"").contains("checked"), "the box as the visitor left it");
    assert!(!tag_with(&html, "value=\"Ні\"").contains("checked"));
    assert!(app.stored().await.is_empty());
}

/// A browser counts each line break of the comment once against its `maxlength` but sends it as
/// CR LF: a comment of the field's full length with lines comes back whole.
#[tokio::test]
async fn a_full_length_comment_with_lines_is_kept_when_the_form_is_refused() {
    let app = test_app().await;
    let comment = format!("{}\r\n{}\r\n{}", "к".repeat(600), "р".repeat(300), "д".repeat(98));
    assert_eq!(comment.replace("\r\n", "\n").chars().count(), zayavka::lead::MAX_COMMENT_CHARS);
    let body =
        encode(&[("name", "Олена"), ("phone", "067 123 45 67"), ("comment", &comment), ("agreed", "on")]);
    let answer = post_form(&app, &body).await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(answer.text().contains(&"д".repeat(98)), "the comment was not kept");
}

#[tokio::test]
async fn a_phone_that_is_not_a_number_is_marked_with_its_own_message() {
    let app = test_app().await;
    let body = encode(&[("name", "Олена"), ("phone", "дзвоніть"), ("confirmation", "Ні"), ("agreed", "on")]);
    let answer = post_form(&app, &body).await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_landing_page(&answer);
    let html = answer.text();
    assert!(live_region(&html).contains("Перевірте номер телефону"), "{html}");
    let phone = tag_with(&html, "name=\"phone\"");
    assert!(
        phone.contains("aria-describedby=\"lead-phone-error\"") && phone.contains("autofocus"),
        "{phone}"
    );
    assert!(phone.contains("value=\"дзвоніть\""));
    assert!(html.contains("Номер телефону має складатися з цифр"));
    assert!(!html.contains("Вкажіть, будь ласка, номер телефону."), "not the message for a missing phone");
    assert!(tag_with(&html, "value=\"Ні\"").contains("checked"));
    assert!(app.stored().await.is_empty());
}

#[tokio::test]
async fn an_empty_form_marks_every_required_field_and_focuses_the_first() {
    let app = test_app().await;
    let answer = post_form(&app, "name=").await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_landing_page(&answer);
    let html = answer.text();
    assert_says(&html, INVALID);
    for field in ["name", "phone", "confirmation", "agreed"] {
        let id = format!("id=\"lead-{field}-error\"");
        assert_eq!(html.matches(&id).count(), 1, "{field}'s message");
        assert!(html.contains(&format!("aria-describedby=\"lead-{field}-error\"")), "{field} marked");
    }
    assert!(tag_with(&html, "name=\"name\"").contains("autofocus"));
    assert!(!tag_with(&html, "name=\"agreed\"").contains("checked"), "an unticked box stays unticked");
}

#[tokio::test]
async fn text_that_is_not_utf8_is_refused_rather_than_stored_altered() {
    let app = test_app().await;
    let lead = "phone=0671234567&confirmation=%D0%A2%D0%B0%D0%BA&agreed=on";
    // "Олена" in Windows-1251: percent-encoded, and as raw bytes.
    let mut raw = b"name=".to_vec();
    raw.extend_from_slice(&[0xCE, 0xEB, 0xE5, 0xED, 0xE0]);
    raw.extend_from_slice(format!("&{lead}").as_bytes());
    for body in [format!("name=%CE%EB%E5%ED%E0&{lead}").into_bytes(), raw] {
        let request = Request::post("/leads")
            .header("content-type", "application/x-www-form-urlencoded")
            .body(Body::from(body))
            .unwrap();
        let answer = app.call(request).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST);
        assert_landing_page(&answer);
        assert_says(&answer.text(), FAILED);
    }
    assert!(app.stored().await.is_empty());
}

#[tokio::test]
async fn an_oversized_or_foreign_body_gets_the_landing_page_and_stores_nothing() {
    let app = test_app().await;
    let comment = "я".repeat(40_000);
    let oversized = encode(&[("name", "Олена"), ("phone", "0671234567"), ("comment", &comment)]);
    let answer = post_form(&app, &oversized).await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_landing_page(&answer);
    assert_says(&answer.text(), FAILED);

    let request = Request::post("/leads")
        .header("content-type", "text/plain")
        .body(Body::from("name=Олена&phone=0671234567"))
        .unwrap();
    let answer = app.call(request).await;
    assert_eq!(answer.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_landing_page(&answer);
    let html = answer.text();
    assert_says(&html, FAILED);
    assert!(
        tag_with(&html, "id=\"lead-form-alert\"").contains("autofocus"),
        "no field to fix: the focus on the message"
    );
    assert!(app.stored().await.is_empty());
}

#[tokio::test]
async fn too_many_tries_keep_the_entries_and_say_so_in_specs_words() {
    let app = test_app_with(|s| s.rate_limit_per_minute = 1).await;
    let lead = |phone: &str| {
        encode(&[
            ("name", "Олена"),
            ("phone", phone),
            ("confirmation", "Так"),
            ("comment", "ввечері"),
            ("agreed", "on"),
        ])
    };
    assert_eq!(post_form(&app, &lead("0671234567")).await.status, StatusCode::SEE_OTHER);
    let answer = post_form(&app, &lead("0671234568")).await;
    assert_eq!(answer.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(!answer.header("retry-after").is_empty());
    assert!(answer.header("ratelimit").starts_with("limit=1, remaining=0"));
    assert_landing_page(&answer);
    let html = answer.text();
    assert_says(&html, FAILED);
    assert!(tag_with(&html, "name=\"phone\"").contains("value=\"0671234568\""));
    assert!(tag_with(&html, "value=\"Так\"").contains("checked"));
    assert!(html.contains(">ввечері</textarea>"));
    assert_eq!(app.stored().await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_database_unavailable_the_answer_is_503_with_the_entries_kept() {
    let app = test_app().await;
    let lock = app.database.lock_leads_table().await;
    let body =
        encode(&[("name", "Олена"), ("phone", "0671234567"), ("confirmation", "Ні"), ("agreed", "on")]);
    let answer = post_form(&app, &body).await;
    lock.release().await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_landing_page(&answer);
    let html = answer.text();
    assert_says(&html, FAILED);
    assert!(tag_with(&html, "name=\"name\"").contains("value=\"Олена\""));
    assert!(tag_with(&html, "value=\"Ні\"").contains("checked"));
}

#[tokio::test]
async fn the_refusal_page_keeps_the_strict_csp_and_loads_no_script() {
    let app = test_app().await;
    let answer = post_form(&app, "name=").await;
    let html = answer.text();
    let csp = answer.header("content-security-policy").to_owned();
    let start = html.find("<style>").unwrap() + "<style>".len();
    let style = &html[start..start + html[start..].find("</style>").unwrap()];
    assert!(csp.contains(&zayavka::site::csp_hash(style)), "{csp}");
    assert!(!csp.contains("unsafe-inline"));
    assert!(!html.contains("style="), "no style attributes");
    let scripts: Vec<_> =
        html.match_indices("<script").map(|(at, _)| tag_with(&html[at..], "<script")).collect();
    assert_eq!(scripts, ["<script id=\"zayavka-config\" type=\"application/json\">"], "only the data block");
}

#[tokio::test]
async fn only_a_checked_box_is_consent() {
    let app = test_app().await;
    let lead = encode(&[("name", "Олена"), ("phone", "0671234567"), ("confirmation", "Так")]);
    // A checked box sends `agreed=on`; an unchecked one sends nothing. A crafted `agreed=` (or
    // any other value) is not a box anyone ticked.
    for agreed in ["agreed=", "agreed=off", "agreed=%20"] {
        let answer = post_form(&app, &format!("{lead}&{agreed}")).await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{agreed}");
        let html = answer.text();
        assert_says(&html, INVALID);
        assert!(html.contains("Щоб надіслати заявку, потрібна Ваша згода."), "{agreed}");
        let agreement = tag_with(&html, "name=\"agreed\"");
        assert!(!agreement.contains("checked"), "{agreed}: the page shows the box unticked");
        assert!(
            agreement.contains("aria-invalid=\"true\"") && agreement.contains("autofocus"),
            "{agreement}"
        );
    }
    assert!(app.stored().await.is_empty(), "nothing stored without consent");

    let answer = post_form(&app, &format!("{lead}&agreed=on")).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER);
    assert_eq!(app.stored().await.len(), 1);
}

#[tokio::test]
async fn the_form_carries_its_attribution_fields() {
    let app = test_app().await;
    let body = encode(&[
        ("name", "Олена"),
        ("phone", "067 123 45 67"),
        ("confirmation", "Так"),
        ("agreed", "on"),
        ("utm_source", "telegram"),
        ("utm_campaign", "весна"),
        ("referrer", "https://t.me/some_channel/123"),
    ]);
    let answer = post_form(&app, &body).await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.text());
    let stored = app.stored().await;
    assert_eq!(stored[0].attribution.utm_source.as_deref(), Some("telegram"));
    assert_eq!(stored[0].attribution.utm_campaign.as_deref(), Some("весна"));
    assert_eq!(stored[0].attribution.referrer.as_deref(), Some("t.me"));
}

/// Without JavaScript the form has no attribution fields: the landing page's own utm_* parameters
/// come with the post as its `Referer` (sent to this site only); another site's page tells nothing.
#[tokio::test]
async fn without_fields_the_landing_page_s_own_parameters_are_the_attribution() {
    let app = test_app().await;
    for (referer, phone) in [
        (
            "http://zayavka.test/?utm_source=viber&utm_campaign=%D0%B7%D0%B8%D0%BC%D0%B0&fbclid=x",
            "067 123 45 67",
        ),
        ("https://elsewhere.example/?utm_source=spoofed", "067 123 45 68"),
    ] {
        let request = axum::http::Request::post("/leads")
            .header("content-type", "application/x-www-form-urlencoded")
            .header("host", "zayavka.test")
            .header("referer", referer)
            .body(axum::body::Body::from(encode(&[
                ("name", "Олена"),
                ("phone", phone),
                ("confirmation", "Так"),
                ("agreed", "on"),
            ])))
            .unwrap();
        let answer = app.call(request).await;
        assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.text());
    }
    let stored = app.stored().await;
    let own = stored.iter().find(|l| l.phone == "067 123 45 67").unwrap();
    assert_eq!(own.attribution.utm_source.as_deref(), Some("viber"));
    assert_eq!(own.attribution.utm_campaign.as_deref(), Some("зима"));
    assert_eq!(own.attribution.referrer, None);
    let other = stored.iter().find(|l| l.phone != "067 123 45 67").unwrap();
    assert_eq!(other.attribution, Default::default());
}

/// A body just under the 64 KB limit whose every entry is far over its field's limit, of `"`, which
/// the page would echo six times as long (`&quot;`).
fn amplifying_body() -> String {
    let quotes = "\"".repeat(21_500);
    format!("name={quotes}&phone={quotes}&comment={quotes}&confirmation=Так&agreed=on")
}

async fn post_form_accepting(app: &TestApp, body: &str, encodings: &str) -> common::Answer {
    let request = Request::post("/leads")
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept-encoding", encodings)
        .body(Body::from(body.to_owned()))
        .unwrap();
    app.call(request).await
}

/// The page with the value of its form's proof field left out.
fn without_proof(html: &str) -> String {
    let field = "name=\"zayavka_proof\" value=\"";
    let start = html.find(field).expect("the form's proof field") + field.len();
    let end = start + html[start..].find('"').unwrap();
    [&html[..start], &html[end..]].concat()
}

#[tokio::test]
async fn a_refusal_is_smaller_than_the_body_and_compressed_when_asked() {
    let app = test_app_with(|s| s.rate_limit_per_minute = 3).await;
    let body = amplifying_body();
    assert!(body.len() > 64_000 && body.len() <= 64 * 1024, "{}", body.len());

    // Refused by the rules (too long): the entries are not echoed back.
    let answer = post_form(&app, &body).await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_landing_page(&answer);
    assert!(answer.header("content-encoding").is_empty(), "not asked for: not compressed");
    assert!(answer.body.len() < body.len(), "{} bytes answer {} bytes", answer.body.len(), body.len());
    let html = answer.text();
    assert!(!html.contains("&quot;&quot;"), "an over-long entry is not echoed");
    assert!(tag_with(&html, "name=\"name\"").contains("value=\"\""));

    // Compressed when the client takes it, and the same page once decompressed.
    let br = post_form_accepting(&app, &body, "gzip, deflate, br").await;
    assert_eq!(br.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(br.header("content-encoding"), "br");
    assert_eq!(br.header("vary"), "Accept-Encoding");
    let mut decoded = Vec::new();
    brotli::BrotliDecompress(&mut &br.body[..], &mut decoded).unwrap();
    // Each answer hands out a page-load proof of its own (ADR 0066); the rest is the same page.
    assert_eq!(without_proof(&String::from_utf8(decoded).unwrap()), without_proof(&html));
    let gzip = post_form_accepting(&app, &body, "gzip").await;
    assert_eq!(gzip.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(gzip.header("content-encoding"), "gzip");
    let mut decoded = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gzip.body[..]), &mut decoded).unwrap();
    assert_eq!(without_proof(&decoded), without_proof(&html));
    eprintln!(
        "a {} byte body: {} bytes answer, {} with brotli, {} with gzip",
        body.len(),
        answer.body.len(),
        br.body.len(),
        gzip.body.len()
    );

    // Refused by the rate limit (every submit counts, refused ones too), which echoes the entries
    // without checking them: the same.
    let answer = post_form(&app, &body).await;
    assert_eq!(answer.status, StatusCode::TOO_MANY_REQUESTS);
    assert!(answer.body.len() < body.len(), "{} bytes answer {} bytes", answer.body.len(), body.len());
    assert!(!answer.text().contains("&quot;&quot;"), "an over-long entry is not echoed");
    let answer = post_form_accepting(&app, &body, "br").await;
    assert_eq!(answer.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(answer.header("content-encoding"), "br");
}
