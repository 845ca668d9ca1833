//! Operator accounts and sessions, without HTTP: argon2id password hashes, random session and
//! CSRF tokens (the database keeps only a session token's SHA-256), and the login rate limits.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::num::NonZeroU32;
use std::time::Duration;

use argon2::password_hash::{Output, ParamsString, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, PasswordHash, Version};
use base64::Engine as _;
use governor::middleware::NoOpMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};
use sha2::{Digest, Sha256};

pub mod second_factor;
pub mod secret_key;

/// A session lasts this long after signing in.
pub const SESSION_LIFETIME: jiff::SignedDuration = jiff::SignedDuration::from_hours(24 * 7);

/// How long the first start's setup link works.
pub const SETUP_LINK_LIFETIME: jiff::SignedDuration = jiff::SignedDuration::from_hours(1);

/// Shortest password `zayavka admin add-user` / `passwd` accept.
pub const MIN_PASSWORD_CHARS: usize = 10;

/// The longest e-mail address (RFC 5321's path limit); longer text is cut where it is recorded.
pub const MAX_EMAIL_CHARS: usize = 254;

/// An e-mail as accounts are keyed: trimmed, lower case.
pub fn normalise_email(email: &str) -> String {
    email.trim().to_lowercase()
}

/// What is wrong with a new account's e-mail or password.
#[derive(Debug, thiserror::Error)]
pub enum NewAccountError {
    #[error("'{0}' is not an e-mail address")]
    NotAnEmail(String),
    #[error("the password must have at least {MIN_PASSWORD_CHARS} characters")]
    ShortPassword,
}

/// Checks a new account's e-mail and password, the same for `zayavka admin add-user` and the
/// first start's setup page.
pub fn check_new_account(email: &str, password: &str) -> Result<(), NewAccountError> {
    if email.parse::<lettre::Address>().is_err() {
        return Err(NewAccountError::NotAnEmail(email.to_owned()));
    }
    if password.chars().count() < MIN_PASSWORD_CHARS {
        return Err(NewAccountError::ShortPassword);
    }
    Ok(())
}

/// argon2id with the crate's defaults (19 MiB, 2 passes: OWASP's recommended minimum), as a PHC
/// string with its own salt.
pub fn hash_password(password: &str) -> anyhow::Result<String> {
    let salt_bytes: [u8; 16] = rand::random();
    let salt = SaltString::encode_b64(&salt_bytes).map_err(|e| anyhow::anyhow!("salt: {e}"))?;
    let params = Params::default();
    let mut output = [0u8; Params::DEFAULT_OUTPUT_LEN];
    with_hashing_memory(params.block_count(), |memory| {
        Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone()).hash_password_into_with_memory(
            password.as_bytes(),
            &salt_bytes,
            &mut output,
            memory,
        )
    })
    .map_err(|e| anyhow::anyhow!("hashing the password: {e}"))?;
    let output = Output::new(&output).map_err(|e| anyhow::anyhow!("hashing the password: {e}"))?;
    let hash = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(&params).map_err(|e| anyhow::anyhow!("hashing the password: {e}"))?,
        salt: Some(salt.as_salt()),
        hash: Some(output),
    };
    Ok(hash.to_string())
}

/// Whether `password` matches `hash`. Without an account (`None`) a dummy hash is checked, so an
/// unknown e-mail takes as long as a wrong password.
pub fn verify_password(hash: Option<&str>, password: &str) -> bool {
    static DUMMY: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(|| hash_password("not a password of anyone").expect("hashing works"));
    matches_hash(hash.unwrap_or(&DUMMY), password) && hash.is_some()
}

fn matches_hash(hash: &str, password: &str) -> bool {
    let Ok(parsed) = PasswordHash::new(hash) else { return false };
    let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else { return false };
    let Ok(algorithm) = Algorithm::try_from(parsed.algorithm) else { return false };
    let version = match parsed.version.map(Version::try_from).transpose() {
        Ok(version) => version.unwrap_or_default(),
        Err(_) => return false,
    };
    let Ok(params) = Params::try_from(&parsed) else { return false };
    // A hash asking for more memory than ours is not one we made.
    if params.block_count() > Params::default().block_count() {
        return false;
    }
    let mut salt_bytes = [0u8; 64];
    let Ok(salt) = salt.decode_b64(&mut salt_bytes) else { return false };
    let mut computed = vec![0u8; expected.len()];
    let hashed = with_hashing_memory(params.block_count(), |memory| {
        Argon2::new(algorithm, version, params.clone()).hash_password_into_with_memory(
            password.as_bytes(),
            salt,
            &mut computed,
            memory,
        )
    });
    // `Output`'s equality takes the same time wherever the bytes differ.
    hashed.is_ok() && Output::new(&computed).is_ok_and(|computed| computed == expected)
}

