//! What a notification says. By default only that lead N arrived (or nears / passed its
//! deadline) and where to open it: a lead is health-related personal data, and a chat or a
//! mailbox is not the inbox. With `ZAYAVKA_NOTIFY_INCLUDE_PII` the visitor's details are added.
//! Each channel escapes the text its own way (Telegram's HTML, JSON, a plain-text e-mail).
//!
//! The visitor's comment is the one free text of several lines: it is shown as a quote (each line
//! after `> `, in Telegram a blockquote), without blank lines and cut short, so that a line of it
//! that reads like ours ("Відкрити: https://…") is visibly the visitor's, and the real link, last
//! and after the only blank line, stays in view.

use jiff::Timestamp;

use crate::config::Settings;
use crate::inbox::LeadRecord;
use crate::notice::{Channel, Event};

/// The comment's lines shown at most; the rest is in the inbox.
const COMMENT_LINES: usize = 10;
/// The comment's characters shown at most.
const COMMENT_CHARS: usize = 500;
/// The last quoted line when the comment was cut short.
const COMMENT_CUT: &str = "… (далі — у заявці)";
/// A channel's error shown in a notice about it at most, in characters (the inbox has all of it).
const ERROR_CHARS: usize = 300;

/// One notification, made when it is sent.
#[derive(Debug, Clone)]
pub struct Message {
    pub about: About,
    /// The lead in the inbox, or the inbox.
    pub link: String,
    /// The first line (also the e-mail's subject).
    pub title: String,
    /// The lines after the title, as plain text.
    pub lines: Vec<String>,
    /// The visitor's comment as quoted (after the lines): its non-blank lines, cut short.
    pub comment: Vec<String>,
}

