//! The rules of Mozilla's HTTP Observatory (the checks behind its grade), applied to what a visitor
//! gets over HTTPS behind a trusted proxy. Each rule here is one the Observatory scores; meeting
//! all of them with the bonuses is its top grade (A+).
//!
//! Not run again on PostgreSQL: response headers only; no lead is stored.

use crate::common;

use axum::body::Body;
use axum::http::Request;
use common::{TestApp, test_app_with};

async fn over_https(app: &TestApp, path: &str) -> common::Answer {
    let request = Request::get(path).header("x-forwarded-proto", "https").body(Body::empty()).unwrap();
    app.call(request).await
}

fn directive<'a>(csp: &'a str, name: &str) -> Option<&'a str> {
    csp.split(';').map(str::trim).find_map(|d| d.strip_prefix(name).map(str::trim))
}

#[tokio::test]
async fn every_page_meets_the_observatory_rules() {
    let app = test_app_with(|s| s.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()]).await;
    for path in ["/", "/thank-you", "/privacy-policy", "/missing", "/admin", "/admin/api/session"] {
        let answer = over_https(&app, path).await;

        // Content Security Policy: implemented, no unsafe-inline / unsafe-eval for scripts,
        // default-src 'none' (bonus), frame-ancestors and base-uri and form-action restricted.
        let csp = answer.header("content-security-policy");
        assert_eq!(directive(csp, "default-src"), Some("'none'"), "{path}: {csp}");
        let scripts = directive(csp, "script-src").unwrap();
        assert!(
            !scripts.contains("unsafe") && !scripts.contains("data:") && !scripts.contains('*'),
            "{path}"
        );
        let styles = directive(csp, "style-src").unwrap();
        assert!(!styles.contains("unsafe-inline"), "{path}: {styles}");
        assert_eq!(directive(csp, "frame-ancestors"), Some("'none'"), "{path}");
        assert_eq!(directive(csp, "base-uri"), Some("'none'"), "{path}");
        assert!(directive(csp, "form-action").is_some(), "{path}");
        assert!(directive(csp, "object-src").is_none() || directive(csp, "object-src") == Some("'none'"));

        // Strict-Transport-Security: at least six months.
        let hsts = answer.header("strict-transport-security");
        let max_age: u64 =
            hsts.split(';').find_map(|p| p.trim().strip_prefix("max-age=")).unwrap().parse().unwrap();
        assert!(max_age >= 15_768_000, "{path}: {hsts}");

        // X-Content-Type-Options, X-Frame-Options (with frame-ancestors), Referrer-Policy (a
        // private one is a bonus), Cross-Origin-Resource-Policy.
        assert_eq!(answer.header("x-content-type-options"), "nosniff", "{path}");
        assert_eq!(answer.header("x-frame-options"), "DENY", "{path}");
        assert!(
            ["no-referrer", "same-origin", "strict-origin", "strict-origin-when-cross-origin"]
                .contains(&answer.header("referrer-policy")),
            "{path}"
        );
        assert_eq!(answer.header("cross-origin-resource-policy"), "same-origin", "{path}");

        // CORS: pages are not shared with other origins (only the insert API is).
        assert!(answer.header("access-control-allow-origin").is_empty(), "{path}");

        // Cookies: Secure, HttpOnly and SameSite (bonus).
        for cookie in answer.headers.get_all("set-cookie") {
            let cookie = cookie.to_str().unwrap();
            assert!(cookie.contains("Secure") && cookie.contains("HttpOnly") && cookie.contains("SameSite"));
        }

        // Subresource Integrity: every script is loaded from this origin.
        let html = answer.text();
        for src in html.split("<script").skip(1).filter_map(|tag| tag.split("src=\"").nth(1)) {
            assert!(src.starts_with('/') && !src.starts_with("//"), "{path}: a script from elsewhere: {src}");
        }
    }
}
