//! One typed configuration: defaults → TOML file (`--config`) → environment / flags, validated once
//! at start. Every key is listed in `docs/configuration.md` and `zayavka.example.toml`.

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args;

use crate::calendar::{Cadence, Calendar, ClosedDays};
use crate::notice::{Channel, WorkingHours};

/// The settings as given on the command line or in the environment, before the file and the
/// defaults fill the gaps. Each flag's environment variable is the contract's name.
#[derive(Debug, Default, Clone, Args)]
pub struct SettingArgs {
    /// Address and port to serve on [default: 127.0.0.1:8080]
    #[arg(long, env = "ZAYAVKA_LISTEN", global = true, value_name = "ADDR:PORT")]
    pub listen: Option<String>,

    /// `sqlite://PATH` or `postgres://…` [default: sqlite://data/zayavka.db]
    #[arg(long, env = "ZAYAVKA_DATABASE_URL", global = true, value_name = "URL")]
    pub database_url: Option<String>,

    /// The public key the site sends as `apikey` [default: generated on first start, kept in the
    /// database]
    #[arg(long, env = "ZAYAVKA_ANON_KEY", global = true, value_name = "KEY")]
    pub anon_key: Option<String>,

    /// Where the browser sends the one call; a hosted Supabase project URL works [default: empty,
    /// same origin]
    #[arg(long, env = "ZAYAVKA_BACKEND_URL", global = true, value_name = "URL")]
    pub backend_url: Option<String>,

    /// Where a visitor goes after a successful submit [default: /thank-you]
    #[arg(long, env = "ZAYAVKA_REDIRECT_URL", global = true, value_name = "URL")]
    pub redirect_url: Option<String>,

    /// The phone number shown in the footer [default: +380 00 000 00 00, a fake example]
    #[arg(long, env = "ZAYAVKA_CONTACT_PHONE", global = true, value_name = "PHONE")]
    pub contact_phone: Option<String>,

    /// The program's name in the header and page titles [default: Міжнародна програма підтримки]
    #[arg(long, env = "ZAYAVKA_BRAND", global = true, value_name = "TEXT")]
    pub brand: Option<String>,

    /// Log filter, as tracing's EnvFilter reads it [default: info]
    #[arg(long, env = "ZAYAVKA_LOG", global = true, value_name = "FILTER")]
    pub log: Option<String>,

    /// `text` (coloured only on a terminal) or `json` (one object per line, for log shippers)
    /// [default: text]
    #[arg(long, env = "ZAYAVKA_LOG_FORMAT", global = true, value_name = "FORMAT")]
    pub log_format: Option<String>,

    /// Reverse proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed: IP addresses
    /// or CIDR ranges, comma-separated [default: none]
    #[arg(long, env = "ZAYAVKA_TRUSTED_PROXIES", global = true, value_name = "IPS")]
    pub trusted_proxies: Option<String>,

    /// Submits one client may make per minute, on the JSON insert and the form each; 0 = off
    /// [default: 60]
    #[arg(long, env = "ZAYAVKA_RATE_LIMIT_PER_MINUTE", global = true, value_name = "N")]
    pub rate_limit_per_minute: Option<String>,

    /// A form sent sooner than this after its page loaded (as the server-signed page-load proof
    /// says) counts towards holding it for review, never alone; 0 = off [default: 3]
    #[arg(long, env = "ZAYAVKA_MIN_FILL_SECONDS", global = true, value_name = "SECONDS")]
    pub min_fill_seconds: Option<String>,

    /// A lead sent without a valid page-load proof is held for review; false where the form is
    /// another site that sends only the public key [default: true]
    #[arg(long, env = "ZAYAVKA_HOLD_WITHOUT_PROOF", global = true, value_name = "BOOL")]
    pub hold_without_proof: Option<String>,

    /// Held leads nobody released are deleted after this many days [default: 30]
    #[arg(long, env = "ZAYAVKA_HOLD_DAYS", global = true, value_name = "DAYS")]
    pub hold_days: Option<String>,