/// What a notification is about.
#[derive(Debug, Clone)]
pub enum About {
    Lead {
        event: Event,
        id: i64,
        created_at: String,
        deadline_at: String,
        /// For a call-back whose time came, that time (RFC 3339, UTC): each is its own notice.
        call_at: Option<String>,
        /// The visitor's details, when the settings allow them in notifications.
        details: Option<Details>,
    },
    /// An account's second-factor codes are refused for a while after wrong ones in a row: its
    /// password is known to someone who is guessing codes.
    CodesRefused {
        notice_id: i64,
        /// The account's e-mail, shortened (`o…@example.org`): enough for the team to know whose.
        account: String,
        /// RFC 3339, UTC.
        until: String,
    },
    /// A channel keeps failing, or delivers again (`recovered_at`); told through another one.
    Channel {
        notice_id: i64,
        channel: Channel,
        /// When its oldest failing notification was queued (RFC 3339, UTC).
        since: String,
        last_error: String,
        /// RFC 3339, UTC.
        recovered_at: Option<String>,
    },
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Details {
    pub name: String,
    pub phone: String,
    pub confirmation: String,
    pub comment: Option<String>,
}

impl Message {
    pub fn new(event: Event, lead: &LeadRecord, settings: &Settings) -> Message {
        let deadline_at = crate::inbox::deadline_of(&lead.created_at);
        let deadline = kyiv_time(&deadline_at);
        let title = match event {
            // A lead already called is not "without a call": nobody answered yet. (A lead some
            // call reached, a time agreed included, gets neither notice: ADR 0087.)
            Event::Reminder if lead.attempt_count > 0 => {
                format!("Нагадування: заявка №{}, людину ще не застали", lead.id)
            }
            Event::Reminder => format!("Нагадування: заявка №{} чекає на дзвінок", lead.id),
            Event::Overdue => {
                const _: () =
                    assert!(crate::inbox::PROMISE.as_secs() == 48 * 3600, "the title names the promise");
                if lead.attempt_count > 0 {
                    format!("Прострочено: заявка №{}, за 48 годин людину не застали", lead.id)
                } else {
                    format!("Прострочено: заявка №{} без дзвінка понад 48 годин", lead.id)
                }
            }
            Event::New => format!("Нова заявка №{}", lead.id),
            Event::Escalated => {
                let hours = settings.escalate_after.map_or(0, |after| after.as_hours());
                format!("Ескалація: заявку №{} ніхто не набрав за {hours} год", lead.id)
            }
            Event::WroteAgain => format!("Заявка №{}: людина написала ще раз", lead.id),
            Event::CallBackDue => format!("Час дзвонити: заявка №{}", lead.id),
        };
        let mut lines = vec![match (event, &lead.next_call_at) {
            (Event::Overdue, _) => format!("Термін минув {deadline} (за Києвом)."),
            (Event::CallBackDue, Some(at)) => format!(
                "Дзвінок призначено на {} (за Києвом); заявка знову серед тих, кому дзвонити зараз.",
                kyiv_time(at)
            ),
            _ => format!("Передзвоніть до {deadline} (за Києвом)."),
        }];
        // Who has the lead: the one to call (an operator's e-mail, not the visitor's data).
        match (event, &lead.claim) {
            (Event::WroteAgain, Some(claim)) => lines.push(format!("Заявку веде: {}", claim.by)),
            (Event::CallBackDue, claim) => lines.push(call_back_holder(lead, claim.as_ref())),
            _ => {}
        }
        let details = settings.notify.include_pii.then(|| Details {
            name: lead.name.clone(),
            phone: lead.phone.clone(),
            confirmation: lead.confirmation.clone(),
            comment: lead.comment.clone(),
        });
        if let Some(d) = &details {
            lines.push(format!("Ім'я: {}", d.name));
            lines.push(format!("Телефон: {}", d.phone));
            lines.push(format!("Діагноз підтверджено лікарем: {}", d.confirmation));
        }
        let comment = details.as_ref().and_then(|d| d.comment.as_deref()).map_or_else(Vec::new, quoted);
        if !comment.is_empty() {
            lines.push("Коментар:".to_owned());
        }
        Message {
            about: About::Lead {
                event,
                id: lead.id,
                created_at: lead.created_at.clone(),
                deadline_at,
                call_at: lead.next_call_at.clone().filter(|_| event == Event::CallBackDue),
                details,
            },
            link: format!("{}/admin/leads/{}", settings.public_url, lead.id),
            title,
            lines,
            comment,
        }
    }

    /// The notice that an account's codes are refused until `until` (notice `notice_id`).
    pub fn codes_refused(notice_id: i64, email: &str, until: Timestamp, settings: &Settings) -> Message {
        let account = shortened(email);
        let until_text = until.to_string();
        Message {
            title: format!("Хтось підбирає коди двоетапної перевірки облікового запису {account}"),
            lines: vec![
                "Пароль уведено правильно, а коди з застосунку кілька разів поспіль неправильні.".into(),
                format!("Вхід із кодами призупинено до {} (за Києвом).", kyiv_time(&until_text)),
                "Якщо це були не ви, змініть пароль (zayavka admin passwd).".into(),
            ],
            link: format!("{}/admin", settings.public_url),
            comment: Vec::new(),
            about: About::CodesRefused { notice_id, account, until: until_text },
        }
    }

    /// The notice (`notice_id`) that `failing` does not deliver since `since` and why, or, with
    /// `recovered_at`, that it delivers again. Told through another channel; no lead is named.
    pub fn channel_notice(
        notice_id: i64,
        failing: Channel,
        since: &str,
        last_error: &str,
        recovered_at: Option<&str>,
        settings: &Settings,
    ) -> Message {
        let label = channel_label(failing);
        let (title, lines) = match recovered_at {
            None => (
                format!("Канал «{label}» не доставляє сповіщення з {}", kyiv_time(since)),
                vec![
                    format!("Остання помилка: {}", cut(last_error, ERROR_CHARS)),
                    "Перевірте на сторінці «Сповіщення».".to_owned(),
                ],
            ),
            Some(recovered) => (
                format!("Канал «{label}» знову доставляє сповіщення"),
                vec![format!(
                    "Не доставляв з {} до {} (за Києвом); ті, що чекали, надсилаються.",
                    kyiv_time(since),
                    kyiv_time(recovered)
                )],
            ),
        };
        Message {
            title,
            lines,
            link: format!("{}/admin/notifications", settings.public_url),
            comment: Vec::new(),
            about: About::Channel {
                notice_id,
                channel: failing,
                since: since.to_owned(),
                last_error: last_error.to_owned(),
                recovered_at: recovered_at.map(str::to_owned),
            },
        }
    }

