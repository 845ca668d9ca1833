//! E-mail over SMTP (lettre): a plain-text message per notification. Plain text needs no
//! escaping — nothing in it is markup — and the `Message-ID` names the notification, so a retry
//! after a lost answer is recognisable as the same mail.

use lettre::message::{Mailbox, header::ContentType};
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};

use super::{Message, SendError};
use crate::config::Email;

pub struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    to: Vec<Mailbox>,
}

/// `smtp://` without a `tls=` parameter upgrades to TLS when the server offers STARTTLS (lettre
/// alone would stay in plain text); `?tls=required` insists, `smtps://` is TLS from the start.
fn with_starttls(url: &str) -> String {
    if !url.starts_with("smtp://") || url.contains("tls=") {
        return url.to_owned();
    }
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}tls=opportunistic")
}

impl Mailer {
    pub fn new(email: &Email) -> anyhow::Result<Mailer> {
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(&with_starttls(&email.smtp_url))
            .map_err(|e| anyhow::anyhow!("ZAYAVKA_SMTP_URL: {e}"))?
            .timeout(Some(std::time::Duration::from_secs(30)))
            .build();
        let parse = |address: &str| -> anyhow::Result<Mailbox> {
            address.parse().map_err(|e| anyhow::anyhow!("'{address}' is not an e-mail address: {e}"))
        };
        Ok(Mailer {
            transport,
            from: parse(&email.from)?,
            to: email.to.iter().map(|a| parse(a)).collect::<anyhow::Result<_>>()?,
        })
    }

    pub async fn send(&self, message: &Message) -> Result<(), SendError> {
        let domain = self.from.email.domain().to_owned();
        let mut builder = lettre::Message::builder()
            .from(self.from.clone())
            .subject(message.title.clone())
            .message_id(Some(format!("<{}@{domain}>", message.idempotency_key())))
            .header(ContentType::TEXT_PLAIN);
        for to in &self.to {
            builder = builder.to(to.clone());
        }
        let mail = builder.body(message.plain_text()).map_err(|e| SendError::new(e.to_string()))?;
        self.transport.send(mail).await.map_err(|e| SendError::new(e.to_string()))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_smtp_urls_upgrade_when_they_can() {
        assert_eq!(with_starttls("smtp://mail:25"), "smtp://mail:25?tls=opportunistic");
        assert_eq!(with_starttls("smtp://mail:25?tls=required"), "smtp://mail:25?tls=required");
        assert_eq!(with_starttls("smtps://u:p@mail"), "smtps://u:p@mail");
    }
}
