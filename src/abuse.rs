//! Abuse resistance without a CAPTCHA (which costs real visitors): a per-client rate limit on
//! submits, and the signals that hold a submission for review instead of the call list (never
//! dropping it): a server-signed page-load proof, the time to fill the form, the honeypot, bursts,
//! automation. The number's validity is a lead rule (`lead::phone`); repeats are kept by the store.

use std::collections::HashMap;
use std::hash::Hash;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::Mutex;
use std::time::Duration;

use crate::clock::Clock;

/// A moment as the in-memory counts keep it: the time since 1970 by the [`Clock`], so that they
/// do plain arithmetic on it and a test's clock moves them.
type Moment = Duration;

/// How many clients (and, for the burst counts, names and proofs) the in-memory limits remember
/// at most. A flood from ever new addresses (through a trusted proxy, a fresh IPv6 /64 each time)
/// would otherwise grow the state with every request; past the cap the least recently seen half
/// is forgotten. That only frees them to send again as strangers, which they already are.
pub const MAX_REMEMBERED: usize = 32_768;

/// A map of at most `MAX_REMEMBERED` keys whose values fit in the table itself (no allocation
/// per key, so a forgotten flood gives its memory back when the table shrinks).
struct Bounded<K, V> {
    map: HashMap<K, V>,
}

impl<K: Hash + Eq, V> Bounded<K, V> {
    fn new() -> Bounded<K, V> {
        Bounded { map: HashMap::new() }
    }

    /// Makes room for one more key: drops the keys `idle` says are spent, and if that is not
    /// enough, the half least recently used (by `used`). Amortised O(1) per insert.
    fn make_room(&mut self, idle: impl Fn(&V) -> bool, used: impl Fn(&V) -> Moment) {
        if self.map.len() < MAX_REMEMBERED {
            return;
        }
        self.map.retain(|_, v| !idle(v));
        // Freeing too little would make the next insert sweep again.
        if self.map.len() > MAX_REMEMBERED * 3 / 4 {
            let mut times: Vec<Moment> = self.map.values().map(&used).collect();
            let middle = times.len() / 2;
            let cutoff = *times.select_nth_unstable(middle).1;
            self.map.retain(|_, v| used(v) > cutoff);
        }
    }

    /// Forgets the spent keys and returns the table's spare memory.
    fn forget(&mut self, idle: impl Fn(&V) -> bool) {
        self.map.retain(|_, v| !idle(v));
        self.map.shrink_to_fit();
    }
}

/// A token bucket per client address, shared by the JSON insert and the form: a submit is a
/// submit, whichever way it comes. Kept as GCRA: one time per client, the theoretical arrival
/// time of its next token; a client whose time has passed has a full bucket and is forgotten.
pub struct SubmitLimiter {
    arrivals: Mutex<Bounded<IpAddr, Moment>>,
    clock: Clock,
    per_minute: u32,
    /// The time one token takes to come back.
    interval: Duration,
}

/// Over the limit: when to try again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limited {
    pub retry_after: Duration,
    pub per_minute: u32,
}

impl SubmitLimiter {
    /// `None` when the limit is off (0).
    pub fn new(per_minute: u32, clock: Clock) -> Option<SubmitLimiter> {
        (per_minute > 0).then(|| SubmitLimiter {
            arrivals: Mutex::new(Bounded::new()),
            clock,
            per_minute,
            interval: Duration::from_secs(60) / per_minute,
        })
    }

    /// Takes `leads` tokens at once, or none. More than a minute's worth can never pass: the
    /// client waits a whole minute.
    pub fn check(&self, client: IpAddr, leads: u32) -> Result<(), Limited> {
        let Some(cost) = self.cost(leads)? else { return Ok(()) };
        let now = self.clock.since_epoch();
        let mut arrivals = self.arrivals.lock().expect("limiter lock");
        let bucket = bucket_of(client);
        let next = arrivals.map.get(&bucket).map_or(now, |at| (*at).max(now));
        let ahead = next + cost - now;
        if ahead > self.full() {
            return Err(self.limited(ahead - self.full()));
        }
        if !arrivals.map.contains_key(&bucket) {
            arrivals.make_room(|at| *at <= now, |at| *at);
        }
        arrivals.map.insert(bucket, next + cost);
        Ok(())
    }

