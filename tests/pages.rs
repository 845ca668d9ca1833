//! What each path gets (see `src/http/pages.rs`), with the run-time settings filled in.

use crate::common;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::{KEY, test_app, test_app_with};

#[tokio::test]
async fn public_routes_are_prerendered_ukrainian_html() {
    let app = test_app().await;
    for path in ["/", "/thank-you", "/privacy-policy"] {
        let page = app.get(path).await;
        assert_eq!(page.status, StatusCode::OK, "{path}");
        assert_eq!(page.header("content-type"), "text/html; charset=utf-8");
        // The page with the form carries the visitor's own page-load proof (ADR 0066).
        let cache = if path == "/" { "private, no-cache" } else { "no-cache" };
        assert_eq!(page.header("cache-control"), cache, "{path}");
        let html = page.text();
        assert!(html.contains("<html lang=\"uk\""), "{path}");
        assert!(!html.contains("__ZAYAVKA_"), "{path} still has a settings token");
    }
    let home = app.get("/").await.text();
    assert!(home.contains("Отримати безкоштовну консультацію"));
    assert!(home.contains("action=\"/leads\""));
}

#[tokio::test]
async fn run_time_settings_reach_the_page_without_a_rebuild() {
    let app = test_app_with(|s| {
        s.contact_phone = "+380 44 123 45 67".into();
        s.brand = "Програма <Надія> & Ко".into();
        s.redirect_url = "https://example.org/next?a=1&b=2".into();
    })
    .await;
    let html = app.get("/").await.text();
    assert!(html.contains("+380 44 123 45 67"));
    assert!(html.contains("tel:+380441234567"));
    assert!(html.contains("Програма &lt;Надія&gt; &amp; Ко"), "the brand is escaped as HTML");
    let config = config_of(&html);
    assert_eq!(config["brand"], "Програма <Надія> & Ко");
    assert_eq!(config["redirectUrl"], "https://example.org/next?a=1&b=2");
    assert_eq!(config["anonKey"], KEY);
    assert_eq!(config["backendUrl"], "");
}

fn config_of(html: &str) -> serde_json::Value {
    let start = html.find("<script id=\"zayavka-config\"").expect("config block");
    let json_start = start + html[start..].find('>').unwrap() + 1;
    let json_end = json_start + html[json_start..].find("</script>").unwrap();
    serde_json::from_str(&html[json_start..json_end]).unwrap()
}

#[tokio::test]
async fn the_privacy_policy_shows_today() {
    let app = test_app().await;
    let html = app.get("/privacy-policy").await.text();
    let today = jiff::Timestamp::now().to_zoned(jiff::tz::TimeZone::UTC).date();
    let today = format!("{:02}.{:02}.{}", today.day(), today.month(), today.year());
    assert!(html.contains(&today), "expected {today}");
    assert_eq!(config_of(&html)["today"], today.as_str());
}

#[tokio::test]
async fn unknown_page_paths_get_the_not_found_page_with_404() {
    let app = test_app().await;
    for path in ["/nope", "/thank-you/extra", "/Thank-You"] {
        let page = app.get(path).await;
        assert_eq!(page.status, StatusCode::NOT_FOUND, "{path}");
        assert!(page.header("content-type").starts_with("text/html"), "{path}");
        assert!(page.text().contains("Oops! Page not found"), "{path}");
    }
    for path in ["/assets/missing-123.js", "/index.html"] {
        let missing = app.get(path).await;
        assert_eq!(missing.status, StatusCode::NOT_FOUND, "{path}");
        assert!(!missing.text().contains("<html"), "a missing file gets no page: {path}");
    }
}

