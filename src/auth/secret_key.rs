//! The key that encrypts the operators' second-factor secrets in the database, kept in a file
//! beside it (`ZAYAVKA_SECRET_KEY_FILE`): a copy of the database alone gives no codes. A secret is
//! stored as `v1:` and the base64 of a random 12-byte nonce followed by its ChaCha20-Poly1305
//! ciphertext, bound to its operator's id (a secret copied to another account's row does not
//! open). Text without the `v1:` prefix is a secret from before, still in plain text until the
//! start encrypts it.

use std::io::Write as _;
use std::path::Path;

use anyhow::Context as _;
use base64::Engine as _;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};

use crate::config::Settings;
use crate::store::{Store, StoredSecrets};

const VERSION_1: &str = "v1:";
const NONCE_BYTES: usize = 12;

pub struct SecretKey {
    cipher: ChaCha20Poly1305,
}

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretKey([redacted])")
    }
}

/// Whether a stored secret is encrypted (as opposed to one from before, in plain text).
pub fn is_sealed(stored: &str) -> bool {
    stored.starts_with(VERSION_1)
}

impl SecretKey {
    /// A fresh random key, for tests and tools.
    pub fn random() -> SecretKey {
        SecretKey::from_bytes(rand::random())
    }

    fn from_bytes(bytes: [u8; 32]) -> SecretKey {
        SecretKey { cipher: ChaCha20Poly1305::new(Key::from_slice(&bytes)) }
    }

    /// Reads the key file, or writes a new one (mode 600) when there is none and `may_create`
    /// (no secret in the database is encrypted with a key that would then be lost).
    pub fn load_or_create(path: &Path, may_create: bool) -> anyhow::Result<SecretKey> {
        match std::fs::read_to_string(path) {
            Ok(text) => return SecretKey::parse(&text).with_context(|| format!("{}", path.display())),
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(e).with_context(|| format!("cannot read the secret key file {}", path.display()));
            }
            Err(_) => {}
        }
        if !may_create {
            anyhow::bail!(
                "the secret key file {} is missing, but the database holds second-factor secrets \
                 encrypted with it: restore it from the backup (ZAYAVKA_SECRET_KEY_FILE names where it \
                 is), or turn each operator's second factor off with `zayavka admin reset-2fa EMAIL`",
                path.display()
            );
        }
        if let Some(folder) = path.parent().filter(|folder| !folder.as_os_str().is_empty()) {
            std::fs::create_dir_all(folder)
                .with_context(|| format!("cannot create the folder {}", folder.display()))?;
        }
        let bytes: [u8; 32] = rand::random();
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        match options.open(path) {
            Ok(mut file) => {
                let text = base64::engine::general_purpose::STANDARD.encode(bytes);
                file.write_all(format!("{text}\n").as_bytes())
                    .and_then(|()| file.sync_all())
                    .with_context(|| format!("cannot write the secret key file {}", path.display()))?;
                tracing::info!(path = %path.display(), "created the secret key file: back it up apart from the database");
                Ok(SecretKey::from_bytes(bytes))
            }
            // Another instance starting at the same moment wrote it first.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("cannot read the secret key file {}", path.display()))?;
                SecretKey::parse(&text).with_context(|| format!("{}", path.display()))
            }
            Err(e) => Err(e).with_context(|| format!("cannot create the secret key file {}", path.display())),
        }
    }

    fn parse(text: &str) -> anyhow::Result<SecretKey> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text.trim())
            .ok()
            .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
            .context("not a secret key (32 bytes in base64)")?;
        Ok(SecretKey::from_bytes(bytes))
    }

    /// `secret` of operator `operator_id` as the database keeps it.
    pub fn seal(&self, operator_id: i64, secret: &str) -> String {
        let nonce: [u8; NONCE_BYTES] = rand::random();
        let aad = associated_data(operator_id);
        let ciphertext = self
            .cipher
            .encrypt(Nonce::from_slice(&nonce), Payload { msg: secret.as_bytes(), aad: &aad })
            .expect("ChaCha20-Poly1305 encrypts any message this short");
        let mut sealed = nonce.to_vec();
        sealed.extend(ciphertext);
        format!("{VERSION_1}{}", base64::engine::general_purpose::STANDARD.encode(sealed))
    }

    /// The secret the database keeps as `stored` for operator `operator_id`: decrypted, or as it
    /// is from before encryption; `None` if it does not open with this key.
    pub fn open(&self, operator_id: i64, stored: &str) -> Option<String> {
        let Some(encoded) = stored.strip_prefix(VERSION_1) else { return Some(stored.to_owned()) };
        let sealed = base64::engine::general_purpose::STANDARD.decode(encoded).ok()?;
        if sealed.len() < NONCE_BYTES {
            return None;
        }
        let (nonce, ciphertext) = sealed.split_at(NONCE_BYTES);
        let aad = associated_data(operator_id);
        let plain =
            self.cipher.decrypt(Nonce::from_slice(nonce), Payload { msg: ciphertext, aad: &aad }).ok()?;
        String::from_utf8(plain).ok()
    }
}

