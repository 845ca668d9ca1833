//! One typed configuration: defaults → TOML file (`--config`) → environment / flags, validated once
//! at start. Each setting is declared once, in `declared.rs`; `docs/configuration.md` and
//! `zayavka.example.toml` are checked against that table by unit tests (ADR 0026).

mod declared;
mod values;

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use jiff::SignedDuration;

use crate::calendar::{Cadence, Calendar, ClosedDays};
use crate::notice::{Channel, WorkingHours};
pub use declared::{Declared, SETTINGS, SettingArgs};
pub use values::{Assign, DatabaseUrl, LogFormat};

/// The validated settings the server runs with.
#[derive(Debug, Clone)]
pub struct Settings {
    pub listen: SocketAddr,
    pub database_url: DatabaseUrl,
    pub anon_key: Option<String>,
    /// Without a trailing slash; empty means the site's own origin.
    pub backend_url: String,
    pub redirect_url: String,
    pub contact_phone: String,
    pub brand: String,
    pub log: String,
    pub log_format: LogFormat,
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// 0 = off.
    pub rate_limit_per_minute: u32,
    /// 0 = off.
    pub min_fill_seconds: u32,
    pub hold_without_proof: bool,
    /// 1 to 3650.
    pub hold_days: u32,
    /// 0 = off.
    pub duplicate_window_hours: u32,
    /// Without a trailing slash; empty means links in notifications are paths only.
    pub public_url: String,
    pub notify: NotifySettings,
    /// 0 = off.
    pub remind_after_hours: u32,
    /// An open lead nobody has tried by this age is reported to the admins, once; `None`: never.
    pub escalate_after: Option<SignedDuration>,
    pub reminder_scan_seconds: u32,
    /// `None`: reminders at any time.
    pub working_hours: Option<WorkingHours>,
    pub closed_days: ClosedDays,
    pub retry_cadence: Cadence,
    /// Operators without a second factor may only set one up.
    pub require_2fa: bool,
    /// `None`: beside the database (`Settings::secret_key_path`).
    pub secret_key_file: Option<PathBuf>,
    /// 1 to 1440.
    pub claim_minutes: u32,
    pub assign: Assign,
    /// 1 to 3650; the privacy policy states it.
    pub retention_days: u32,
    /// At least 1; `serve` lowers it to what the open-file limit allows.
    pub max_connections: u32,
    /// 1 to 3600: the header read timeout and the keep-alive idle limit.
    pub header_timeout_seconds: u32,
}

/// Where notifications go. Secrets are kept out of `Debug`.
#[derive(Clone, Default)]
pub struct NotifySettings {
    pub webhook: Option<Webhook>,
    pub telegram: Option<Telegram>,
    pub email: Option<Email>,
    pub include_pii: bool,
}

#[derive(Clone)]
pub struct Webhook {
    pub url: String,
    pub secret: Option<String>,
}

#[derive(Clone)]
pub struct Telegram {
    pub api_url: String,
    pub bot_token: String,
    pub chat_id: String,
}

#[derive(Clone)]
pub struct Email {
    pub smtp_url: String,
    pub to: Vec<String>,
    pub from: String,
}