/// The pages are listed once, in `web/src/pages.ts`; the build writes them to `pages.json` and the
/// server routes by it (docs/decisions/0017). This holds both ends of that file.
#[tokio::test]
async fn every_page_the_web_build_lists_is_served_at_its_path() {
    let dist = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web/dist");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dist.join("pages.json")).unwrap()).unwrap();
    let routes = manifest["routes"].as_array().unwrap();
    let paths: Vec<&str> = routes.iter().map(|route| route["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["/", "/thank-you", "/privacy-policy"], "the visitor's pages (SPEC)");
    let app = test_app().await;
    for route in routes {
        let (path, file) = (route["path"].as_str().unwrap(), route["file"].as_str().unwrap());
        let page = app.get(path).await;
        assert_eq!(page.status, StatusCode::OK, "{path}");
        let built = std::fs::read_to_string(dist.join(file)).unwrap();
        assert!(page.text().contains(description_of(&built)), "{path} is not {file}");
        let hands_out_proof = page.headers.contains_key("set-cookie");
        assert_eq!(hands_out_proof, route["form"] == true, "{path}: only the form's page hands out a proof");
    }
    let not_found = std::fs::read_to_string(dist.join(manifest["notFound"].as_str().unwrap())).unwrap();
    assert!(app.get("/nope").await.text().contains(description_of(&not_found)));
    assert_eq!(app.get("/pages.json").await.status, StatusCode::NOT_FOUND, "the list is not a file to serve");
}

fn description_of(html: &str) -> &str {
    let start = html.find("<meta name=\"description\"").expect("a description");
    &html[start..start + html[start..].find('>').unwrap()]
}

#[tokio::test]
async fn a_trailing_slash_redirects_to_the_page_itself() {
    let app = test_app().await;
    let answer = app.get("/privacy-policy/?from=footer").await;
    assert_eq!(answer.status, StatusCode::PERMANENT_REDIRECT);
    assert_eq!(answer.header("location"), "/privacy-policy?from=footer");
    assert_eq!(app.get("//evil.example/").await.status, StatusCode::NOT_FOUND, "no open redirect");
}

/// Sends `GET {target}` over a real socket exactly as written (no client in between that could
/// tidy the path); the status and the `Location` header.
async fn raw_get(port: u16, target: &str) -> (u16, Option<String>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let request = format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8_lossy(&answer);
    let head = answer.split("\r\n\r\n").next().unwrap();
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let location = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("location").then(|| value.trim().to_owned())
    });
    (status, location)
}

#[tokio::test]
async fn no_path_redirects_a_browser_to_another_site() {
    let database = common::TestDatabase::new().await;
    let server = common::Server::start(&database.url).await;
    let site = url::Url::parse(&format!("http://127.0.0.1:{}/privacy-policy/", server.port)).unwrap();

    // The redirect itself still works over a real socket.
    let (status, location) = raw_get(server.port, "/privacy-policy/?from=footer").await;
    assert_eq!((status, location.as_deref()), (308, Some("/privacy-policy?from=footer")));

    for target in [
        "/\\evil.example/",
        "/\\\\evil.example/",
        "/\\/evil.example/",
        "//evil.example/",
        "///evil.example//",
        "/%2F%2Fevil.example/",
        "/%2f/evil.example/",
        "/%5Cevil.example/",
        "/%5c%5cevil.example/",
        "/%09/evil.example/",
        "/\t/evil.example/",
        "/.//evil.example/",
        "/..%2F%2Fevil.example/",
        "http://127.0.0.1/\\evil.example/",
    ] {
        let (status, location) = raw_get(server.port, target).await;
        // Read as a browser reads it: the WHATWG URL rules, relative to the page asked for.
        if let Some(location) = location {
            let next = site.join(&location).unwrap_or_else(|e| panic!("{target}: {location:?}: {e}"));
            assert_eq!(
                (next.host_str(), next.port()),
                (Some("127.0.0.1"), Some(server.port)),
                "{target} answered {status} to {location:?}"
            );
        }
    }
}

#[tokio::test]
async fn hashed_assets_are_immutable_and_served_compressed() {
    let app = test_app().await;
    let html = app.get("/").await.text();
    // The page's loader names its scripts (web/src/entry-server.tsx).
    let script = html.split("\"/assets/").nth(1).expect("a script under /assets/").split('"').next().unwrap();
    let path = format!("/assets/{script}");

    let plain = app.get(&path).await;
    assert_eq!(plain.status, StatusCode::OK);
    assert!(plain.header("content-type").starts_with("text/javascript"));
    assert_eq!(plain.header("cache-control"), "public, max-age=31536000, immutable");

    let request =
        Request::get(&path).header("accept-encoding", "gzip, deflate, br").body(Body::empty()).unwrap();
    let br = app.call(request).await;
    assert_eq!(br.header("content-encoding"), "br");
    assert!(br.body.len() < plain.body.len() / 2);
    let mut decoded = Vec::new();
    brotli::BrotliDecompress(&mut &br.body[..], &mut decoded).unwrap();
    assert_eq!(decoded, plain.body);

    let request = Request::get(&path).header("accept-encoding", "gzip").body(Body::empty()).unwrap();
    assert_eq!(app.call(request).await.header("content-encoding"), "gzip");

    let request =
        Request::get(&path).header("if-none-match", plain.header("etag")).body(Body::empty()).unwrap();
    assert_eq!(app.call(request).await.status, StatusCode::NOT_MODIFIED);
}