/// At start: the key from its file (made on first start), and every second-factor secret still in
/// plain text encrypted with it. Refuses to start when the database holds encrypted secrets and
/// the file is missing or none of them opens with it (another deployment's key): making a new key
/// then would lock every operator with a second factor out without a word.
pub async fn settle(settings: &Settings, store: &Store) -> anyhow::Result<SecretKey> {
    let stored = store.second_factor_secrets().await?;
    let texts = |s: &StoredSecrets| s.secret.clone().into_iter().chain(s.pending.clone());
    let sealed: Vec<(i64, String)> =
        stored.iter().flat_map(|s| texts(s).filter(|t| is_sealed(t)).map(|t| (s.operator_id, t))).collect();
    let path = settings.secret_key_path();
    let key = SecretKey::load_or_create(&path, sealed.is_empty())?;
    if !sealed.is_empty() && !sealed.iter().any(|(id, text)| key.open(*id, text).is_some()) {
        anyhow::bail!(
            "the secret key file {} does not open the second-factor secrets in the database: is it \
             this deployment's? Restore the right one, or turn each operator's second factor off with \
             `zayavka admin reset-2fa EMAIL`",
            path.display()
        );
    }
    let mut encrypted = 0;
    for before in stored {
        if !texts(&before).any(|t| !is_sealed(&t)) {
            continue;
        }
        let id = before.operator_id;
        let seal = |text: &Option<String>| {
            text.as_ref().map(|t| if is_sealed(t) { t.clone() } else { key.seal(id, t) })
        };
        let after =
            StoredSecrets { operator_id: id, secret: seal(&before.secret), pending: seal(&before.pending) };
        if store.replace_second_factor_secrets(before, after).await? {
            encrypted += 1;
        }
    }
    if encrypted > 0 {
        tracing::info!(operators = encrypted, "encrypted second-factor secrets kept in plain text before");
    }
    Ok(key)
}

fn associated_data(operator_id: i64) -> Vec<u8> {
    format!("zayavka totp operator {operator_id}").into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_secret_opens_with_its_key_and_account_only() {
        let key = SecretKey::random();
        let sealed = key.seal(7, "JBSWY3DPEHPK3PXP");
        assert!(is_sealed(&sealed) && !sealed.contains("JBSWY3DPEHPK3PXP"), "{sealed}");
        assert_ne!(key.seal(7, "JBSWY3DPEHPK3PXP"), sealed, "a nonce of its own each time");
        assert_eq!(key.open(7, &sealed).as_deref(), Some("JBSWY3DPEHPK3PXP"));
        assert_eq!(key.open(8, &sealed), None, "copied to another account's row");
        assert_eq!(SecretKey::random().open(7, &sealed), None, "another key");
        assert_eq!(key.open(7, "v1:AAAA"), None);
        assert_eq!(key.open(7, "JBSWY3DPEHPK3PXP").as_deref(), Some("JBSWY3DPEHPK3PXP"), "from before");
    }

    #[test]
    fn the_key_file_is_made_once_and_read_after() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys").join("secret.key");
        assert!(SecretKey::load_or_create(&path, false).is_err(), "not made while secrets need it");
        let made = SecretKey::load_or_create(&path, true).unwrap();
        let sealed = made.seal(1, "secret");
        let read = SecretKey::load_or_create(&path, false).unwrap();
        assert_eq!(read.open(1, &sealed).as_deref(), Some("secret"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        std::fs::write(&path, "not a key").unwrap();
        assert!(SecretKey::load_or_create(&path, true).is_err(), "a damaged key is not replaced");
    }
}