    /// What `leads` tokens cost in time: `None` for none, refused for more than a full bucket.
    pub fn cost(&self, leads: u32) -> Result<Option<Duration>, Limited> {
        match leads {
            0 => Ok(None),
            n if n > self.per_minute => Err(self.limited(Duration::from_secs(60))),
            n => Ok(Some(self.interval * n)),
        }
    }

    /// How far a client's next arrival may run ahead of now: a full bucket, a minute's tokens.
    pub fn full(&self) -> Duration {
        self.interval * self.per_minute
    }

    pub fn limited(&self, retry_after: Duration) -> Limited {
        Limited { retry_after, per_minute: self.per_minute }
    }

    /// Forgets clients whose bucket is full again, so memory follows recent traffic only.
    pub fn forget_idle(&self) {
        let now = self.clock.since_epoch();
        self.arrivals.lock().expect("limiter lock").forget(|at| *at <= now);
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

/// A page-load proof: when the page was served, signed by the server (HMAC-SHA256 under a secret
/// kept in the database, so every instance checks every other's). No identifier and no personal
/// data: the time and the signature only. A script that wants one must load a page and wait.
pub const PROOF_COOKIE: &str = "zayavka_proof";

/// How long a proof is good for: a tab left open over a day is loaded again.
pub const PROOF_LIFETIME: Duration = Duration::from_secs(24 * 3600);

/// A proof issued this far in the future is forged (or the instances' clocks disagree badly).
const CLOCK_SKEW: i64 = 60;

/// What the submit's page-load proof says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProofCheck {
    /// Issued this many seconds ago.
    Valid {
        age_seconds: i64,
    },
    Missing,
    Forged,
    Expired,
}

pub struct ProofKey(hmac::Hmac<sha2::Sha256>);

impl ProofKey {
    pub fn new(secret: &[u8]) -> ProofKey {
        ProofKey(hmac::Mac::new_from_slice(secret).expect("HMAC takes a key of any length"))
    }

    /// `ISSUED.NONCE.SIGNATURE`: Unix seconds, 64 random bits (so two pages served in the same
    /// second get proofs of their own) and the URL-safe base64 of the MAC over both.
    pub fn issue(&self, now: i64) -> String {
        use base64::Engine;
        let nonce = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(rand::random::<[u8; 8]>());
        let signature = hmac::Mac::finalize(self.mac(now, &nonce)).into_bytes();
        let signature = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(signature);
        format!("{now}.{nonce}.{signature}")
    }

    pub fn check(&self, proof: Option<&str>, now: i64) -> ProofCheck {
        use base64::Engine;
        let Some(proof) = proof else { return ProofCheck::Missing };
        let mut parts = proof.splitn(3, '.');
        let (Some(issued), Some(nonce), Some(signature)) = (parts.next(), parts.next(), parts.next()) else {
            return ProofCheck::Forged;
        };
        let (Ok(issued), Ok(signature)) =
            (issued.parse::<i64>(), base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(signature))
        else {
            return ProofCheck::Forged;
        };
        // verify_slice compares in constant time.
        if hmac::Mac::verify_slice(self.mac(issued, nonce), &signature).is_err() || issued > now + CLOCK_SKEW
        {
            return ProofCheck::Forged;
        }
        let age_seconds = (now - issued).max(0);
        if age_seconds > PROOF_LIFETIME.as_secs() as i64 {
            return ProofCheck::Expired;
        }
        ProofCheck::Valid { age_seconds }
    }

