//! Abuse resistance without a CAPTCHA (which costs real visitors): a per-client rate limit on
//! submits, and a minimum time between loading the page and sending the form. The honeypot field
//! lives with the form (`http::form`); duplicate suppression with the store.

use std::net::{IpAddr, Ipv6Addr};
use std::num::NonZeroU32;
use std::time::Duration;

use axum::http::{HeaderMap, HeaderValue, header};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::http::client::request_cookie;

/// A token bucket per client address, shared by the JSON insert and the form: a submit is a
/// submit, whichever way it comes.
pub struct SubmitLimiter {
    limiter: DefaultKeyedRateLimiter<IpAddr>,
    per_minute: u32,
}

/// Over the limit: when to try again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limited {
    pub retry_after: Duration,
    pub per_minute: u32,
}

impl SubmitLimiter {
    /// `None` when the limit is off (0).
    pub fn new(per_minute: u32) -> Option<SubmitLimiter> {
        let rate = NonZeroU32::new(per_minute)?;
        Some(SubmitLimiter { limiter: RateLimiter::keyed(Quota::per_minute(rate)), per_minute })
    }

    /// Takes `leads` tokens at once, or none. More than a minute's worth can never pass: the
    /// client waits a whole minute.
    pub fn check(&self, client: IpAddr, leads: u32) -> Result<(), Limited> {
        let limited = |retry_after| Limited { retry_after, per_minute: self.per_minute };
        let Some(n) = NonZeroU32::new(leads) else { return Ok(()) };
        match self.limiter.check_key_n(&bucket_of(client), n) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(not_until)) => Err(limited(not_until.wait_time_from(DefaultClock::default().now()))),
            Err(_insufficient_capacity) => Err(limited(Duration::from_secs(60))),
        }
    }

    /// Forgets clients whose bucket is full again, so memory follows recent traffic only.
    pub fn forget_idle(&self) {
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
    }
}

/// The address a client's limits are kept under. An IPv6 host is normally given a whole /64 and
/// may use any address in it, so each /64 is one client; an IPv4-mapped address is its IPv4 one.
pub fn bucket_of(client: IpAddr) -> IpAddr {
    match client {
        IpAddr::V4(_) => client,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !u128::from(u64::MAX))),
        },
    }
}

impl Limited {
    /// `Retry-After` and the IETF draft's `RateLimit-Policy` / `RateLimit` fields.
    pub fn headers(&self) -> [(header::HeaderName, HeaderValue); 3] {
        let seconds = self.retry_after.as_secs_f64().ceil().max(1.0) as u64;
        let number = |text: String| HeaderValue::from_str(&text).expect("digits and ASCII");
        [
            (header::RETRY_AFTER, number(seconds.to_string())),
            (
                header::HeaderName::from_static("ratelimit-policy"),
                number(format!("{};w=60", self.per_minute)),
            ),
            (
                header::HeaderName::from_static("ratelimit"),
                number(format!("limit={}, remaining=0, reset={seconds}", self.per_minute)),
            ),
        ]
    }
}

/// Set when the landing page is first served to a browser: the time it loaded (Unix seconds).
/// Only a time, no identifier; it expires after a day.
pub const LOADED_COOKIE: &str = "zayavka_loaded";

/// The cookie for a page load at `now`; `Secure` when the visitor came over HTTPS.
pub fn loaded_cookie(now: i64, https: bool) -> HeaderValue {
    let cookie = cookie::Cookie::build((LOADED_COOKIE, now.to_string()))
        .path("/")
        .http_only(true)
        .secure(https)
        .same_site(cookie::SameSite::Lax)
        .max_age(cookie::time::Duration::days(1))
        .build();
    HeaderValue::from_str(&cookie.to_string()).expect("the cookie is ASCII")
}

/// When the page was loaded, from the request's cookie.
pub fn loaded_at(headers: &HeaderMap) -> Option<i64> {
    request_cookie(headers, LOADED_COOKIE)?.parse().ok()
}

/// Sent sooner after the page loaded than a person fills the form. A request without the cookie
/// (an API client, a browser that refuses cookies, a static deployment) is never judged by this.
pub fn sent_too_fast(headers: &HeaderMap, min_fill_seconds: u32, now: i64) -> bool {
    min_fill_seconds > 0
        && loaded_at(headers).is_some_and(|loaded| now - loaded < i64::from(min_fill_seconds))
}

pub fn unix_now() -> i64 {
    jiff::Timestamp::now().as_second()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bucket_empties_per_client() {
        let limiter = SubmitLimiter::new(2).unwrap();
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        assert!(limiter.check(a, 1).is_ok());
        assert!(limiter.check(a, 1).is_ok());
        let limited = limiter.check(a, 1).unwrap_err();
        assert!(limited.retry_after > Duration::ZERO && limited.retry_after <= Duration::from_secs(30));
        assert!(limiter.check(b, 1).is_ok(), "another client is not limited");
        assert!(SubmitLimiter::new(0).is_none());
    }

    #[test]
    fn every_row_of_a_request_takes_a_token() {
        let limiter = SubmitLimiter::new(5).unwrap();
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        assert!(limiter.check(a, 4).is_ok());
        assert!(limiter.check(a, 2).is_err(), "one token left, two rows");
        assert!(limiter.check(a, 1).is_ok(), "a refused request took nothing");
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        assert!(limiter.check(b, 6).is_err(), "more rows than a minute allows never pass");
    }

    #[test]
    fn an_ipv6_client_is_its_64_bit_prefix() {
        let limiter = SubmitLimiter::new(1).unwrap();
        let host: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let same_prefix: IpAddr = "2001:db8:1:2:ffff:1234:5678:9abc".parse().unwrap();
        let next_prefix: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert!(limiter.check(host, 1).is_ok());
        assert!(limiter.check(same_prefix, 1).is_err(), "another address of the same /64 is the same client");
        assert!(limiter.check(next_prefix, 1).is_ok());
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(bucket_of(mapped), "192.0.2.7".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn the_fill_time_is_read_from_the_cookie() {
        let mut headers = HeaderMap::new();
        assert!(!sent_too_fast(&headers, 3, 1_000), "no cookie, no judgement");
        headers.insert(header::COOKIE, "a=b; zayavka_loaded=1000".parse().unwrap());
        assert!(sent_too_fast(&headers, 3, 1_002));
        assert!(!sent_too_fast(&headers, 3, 1_003));
        assert!(!sent_too_fast(&headers, 0, 1_000), "0 turns it off");
    }

    #[test]
    fn the_cookie_is_http_only_and_lax() {
        let cookie = loaded_cookie(1_000, true);
        let text = cookie.to_str().unwrap();
        for part in ["zayavka_loaded=1000", "HttpOnly", "SameSite=Lax", "Secure", "Path=/", "Max-Age=86400"] {
            assert!(text.contains(part), "{part} missing in {text}");
        }
    }
}