#[tokio::test]
async fn every_answer_carries_the_security_headers() {
    fn request(method: &str, path: &str, content_type: &str, body: String) -> Request<Body> {
        Request::builder()
            .method(method)
            .uri(path)
            .header("apikey", KEY)
            .header("content-type", content_type)
            .header("origin", "https://example.org")
            .header("access-control-request-method", "POST")
            .body(Body::from(body))
            .unwrap()
    }
    let lead = r#"{"name":"Олена","phone":"0671234567","confirmation":"Так"}"#.to_owned();
    let form = "name=Олена&phone=0671234567&confirmation=Так&agreed=on".to_owned();
    let cases = [
        ("GET", "/", "", String::new(), 200),
        ("GET", "/nope", "", String::new(), 404),
        ("GET", "/healthz", "", String::new(), 200),
        ("GET", "/metrics", "", String::new(), 200),
        ("GET", "/admin", "", String::new(), 200),
        ("GET", "/admin/api/leads", "", String::new(), 401),
        ("OPTIONS", "/rest/v1/CRN", "", String::new(), 200),
        ("POST", "/rest/v1/CRN", "application/json", lead.clone(), 201),
        ("POST", "/rest/v1/CRN", "text/plain", lead.clone(), 415),
        ("POST", "/rest/v1/CRN", "application/json", "я".repeat(40_000), 413),
        ("POST", "/leads", "application/x-www-form-urlencoded", "name=".to_owned(), 422),
        ("POST", "/leads", "application/x-www-form-urlencoded", form.clone(), 303),
        // From here on the app allows one submit a minute: these are over it.
        ("POST", "/leads", "application/x-www-form-urlencoded", form, 429),
        ("POST", "/rest/v1/CRN", "application/json", lead, 429),
    ];
    let unlimited = test_app().await;
    let limited = test_app_with(|s| s.rate_limit_per_minute = 1).await;
    limited.insert(r#"{"name":"Іван","phone":"0501234567","confirmation":"Ні"}"#, "").await;
    for (method, path, content_type, body, status) in cases {
        let app = if status == 429 { &limited } else { &unlimited };
        let answer = app.call(request(method, path, content_type, body)).await;
        let case = format!("{method} {path} {status}");
        assert_eq!(answer.status.as_u16(), status, "{case}");
        let csp = answer.header("content-security-policy");
        assert!(csp.contains("script-src 'self'"), "{case}: {csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{case}: {csp}");
        assert!(!csp.contains("unsafe-inline"), "{case}: {csp}");
        assert_eq!(answer.header("x-content-type-options"), "nosniff", "{case}");
        assert_eq!(answer.header("referrer-policy"), "same-origin", "{case}");
        assert_eq!(answer.header("cross-origin-opener-policy"), "same-origin", "{case}");
        let permissions = answer.header("permissions-policy");
        for feature in ["camera=()", "microphone=()", "geolocation=()", "payment=()"] {
            assert!(permissions.contains(feature), "{case}: {permissions}");
        }
    }
}

#[tokio::test]
async fn the_inline_styles_are_allowed_by_hash() {
    let app = test_app().await;
    let answer = app.get("/").await;
    let html = answer.text();
    let csp = answer.header("content-security-policy");
    let style_start = html.find("<style").expect("inline CSS for the first paint");
    let content_start = style_start + html[style_start..].find('>').unwrap() + 1;
    let content_end = content_start + html[content_start..].find("</style>").unwrap();
    let hash = zayavka::site::csp_hash(&html[content_start..content_end]);
    assert!(csp.contains(&hash), "{hash} not in {csp}");
    // The loader of the page's scripts, its one inline script to run.
    let (_, after) = html.split_once("<script type=\"module\">").expect("the landing page's loader");
    let loader = &after[..after.find("</script>").unwrap()];
    let hash = zayavka::site::csp_hash(loader);
    assert!(csp.contains(&format!("script-src 'self' {hash}")), "{hash} not in {csp}");
}

#[tokio::test]
async fn health_and_readiness() {
    let app = test_app().await;
    assert_eq!(app.get("/healthz").await.status, StatusCode::OK);
    assert_eq!(app.get("/readyz").await.status, StatusCode::OK);
    app.state.store.close().await;
    assert_eq!(app.get("/healthz").await.status, StatusCode::OK);
}

#[tokio::test]
async fn the_servers_own_500_page_has_the_apps_error_heading() {
    let app = test_app().await;
    let response = zayavka::http::pages::error_page(&app.state);
    assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
    let body = http_body_util::BodyExt::collect(response.into_body()).await.unwrap().to_bytes();
    let html = String::from_utf8(body.to_vec()).unwrap();
    assert!(html.contains("Unexpected Application Error!"));
    assert!(html.contains("<html lang=\"uk\""));
}