    /// The MAC over what a proof says, ready to finalise or to verify.
    fn mac(&self, issued: i64, nonce: &str) -> hmac::Hmac<sha2::Sha256> {
        let mut mac = self.0.clone();
        hmac::Mac::update(&mut mac, format!("zayavka page-load proof v1 {issued} {nonce}").as_bytes());
        mac
    }
}

/// The proof of work the page's script does for its proof, sent as `X-Zayavka-Work`: a decimal
/// counter such that SHA-256 of `PROOF.WORK` starts with `WORK_BITS` zero bits. About 2,000
/// hashes: some 0.1 s of WebCrypto on a mid-range phone, begun when the page loads; one hash
/// here. It costs a script little CPU, but it must run code that finds it, not just GET `/proof`.
pub const WORK_BITS: u32 = 11;

/// Whether `work` is the proof of work for `proof`.
pub fn work_done(proof: &str, work: &str) -> bool {
    use sha2::Digest;
    if work.is_empty() || work.len() > 12 || !work.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let digest = sha2::Sha256::new().chain_update(proof).chain_update(".").chain_update(work).finalize();
    u32::from_be_bytes(digest[..4].try_into().expect("32 bytes")) >> (32 - WORK_BITS) == 0
}

/// Why a submission looks automated; each is stored with a held lead as its code, which the inbox
/// names (`HeldReason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ts_rs::TS)]
#[ts(rename = "HeldReason", rename_all = "snake_case")]
pub enum Signal {
    /// No page-load proof came with it.
    NoProof,
    /// A proof whose signature is wrong.
    ForgedProof,
    /// A proof older than `PROOF_LIFETIME`.
    ExpiredProof,
    /// One proof sent with more phones than one browser's people plausibly have.
    ReusedProof,
    /// Sent sooner after the page loaded than `ZAYAVKA_MIN_FILL_SECONDS`.
    TooFast,
    /// The hidden field was filled.
    Honeypot,
    /// The number cannot exist in its country's numbering plan.
    ImpossibleNumber,
    /// Many phones from one client, or with one name, in a short time.
    Burst,
    /// The browser says it is driven by automation (`navigator.webdriver`, a headless user agent).
    Automation,
    /// A valid proof without its proof of work (`work_done`) where the page's script does it.
    NoWork,
}

pub const ALL_SIGNALS: [Signal; 10] = [
    Signal::NoProof,
    Signal::ForgedProof,
    Signal::ExpiredProof,
    Signal::ReusedProof,
    Signal::TooFast,
    Signal::Honeypot,
    Signal::ImpossibleNumber,
    Signal::Burst,
    Signal::Automation,
    Signal::NoWork,
];

impl Signal {
    pub fn code(self) -> &'static str {
        match self {
            Signal::NoProof => "no_proof",
            Signal::ForgedProof => "forged_proof",
            Signal::ExpiredProof => "expired_proof",
            Signal::ReusedProof => "reused_proof",
            Signal::TooFast => "too_fast",
            Signal::Honeypot => "honeypot",
            Signal::ImpossibleNumber => "impossible_number",
            Signal::Burst => "burst",
            Signal::Automation => "automation",
            Signal::NoWork => "no_work",
        }
    }
}

/// Whether the signals of one lead hold it for review. A quick person and a quick script look
/// alike, and a lost person costs more than a wasted call: speed (and, where the form is another
/// site, a missing proof) is a weak sign that never holds a lead; any other sign does. The two weak
/// signs never come together (speed is read from a valid proof), so counting them would hold nobody.
pub fn holds(signals: &[Signal], hold_without_proof: bool) -> bool {
    let weak = |s: &Signal| matches!(s, Signal::TooFast) || (*s == Signal::NoProof && !hold_without_proof);
    signals.iter().any(|s| !weak(s))
}

/// A browser that says it is automated: Chromium's headless mode names itself in its user agent.
pub fn automated_user_agent(user_agent: &str) -> bool {
    user_agent.contains("HeadlessChrome") || user_agent.contains("PhantomJS")
}

/// How far back the burst and reuse counts look.
pub const BURST_WINDOW: Duration = Duration::from_secs(10 * 60);
/// More different phones than this from one client (an IPv4 address, an IPv6 /64), or with one
/// name, within `BURST_WINDOW` is a burst. A household or a carrier's shared address sends a few.
pub const BURST_PHONES: usize = 3;
/// More different phones than this with one page-load proof is a reused proof.
pub const PROOF_PHONES: usize = 2;