impl NotifySettings {
    /// The channels configured, in a fixed order.
    pub fn channels(&self) -> std::sync::Arc<[Channel]> {
        [
            self.telegram.is_some().then_some(Channel::Telegram),
            self.webhook.is_some().then_some(Channel::Webhook),
            self.email.is_some().then_some(Channel::Email),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

impl NotifySettings {
    /// The channels from their settings: each is on when its settings are set, and checked then.
    fn read(v: &declared::Values) -> anyhow::Result<NotifySettings> {
        let webhook = match &v.webhook_url {
            Some(url) => {
                values::check_http_url("ZAYAVKA_WEBHOOK_URL", url)?;
                Some(Webhook { url: url.clone(), secret: v.webhook_secret.clone() })
            }
            None => None,
        };
        let telegram = match (&v.telegram_bot_token, &v.telegram_chat_id) {
            (Some(bot_token), Some(chat_id)) => {
                let api_url = &v.telegram_api_url;
                values::check_http_url("ZAYAVKA_TELEGRAM_API_URL", api_url)?;
                if bot_token.contains(['/', '?', '#']) || bot_token.contains(char::is_whitespace) {
                    bail!("ZAYAVKA_TELEGRAM_BOT_TOKEN: not a bot token (as BotFather gives it)");
                }
                let api_url = api_url.trim_end_matches('/').to_owned();
                Some(Telegram { api_url, bot_token: bot_token.clone(), chat_id: chat_id.clone() })
            }
            (None, None) => None,
            _ => bail!("ZAYAVKA_TELEGRAM_BOT_TOKEN and ZAYAVKA_TELEGRAM_CHAT_ID: set both, or neither"),
        };
        let email = match (&v.smtp_url, &v.notify_email_to) {
            (Some(smtp_url), Some(to)) => {
                if !(smtp_url.starts_with("smtp://") || smtp_url.starts_with("smtps://")) {
                    bail!("ZAYAVKA_SMTP_URL: must start with smtp:// or smtps://");
                }
                let to: Vec<String> =
                    to.split(',').map(str::trim).filter(|a| !a.is_empty()).map(str::to_owned).collect();
                let from =
                    v.notify_email_from.clone().unwrap_or_else(|| to.first().cloned().unwrap_or_default());
                for address in to.iter().chain([&from]) {
                    if address.parse::<lettre::Address>().is_err() {
                        bail!("ZAYAVKA_NOTIFY_EMAIL_TO / _FROM: '{address}' is not an e-mail address");
                    }
                }
                Some(Email { smtp_url: smtp_url.clone(), to, from })
            }
            (None, None) => None,
            _ => bail!("ZAYAVKA_SMTP_URL and ZAYAVKA_NOTIFY_EMAIL_TO: set both, or neither"),
        };
        Ok(NotifySettings { webhook, telegram, email, include_pii: v.notify_include_pii })
    }
}

impl fmt::Debug for NotifySettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NotifySettings")
            .field("webhook", &self.webhook.as_ref().map(|w| &w.url))
            .field("telegram", &self.telegram.as_ref().map(|t| &t.chat_id))
            .field("email", &self.email.as_ref().map(|e| &e.to))
            .field("include_pii", &self.include_pii)
            .finish()
    }
}

impl Settings {
    /// Layers the file (if any) under the flags and environment, fills defaults, validates.
    pub fn resolve(args: SettingArgs, config_file: Option<&Path>) -> anyhow::Result<Settings> {
        let file = match config_file {
            Some(path) => read_file(path)?,
            None => BTreeMap::new(),
        };
        let v = declared::Values::read(args, file)?;
        let notify = NotifySettings::read(&v)?;
        Ok(Settings {
            listen: v.listen,
            database_url: v.database_url,
            anon_key: v.anon_key,
            backend_url: v.backend_url,
            redirect_url: v.redirect_url,
            contact_phone: v.contact_phone,
            brand: v.brand,
            log: v.log,
            log_format: v.log_format,
            trusted_proxies: v.trusted_proxies,
            rate_limit_per_minute: v.rate_limit_per_minute,
            min_fill_seconds: v.min_fill_seconds,
            hold_without_proof: v.hold_without_proof,
            hold_days: v.hold_days,
            duplicate_window_hours: v.duplicate_window_hours,
            public_url: v.public_url,
            notify,
            remind_after_hours: v.remind_after_hours,
            escalate_after: v.escalate_after_hours,
            reminder_scan_seconds: v.reminder_scan_seconds,
            working_hours: v.working_hours,
            closed_days: v.closed_days,
            retry_cadence: v.retry_cadence,
            require_2fa: v.require_2fa,
            secret_key_file: v.secret_key_file,
            claim_minutes: v.claim_minutes,
            assign: v.assign,
            retention_days: v.retention_days,
            max_connections: v.max_connections,
            header_timeout_seconds: v.header_timeout_seconds,
        })
    }

    /// The key file of the second-factor secrets: the setting, or `secret.key` in the SQLite
    /// database's folder, or `data/secret.key` with PostgreSQL.
    pub fn secret_key_path(&self) -> PathBuf {
        match (&self.secret_key_file, &self.database_url) {
            (Some(path), _) => path.clone(),
            (None, DatabaseUrl::Sqlite(database)) => {
                database.parent().unwrap_or(Path::new("")).join("secret.key")
            }
            (None, DatabaseUrl::Postgres(_)) => PathBuf::from("data/secret.key"),
        }
    }

    /// The settings with every default, for tests and tools.
    pub fn defaults() -> Settings {
        Settings::resolve(SettingArgs::default(), None).expect("the defaults are valid")
    }

    /// How far back a submission looks for the person's open lead, of which it is then a repeat;
    /// `None`: never a repeat (`ZAYAVKA_DUPLICATE_WINDOW_HOURS=0`).
    pub fn duplicate_window(&self) -> Option<std::time::Duration> {
        (self.duplicate_window_hours > 0)
            .then(|| std::time::Duration::from_secs(u64::from(self.duplicate_window_hours) * 3600))
    }

    /// The settings' part of the calendar: the hours and `ZAYAVKA_CLOSED_DAYS`. What the team's
    /// calendar is at a given time also takes the inbox's list: `Store::calendar` adds it.
    pub fn settings_calendar(&self) -> Calendar {
        Calendar { hours: self.working_hours, closed: self.closed_days.clone() }
    }
}

/// Reads the TOML file. Keys may be written as the environment variable (`ZAYAVKA_LISTEN`) or as
/// the short name (`listen`); an unknown key is an error, so a typo does not pass silently.
fn read_file(path: &Path) -> anyhow::Result<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read config file {}", path.display()))?;
    let table: toml::Table = toml::from_str(&text)
        .map_err(|e| anyhow::anyhow!("config file {}: {}", path.display(), e.message()))?;
    let mut settings = BTreeMap::new();
    for (key, value) in table {
        let short = key.to_ascii_lowercase();
        let short = short.strip_prefix("zayavka_").unwrap_or(&short).to_owned();
        if !SETTINGS.iter().any(|setting| setting.key == short) {
            bail!("config file {}: unknown setting '{key}'", path.display());
        }
        let value = match value {
            toml::Value::String(s) => s,
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            other => {
                bail!("config file {}: '{key}' must be a string, not {}", path.display(), other.type_str())
            }
        };
        settings.insert(short, value);
    }
    Ok(settings)
}

#[cfg(test)]
mod tests;
