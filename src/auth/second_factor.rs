//! The second factor, without storage: TOTP codes (RFC 6238: six digits, 30-second steps, one
//! step either side for a phone's clock) and single-use recovery codes. The store keeps the
//! secret, the last step used (a code works once) and the recovery codes' hashes.

use base64::Engine as _;
use rand::Rng as _;
use totp_rs::{Algorithm, Builder, Secret, Totp};

/// The name authenticator apps show above the code.
const ISSUER: &str = "zayavka";

/// How many recovery codes an operator gets; each signs in once, for a lost phone.
pub const RECOVERY_CODES: usize = 10;

/// Wrong codes typed after a right password, counted per account whatever the address (a
/// guesser spreads over many networks): five in a row refuse the account's app codes for 15
/// minutes, doubling with each run after, up to a day, until a right code. A wrong password is
/// not counted here, so nobody without the password can refuse the owner's codes.
pub const CODE_LIMIT: crate::store::CodeLimit = crate::store::CodeLimit { in_a_row: 5, refusal };

fn refusal(runs_before: i64) -> jiff::SignedDuration {
    let minutes = 15i64.saturating_mul(1 << runs_before.clamp(0, 7)).min(24 * 60);
    jiff::SignedDuration::from_mins(minutes)
}

/// Recovery codes are written with letters and digits nobody confuses when reading them aloud
/// or copying them from paper (no 0/o, 1/l/i).
const RECOVERY_ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";

/// What an operator needs to add the account to an authenticator app.
#[derive(Debug, serde::Serialize, ts_rs::TS)]
pub struct Enrolment {
    /// The secret in base32, for typing in by hand.
    pub secret: String,
    /// The `otpauth://` URI the QR code holds.
    pub uri: String,
    /// The QR code as an SVG `data:` URL.
    pub qr: String,
}

/// A new secret: 160 random bits (RFC 4226's recommended length), in base32.
pub fn new_secret() -> String {
    let bytes: [u8; 20] = rand::random();
    Secret::from(bytes.to_vec()).to_base32()
}

fn totp(secret: &str, email: &str) -> Option<Totp> {
    let secret = Secret::try_from_base32(secret).ok()?;
    Builder::new()
        .with_algorithm(Algorithm::SHA1)
        .with_secret(secret)
        .with_issuer(Some(ISSUER))
        .with_account_name(email)
        .build()
        .ok()
}

/// The secret, its URI and QR code for `email`'s authenticator app.
pub fn enrolment(secret: &str, email: &str) -> anyhow::Result<Enrolment> {
    let totp =
        totp(secret, email).ok_or_else(|| anyhow::anyhow!("a second-factor secret that is not base32"))?;
    let uri = totp.to_url().map_err(|e| anyhow::anyhow!("the otpauth URI: {e}"))?;
    let svg = qrcode::QrCode::new(uri.as_bytes())?
        .render::<qrcode::render::svg::Color>()
        .min_dimensions(200, 200)
        .build();
    let qr = format!("data:image/svg+xml;base64,{}", base64::engine::general_purpose::STANDARD.encode(svg));
    Ok(Enrolment { secret: secret.to_owned(), uri, qr })
}

/// The time step `code` belongs to, if it is the secret's code at `now` or one step either side;
/// the caller accepts each step once. Spaces in the code are ignored.
pub fn code_step(secret: &str, code: &str, now: jiff::Timestamp) -> Option<i64> {
    let code: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    let now = u64::try_from(now.as_second()).ok()?;
    let step = totp(secret, "")?.check(&code, now)?;
    i64::try_from(step).ok()
}

/// Whether what an operator typed looks like a recovery code rather than an app's six digits:
/// a letter, or more than six characters (one in about 750,000 recovery codes has only digits).
pub fn is_recovery_code(code: &str) -> bool {
    let typed = code.chars().filter(|c| !c.is_whitespace() && *c != '-');
    typed.clone().any(|c| !c.is_ascii_digit()) || typed.count() > 6
}

/// Fresh recovery codes, shown once, as `xxxxx-xxxxx`.
pub fn new_recovery_codes() -> Vec<String> {
    let mut rng = rand::rng();
    (0..RECOVERY_CODES)
        .map(|_| {
            let mut code: String = (0..10)
                .map(|_| char::from(RECOVERY_ALPHABET[rng.random_range(0..RECOVERY_ALPHABET.len())]))
                .collect();
            code.insert(5, '-');
            code
        })
        .collect()
}

/// What the database keeps of a recovery code: the SHA-256 of its letters and digits, in lower
/// case, so `ABCDE FGHJK` typed from paper matches `abcde-fghjk`.
pub fn recovery_code_hash(code: &str) -> String {
    let letters: String = code.chars().filter(char::is_ascii_alphanumeric).collect();
    super::token_hash(&letters.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_works_in_its_step_and_one_either_side_only() {
        let secret = new_secret();
        let now = jiff::Timestamp::now();
        let code = totp(&secret, "").unwrap().generate(now.as_second() as u64).to_string();
        let step = code_step(&secret, &code, now).expect("the current code");
        assert_eq!(code_step(&secret, &format!("{} {}", &code[..3], &code[3..]), now), Some(step));
        let later = now + jiff::SignedDuration::from_secs(30);
        assert_eq!(code_step(&secret, &code, later), Some(step), "a phone's clock a step behind");
        let much_later = now + jiff::SignedDuration::from_secs(90);
        assert_eq!(code_step(&secret, &code, much_later), None);
        assert_eq!(code_step(&secret, "12345", now), None);
    }

    #[test]
    fn refusals_grow_to_a_day() {
        let minutes: Vec<i64> = (0..9).map(|runs| refusal(runs).as_mins()).collect();
        assert_eq!(minutes, [15, 30, 60, 120, 240, 480, 960, 1440, 1440]);
    }

    #[test]
    fn the_enrolment_names_the_site_and_the_account() {
        let secret = new_secret();
        let enrolment = enrolment(&secret, "olena@example.org").unwrap();
        assert!(
            enrolment.uri.starts_with("otpauth://totp/zayavka:olena%40example.org?"),
            "{}",
            enrolment.uri
        );
        assert!(enrolment.uri.contains(&format!("secret={secret}")));
        assert!(enrolment.qr.starts_with("data:image/svg+xml;base64,"));
    }

    #[test]
    fn recovery_codes_are_distinct_and_match_however_typed() {
        let codes = new_recovery_codes();
        assert_eq!(codes.len(), RECOVERY_CODES);
        assert!(codes.iter().all(|c| c.len() == 11 && is_recovery_code(c)));
        let unique: std::collections::HashSet<_> = codes.iter().collect();
        assert_eq!(unique.len(), RECOVERY_CODES);
        let typed = codes[0].to_uppercase().replace('-', " ");
        assert_eq!(recovery_code_hash(&typed), recovery_code_hash(&codes[0]));
        assert!(!is_recovery_code("123 456"));
        assert!(is_recovery_code("23456-78923"), "a recovery code made of digits only");
    }
}
