//! A JSON POST per notification, for any system the operators run (a CRM, a queue, a script).
//!
//! Headers: `Idempotency-Key` names the notification (the same on every retry, so a receiver
//! can drop repeats), `X-Zayavka-Event`, `X-Zayavka-Timestamp` (Unix seconds) and, with a
//! secret, `X-Zayavka-Signature: sha256=<hex HMAC-SHA256 of "{timestamp}.{body}">` — the receiver
//! recomputes it and may refuse old timestamps, so a captured request cannot be replayed later.
//! Any 2xx answer counts as delivered; others are retried, honouring `Retry-After` in seconds.

use std::time::Duration;

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::{Message, SendError};
use crate::config::Webhook;

pub async fn send(
    http: &reqwest::Client,
    webhook: Option<&Webhook>,
    message: &Message,
    now: jiff::Timestamp,
) -> Result<(), SendError> {
    let webhook = webhook.ok_or_else(|| SendError::new("the webhook is not configured"))?;
    let body = serde_json::to_vec(&message.webhook_body()).expect("JSON values serialise");
    let timestamp = now.as_second().to_string();
    let mut request = http
        .post(&webhook.url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header("Idempotency-Key", message.idempotency_key())
        .header("X-Zayavka-Event", message.event_name())
        .header("X-Zayavka-Timestamp", &timestamp);
    if let Some(secret) = &webhook.secret {
        request = request.header("X-Zayavka-Signature", signature(secret, &timestamp, &body));
    }
    // Without the URL: its path or query may hold a token, and the reason is kept in the log and
    // the outbox.
    let response =
        request.body(body).send().await.map_err(|e| SendError::new(super::error_chain(e.without_url())))?;
    let status = response.status();
    if status.is_success() {
        return Ok(());
    }
    let retry_after = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok()?.trim().parse().ok())
        .map(Duration::from_secs);
    Err(SendError { reason: format!("the webhook answered {status}"), retry_after })
}

/// `sha256=` and the hex HMAC-SHA256 of `{timestamp}.{body}` under `secret`.
pub fn signature(secret: &str, timestamp: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any length");
    mac.update(timestamp.as_bytes());
    mac.update(b".");
    mac.update(body);
    let digest = mac.finalize().into_bytes();
    format!("sha256={}", digest.iter().map(|b| format!("{b:02x}")).collect::<String>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_is_the_hmac_of_timestamp_dot_body() {
        // Known answer from `printf '1700000000.{"lead_id":1}' | openssl dgst -sha256 -hmac s3cret`.
        assert_eq!(
            signature("s3cret", "1700000000", br#"{"lead_id":1}"#),
            "sha256=768fe56e98cd10c6b8bea85cf7e5423cefa4e6dd012e93f7f6f78e0387844905"
        );
    }
}