    /// A submission whose phone was first sent within this many hours is stored as a repeat of
    /// that first lead (not notified again); 0 = off [default: 24]
    #[arg(long, env = "ZAYAVKA_DUPLICATE_WINDOW_HOURS", global = true, value_name = "HOURS")]
    pub duplicate_window_hours: Option<String>,

    /// The site's public address, for the inbox links in notifications, e.g.
    /// https://example.org [default: empty, links are paths only]
    #[arg(long, env = "ZAYAVKA_PUBLIC_URL", global = true, value_name = "URL")]
    pub public_url: Option<String>,

    /// A JSON POST per new lead (and reminder) goes here [default: none]
    #[arg(long, env = "ZAYAVKA_WEBHOOK_URL", global = true, value_name = "URL")]
    pub webhook_url: Option<String>,

    /// The key of the webhook's HMAC-SHA256 signature header [default: none, unsigned]
    #[arg(
        long,
        env = "ZAYAVKA_WEBHOOK_SECRET",
        global = true,
        value_name = "SECRET",
        hide_env_values = true
    )]
    pub webhook_secret: Option<String>,

    /// A Telegram bot's token; with ZAYAVKA_TELEGRAM_CHAT_ID, a message per new lead [default: none]
    #[arg(
        long,
        env = "ZAYAVKA_TELEGRAM_BOT_TOKEN",
        global = true,
        value_name = "TOKEN",
        hide_env_values = true
    )]
    pub telegram_bot_token: Option<String>,

    /// The Telegram chat (or group) the bot writes to [default: none]
    #[arg(long, env = "ZAYAVKA_TELEGRAM_CHAT_ID", global = true, value_name = "ID")]
    pub telegram_chat_id: Option<String>,

    /// The Telegram Bot API's address [default: https://api.telegram.org]
    #[arg(long, env = "ZAYAVKA_TELEGRAM_API_URL", global = true, value_name = "URL")]
    pub telegram_api_url: Option<String>,

    /// The SMTP server for e-mail notifications: smtp://host:port (STARTTLS if offered,
    /// ?tls=required to insist), smtps://user:password@host [default: none]
    #[arg(long, env = "ZAYAVKA_SMTP_URL", global = true, value_name = "URL", hide_env_values = true)]
    pub smtp_url: Option<String>,

    /// Who gets the e-mails, comma-separated [default: none]
    #[arg(long, env = "ZAYAVKA_NOTIFY_EMAIL_TO", global = true, value_name = "ADDRESSES")]
    pub notify_email_to: Option<String>,

    /// The e-mails' sender [default: the first ZAYAVKA_NOTIFY_EMAIL_TO address]
    #[arg(long, env = "ZAYAVKA_NOTIFY_EMAIL_FROM", global = true, value_name = "ADDRESS")]
    pub notify_email_from: Option<String>,

    /// Put the visitor's name, phone and comment in notifications (health-related personal data
    /// leaves the server) [default: false]
    #[arg(long, env = "ZAYAVKA_NOTIFY_INCLUDE_PII", global = true, value_name = "BOOL")]
    pub notify_include_pii: Option<String>,

    /// A reminder goes to the channels when an open lead is this many hours old (its promise is
    /// 48 hours); 0 = off [default: 40]
    #[arg(long, env = "ZAYAVKA_REMIND_AFTER_HOURS", global = true, value_name = "HOURS")]
    pub remind_after_hours: Option<String>,

    /// How often open leads are checked for a reminder or an overdue notice, in seconds (1–3600)
    /// [default: 10]
    #[arg(long, env = "ZAYAVKA_REMINDER_SCAN_SECONDS", global = true, value_name = "SECONDS")]
    pub reminder_scan_seconds: Option<String>,

    /// The team's working hours in Kyiv time, `HH:MM-HH:MM` (may span midnight): reminders and
    /// overdue notices are queued only then; a new lead is told at once [default: any time]
    #[arg(long, env = "ZAYAVKA_WORKING_HOURS", global = true, value_name = "HH:MM-HH:MM")]
    pub working_hours: Option<String>,

    /// Days the team does not work, Kyiv dates `YYYY-MM-DD` separated by commas: retries are
    /// never scheduled on them [default: none]
    #[arg(long, env = "ZAYAVKA_CLOSED_DAYS", global = true, value_name = "DATES")]
    pub closed_days: Option<String>,

    /// When a lead whose call went unanswered is due again, one step per unanswered call, in
    /// working time: `Nh` (working hours later), `morning` (the next start of a working day) or
    /// `afternoon` (the next middle of one); after the last step it is due at once, offered as
    /// unreachable [default: 2h,morning,afternoon]
    #[arg(long, env = "ZAYAVKA_RETRY_CADENCE", global = true, value_name = "STEPS")]
    pub retry_cadence: Option<String>,

    /// Every operator must set up a second factor (an authenticator app's codes) before working
    /// in the inbox [default: false]
    #[arg(long, env = "ZAYAVKA_REQUIRE_2FA", global = true, value_name = "BOOL")]
    pub require_2fa: Option<String>,

    /// The file with the key that encrypts the operators' second-factor secrets, kept out of the
    /// database (back it up apart from it); created on first start [default: secret.key beside
    /// a SQLite database, data/secret.key with PostgreSQL]
    #[arg(long, env = "ZAYAVKA_SECRET_KEY_FILE", global = true, value_name = "PATH")]
    pub secret_key_file: Option<String>,
    /// A lead an operator took ("Я телефоную") goes back to the pool after this many minutes
    /// without a recorded call (1–1440) [default: 30]
    #[arg(long, env = "ZAYAVKA_CLAIM_MINUTES", global = true, value_name = "MINUTES")]
    pub claim_minutes: Option<String>,

    /// How new leads reach operators: `pool` (anyone takes one) or `round-robin` (each new lead
    /// is handed in turn to the next operator at work: one who used the inbox within the hour)
    /// [default: pool]
    #[arg(long, env = "ZAYAVKA_ASSIGN", global = true, value_name = "pool|round-robin")]
    pub assign: Option<String>,

    /// Leads older than this many days are deleted, with their calls; the privacy policy states
    /// it [default: 180]
    #[arg(long, env = "ZAYAVKA_RETENTION_DAYS", global = true, value_name = "DAYS")]
    pub retention_days: Option<String>,

    /// Connections open at once, at most; at the cap the one idle longest is closed for a new one.
    /// Lowered to what the open-file limit allows [default: 4096]
    #[arg(long, env = "ZAYAVKA_MAX_CONNECTIONS", global = true, value_name = "N")]
    pub max_connections: Option<String>,

    /// A connection that sends no whole request head within this many seconds of opening (or of
    /// its previous answer) is closed [default: 15]
    #[arg(long, env = "ZAYAVKA_HEADER_TIMEOUT_SECONDS", global = true, value_name = "SECONDS")]
    pub header_timeout_seconds: Option<String>,
}

pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
pub const DEFAULT_DATABASE_URL: &str = "sqlite://data/zayavka.db";
pub const DEFAULT_REDIRECT_URL: &str = "/thank-you";
/// Not a real subscriber number (000 is no Ukrainian operator code), so a forgotten setting is
/// obvious on the page rather than sending visitors to a stranger.
pub const DEFAULT_CONTACT_PHONE: &str = "+380 00 000 00 00";
pub const DEFAULT_BRAND: &str = "Міжнародна програма підтримки";
pub const DEFAULT_LOG: &str = "info";
/// One a second on average: far above what a person does (even many people behind one carrier's
/// shared address), far below a flood.
pub const DEFAULT_RATE_LIMIT_PER_MINUTE: u32 = 60;
pub const DEFAULT_MIN_FILL_SECONDS: u32 = 3;
pub const DEFAULT_HOLD_DAYS: u32 = 30;
pub const DEFAULT_DUPLICATE_WINDOW_HOURS: u32 = 24;
pub const DEFAULT_TELEGRAM_API_URL: &str = "https://api.telegram.org";
pub const DEFAULT_REMIND_AFTER_HOURS: u32 = 40;
pub const DEFAULT_REMINDER_SCAN_SECONDS: u32 = 10;
/// Long enough for a few tries and a note, short enough that a lead left taken by someone who
/// went to lunch is soon free for the others.
pub const DEFAULT_CLAIM_MINUTES: u32 = 30;
/// The privacy policy states this period; change both together.
pub const DEFAULT_RETENTION_DAYS: u32 = 180;
/// Far more than a lead form needs at once, few enough that their buffers stay small (a few MB).
pub const DEFAULT_MAX_CONNECTIONS: u32 = 4096;
/// A request head is one packet; 15 s allows a very slow mobile network, and keeps an idle
/// keep-alive connection long enough for a visitor's next click.
pub const DEFAULT_HEADER_TIMEOUT_SECONDS: u32 = 15;

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// For people: coloured on a terminal, plain into a file or journald.
    Text,
    /// One JSON object per line, the same fields.
    Json,
}

