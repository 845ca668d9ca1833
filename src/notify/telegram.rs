//! Telegram's Bot API `sendMessage`, with the text in Telegram's HTML mode: everything from the
//! lead is escaped, so a name like `<b>` arrives as written and never as markup.

use std::time::Duration;

use super::{About, Message, SendError};
use crate::config::Telegram;

pub async fn send(
    http: &reqwest::Client,
    telegram: Option<&Telegram>,
    message: &Message,
) -> Result<(), SendError> {
    let telegram = telegram.ok_or_else(|| SendError::new("Telegram is not configured"))?;
    let url = format!("{}/bot{}/sendMessage", telegram.api_url, telegram.bot_token);
    let body = serde_json::json!({
        "chat_id": telegram.chat_id,
        "text": html(message),
        "parse_mode": "HTML",
        "link_preview_options": { "is_disabled": true },
    });
    // The URL holds the bot's token: errors are reported without it.
    let response = http
        .post(url)
        .json(&body)
        .send()
        .await
        .map_err(|e| SendError::new(super::error_chain(e.without_url())))?;
    let status = response.status();
    if status.is_success() {
        return Ok(());
    }
    // {"ok":false,"error_code":429,"description":"…","parameters":{"retry_after":N}}
    let answer: serde_json::Value = response.json().await.unwrap_or_default();
    let retry_after = answer["parameters"]["retry_after"].as_u64().map(Duration::from_secs);
    let description = answer["description"].as_str().unwrap_or("no description");
    Err(SendError { reason: format!("Telegram answered {status}: {description}"), retry_after })
}

/// The message in Telegram's HTML: the title bold, the comment a blockquote, the link as a link.
fn html(message: &Message) -> String {
    let mut text = format!("<b>{}</b>", escape(&message.title));
    for line in &message.lines {
        text.push('\n');
        text.push_str(&escape(line));
    }
    if !message.comment.is_empty() {
        let comment: Vec<String> = message.comment.iter().map(|line| escape(line)).collect();
        text.push_str(&format!("\n<blockquote>{}</blockquote>", comment.join("\n")));
    }
    let open = match message.about {
        About::Lead { .. } => "Відкрити заявку",
        About::CodesRefused { .. } => "Відкрити скриньку",
        About::Channel { .. } => "Відкрити «Сповіщення»",
    };
    text.push_str(&format!("\n\n<a href=\"{}\">{open}</a>", escape(&message.link)));
    text
}

/// The escapes Telegram's HTML mode asks for (and `"` for the attribute).
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_a_name_is_text() {
        assert_eq!(escape("<b>Іра & Ко</b>"), "&lt;b&gt;Іра &amp; Ко&lt;/b&gt;");
    }
}
