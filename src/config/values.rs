//! The kinds of value a setting has, and how one is read from its text. Every error starts with
//! the setting's variable, so a bad value stops the start with one line that names it.

use std::fmt;
use std::net::SocketAddr;
use std::ops::RangeInclusive;
use std::path::PathBuf;

use anyhow::bail;
use jiff::SignedDuration;

use crate::calendar::{Cadence, ClosedDays};
use crate::notice::WorkingHours;

/// One setting's text after the layers (the flag or environment, else the file, else the
/// default), with the variable that names it.
pub struct Text {
    pub variable: &'static str,
    pub default: &'static str,
    pub text: String,
}

impl Text {
    /// An error about this setting: `ZAYAVKA_X: problem`.
    pub fn error(&self, problem: impl fmt::Display) -> anyhow::Error {
        anyhow::anyhow!("{}: {problem}", self.variable)
    }

    /// The text as given, untrimmed.
    pub fn string(&self) -> anyhow::Result<String> {
        Ok(self.text.clone())
    }

    /// The text trimmed, or `None` when that leaves nothing.
    pub fn optional(&self) -> anyhow::Result<Option<String>> {
        Ok(Some(self.text.trim().to_owned()).filter(|text| !text.is_empty()))
    }

    pub fn number(&self) -> anyhow::Result<u32> {
        self.text
            .trim()
            .parse()
            .map_err(|_| self.error(format_args!("'{}' is not a whole number", self.text)))
    }

    /// A whole number in `range`; `unit` ends the error ("days"), or is empty.
    pub fn within(&self, range: RangeInclusive<u32>, unit: &str) -> anyhow::Result<u32> {
        let number = self.number()?;
        if !range.contains(&number) {
            let (low, high) = range.into_inner();
            let unit = if unit.is_empty() { String::new() } else { format!(" {unit}") };
            return Err(self.error(format_args!("{number} is not between {low} and {high}{unit}")));
        }
        Ok(number)
    }

    /// Hours after a lead arrived, before its 48-hour deadline; 0 = off.
    pub fn hours_before_deadline(&self) -> anyhow::Result<u32> {
        let hours = self.number()?;
        let promise = crate::calendar::PROMISE.as_hours();
        if i64::from(hours) >= promise {
            return Err(self.error(format_args!("{hours} is not before the {promise}-hour deadline")));
        }
        Ok(hours)
    }

    /// As `hours_before_deadline`, as a span: `None` when off.
    pub fn span_before_deadline(&self) -> anyhow::Result<Option<SignedDuration>> {
        let hours = self.hours_before_deadline()?;
        Ok((hours > 0).then(|| SignedDuration::from_hours(i64::from(hours))))
    }

    /// `true`/`false` (also 1/0, yes/no, on/off); empty is the default.
    pub fn flag(&self) -> anyhow::Result<bool> {
        let word = |text: &str| match text.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Some(true),
            "false" | "0" | "no" | "off" => Some(false),
            _ => None,
        };
        match self.text.trim() {
            "" => Ok(word(self.default).expect("a flag's default is true or false")),
            text => word(text).ok_or_else(|| {
                self.error(format_args!("'{}' is not true or false", text.to_ascii_lowercase()))
            }),
        }
    }

    /// An `http://` or `https://` URL, or empty; without a trailing slash.
    pub fn base_url(&self) -> anyhow::Result<String> {
        if !self.text.is_empty() {
            self.http_url()?;
        }
        Ok(self.text.trim_end_matches('/').to_owned())
    }

    pub fn http_url(&self) -> anyhow::Result<String> {
        check_http_url(self.variable, &self.text)?;
        Ok(self.text.clone())
    }
}

pub fn check_http_url(variable: &str, url: &str) -> anyhow::Result<()> {
    let rest = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://"));
    let host = rest.map(|r| r.split(['/', '?', '#']).next().unwrap_or(""));
    match host {
        Some(host) if !host.is_empty() && !url.chars().any(|c| c.is_whitespace() || c.is_control()) => Ok(()),
        _ => bail!("{variable}: '{url}' is not an http:// or https:// URL"),
    }
}

pub fn listen(t: &Text) -> anyhow::Result<SocketAddr> {
    t.text
        .parse()
        .map_err(|_| t.error(format_args!("'{}' is not an address and port such as 127.0.0.1:8080", t.text)))
}