/// Runs `hash` with the process's one argon2 working memory. Each hash needs 19 MiB; were every
/// check to allocate its own, the allocator would keep a block per thread that ever hashed (40
/// wrong logins took the server from 30 to 772 MB), so one block is allocated once and reused,
/// and checks take turns for it.
fn with_hashing_memory<T>(blocks: usize, hash: impl FnOnce(&mut [Block]) -> T) -> T {
    static MEMORY: std::sync::Mutex<Vec<Block>> = std::sync::Mutex::new(Vec::new());
    let mut memory = MEMORY.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if memory.len() < blocks {
        memory.resize(blocks, Block::default());
    }
    hash(&mut memory[..blocks])
}

/// [`verify_password`] off the async threads. Checks take turns for the one hashing memory, in
/// the order they came: a flood of logins (many addresses, many e-mails: past the rate limits)
/// waits in line instead of taking the memory and every core from the visitors' submits.
pub async fn check_password(hash: Option<String>, password: String) -> bool {
    hashing(move || verify_password(hash.as_deref(), &password)).await.unwrap_or(false)
}

/// [`hash_password`] off the async threads, in the same line as the checks.
pub async fn new_password_hash(password: String) -> anyhow::Result<String> {
    hashing(move || hash_password(&password)).await.unwrap_or_else(|e| Err(e.into()))
}