/// Recent submissions per client, name and proof, to see bursts and reused proofs. Names,
/// proofs, clients and phones are kept as keyed hashes (under the secret the instances share, so
/// every instance hashes alike): fixed in size, and no visitor's text is kept. On PostgreSQL the
/// counts are the database's (`Store::count_phones`), shared by every instance; on SQLite (one
/// instance by design) they are this memory.
pub struct Volume {
    recent: Mutex<Bounded<i64, Phones>>,
    key: hmac::Hmac<sha2::Sha256>,
    clock: Clock,
}

/// Up to `COUNTED` different phones (hashed) with when each was last sent: enough to tell a
/// burst, and fixed in size.
#[derive(Debug, Clone, Copy, Default)]
struct Phones {
    seen: [Option<(Moment, i64)>; COUNTED],
}

/// One more than the most phones any signal allows: how many the counts keep per key.
pub const COUNTED: usize = BURST_PHONES + 1;

impl Phones {
    fn last_used(&self) -> Moment {
        self.seen.iter().flatten().map(|(at, _)| *at).max().expect("a kept key has a phone")
    }

    /// Notes `phone` at `now`, forgetting what is older than the window (and past `COUNTED`
    /// phones, the oldest); how many different phones remain.
    fn note(&mut self, phone: i64, now: Moment) -> usize {
        for slot in &mut self.seen {
            if slot.is_some_and(|(at, p)| now.saturating_sub(at) >= BURST_WINDOW || p == phone) {
                *slot = None;
            }
        }
        let free = self.seen.iter().position(Option::is_none);
        let oldest = (0..COUNTED).min_by_key(|&i| self.seen[i].map(|(at, _)| at));
        let slot = free.or(oldest).expect("COUNTED > 0");
        self.seen[slot] = Some((now, phone));
        self.seen.iter().flatten().count()
    }

    fn idle(&self, now: Moment) -> bool {
        self.seen.iter().flatten().all(|(at, _)| now.saturating_sub(*at) >= BURST_WINDOW)
    }
}

/// One lead as the burst counts see it: the keys it is counted under (its client, its name and,
/// with a valid proof, the proof) and its phone, each a keyed hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tally {
    pub keys: Vec<i64>,
    pub phone: i64,
}

impl Tally {
    /// The signals, given how many different phones each key has (in `keys`' order) now. A name's
    /// burst does not count against a sender that `proved` a page load (a valid proof, with its
    /// work where due): the name's count takes anyone's submissions, so three with a common name
    /// from one script would otherwise hold every real person of that name for ten minutes.
    pub fn signals(&self, phones: &[usize], proved: bool) -> Vec<Signal> {
        let mut signals = Vec::new();
        let by_name = !proved && phones.get(1).is_some_and(|&n| n > BURST_PHONES);
        if phones.first().is_some_and(|&n| n > BURST_PHONES) || by_name {
            signals.push(Signal::Burst);
        }
        if phones.get(2).is_some_and(|&n| n > PROOF_PHONES) {
            signals.push(Signal::ReusedProof);
        }
        signals
    }
}

impl Volume {
    /// `secret` is the one the instances share (the proof secret).
    pub fn new(secret: &[u8], clock: Clock) -> Volume {
        let key = hmac::Mac::new_from_slice(secret).expect("HMAC takes a key of any length");
        Volume { recent: Mutex::new(Bounded::new()), key, clock }
    }

    /// A keyed hash of `value` as the kind of thing `kind` names. Nothing is allocated: it runs
    /// a few times for every lead submitted.
    fn hash(&self, kind: &str, value: &[u8]) -> i64 {
        let mut mac = self.key.clone();
        for part in [b"zayavka volume v1 ".as_slice(), kind.as_bytes(), b" ", value] {
            hmac::Mac::update(&mut mac, part);
        }
        let digest = hmac::Mac::finalize(mac).into_bytes();
        i64::from_le_bytes(digest[..8].try_into().expect("32 bytes"))
    }

    /// The key a client's rate limit is kept under in the shared database.
    pub fn client_key(&self, client: IpAddr) -> i64 {
        match bucket_of(client) {
            IpAddr::V4(v4) => self.hash("client", &v4.octets()),
            IpAddr::V6(v6) => self.hash("client", &v6.octets()),
        }
    }

