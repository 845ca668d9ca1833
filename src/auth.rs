//! Operator accounts and sessions, without HTTP: argon2id password hashes, random session and
//! CSRF tokens (the database keeps only a session token's SHA-256), and the login rate limits.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use argon2::password_hash::{PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Argon2, PasswordHash};
use base64::Engine as _;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use sha2::{Digest, Sha256};

/// A session lasts this long after signing in.
pub const SESSION_LIFETIME: jiff::SignedDuration = jiff::SignedDuration::from_hours(24 * 7);

/// Shortest password `zayavka admin add-user` / `passwd` accept.
pub const MIN_PASSWORD_CHARS: usize = 10;

/// An e-mail as accounts are keyed: trimmed, lower case.
pub fn normalise_email(email: &str) -> String {
    email.trim().to_lowercase()
}

/// Checks a new account's e-mail and password; the message says what is wrong.
pub fn check_new_account(email: &str, password: &str) -> anyhow::Result<()> {
    if email.parse::<lettre::Address>().is_err() {
        anyhow::bail!("'{email}' is not an e-mail address");
    }
    if password.chars().count() < MIN_PASSWORD_CHARS {
        anyhow::bail!("the password must have at least {MIN_PASSWORD_CHARS} characters");
    }
    Ok(())
}

/// argon2id with the crate's defaults (19 MiB, 2 passes: OWASP's recommended minimum), as a PHC
/// string with its own salt.
pub fn hash_password(password: &str) -> anyhow::Result<String> {
    let salt_bytes: [u8; 16] = rand::random();
    let salt = SaltString::encode_b64(&salt_bytes).map_err(|e| anyhow::anyhow!("salt: {e}"))?;
    Ok(Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map_err(|e| anyhow::anyhow!("hashing the password: {e}"))?
        .to_string())
}

/// Whether `password` matches `hash`. Without an account (`None`) a dummy hash is checked, so an
/// unknown e-mail takes as long as a wrong password.
pub fn verify_password(hash: Option<&str>, password: &str) -> bool {
    static DUMMY: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| hash_password("not a password of anyone").expect("hashing works"));
    let parsed = PasswordHash::new(hash.unwrap_or(&DUMMY));
    let matches = parsed.is_ok_and(|h| Argon2::default().verify_password(password.as_bytes(), &h).is_ok());
    matches && hash.is_some()
}

/// Password checks running at once: each takes 19 MiB and a core for a moment, so a flood of
/// logins (many addresses, many e-mails: past the rate limits) waits in line instead of taking
/// every core and the memory from the visitors' submits.
const CONCURRENT_CHECKS: usize = 2;

/// [`verify_password`] off the async threads, at most `CONCURRENT_CHECKS` at a time.
pub async fn check_password(hash: Option<String>, password: String) -> bool {
    static CHECKS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(CONCURRENT_CHECKS);
    let Ok(_permit) = CHECKS.acquire().await else { return false };
    tokio::task::spawn_blocking(move || verify_password(hash.as_deref(), &password)).await.unwrap_or(false)
}

/// 32 random bytes, URL-safe base64: a session or CSRF token.
pub fn new_token() -> String {
    let bytes: [u8; 32] = rand::random();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// What the database keeps of a session token.
pub fn token_hash(token: &str) -> String {
    Sha256::digest(token.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares secrets in time that does not depend on where they differ.
pub fn same_secret(a: &str, b: &str) -> bool {
    let (a, b) = (Sha256::digest(a.as_bytes()), Sha256::digest(b.as_bytes()));
    a.iter().zip(b.iter()).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

/// Login attempts: 5 a minute per client address (an IPv6 /64 is one), and 10 per 10 minutes per
/// e-mail (a guesser spread over many addresses still gets few tries at one account).
pub struct LoginLimiter {
    by_address: DefaultKeyedRateLimiter<IpAddr>,
    by_email: DefaultKeyedRateLimiter<String>,
}

impl Default for LoginLimiter {
    fn default() -> Self {
        let five = NonZeroU32::new(5).expect("not zero");
        let ten = NonZeroU32::new(10).expect("not zero");
        LoginLimiter {
            by_address: RateLimiter::keyed(Quota::per_minute(five)),
            by_email: RateLimiter::keyed(
                Quota::with_period(Duration::from_secs(60)).expect("not zero").allow_burst(ten),
            ),
        }
    }
}

impl LoginLimiter {
    /// Takes a token for this address and e-mail; `Err` says how long to wait.
    pub fn check(&self, address: IpAddr, email: &str) -> Result<(), Duration> {
        let now = DefaultClock::default().now();
        self.by_address
            .check_key(&crate::abuse::bucket_of(address))
            .map_err(|not_until| not_until.wait_time_from(now))?;
        self.by_email.check_key(&email.to_owned()).map_err(|not_until| not_until.wait_time_from(now))
    }

    pub fn forget_idle(&self) {
        self.by_address.retain_recent();
        self.by_email.retain_recent();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_its_password_only() {
        let hash = hash_password("correct horse battery").unwrap();
        assert!(hash.starts_with("$argon2id$"), "{hash}");
        assert!(verify_password(Some(&hash), "correct horse battery"));
        assert!(!verify_password(Some(&hash), "correct horse batter"));
        assert!(!verify_password(None, "not a password of anyone"));
    }

    #[test]
    fn the_sixth_login_in_a_minute_waits() {
        let limiter = LoginLimiter::default();
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        for _ in 0..5 {
            assert!(limiter.check(ip, "a@example.org").is_ok());
        }
        assert!(limiter.check(ip, "a@example.org").is_err());
        assert!(limiter.check("192.0.2.2".parse().unwrap(), "b@example.org").is_ok());
    }

    #[test]
    fn accounts_need_an_address_and_a_long_password() {
        assert!(check_new_account("op@example.org", "long enough!").is_ok());
        assert!(check_new_account("op@example.org", "short").is_err());
        assert!(check_new_account("not an address", "long enough!").is_err());
    }
}
