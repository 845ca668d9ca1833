//! Headers every answer carries. The Content-Security-Policy allows only this origin's scripts and
//! each page's inline loader by its hash (the settings reach the page as a JSON data block), the
//! inline styles by their hashes, requests to the configured backend, and form posts to the redirect target
//! (Chromium checks `form-action` on the redirect after `POST /leads`).

use axum::http::{HeaderName, HeaderValue, header};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::config::Settings;

pub fn content_policy(settings: &Settings, style_hashes: &[String], script_hashes: &[String]) -> String {
    let backend = origin_of(&settings.backend_url);
    let redirect = origin_of(&settings.redirect_url);
    let styles = style_hashes.join(" ");
    let scripts = script_hashes.join(" ");
    format!(
        "default-src 'none'; script-src 'self' {scripts}; style-src 'self' {styles}; img-src 'self' data:; font-src 'self'; \
         connect-src 'self' {backend}; form-action 'self' {redirect}; manifest-src 'self'; base-uri 'none'; \
         frame-ancestors 'none'"
    )
    .replace("  ", " ")
    .replace(" ;", ";")
}

/// `https://host:port` of an absolute URL; empty for a path on this site.
fn origin_of(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return String::new();
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    format!("{scheme}://{host}")
}

/// The layers that add the security headers, outermost last.
pub fn layers(policy: &str) -> Vec<SetResponseHeaderLayer<HeaderValue>> {
    let fixed: [(HeaderName, &str); 7] = [
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        // Never to another site; to this one, so the no-JavaScript form's POST tells the server the
        // landing page's own utm_* parameters (`form.rs`).
        (header::REFERRER_POLICY, "same-origin"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (
            HeaderName::from_static("permissions-policy"),
            "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()",
        ),
        (HeaderName::from_static("cross-origin-opener-policy"), "same-origin"),
        // Only no-cors loads are stopped by it; the API's CORS answers are unaffected.
        (HeaderName::from_static("cross-origin-resource-policy"), "same-origin"),
        (header::CONTENT_SECURITY_POLICY, policy),
    ];
    fixed
        .into_iter()
        .map(|(name, value)| {
            SetResponseHeaderLayer::if_not_present(
                name,
                HeaderValue::from_str(value).expect("header values are ASCII"),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_names_the_backend_and_the_redirect_origin() {
        let mut settings = Settings::defaults();
        settings.backend_url = "https://abc.supabase.co".into();
        settings.redirect_url = "https://example.org/next?x=1".into();
        let policy = content_policy(&settings, &["'sha256-x'".into()], &["'sha256-y'".into()]);
        assert!(policy.contains("connect-src 'self' https://abc.supabase.co;"), "{policy}");
        assert!(policy.contains("form-action 'self' https://example.org;"), "{policy}");
        assert!(policy.contains("style-src 'self' 'sha256-x';"), "{policy}");
        assert!(policy.contains("script-src 'self' 'sha256-y';"), "{policy}");
        assert!(!policy.contains("unsafe-inline"));
    }

    #[test]
    fn same_site_settings_add_no_origin() {
        let policy = content_policy(&Settings::defaults(), &[], &[]);
        assert!(policy.contains("script-src 'self';"), "{policy}");
        assert!(policy.contains("connect-src 'self';"), "{policy}");
        assert!(policy.contains("form-action 'self';"), "{policy}");
    }
}