/// Empty: one is generated on first start.
pub fn anon_key(t: &Text) -> anyhow::Result<Option<String>> {
    if t.text.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(t.error("the key must not contain spaces or control characters"));
    }
    Ok(Some(t.text.clone()).filter(|key| !key.is_empty()))
}

/// A path on this site, or an `http(s)://` URL elsewhere.
pub fn redirect_url(t: &Text) -> anyhow::Result<String> {
    if !t.text.starts_with('/') || t.text.starts_with("//") {
        t.http_url()?;
    }
    Ok(t.text.clone())
}

pub fn contact_phone(t: &Text) -> anyhow::Result<String> {
    if crate::lead::normalise_phone(&t.text).is_none() {
        return Err(t.error(format_args!("'{}' does not look like a phone number", t.text)));
    }
    Ok(t.text.clone())
}

pub fn brand(t: &Text) -> anyhow::Result<String> {
    if t.text.trim().is_empty() {
        return Err(t.error("the brand must not be empty"));
    }
    Ok(t.text.clone())
}

pub fn log_filter(t: &Text) -> anyhow::Result<String> {
    tracing_subscriber::EnvFilter::try_new(&t.text)
        .map_err(|e| t.error(format_args!("'{}' is not a log filter: {e}", t.text)))?;
    Ok(t.text.clone())
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// For people: coloured on a terminal, plain into a file or journald.
    Text,
    /// One JSON object per line, the same fields.
    Json,
}

impl LogFormat {
    pub fn parse(t: &Text) -> anyhow::Result<LogFormat> {
        match t.text.trim() {
            "text" => Ok(LogFormat::Text),
            "json" => Ok(LogFormat::Json),
            other => Err(t.error(format_args!("'{other}' is not text or json"))),
        }
    }
}

/// How new leads reach the operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Assign {
    /// Every lead waits in the pool until someone takes it.
    Pool,
    /// Each new lead is handed in turn to the next operator at work (`team::ON_SHIFT`).
    RoundRobin,
}

impl Assign {
    pub fn parse(t: &Text) -> anyhow::Result<Assign> {
        match t.text.trim().to_ascii_lowercase().as_str() {
            "pool" | "" => Ok(Assign::Pool),
            "round-robin" => Ok(Assign::RoundRobin),
            other => Err(t.error(format_args!("'{other}' is not pool or round-robin"))),
        }
    }
}

/// Where the leads live.
#[derive(Clone, PartialEq, Eq)]
pub enum DatabaseUrl {
    Sqlite(PathBuf),
    Postgres(String),
}

impl DatabaseUrl {
    pub fn parse(t: &Text) -> anyhow::Result<DatabaseUrl> {
        let url = &t.text;
        if let Some(path) = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:")) {
            if path.is_empty() {
                return Err(t.error(format_args!("'{url}' names no file; write sqlite://data/zayavka.db")));
            }
            return Ok(DatabaseUrl::Sqlite(PathBuf::from(path)));
        }
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(DatabaseUrl::Postgres(url.to_owned()));
        }
        Err(t.error("must start with sqlite:// or postgres://"))
    }
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

/// `10.0.0.1, 192.168.0.0/16, ::1`: single addresses count as /32 or /128.
pub fn proxies(t: &Text) -> anyhow::Result<Vec<ipnet::IpNet>> {
    t.text
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            item.parse::<ipnet::IpNet>()
                .or_else(|_| item.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
                .map_err(|_| t.error(format_args!("'{item}' is not an IP address or CIDR range")))
        })
        .collect()
}

/// Empty: at any time.
pub fn working_hours(t: &Text) -> anyhow::Result<Option<WorkingHours>> {
    match t.text.trim() {
        "" => Ok(None),
        text => WorkingHours::parse(text)
            .map(Some)
            .ok_or_else(|| t.error(format_args!("'{text}' is not two different times such as 09:00-18:00"))),
    }
}

pub fn closed_days(t: &Text) -> anyhow::Result<ClosedDays> {
    ClosedDays::parse(&t.text).map_err(|problem| t.error(problem))
}

pub fn retry_cadence(t: &Text) -> anyhow::Result<Cadence> {
    Cadence::parse(&t.text).map_err(|problem| t.error(problem))
}

pub fn path(t: &Text) -> anyhow::Result<Option<PathBuf>> {
    Ok(t.optional()?.map(PathBuf::from))
}

pub fn max_connections(t: &Text) -> anyhow::Result<u32> {
    match t.number()? {
        0 => Err(t.error("at least one connection is needed")),
        connections => Ok(connections),
    }
}