    /// The event's name for a webhook: `lead.new`, `account.codes_refused`, `channel.failing`.
    pub fn event_name(&self) -> String {
        match &self.about {
            About::Lead { event, .. } => format!("lead.{}", event.name()),
            About::CodesRefused { .. } => "account.codes_refused".into(),
            About::Channel { recovered_at: None, .. } => "channel.failing".into(),
            About::Channel { recovered_at: Some(_), .. } => "channel.recovered".into(),
        }
    }

    /// A key that names this notification and nothing else: the same on every retry.
    pub fn idempotency_key(&self) -> String {
        match &self.about {
            About::Lead { event, id, call_at: None, .. } => format!("zayavka-lead-{id}-{}", event.name()),
            About::Lead { event, id, call_at: Some(at), .. } => {
                let at = at.parse::<Timestamp>().map_or(0, |at| at.as_second());
                format!("zayavka-lead-{id}-{}-{at}", event.name())
            }
            About::CodesRefused { notice_id, .. } => format!("zayavka-account-notice-{notice_id}"),
            About::Channel { notice_id, .. } => format!("zayavka-channel-notice-{notice_id}"),
        }
    }

    /// The JSON a webhook receives.
    pub fn webhook_body(&self) -> serde_json::Value {
        let mut body = match &self.about {
            About::Lead { id, created_at, deadline_at, call_at, details, .. } => {
                let mut body = serde_json::json!({
                    "lead_id": id,
                    "created_at": created_at,
                    "deadline_at": deadline_at,
                    "lead": details,
                });
                if let Some(at) = call_at {
                    body["call_at"] = at.clone().into();
                }
                body
            }
            About::CodesRefused { account, until, .. } => {
                serde_json::json!({ "account": account, "refused_until": until })
            }
            About::Channel { channel, since, last_error, recovered_at, .. } => serde_json::json!({
                "channel": channel,
                "failing_since": since,
                "last_error": last_error,
                "recovered_at": recovered_at,
            }),
        };
        body["event"] = self.event_name().into();
        body["url"] = self.link.clone().into();
        body["text"] = self.plain_text().into();
        body
    }

    /// Title, lines, the comment quoted and the link as plain text.
    pub fn plain_text(&self) -> String {
        let mut text = self.title.clone();
        for line in &self.lines {
            text.push('\n');
            text.push_str(line);
        }
        for line in &self.comment {
            text.push_str("\n> ");
            text.push_str(line);
        }
        text.push_str("\n\nВідкрити: ");
        text.push_str(&self.link);
        text
    }
}

/// Who is to make a call whose time came: whoever held the lead then, or anyone of the team.
fn call_back_holder(lead: &LeadRecord, claim: Option<&crate::inbox::Claim>) -> String {
    let due = lead.next_call_at.as_deref().and_then(|at| at.parse::<Timestamp>().ok());
    match claim {
        Some(claim) if due.is_none_or(|due| claim.live_at(due)) => format!("Заявку веде: {}", claim.by),
        _ => "Заявку ніхто не веде: візьміть її, хто вільний.".to_owned(),
    }
}

/// A channel's name as the inbox shows it.
fn channel_label(channel: Channel) -> &'static str {
    match channel {
        Channel::Telegram => "Telegram",
        Channel::Webhook => "Вебхук",
        Channel::Email => "Е-пошта",
    }
}

