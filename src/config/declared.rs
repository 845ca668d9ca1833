//! Every setting, declared once: its key (the field's name, also the TOML key and the flag), its
//! variable, its type and how that is read, its default and one line of help. The flags and
//! `--help`, the file's keys, the layering and the checks of docs/configuration.md and
//! zayavka.example.toml all come from this one table (ADR 0026).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;

use jiff::SignedDuration;

use super::values::{self, Assign, DatabaseUrl, LogFormat, Text};
use crate::calendar::{Cadence, ClosedDays};
use crate::notice::WorkingHours;

/// What the table says about one setting, for the file's keys and the documentation's checks.
#[derive(Debug, Clone, Copy)]
pub struct Declared {
    /// The TOML key and the field: `listen`.
    pub key: &'static str,
    /// The environment variable: `ZAYAVKA_LISTEN`.
    pub variable: &'static str,
    /// The default's text, read like a given value; empty for the settings without one.
    pub default: &'static str,
    /// What an empty default means, said in words ("none"), where it is not a value.
    pub default_note: Option<&'static str>,
    pub help: &'static str,
}

impl Declared {
    /// The default as `--help` and the docs show it: the value, or the note.
    pub fn shown_default(&self) -> &'static str {
        self.default_note.unwrap_or(self.default)
    }
}