/// How new leads reach the operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Assign {
    /// Every lead waits in the pool until someone takes it.
    Pool,
    /// Each new lead is handed in turn to the next operator at work (`team::ON_SHIFT`).
    RoundRobin,
}

/// Where the leads live.
#[derive(Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    Sqlite(PathBuf),
    Postgres(String),
}

impl fmt::Debug for DatabaseUrl {
    // A PostgreSQL URL may carry a password.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DatabaseUrl::Sqlite(path) => write!(f, "sqlite://{}", path.display()),
            DatabaseUrl::Postgres(_) => f.write_str("postgres://[redacted]"),
        }
    }
}

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
        let pick = |given: Option<String>, key: &str, default: &str| -> String {
            given.or_else(|| file.get(key).cloned()).unwrap_or_else(|| default.to_owned())
        };

        let listen_text = pick(args.listen, "listen", DEFAULT_LISTEN);
        let listen = listen_text.parse().map_err(|_| {
            anyhow::anyhow!(
                "ZAYAVKA_LISTEN: '{listen_text}' is not an address and port such as 127.0.0.1:8080"
            )
        })?;
        let database_url =
            parse_database_url(&pick(args.database_url, "database_url", DEFAULT_DATABASE_URL))?;
        let anon_key = args.anon_key.or_else(|| file.get("anon_key").cloned()).filter(|k| !k.is_empty());
        if let Some(key) = &anon_key {
            if key.chars().any(|c| c.is_whitespace() || c.is_control()) {
                bail!("ZAYAVKA_ANON_KEY: the key must not contain spaces or control characters");
            }
        }
        let backend_url = pick(args.backend_url, "backend_url", "");
        if !backend_url.is_empty() {
            check_http_url("ZAYAVKA_BACKEND_URL", &backend_url)?;
        }
        let redirect_url = pick(args.redirect_url, "redirect_url", DEFAULT_REDIRECT_URL);
        if !redirect_url.starts_with('/') || redirect_url.starts_with("//") {
            check_http_url("ZAYAVKA_REDIRECT_URL", &redirect_url)?;
        }
        let contact_phone = pick(args.contact_phone, "contact_phone", DEFAULT_CONTACT_PHONE);
        if crate::lead::normalise_phone(&contact_phone).is_none() {
            bail!("ZAYAVKA_CONTACT_PHONE: '{contact_phone}' does not look like a phone number");
        }
        let brand = pick(args.brand, "brand", DEFAULT_BRAND);
        if brand.trim().is_empty() {
            bail!("ZAYAVKA_BRAND: the brand must not be empty");
        }
        let log = pick(args.log, "log", DEFAULT_LOG);
        tracing_subscriber::EnvFilter::try_new(&log)
            .map_err(|e| anyhow::anyhow!("ZAYAVKA_LOG: '{log}' is not a log filter: {e}"))?;
        let log_format = match pick(args.log_format, "log_format", "text").trim() {
            "text" => LogFormat::Text,
            "json" => LogFormat::Json,
            other => bail!("ZAYAVKA_LOG_FORMAT: '{other}' is not text or json"),
        };

        let trusted_proxies = parse_proxies(&pick(args.trusted_proxies, "trusted_proxies", ""))?;
        let number =
            |given: Option<String>, key: &str, variable: &str, default: u32| -> anyhow::Result<u32> {
                let text = pick(given, key, &default.to_string());
                text.trim().parse().map_err(|_| anyhow::anyhow!("{variable}: '{text}' is not a whole number"))
            };
        let rate_limit_per_minute = number(
            args.rate_limit_per_minute,
            "rate_limit_per_minute",
            "ZAYAVKA_RATE_LIMIT_PER_MINUTE",
            DEFAULT_RATE_LIMIT_PER_MINUTE,
        )?;
        let min_fill_seconds = number(
            args.min_fill_seconds,
            "min_fill_seconds",
            "ZAYAVKA_MIN_FILL_SECONDS",
            DEFAULT_MIN_FILL_SECONDS,
        )?;
        let flag =
            |given: Option<String>, key: &str, variable: &str, default: bool| -> anyhow::Result<bool> {
                match pick(given, key, &default.to_string()).trim().to_ascii_lowercase().as_str() {
                    "true" | "1" | "yes" | "on" => Ok(true),
                    "false" | "0" | "no" | "off" => Ok(false),
                    "" => Ok(default),
                    other => bail!("{variable}: '{other}' is not true or false"),
                }
            };
        let hold_without_proof =
            flag(args.hold_without_proof, "hold_without_proof", "ZAYAVKA_HOLD_WITHOUT_PROOF", true)?;
        let require_2fa = flag(args.require_2fa, "require_2fa", "ZAYAVKA_REQUIRE_2FA", false)?;
        let secret_key_file = args
            .secret_key_file
            .or_else(|| file.get("secret_key_file").cloned())
            .map(|path| path.trim().to_owned())
            .filter(|path| !path.is_empty())
            .map(PathBuf::from);
        let hold_days = number(args.hold_days, "hold_days", "ZAYAVKA_HOLD_DAYS", DEFAULT_HOLD_DAYS)?;
        if !(1..=3650).contains(&hold_days) {
            bail!("ZAYAVKA_HOLD_DAYS: {hold_days} is not between 1 and 3650 days");
        }
        let duplicate_window_hours = number(
            args.duplicate_window_hours,
            "duplicate_window_hours",
            "ZAYAVKA_DUPLICATE_WINDOW_HOURS",
            DEFAULT_DUPLICATE_WINDOW_HOURS,
        )?;

        let public_url = pick(args.public_url, "public_url", "");
        if !public_url.is_empty() {
            check_http_url("ZAYAVKA_PUBLIC_URL", &public_url)?;
        }
        let remind_after_hours = number(
            args.remind_after_hours,
            "remind_after_hours",
            "ZAYAVKA_REMIND_AFTER_HOURS",
            DEFAULT_REMIND_AFTER_HOURS,
        )?;
        if remind_after_hours >= 48 {
            bail!("ZAYAVKA_REMIND_AFTER_HOURS: {remind_after_hours} is not before the 48-hour deadline");
        }
        let reminder_scan_seconds = number(
            args.reminder_scan_seconds,
            "reminder_scan_seconds",
            "ZAYAVKA_REMINDER_SCAN_SECONDS",
            DEFAULT_REMINDER_SCAN_SECONDS,
        )?;
        if !(1..=3600).contains(&reminder_scan_seconds) {
            bail!("ZAYAVKA_REMINDER_SCAN_SECONDS: {reminder_scan_seconds} is not between 1 and 3600");
        }
        let working_hours_text = pick(args.working_hours, "working_hours", "");
        let working_hours = match working_hours_text.trim() {
            "" => None,
            text => Some(WorkingHours::parse(text).ok_or_else(|| {
                anyhow::anyhow!(
                    "ZAYAVKA_WORKING_HOURS: '{text}' is not two different times such as 09:00-18:00"
                )
            })?),
        };
        let closed_days = ClosedDays::parse(&pick(args.closed_days, "closed_days", ""))
            .map_err(|problem| anyhow::anyhow!("ZAYAVKA_CLOSED_DAYS: {problem}"))?;
        let retry_cadence =
            Cadence::parse(&pick(args.retry_cadence, "retry_cadence", "2h,morning,afternoon"))
                .map_err(|problem| anyhow::anyhow!("ZAYAVKA_RETRY_CADENCE: {problem}"))?;
        let claim_minutes =
            number(args.claim_minutes, "claim_minutes", "ZAYAVKA_CLAIM_MINUTES", DEFAULT_CLAIM_MINUTES)?;
        if !(1..=1440).contains(&claim_minutes) {
            bail!("ZAYAVKA_CLAIM_MINUTES: {claim_minutes} is not between 1 and 1440 minutes");
        }
        let assign = match pick(args.assign, "assign", "pool").trim().to_ascii_lowercase().as_str() {
            "pool" | "" => Assign::Pool,
            "round-robin" => Assign::RoundRobin,
            other => bail!("ZAYAVKA_ASSIGN: '{other}' is not pool or round-robin"),
        };
        let retention_days =
            number(args.retention_days, "retention_days", "ZAYAVKA_RETENTION_DAYS", DEFAULT_RETENTION_DAYS)?;
        if !(1..=3650).contains(&retention_days) {
            bail!("ZAYAVKA_RETENTION_DAYS: {retention_days} is not between 1 and 3650 days");
        }
        let max_connections = number(
            args.max_connections,
            "max_connections",
            "ZAYAVKA_MAX_CONNECTIONS",
            DEFAULT_MAX_CONNECTIONS,
        )?;
        if max_connections == 0 {
            bail!("ZAYAVKA_MAX_CONNECTIONS: at least one connection is needed");
        }
        let header_timeout_seconds = number(
            args.header_timeout_seconds,
            "header_timeout_seconds",
            "ZAYAVKA_HEADER_TIMEOUT_SECONDS",
            DEFAULT_HEADER_TIMEOUT_SECONDS,
        )?;
        if !(1..=3600).contains(&header_timeout_seconds) {
            bail!(
                "ZAYAVKA_HEADER_TIMEOUT_SECONDS: {header_timeout_seconds} is not between 1 and 3600 seconds"
            );
        }
        let optional = |given: Option<String>, key: &str| -> Option<String> {
            given.or_else(|| file.get(key).cloned()).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
        };
        let notify = NotifySettings {
            webhook: match optional(args.webhook_url, "webhook_url") {
                Some(url) => {
                    check_http_url("ZAYAVKA_WEBHOOK_URL", &url)?;
                    Some(Webhook { url, secret: optional(args.webhook_secret, "webhook_secret") })
                }
                None => None,
            },
            telegram: match (
                optional(args.telegram_bot_token, "telegram_bot_token"),
                optional(args.telegram_chat_id, "telegram_chat_id"),
            ) {
                (Some(bot_token), Some(chat_id)) => {
                    let api_url = pick(args.telegram_api_url, "telegram_api_url", DEFAULT_TELEGRAM_API_URL);
                    check_http_url("ZAYAVKA_TELEGRAM_API_URL", &api_url)?;
                    if bot_token.contains(['/', '?', '#']) || bot_token.contains(char::is_whitespace) {
                        bail!("ZAYAVKA_TELEGRAM_BOT_TOKEN: not a bot token (as BotFather gives it)");
                    }
                    Some(Telegram { api_url: api_url.trim_end_matches('/').to_owned(), bot_token, chat_id })
                }
                (None, None) => None,
                _ => bail!("ZAYAVKA_TELEGRAM_BOT_TOKEN and ZAYAVKA_TELEGRAM_CHAT_ID: set both, or neither"),
            },
            email: match (
                optional(args.smtp_url, "smtp_url"),
                optional(args.notify_email_to, "notify_email_to"),
            ) {
                (Some(smtp_url), Some(to)) => {
                    if !(smtp_url.starts_with("smtp://") || smtp_url.starts_with("smtps://")) {
                        bail!("ZAYAVKA_SMTP_URL: must start with smtp:// or smtps://");
                    }
                    let to: Vec<String> =
                        to.split(',').map(str::trim).filter(|a| !a.is_empty()).map(str::to_owned).collect();
                    let from = optional(args.notify_email_from, "notify_email_from")
                        .unwrap_or_else(|| to.first().cloned().unwrap_or_default());
                    for address in to.iter().chain([&from]) {
                        if address.parse::<lettre::Address>().is_err() {
                            bail!("ZAYAVKA_NOTIFY_EMAIL_TO / _FROM: '{address}' is not an e-mail address");
                        }
                    }
                    Some(Email { smtp_url, to, from })
                }
                (None, None) => None,
                _ => bail!("ZAYAVKA_SMTP_URL and ZAYAVKA_NOTIFY_EMAIL_TO: set both, or neither"),
            },
            include_pii: flag(
                args.notify_include_pii,
                "notify_include_pii",
                "ZAYAVKA_NOTIFY_INCLUDE_PII",
                false,
            )?,
        };

        Ok(Settings {
            listen,
            database_url,
            anon_key,
            backend_url: backend_url.trim_end_matches('/').to_owned(),
            redirect_url,
            contact_phone,
            brand,
            log,
            log_format,
            trusted_proxies,
            rate_limit_per_minute,
            min_fill_seconds,
            hold_without_proof,
            hold_days,
            duplicate_window_hours,
            public_url: public_url.trim_end_matches('/').to_owned(),
            notify,
            remind_after_hours,
            reminder_scan_seconds,
            working_hours,
            closed_days,
            retry_cadence,
            require_2fa,
            secret_key_file,
            claim_minutes,
            assign,
            retention_days,
            max_connections,
            header_timeout_seconds,
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

    /// When the team works: its hours and closed days.
    pub fn calendar(&self) -> Calendar {
        Calendar { hours: self.working_hours, closed: self.closed_days.clone() }
    }
}

/// Reads the TOML file. Keys may be written as the environment variable (`ZAYAVKA_LISTEN`) or as
/// the short name (`listen`); an unknown key is an error, so a typo does not pass silently.
fn read_file(path: &Path) -> anyhow::Result<BTreeMap<String, String>> {
    // The file takes exactly the settings the command line takes.
    let command = SettingArgs::augment_args(clap::Command::new("zayavka"));
    let keys: Vec<String> = command.get_arguments().map(|arg| arg.get_id().to_string()).collect();
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read config file {}", path.display()))?;
    let table: toml::Table = toml::from_str(&text)
        .map_err(|e| anyhow::anyhow!("config file {}: {}", path.display(), e.message()))?;
    let mut settings = BTreeMap::new();
    for (key, value) in table {
        let short = key.to_ascii_lowercase();
        let short = short.strip_prefix("zayavka_").unwrap_or(&short).to_owned();
        if !keys.contains(&short) {
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

/// `10.0.0.1, 192.168.0.0/16, ::1`: single addresses count as /32 or /128.
fn parse_proxies(list: &str) -> anyhow::Result<Vec<ipnet::IpNet>> {
    list.split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            item.parse::<ipnet::IpNet>()
                .or_else(|_| item.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
                .map_err(|_| {
                    anyhow::anyhow!("ZAYAVKA_TRUSTED_PROXIES: '{item}' is not an IP address or CIDR range")
                })
        })
        .collect()
}

fn parse_database_url(url: &str) -> anyhow::Result<DatabaseUrl> {
    if let Some(path) = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:")) {
        if path.is_empty() {
            bail!("ZAYAVKA_DATABASE_URL: '{url}' names no file; write sqlite://data/zayavka.db");
        }
        return Ok(DatabaseUrl::Sqlite(PathBuf::from(path)));
    }
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        return Ok(DatabaseUrl::Postgres(url.to_owned()));
    }
    bail!("ZAYAVKA_DATABASE_URL: must start with sqlite:// or postgres://")
}

fn check_http_url(name: &str, url: &str) -> anyhow::Result<()> {
    let rest = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://"));
    let host = rest.map(|r| r.split(['/', '?', '#']).next().unwrap_or(""));
    match host {
        Some(host) if !host.is_empty() && !url.chars().any(|c| c.is_whitespace() || c.is_control()) => Ok(()),
        _ => bail!("{name}: '{url}' is not an http:// or https:// URL"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_documented_ones() {
        let s = Settings::defaults();
        assert_eq!(s.listen.to_string(), DEFAULT_LISTEN);
        assert_eq!(s.database_url, DatabaseUrl::Sqlite("data/zayavka.db".into()));
        assert_eq!(s.redirect_url, "/thank-you");
        assert_eq!(s.backend_url, "");
    }

    #[test]
    fn the_environment_wins_over_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("z.toml");
        std::fs::write(&path, "ZAYAVKA_LISTEN = \"0.0.0.0:9000\"\nbrand = \"Файл\"\n").unwrap();
        let args = SettingArgs { brand: Some("Середовище".into()), ..Default::default() };
        let s = Settings::resolve(args, Some(&path)).unwrap();
        assert_eq!(s.listen.to_string(), "0.0.0.0:9000");
        assert_eq!(s.brand, "Середовище");
    }

    #[test]
    fn bad_values_say_which_setting() {
        let bad = |args: SettingArgs| Settings::resolve(args, None).unwrap_err().to_string();
        assert!(
            bad(SettingArgs { listen: Some("8080".into()), ..Default::default() })
                .starts_with("ZAYAVKA_LISTEN")
        );
        assert!(
            bad(SettingArgs { database_url: Some("mysql://x".into()), ..Default::default() })
                .starts_with("ZAYAVKA_DATABASE_URL")
        );
        assert!(
            bad(SettingArgs { redirect_url: Some("ht tp://x".into()), ..Default::default() })
                .starts_with("ZAYAVKA_REDIRECT_URL")
        );
        assert!(
            bad(SettingArgs { backend_url: Some("example.com".into()), ..Default::default() })
                .starts_with("ZAYAVKA_BACKEND_URL")
        );
    }

    /// Each setting is declared once, here; `--help` comes from it, and these copies must name
    /// every one: the reference in docs/configuration.md and the commented example file.
    #[test]
    fn every_setting_is_documented_and_in_the_example_file() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let docs = std::fs::read_to_string(root.join("docs/configuration.md")).unwrap();
        let example = std::fs::read_to_string(root.join("zayavka.example.toml")).unwrap();
        let command = SettingArgs::augment_args(clap::Command::new("zayavka"));
        let mut count = 0;
        for arg in command.get_arguments() {
            let Some(variable) = arg.get_env().and_then(|v| v.to_str()) else { continue };
            count += 1;
            assert!(docs.contains(&format!("`{variable}`")), "docs/configuration.md lacks {variable}");
            let key = arg.get_id().as_str();
            let in_example =
                example.lines().any(|l| l.trim_start_matches(['#', ' ']).starts_with(&format!("{key} =")));
            assert!(in_example, "zayavka.example.toml lacks {key}");
        }
        assert!(count > 25, "{count} settings found");
    }

    /// The other way round: a `ZAYAVKA_…` name in the docs, the example file or the deployment
    /// files is a setting (or one of the few variables that are not).
    #[test]
    fn every_variable_the_docs_name_is_a_setting() {
        const NOT_SETTINGS: [&str; 1] = ["ZAYAVKA_TEST_POSTGRES_URL"];
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let command = SettingArgs::augment_args(clap::Command::new("zayavka"));
        let known: Vec<&str> =
            command.get_arguments().filter_map(|arg| arg.get_env().and_then(|v| v.to_str())).collect();
        let mut files =
            vec![root.join("README.md"), root.join("zayavka.example.toml"), root.join("Dockerfile")];
        for folder in ["docs", "deploy"] {
            files.extend(std::fs::read_dir(root.join(folder)).unwrap().map(|e| e.unwrap().path()));
        }
        for file in files.iter().filter(|f| f.is_file()) {
            let text = std::fs::read_to_string(file).unwrap();
            for (at, _) in text.match_indices("ZAYAVKA_") {
                let name: String = text[at..]
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                // `__ZAYAVKA_TODAY__` and its kind are the site's placeholders, not variables.
                if name.ends_with("__") || text[..at].ends_with("__") || NOT_SETTINGS.contains(&name.as_str())
                {
                    continue;
                }
                assert!(
                    known.contains(&name.as_str()),
                    "{} names {name}, which is no setting",
                    file.display()
                );
            }
        }
    }

    #[test]
    fn unknown_file_keys_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("z.toml");
        std::fs::write(&path, "lisen = \"0.0.0.0:9000\"\n").unwrap();
        let err = Settings::resolve(SettingArgs::default(), Some(&path)).unwrap_err().to_string();
        assert!(err.contains("unknown setting 'lisen'"), "{err}");
    }
}