/// `text`, at most `chars` characters of it (then `…`).
fn cut(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// `o…@example.org`: the first letter of the name and the domain.
fn shortened(email: &str) -> String {
    let (name, domain) = email.split_once('@').unwrap_or((email, ""));
    let first: String = name.chars().take(1).collect();
    format!("{first}…@{domain}")
}

/// The comment's lines to quote: blank ones dropped, each trimmed, at most `COMMENT_LINES` lines
/// and `COMMENT_CHARS` characters, then `COMMENT_CUT` if anything was left out.
fn quoted(comment: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut room = COMMENT_CHARS;
    for line in comment.lines().map(str::trim).filter(|line| !line.is_empty()) {
        let length = line.chars().count();
        if lines.len() == COMMENT_LINES || room == 0 {
            lines.push(COMMENT_CUT.to_owned());
            return lines;
        }
        if length > room {
            lines.push(line.chars().take(room).collect());
            lines.push(COMMENT_CUT.to_owned());
            return lines;
        }
        room -= length;
        lines.push(line.to_owned());
    }
    lines
}

/// `22.11.2026 11:15` in Kyiv time; the stored text as it is if it does not parse.
fn kyiv_time(rfc3339: &str) -> String {
    let Ok(at) = rfc3339.parse::<Timestamp>() else { return rfc3339.to_owned() };
    at.to_zoned(crate::notice::operators_zone()).strftime("%d.%m.%Y %H:%M").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lead() -> LeadRecord {
        LeadRecord {
            id: 7,
            created_at: "2026-11-20T09:15:00.000000Z".into(),
            name: "<b>Олена</b>".into(),
            phone: "067 123 45 67".into(),
            phone_e164: "+380671234567".into(),
            confirmation: "Так".into(),
            comment: None,
            policy_version: "v".into(),
            status: crate::inbox::Status::New,
            reached_at: None,
            attempt_count: 0,
            repeat_of: None,
            repeat_count: 0,
            held: None,
            attribution: Default::default(),
            claim: None,
            next_call_at: None,
            call_back: false,
            retries_used_up: false,
            escalated_at: None,
            wrote_again: None,
        }
    }

    #[test]
    fn without_the_setting_no_personal_data() {
        let mut settings = Settings::defaults();
        settings.public_url = "https://example.org".into();
        let text = Message::new(Event::New, &lead(), &settings).plain_text();
        assert!(text.starts_with("Нова заявка №7"), "{text}");
        assert!(text.contains("https://example.org/admin/leads/7"));
        // 09:15 UTC is 11:15 in Kyiv in November; 48 hours later.
        assert!(text.contains("22.11.2026 11:15"), "{text}");
        assert!(!text.contains("Олена") && !text.contains("067"), "{text}");
    }

    #[test]
    fn with_the_setting_the_details_come_along() {
        let mut settings = Settings::defaults();
        settings.notify.include_pii = true;
        let text = Message::new(Event::Overdue, &lead(), &settings).plain_text();
        assert!(text.contains("Прострочено"));
        assert!(text.contains("Ім'я: <b>Олена</b>") && text.contains("067 123 45 67"), "{text}");
        assert!(!text.contains("Коментар"), "no comment, no heading: {text}");
    }

    #[test]
    fn a_lead_already_called_is_not_said_to_be_without_a_call() {
        let settings = Settings::defaults();
        let called = LeadRecord { attempt_count: 1, ..lead() };
        for event in [Event::Reminder, Event::Overdue] {
            let text = Message::new(event, &called, &settings).plain_text();
            assert!(text.contains("людину ще не застали") || text.contains("людину не застали"), "{text}");
            assert!(!text.contains("без дзвінка") && !text.contains("чекає на дзвінок"), "{text}");
        }
        let overdue = Message::new(Event::Overdue, &lead(), &settings).plain_text();
        assert!(overdue.contains("без дзвінка понад 48 годин"), "{overdue}");
    }

    #[test]
    fn a_comment_is_quoted_without_blank_lines_and_cut_short() {
        let blank_lines = "\n \n".repeat(30);
        assert_eq!(quoted(&format!("  перший {blank_lines}\n> другий\n")), ["перший", "> другий"]);
        let many = (1..=20).map(|n| n.to_string()).collect::<Vec<_>>().join("\n");
        let shown = quoted(&many);
        assert_eq!(shown.len(), COMMENT_LINES + 1);
        assert_eq!(shown.last().unwrap(), COMMENT_CUT);
        let long = quoted(&"я".repeat(1000));
        assert_eq!(long, ["я".repeat(COMMENT_CHARS), COMMENT_CUT.to_owned()]);
        assert_eq!(quoted(&"я".repeat(COMMENT_CHARS)), ["я".repeat(COMMENT_CHARS)], "all of it: not cut");
    }

    #[test]
    fn a_call_back_says_its_time_and_who_has_the_lead_then() {
        let settings = Settings::defaults();
        let mut lead = lead();
        lead.next_call_at = Some("2026-11-21T12:00:00.000000Z".into());
        lead.call_back = true;
        let text = |lead: &LeadRecord| Message::new(Event::CallBackDue, lead, &settings).plain_text();
        let nobody = text(&lead);
        assert!(nobody.starts_with("Час дзвонити: заявка №7"), "{nobody}");
        assert!(nobody.contains("Дзвінок призначено на 21.11.2026 14:00 (за Києвом)"), "{nobody}");
        assert!(nobody.contains("Заявку ніхто не веде"), "{nobody}");
        assert!(!nobody.contains("Олена") && !nobody.contains("067"), "{nobody}");
        let handed = crate::inbox::Claim { by: "olena@example.org".into(), until: None };
        lead.claim = Some(handed);
        assert!(text(&lead).contains("Заявку веде: olena@example.org"), "{}", text(&lead));
        // Taken, but the claim had run out before the time came: nobody's.
        let lapsed = crate::inbox::Claim {
            by: "olena@example.org".into(),
            until: Some("2026-11-21T11:00:00Z".into()),
        };
        lead.claim = Some(lapsed);
        assert!(text(&lead).contains("Заявку ніхто не веде"), "{}", text(&lead));
    }

    #[test]
    fn a_notice_about_a_channel_names_it_and_its_error_cut_short() {
        let mut settings = Settings::defaults();
        settings.public_url = "https://example.org".into();
        let since = "2026-11-20T08:42:00.000000Z";
        let failing = Message::channel_notice(3, Channel::Webhook, since, &"x".repeat(1000), None, &settings);
        let text = failing.plain_text();
        assert!(text.starts_with("Канал «Вебхук» не доставляє сповіщення з 20.11.2026 10:42"), "{text}");
        assert!(text.contains(&format!("Остання помилка: {}…\n", "x".repeat(ERROR_CHARS))), "{text}");
        assert!(text.ends_with("Відкрити: https://example.org/admin/notifications"), "{text}");
        assert_eq!(failing.event_name(), "channel.failing");
        let back =
            Message::channel_notice(4, Channel::Webhook, since, "", Some("2026-11-20T09:00:00Z"), &settings);
        assert!(back.plain_text().starts_with("Канал «Вебхук» знову доставляє сповіщення"));
        assert!(
            back.plain_text().contains("з 20.11.2026 10:42 до 20.11.2026 11:00"),
            "{}",
            back.plain_text()
        );
        assert_eq!(back.event_name(), "channel.recovered");
        assert_ne!(failing.idempotency_key(), back.idempotency_key());
    }

    #[test]
    fn an_escalation_says_how_long_nobody_called_without_personal_data() {
        let settings = Settings::defaults();
        let text = Message::new(Event::Escalated, &lead(), &settings).plain_text();
        assert!(text.starts_with("Ескалація: заявку №7 ніхто не набрав за 24 год"), "{text}");
        assert!(!text.contains("Олена") && !text.contains("067"), "{text}");
    }
}