const fn first(notes: &[&'static str]) -> Option<&'static str> {
    match notes {
        [note, ..] => Some(note),
        [] => None,
    }
}

fn help_line(help: &str, default: &str, note: &[&'static str]) -> String {
    format!("{help} [default: {}]", first(note).unwrap_or(default))
}

macro_rules! settings {
    ($(
        $key:ident: $type:ty {
            $variable:literal, $value_name:literal, default $default:literal $(($note:literal))?,
            $(arg($($arg:tt)*),)?
            help $help:literal,
            parse $parse:expr $(,)?
        }
    )*) => {
        /// The settings as given on the command line or in the environment, before the file and
        /// the defaults fill the gaps. Each flag's environment variable is the contract's name.
        #[derive(Debug, Default, Clone, clap::Args)]
        pub struct SettingArgs {
            $(
                #[arg(
                    long,
                    env = $variable,
                    global = true,
                    value_name = $value_name,
                    help = help_line($help, $default, &[$($note)?])
                    $(, $($arg)*)?
                )]
                pub $key: Option<String>,
            )*
        }

        /// The table, in `--help`'s order.
        pub const SETTINGS: &[Declared] = &[$(
            Declared {
                key: stringify!($key),
                variable: $variable,
                default: $default,
                default_note: first(&[$($note)?]),
                help: $help,
            },
        )*];

        /// Every setting read into its type.
        pub struct Values {
            $(pub $key: $type,)*
        }

        impl Values {
            /// Each setting's text is the given one (flag or environment), else the file's, else
            /// the default; then it is read, in the table's order.
            pub fn read(args: SettingArgs, mut file: BTreeMap<String, String>) -> anyhow::Result<Values> {
                Ok(Values {$(
                    $key: {
                        let text = args.$key.or_else(|| file.remove(stringify!($key)));
                        let text = Text {
                            variable: $variable,
                            default: $default,
                            text: text.unwrap_or_else(|| $default.to_owned()),
                        };
                        let parse: fn(&Text) -> anyhow::Result<$type> = $parse;
                        parse(&text)?
                    },
                )*})
            }
        }
    };
}

settings! {
    listen: SocketAddr {
        "ZAYAVKA_LISTEN", "ADDR:PORT", default "127.0.0.1:8080",
        help "Address and port to serve on",
        parse values::listen,
    }
    database_url: DatabaseUrl {
        "ZAYAVKA_DATABASE_URL", "URL", default "sqlite://data/zayavka.db",
        // A PostgreSQL URL may hold a password: `--help` does not print what is set.
        arg(hide_env_values = true),
        help "Where the leads live: `sqlite://PATH` or `postgres://…`",
        parse DatabaseUrl::parse,
    }
    anon_key: Option<String> {
        "ZAYAVKA_ANON_KEY", "KEY", default "" ("generated on first start, kept in the database"),
        help "The public key the site sends as `apikey`",
        parse values::anon_key,
    }
    backend_url: String {
        "ZAYAVKA_BACKEND_URL", "URL", default "" ("empty (same origin)"),
        help "Where the browser sends the one call",
        parse Text::base_url,
    }
    redirect_url: String {
        "ZAYAVKA_REDIRECT_URL", "URL", default "/thank-you",
        help "Where a visitor goes after a successful submit",
        parse values::redirect_url,
    }
    // Not a real subscriber number (000 is no Ukrainian operator code), so a forgotten setting is
    // obvious on the page rather than sending visitors to a stranger.
    contact_phone: String {
        "ZAYAVKA_CONTACT_PHONE", "PHONE", default "+380 00 000 00 00",
        help "The phone in the footer and the privacy policy",
        parse values::contact_phone,
    }
    brand: String {
        "ZAYAVKA_BRAND", "TEXT", default "Міжнародна програма підтримки",
        help "The program's name in the header and titles",
        parse values::brand,
    }
    log: String {
        "ZAYAVKA_LOG", "FILTER", default "info",
        help "Log filter, as tracing's EnvFilter reads it",
        parse values::log_filter,
    }
    log_format: LogFormat {
        "ZAYAVKA_LOG_FORMAT", "FORMAT", default "text",
        help "`text` (coloured only on a terminal) or `json` (one object per line, for log shippers)",
        parse LogFormat::parse,
    }
    trusted_proxies: Vec<ipnet::IpNet> {
        "ZAYAVKA_TRUSTED_PROXIES", "IPS", default "" ("none"),
        help "Reverse proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed: IP \
              addresses or CIDR ranges, comma-separated",
        parse values::proxies,
    }
    // One a second on average: far above what a person does (even many people behind one
    // carrier's shared address), far below a flood.
    rate_limit_per_minute: u32 {
        "ZAYAVKA_RATE_LIMIT_PER_MINUTE", "N", default "60",
        help "Submits one client address may make per minute; 0 = off",
        parse Text::number,
    }
    min_fill_seconds: u32 {
        "ZAYAVKA_MIN_FILL_SECONDS", "SECONDS", default "3",
        help "A form sent sooner than this after its page loaded counts as a sign of automation, \
              never enough alone; 0 = off",
        parse Text::number,
    }
    hold_without_proof: bool {
        "ZAYAVKA_HOLD_WITHOUT_PROOF", "BOOL", default "true",
        help "A lead sent without a valid page-load proof is held for review; false where the form \
              is another site that sends only the public key",
        parse Text::flag,
    }
    hold_days: u32 {
        "ZAYAVKA_HOLD_DAYS", "DAYS", default "30",
        help "Held leads nobody released are deleted after this many days (1–3650)",
        parse |t| t.within(1..=3650, "days"),
    }
    duplicate_window_hours: u32 {
        "ZAYAVKA_DUPLICATE_WINDOW_HOURS", "HOURS", default "24",
        help "A submission whose phone was first sent within this many hours is stored as a repeat \
              of that first lead while it is open, not notified again; 0 = off",
        parse Text::number,
    }
    public_url: String {
        "ZAYAVKA_PUBLIC_URL", "URL", default "" ("empty"),
        help "The site's address as visitors reach it, for the inbox links in notifications",
        parse Text::base_url,
    }
    webhook_url: Option<String> {
        "ZAYAVKA_WEBHOOK_URL", "URL", default "" ("none"),
        // Many receivers take their secret in the URL's path or query.
        arg(hide_env_values = true),
        help "A JSON POST per notification (a new lead, a reminder) goes here",
        parse Text::optional,
    }
    webhook_secret: Option<String> {
        "ZAYAVKA_WEBHOOK_SECRET", "SECRET", default "" ("none"),
        arg(hide_env_values = true),
        help "The key of the webhook's HMAC-SHA256 signature header",
        parse Text::optional,
    }
    telegram_bot_token: Option<String> {
        "ZAYAVKA_TELEGRAM_BOT_TOKEN", "TOKEN", default "" ("none"),
        arg(hide_env_values = true),
        help "A Telegram bot's token; with ZAYAVKA_TELEGRAM_CHAT_ID, a message per new lead",
        parse Text::optional,
    }
    telegram_chat_id: Option<String> {
        "ZAYAVKA_TELEGRAM_CHAT_ID", "ID", default "" ("none"),
        help "The Telegram chat (or group) the bot writes to",
        parse Text::optional,
    }
    // Checked only when Telegram is on (`NotifySettings::read`).
    telegram_api_url: String {
        "ZAYAVKA_TELEGRAM_API_URL", "URL", default "https://api.telegram.org",
        help "The Telegram Bot API's address",
        parse Text::string,
    }
    smtp_url: Option<String> {
        "ZAYAVKA_SMTP_URL", "URL", default "" ("none"),
        arg(hide_env_values = true),
        help "The SMTP server for e-mail notifications: smtp://host:port (STARTTLS if offered, \
              ?tls=required to insist) or smtps://user:password@host",
        parse Text::optional,
    }
    notify_email_to: Option<String> {
        "ZAYAVKA_NOTIFY_EMAIL_TO", "ADDRESSES", default "" ("none"),
        help "Who gets the e-mails, comma-separated",
        parse Text::optional,
    }
    notify_email_from: Option<String> {
        "ZAYAVKA_NOTIFY_EMAIL_FROM", "ADDRESS", default "" ("the first ZAYAVKA_NOTIFY_EMAIL_TO address"),
        help "The e-mails' sender",
        parse Text::optional,
    }
    notify_include_pii: bool {
        "ZAYAVKA_NOTIFY_INCLUDE_PII", "BOOL", default "false",
        help "Put the visitor's name, phone, answer and comment into notifications",
        parse Text::flag,
    }
    remind_after_hours: u32 {
        "ZAYAVKA_REMIND_AFTER_HOURS", "HOURS", default "40",
        help "An open lead nobody has reached this many hours after it was sent gets a reminder on \
              every channel; an overdue notice follows at 48 h; 0 = neither",
        parse Text::hours_before_deadline,
    }
    // Half the 48 hours: a lead left untried all day still leaves a day to call.
    escalate_after_hours: Option<SignedDuration> {
        "ZAYAVKA_ESCALATE_AFTER_HOURS", "HOURS", default "24",
        help "An open lead nobody has tried within this many hours is reported to the admins, once; \
              0 = off",
        parse Text::span_before_deadline,
    }
    reminder_scan_seconds: u32 {
        "ZAYAVKA_REMINDER_SCAN_SECONDS", "SECONDS", default "10",
        help "How often open leads are checked for a reminder or an overdue notice, in seconds \
              (1–3600)",
        parse |t| t.within(1..=3600, ""),
    }
    working_hours: Option<WorkingHours> {
        "ZAYAVKA_WORKING_HOURS", "HH:MM-HH:MM", default "" ("empty (any time)"),
        help "The team's working hours in Kyiv time, `HH:MM-HH:MM` (may span midnight): reminders \
              and overdue notices are queued only then",
        parse values::working_hours,
    }
    closed_days: ClosedDays {
        "ZAYAVKA_CLOSED_DAYS", "DATES", default "" ("none"),
        help "Days the team does not work, Kyiv dates `YYYY-MM-DD` separated by commas",
        parse values::closed_days,
    }
    retry_cadence: Cadence {
        "ZAYAVKA_RETRY_CADENCE", "STEPS", default "2h,morning,afternoon",
        help "When a lead whose call went unanswered is due again, one step per unanswered call, \
              counted in working time: `Nh`, `morning` or `afternoon`",
        parse values::retry_cadence,
    }
    require_2fa: bool {
        "ZAYAVKA_REQUIRE_2FA", "BOOL", default "false",
        help "Every operator must set up a second factor before working in the inbox",
        parse Text::flag,
    }
    secret_key_file: Option<PathBuf> {
        "ZAYAVKA_SECRET_KEY_FILE", "PATH",
        default "" ("secret.key beside a SQLite database; data/secret.key with PostgreSQL"),
        help "The file with the key that encrypts the operators' second-factor secrets, kept out \
              of the database",
        parse values::path,
    }
    // Long enough for a few tries and a note, short enough that a lead left taken by someone who
    // went to lunch is soon free for the others.
    claim_minutes: u32 {
        "ZAYAVKA_CLAIM_MINUTES", "MINUTES", default "30",
        help "A lead an operator took (\"Я телефоную\") is theirs for this many minutes (1–1440)",
        parse |t| t.within(1..=1440, "minutes"),
    }
    assign: Assign {
        "ZAYAVKA_ASSIGN", "pool|round-robin", default "pool",
        help "How new leads reach the operators: `pool` (anyone takes one) or `round-robin` \
              (handed in turn to the operators at work)",
        parse Assign::parse,
    }
    // The privacy policy states this period; change both together.
    retention_days: u32 {
        "ZAYAVKA_RETENTION_DAYS", "DAYS", default "180",
        help "Leads older than this many days are deleted with their calls and notifications \
              (1–3650)",
        parse |t| t.within(1..=3650, "days"),
    }
    // Far more than a lead form needs at once, few enough that their buffers stay small (a few
    // MB).
    max_connections: u32 {
        "ZAYAVKA_MAX_CONNECTIONS", "N", default "4096",
        help "Connections open at once, at most (at least 1)",
        parse values::max_connections,
    }
    // A request head is one packet; 15 s allows a very slow mobile network, and keeps an idle
    // keep-alive connection long enough for a visitor's next click.
    header_timeout_seconds: u32 {
        "ZAYAVKA_HEADER_TIMEOUT_SECONDS", "SECONDS", default "15",
        help "A connection must send a whole request head within this many seconds of opening, and \
              of each answer",
        parse |t| t.within(1..=3600, "seconds"),
    }
}