async fn hashing<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, tokio::task::JoinError> {
    // Fair: waiters are served first come, first served, and only one blocking thread waits on
    // the memory at a time.
    static TURNS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(1);
    let _turn = TURNS.acquire().await.expect("never closed");
    tokio::task::spawn_blocking(work).await
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

/// Login attempts, in two limits, neither of them per e-mail alone (a stranger's wrong guesses
/// must not lock the owner out): per client address (an IPv6 /64 is one) 5 at once, then one a
/// minute, checked before the request's body is read; and per e-mail from one address block (an
/// IPv4 /24, an IPv6 /48) 10 at once, then one a minute, so a guesser moving through the
/// addresses of its network still gets few tries at one account, while the owner signing in from
/// elsewhere is not slowed.
pub struct LoginLimiter {
    by_address: KeyedLimiter<IpAddr>,
    by_account: KeyedLimiter<(IpAddr, [u8; 16])>,
    clock: LimitClock,
}

/// A governor limiter per key on the process's clock.
type KeyedLimiter<K> = RateLimiter<K, DefaultKeyedStateStore<K>, LimitClock, NoOpMiddleware<Duration>>;

/// The process's [`Clock`](crate::clock::Clock) as governor reads one: the time since 1970.
#[derive(Clone)]
struct LimitClock(crate::clock::Clock);

impl governor::clock::Clock for LimitClock {
    type Instant = Duration;

    fn now(&self) -> Duration {
        self.0.since_epoch()
    }
}

impl LoginLimiter {
    pub fn new(clock: crate::clock::Clock) -> LoginLimiter {
        let clock = LimitClock(clock);
        let a_minute = Quota::with_period(Duration::from_secs(60)).expect("not zero");
        let burst = |n: u32| a_minute.allow_burst(NonZeroU32::new(n).expect("not zero"));
        LoginLimiter {
            by_address: RateLimiter::new(burst(5), DefaultKeyedStateStore::default(), clock.clone()),
            by_account: RateLimiter::new(burst(10), DefaultKeyedStateStore::default(), clock.clone()),
            clock,
        }
    }

    /// Takes a token for this client address; `Err` says how long to wait.
    pub fn check_address(&self, address: IpAddr) -> Result<(), Duration> {
        let now = governor::clock::Clock::now(&self.clock);
        self.by_address
            .check_key(&crate::abuse::bucket_of(address))
            .map_err(|not_until| not_until.wait_time_from(now))
    }

    /// Takes a token for this e-mail from this address's block; `Err` says how long to wait.
    pub fn check_account(&self, address: IpAddr, email: &str) -> Result<(), Duration> {
        let now = governor::clock::Clock::now(&self.clock);
        // The key holds a digest, not the e-mail: a body may carry kilobytes of "e-mail", and
        // the limiter keeps each key for minutes.
        let digest: [u8; 16] = Sha256::digest(email.as_bytes())[..16].try_into().expect("16 of 32 bytes");
        self.by_account
            .check_key(&(address_block(address), digest))
            .map_err(|not_until| not_until.wait_time_from(now))
    }

    pub fn forget_idle(&self) {
        self.by_address.retain_recent();
        self.by_account.retain_recent();
    }
}

/// The network an address belongs to: its IPv4 /24 or IPv6 /48 (what one site or one customer
/// of a provider usually holds).
fn address_block(address: IpAddr) -> IpAddr {
    match crate::abuse::bucket_of(address) {
        IpAddr::V4(v4) => IpAddr::V4(Ipv4Addr::from(u32::from(v4) & !0xff)),
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !((1u128 << 80) - 1))),
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
    fn the_sixth_login_at_once_from_one_address_waits() {
        let (clock, hand) = crate::clock::Clock::manual(jiff::Timestamp::now());
        let limiter = LoginLimiter::new(clock);
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        for _ in 0..5 {
            assert!(limiter.check_address(ip).is_ok());
        }
        let wait = limiter.check_address(ip).unwrap_err();
        assert!(limiter.check_address("192.0.2.2".parse().unwrap()).is_ok());
        assert!(limiter.check_address("2001:db8:0:1::1".parse().unwrap()).is_ok());
        // A try comes back each minute: one more as soon as the wait is over, not before.
        hand.advance(jiff::SignedDuration::try_from(wait).unwrap() - jiff::SignedDuration::from_millis(1));
        assert!(limiter.check_address(ip).is_err());
        hand.advance(jiff::SignedDuration::from_millis(1));
        assert!(limiter.check_address(ip).is_ok());
        assert!(limiter.check_address(ip).is_err());
        hand.advance_minutes(5);
        for _ in 0..5 {
            assert!(limiter.check_address(ip).is_ok(), "five minutes on, the five tries are back");
        }
        assert!(limiter.check_address(ip).is_err());
    }

    #[test]
    fn the_eleventh_try_at_an_account_from_one_network_waits_and_others_still_get_in() {
        let (clock, hand) = crate::clock::Clock::manual(jiff::Timestamp::now());
        let limiter = LoginLimiter::new(clock);
        for host in 1..=10 {
            let ip: IpAddr = format!("198.51.100.{host}").parse().unwrap();
            assert!(limiter.check_account(ip, "a@example.org").is_ok());
        }
        assert!(limiter.check_account("198.51.100.200".parse().unwrap(), "a@example.org").is_err());
        assert!(limiter.check_account("198.51.100.200".parse().unwrap(), "b@example.org").is_ok());
        assert!(limiter.check_account("198.51.101.1".parse().unwrap(), "a@example.org").is_ok());
        // IPv6: one /48 is one network.
        for subnet in 1..=10 {
            let ip: IpAddr = format!("2001:db8:7:{subnet}::1").parse().unwrap();
            assert!(limiter.check_account(ip, "a@example.org").is_ok());
        }
        assert!(limiter.check_account("2001:db8:7:ff::9".parse().unwrap(), "a@example.org").is_err());
        assert!(limiter.check_account("2001:db8:8::1".parse().unwrap(), "a@example.org").is_ok());
        hand.advance_minutes(1);
        assert!(
            limiter.check_account("198.51.100.200".parse().unwrap(), "a@example.org").is_ok(),
            "a minute on"
        );
    }

    #[test]
    fn accounts_need_an_address_and_a_long_password() {
        assert!(check_new_account("op@example.org", "long enough!").is_ok());
        assert!(check_new_account("op@example.org", "short").is_err());
        assert!(check_new_account("not an address", "long enough!").is_err());
    }
}