    /// The tally of one lead (its phone in E.164).
    pub fn tally(&self, client: IpAddr, folded_name: &str, proof: Option<&str>, phone: &str) -> Tally {
        let mut keys = vec![self.client_key(client), self.hash("name", folded_name.as_bytes())];
        keys.extend(proof.map(|proof| self.hash("proof", proof.as_bytes())));
        Tally { keys, phone: self.hash("phone", phone.as_bytes()) }
    }

    /// Counts a tally in this instance's memory: how many different phones each key has now.
    pub fn note(&self, tally: &Tally) -> Vec<usize> {
        let now = self.clock.since_epoch();
        let mut recent = self.recent.lock().expect("volume lock");
        let mut phones_after = |key: i64| {
            if !recent.map.contains_key(&key) {
                recent.make_room(|p| p.idle(now), Phones::last_used);
            }
            recent.map.entry(key).or_default().note(tally.phone, now)
        };
        tally.keys.iter().map(|&key| phones_after(key)).collect()
    }

    /// Forgets what is older than the window, so memory follows recent traffic only.
    pub fn forget_idle(&self) {
        let now = self.clock.since_epoch();
        self.recent.lock().expect("volume lock").forget(|p| p.idle(now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bucket_empties_per_client() {
        let limiter = SubmitLimiter::new(2, Clock::system()).unwrap();
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        assert!(limiter.check(a, 1).is_ok());
        assert!(limiter.check(a, 1).is_ok());
        let limited = limiter.check(a, 1).unwrap_err();
        assert!(limited.retry_after > Duration::ZERO && limited.retry_after <= Duration::from_secs(30));
        assert!(limiter.check(b, 1).is_ok(), "another client is not limited");
        assert!(SubmitLimiter::new(0, Clock::system()).is_none());
    }

    #[test]
    fn every_row_of_a_request_takes_a_token() {
        let limiter = SubmitLimiter::new(5, Clock::system()).unwrap();
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        assert!(limiter.check(a, 4).is_ok());
        assert!(limiter.check(a, 2).is_err(), "one token left, two rows");
        assert!(limiter.check(a, 1).is_ok(), "a refused request took nothing");
        let b: IpAddr = "192.0.2.2".parse().unwrap();
        assert!(limiter.check(b, 6).is_err(), "more rows than a minute allows never pass");
    }

    #[test]
    fn an_ipv6_client_is_its_64_bit_prefix() {
        let limiter = SubmitLimiter::new(1, Clock::system()).unwrap();
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
    fn a_flood_of_distinct_clients_is_remembered_up_to_the_cap() {
        let limiter = SubmitLimiter::new(60, Clock::system()).unwrap();
        let volume = Volume::new(b"secret", Clock::system());
        for n in 0..3 * MAX_REMEMBERED as u128 {
            let client = IpAddr::V6(Ipv6Addr::from(n << 64));
            assert!(limiter.check(client, 1).is_ok());
            let text = n.to_string();
            assert_eq!(volume.note(&volume.tally(client, &text, Some(&text), &text)), [1, 1, 1]);
        }
        assert!(limiter.arrivals.lock().unwrap().map.len() <= MAX_REMEMBERED);
        assert!(volume.recent.lock().unwrap().map.len() <= MAX_REMEMBERED);
        // The latest client is still remembered: its one submit leaves 59 tokens.
        let last = IpAddr::V6(Ipv6Addr::from((3 * MAX_REMEMBERED as u128 - 1) << 64));
        assert!(limiter.check(last, 60).is_err());
    }

    #[test]
    fn a_proof_is_checked_by_its_signature_and_its_age() {
        let key = ProofKey::new(b"secret");
        let proof = key.issue(1_000);
        assert_eq!(key.check(Some(&proof), 1_002), ProofCheck::Valid { age_seconds: 2 });
        assert_eq!(key.check(None, 1_002), ProofCheck::Missing);
        assert_eq!(key.check(Some("1000"), 1_002), ProofCheck::Forged);
        let (_, rest) = proof.split_once('.').unwrap();
        assert_eq!(key.check(Some(&format!("999.{rest}")), 1_002), ProofCheck::Forged, "another time");
        assert_ne!(key.issue(1_000), proof, "two pages in one second get proofs of their own");
        assert_eq!(ProofKey::new(b"other").check(Some(&proof), 1_002), ProofCheck::Forged, "another key");
        let lifetime = PROOF_LIFETIME.as_secs() as i64;
        assert_eq!(key.check(Some(&proof), 1_000 + lifetime + 1), ProofCheck::Expired);
        let future = key.issue(5_000);
        assert_eq!(key.check(Some(&future), 1_000), ProofCheck::Forged, "issued in the future");
    }

    #[test]
    fn the_work_is_a_counter_whose_hash_starts_with_zero_bits() {
        let proof = "1000.AAAAAAAAAAA.c2lnbmF0dXJl";
        let work = (0..1_000_000u32).map(|n| n.to_string()).find(|w| work_done(proof, w)).unwrap();
        assert!(!work_done("1001.AAAAAAAAAAA.c2lnbmF0dXJl", &work), "the work is for its proof");
        for wrong in ["", "-1", "1e3", "0000000000001", " 1"] {
            assert!(!work_done(proof, wrong), "{wrong:?}");
        }
        let misses = (0..4096u32).filter(|n| !work_done(proof, &n.to_string())).count();
        assert!(misses > 3_000, "most counters are not the work: {misses}");
    }

    #[test]
    fn speed_alone_never_holds_a_lead() {
        assert!(!holds(&[Signal::TooFast], true));
        assert!(!holds(&[Signal::NoProof], false), "where the form is another site");
        assert!(holds(&[Signal::NoProof, Signal::Honeypot], false));
        assert!(holds(&[Signal::NoProof], true));
        assert!(holds(&[Signal::TooFast, Signal::ReusedProof], true));
        assert!(!holds(&[], true));
    }

    #[test]
    fn bursts_count_different_phones_per_client_and_per_name() {
        let volume = Volume::new(b"secret", Clock::system());
        let note = |client: IpAddr, name: &str, proof: Option<&str>, phone: &str| {
            let tally = volume.tally(client, name, proof, phone);
            tally.signals(&volume.note(&tally), proof.is_some())
        };
        let a: IpAddr = "192.0.2.1".parse().unwrap();
        for _ in 0..5 {
            assert!(note(a, "олена", None, "+380671234501").is_empty(), "one person again");
        }
        assert!(note(a, "іван", None, "+380671234502").is_empty());
        assert!(note(a, "петро", None, "+380671234503").is_empty());
        assert_eq!(note(a, "марко", None, "+380671234504"), vec![Signal::Burst]);
        let b: IpAddr = "2001:db8::1".parse().unwrap();
        let c: IpAddr = "2001:db8::2".parse().unwrap();
        assert!(note(b, "x", Some("p1"), "+380671234511").is_empty());
        assert!(note(c, "y", Some("p1"), "+380671234512").is_empty());
        assert_eq!(note(b, "z", Some("p1"), "+380671234513"), vec![Signal::ReusedProof]);
        assert_eq!(note(c, "z", None, "+380671234514"), vec![Signal::Burst], "the /64 is one client");
        // One name, many clients: a burst for senders without a proof, not for those with one.
        let clients = ["192.0.2.21", "192.0.2.22", "192.0.2.23", "192.0.2.24", "192.0.2.25"];
        let clients: Vec<IpAddr> = clients.iter().map(|c| c.parse().unwrap()).collect();
        for (n, &client) in clients[..3].iter().enumerate() {
            assert!(note(client, "оксана", None, &format!("+38067123452{n}")).is_empty());
        }
        assert!(note(clients[3], "оксана", Some("p2"), "+380671234523").is_empty(), "a person with a proof");
        assert_eq!(note(clients[4], "оксана", None, "+380671234524"), vec![Signal::Burst]);
        assert_eq!(
            Volume::new(b"secret", Clock::system()).tally(a, "олена", None, "+380671234501"),
            volume.tally(a, "олена", None, "+380671234501"),
            "every instance hashes alike"
        );
    }
}
