//! Where a lead came from, as the landing page itself saw it: its own `utm_*` parameters and the
//! host of the page that linked to it. No cookie, no address, nothing sent elsewhere. Optional and
//! never a reason to refuse a lead: a value too long is cut, a referrer is reduced to its host.

use serde::Serialize;
use ts_rs::TS;

use super::clean;

/// The optional columns of an insert, in the order of the export.
pub const KEYS: [&str; 6] =
    ["utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term", "referrer"];

/// A `utm_*` value longer than this is cut (a campaign name, not a document).
pub const MAX_CHARS: usize = 200;

#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Attribution {
    pub utm_source: Option<String>,
    pub utm_medium: Option<String>,
    pub utm_campaign: Option<String>,
    pub utm_content: Option<String>,
    pub utm_term: Option<String>,
    /// The linking page's host only (`www.google.com`), never its path or query.
    pub referrer: Option<String>,
}

impl Attribution {
    /// From the raw values by key (`KEYS`); absent keys are `None`.
    pub fn from_raw(mut value: impl FnMut(&str) -> Option<String>) -> Attribution {
        let utm = |raw: Option<String>| raw.map(|v| cut(&clean::single_line(&v))).filter(|v| !v.is_empty());
        Attribution {
            utm_source: utm(value("utm_source")),
            utm_medium: utm(value("utm_medium")),
            utm_campaign: utm(value("utm_campaign")),
            utm_content: utm(value("utm_content")),
            utm_term: utm(value("utm_term")),
            referrer: value("referrer").and_then(|r| host_of(&r)),
        }
    }

    /// The values in `KEYS` order.
    pub fn values(&self) -> [Option<&str>; 6] {
        [
            self.utm_source.as_deref(),
            self.utm_medium.as_deref(),
            self.utm_campaign.as_deref(),
            self.utm_content.as_deref(),
            self.utm_term.as_deref(),
            self.referrer.as_deref(),
        ]
    }

    /// From stored columns in `KEYS` order.
    pub fn from_values(
        [utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer]: [Option<String>; 6],
    ) -> Attribution {
        Attribution { utm_source, utm_medium, utm_campaign, utm_content, utm_term, referrer }
    }
}

fn cut(value: &str) -> String {
    value.chars().take(MAX_CHARS).collect()
}

/// `https://user@www.Example.org:8443/path?q` → `www.example.org`; a bare `t.co/x` → `t.co`.
/// Anything that is not a plain host name is dropped.
fn host_of(referrer: &str) -> Option<String> {
    let referrer = referrer.trim();
    let rest = referrer.split_once("://").map_or(referrer, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_and_port = authority.rsplit('@').next()?;
    let (host, port) = host_and_port.split_once(':').unwrap_or((host_and_port, ""));
    let host = host.to_ascii_lowercase();
    let plain = !host.is_empty()
        && port.chars().all(|c| c.is_ascii_digit())
        && host.len() <= 253
        && host.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
    plain.then_some(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_referrer_keeps_only_its_host() {
        assert_eq!(
            host_of("https://user:pw@www.Google.com:443/search?q=ліки").as_deref(),
            Some("www.google.com")
        );
        assert_eq!(host_of("t.co/abc").as_deref(), Some("t.co"));
        assert_eq!(
            host_of("android-app://org.telegram.messenger/").as_deref(),
            Some("org.telegram.messenger")
        );
        assert_eq!(host_of("javascript:alert(1)"), None);
        assert_eq!(host_of("https://someone@example.org/").as_deref(), Some("example.org"));
        assert_eq!(host_of(""), None);
    }

    #[test]
    fn values_are_cleaned_and_cut_never_refused() {
        let long = "x".repeat(500);
        let attribution = Attribution::from_raw(|key| match key {
            "utm_source" => Some("  facebook\u{200B} ".into()),
            "utm_campaign" => Some(long.clone()),
            "utm_term" => Some("   ".into()),
            _ => None,
        });
        assert_eq!(attribution.utm_source.as_deref(), Some("facebook"));
        assert_eq!(attribution.utm_campaign.as_ref().map(|c| c.chars().count()), Some(MAX_CHARS));
        assert_eq!(attribution.utm_term, None);
        assert_eq!(attribution.referrer, None);
    }
}
