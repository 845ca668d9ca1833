//! Stand-ins for the outside services notifications go to (Telegram, a webhook receiver, an SMTP
//! server): real servers on loopback that the tests start.
//!
//! - [`HttpReceiver`]: any HTTP endpoint (the Telegram Bot API, a webhook receiver). It records
//!   every request and answers what the test tells it to; it can be stopped (the port refuses
//!   connections, open connections are cut) and started again on the same port.
//! - [`SmtpSink`]: just enough SMTP for lettre's plain `smtp://` client, recording each message.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request as AxumRequest, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use base64::Engine;
use hmac::{Hmac, Mac};
use http_body_util::BodyExt;
use sha2::Sha256;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpSocket};
use tokio::task::{JoinHandle, JoinSet};

/// How often the `wait_for` helpers look again.
const LOOK_EVERY: Duration = Duration::from_millis(50);

/// One request as the receiver got it, and the status it answered (or was going to answer).
#[derive(Debug, Clone)]
pub struct Received {
    pub at: Instant,
    pub method: String,
    pub path: String,
    pub headers: HeaderMap,
    pub body: Bytes,
    pub status: u16,
}

impl Received {
    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("")
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    /// The body's `lead_id` (a webhook call), if any.
    pub fn lead_id(&self) -> Option<i64> {
        serde_json::from_slice::<serde_json::Value>(&self.body).ok()?["lead_id"].as_i64()
    }

    /// Whether `X-Zayavka-Signature` is `sha256=` + hex HMAC-SHA256(secret, "{timestamp}.{body}"),
    /// computed here independently of the server's code.
    pub fn signed_with(&self, secret: &str) -> bool {
        let timestamp = self.header("x-zayavka-timestamp");
        !timestamp.is_empty()
            && self.header("x-zayavka-signature") == hmac_signature(secret, timestamp, &self.body)
    }
}

/// `sha256=<hex HMAC-SHA256 of "{timestamp}.{body}">`.
pub fn hmac_signature(secret: &str, timestamp: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{timestamp}.").as_bytes());
    mac.update(body);
    let hex: String = mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256={hex}")
}

/// What the receiver answers to one request.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// How long the receiver holds the request before answering (the connection stays open).
    pub delay: Duration,
}

impl Reply {
    pub fn status(status: u16) -> Reply {
        Reply { status, headers: Vec::new(), body: String::new(), delay: Duration::ZERO }
    }

    pub fn json(status: u16, body: serde_json::Value) -> Reply {
        Reply::status(status).header("content-type", "application/json").body(body.to_string())
    }

    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    pub fn body(mut self, body: String) -> Reply {
        self.body = body;
        self
    }

    pub fn after(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }

    /// The Bot API's answer to a `sendMessage` it accepted.
    pub fn telegram_ok() -> Reply {
        Reply::json(
            200,
            serde_json::json!({
                "ok": true,
                "result": {"message_id": 1, "date": 1_700_000_000, "chat": {"id": 1, "type": "group"}},
            }),
        )
    }

    /// The Bot API's flood control: 429 with `parameters.retry_after`.
    pub fn telegram_too_many_requests(retry_after: u64) -> Reply {
        Reply::json(
            429,
            serde_json::json!({
                "ok": false,
                "error_code": 429,
                "description": format!("Too Many Requests: retry after {retry_after}"),
                "parameters": {"retry_after": retry_after},
            }),
        )
    }
}

struct Script {
    /// Answers for the next requests, in order; then `default`.
    queue: VecDeque<Reply>,
    default: Reply,
}

struct Shared {
    requests: Mutex<Vec<Received>>,
    script: Mutex<Script>,
}

/// An HTTP server on 127.0.0.1 that records every request.
pub struct HttpReceiver {
    port: u16,
    shared: Arc<Shared>,
    /// The accept loop; it owns the listener and every connection, so aborting it closes them all.
    task: Option<JoinHandle<()>>,
}

impl HttpReceiver {
    /// Starts on a free port, answering `default` to every request.
    pub async fn start(default: Reply) -> HttpReceiver {
        let listener = bind_own_port().await;
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Shared {
            requests: Mutex::new(Vec::new()),
            script: Mutex::new(Script { queue: VecDeque::new(), default }),
        });
        let task = Some(tokio::spawn(serve(listener, shared.clone())));
        HttpReceiver { port, shared, task }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// From now on, answer `reply` (after any queued answers).
    pub fn set_default(&self, reply: Reply) {
        self.shared.script.lock().unwrap().default = reply;
    }

    /// Answer the next request not yet answered with `reply`.
    pub fn push_reply(&self, reply: Reply) {
        self.shared.script.lock().unwrap().queue.push_back(reply);
    }

    /// Closes the port (connections are refused) and cuts the open connections.
    pub async fn stop(&mut self) {
        stop_listening(&mut self.task, self.port).await;
    }

    /// Listens again on the same port, with the same record and script.
    pub async fn restart(&mut self) {
        assert!(self.task.is_none(), "the receiver is running");
        let listener = bind_again(self.port).await;
        self.task = Some(tokio::spawn(serve(listener, self.shared.clone())));
    }

    /// Every request so far, oldest first.
    pub fn requests(&self) -> Vec<Received> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// Waits until `done` holds for the requests so far; panics with `what` and the record after
    /// `limit`.
    pub async fn wait_for(
        &self,
        what: &str,
        limit: Duration,
        done: impl Fn(&[Received]) -> bool,
    ) -> Vec<Received> {
        let deadline = Instant::now() + limit;
        loop {
            let requests = self.requests();
            if done(&requests) {
                return requests;
            }
            if Instant::now() >= deadline {
                let seen: Vec<String> = requests
                    .iter()
                    .map(|r| {
                        format!(
                            "{} {} -> {} {}",
                            r.method,
                            r.path,
                            r.status,
                            String::from_utf8_lossy(&r.body)
                        )
                    })
                    .collect();
                panic!("waited {limit:?} for {what}; the receiver got {} request(s): {seen:#?}", seen.len());
            }
            tokio::time::sleep(LOOK_EVERY).await;
        }
    }
}

impl Drop for HttpReceiver {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// Ports below Linux's range of ephemeral ports (32768 and up, `ip_local_port_range`), from which a
/// receiver's port is picked: the kernel never gives one of them to an outgoing connection. Such a
/// connection, another test's, once took a stopped receiver's port for over 10 s in CI, so it could
/// not listen there again.
const OWN_PORTS: std::ops::Range<u16> = 20_000..32_768;

/// Listens on a free port of `OWN_PORTS`.
async fn bind_own_port() -> TcpListener {
    for _ in 0..100 {
        if let Ok(listener) = bind(rand::random_range(OWN_PORTS)).await {
            return listener;
        }
    }
    panic!("no free port in {OWN_PORTS:?} on 127.0.0.1 after 100 tries");
}

/// A listening socket on 127.0.0.1:`port`, with SO_REUSEADDR so a port just closed can be
/// listened on again.
async fn bind(port: u16) -> std::io::Result<TcpListener> {
    let socket = TcpSocket::new_v4()?;
    socket.set_reuseaddr(true)?;
    socket.bind(([127, 0, 0, 1], port).into())?;
    socket.listen(128)
}

/// Listens on `port` again after a stop. Another socket may hold it for a moment (a closing
/// connection): tries for a while.
async fn bind_again(port: u16) -> TcpListener {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match bind(port).await {
            Ok(listener) => return listener,
            Err(e) if Instant::now() < deadline => {
                eprintln!("receivers: port {port} not free yet ({e}); trying again");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("cannot listen on port {port} again: {e}"),
        }
    }
}

/// Ends the accept loop `task`, which owns the listener and every connection, and checks that
/// `port` now refuses connections.
async fn stop_listening(task: &mut Option<JoinHandle<()>>, port: u16) {
    if let Some(task) = task.take() {
        task.abort();
        // Once the task has ended, its listener and connections have been dropped.
        let _ = task.await;
    }
    assert!(
        tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err(),
        "port {port} still accepts connections after stop"
    );
}

/// Accepts connections and serves each one in a task this one owns.
async fn serve(listener: TcpListener, shared: Arc<Shared>) {
    let router = Router::new().fallback(answer).with_state(shared);
    let mut connections = JoinSet::new();
    loop {
        let Ok((stream, _)) = listener.accept().await else { continue };
        // Reap the connections that have ended.
        while connections.try_join_next().is_some() {}
        let service = hyper_util::service::TowerToHyperService::new(router.clone());
        connections.spawn(async move {
            let io = hyper_util::rt::TokioIo::new(stream);
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, service).await;
        });
    }
}

/// Records the request, then answers as the script says.
async fn answer(State(shared): State<Arc<Shared>>, request: AxumRequest) -> Response {
    let at = Instant::now();
    let (parts, body) = request.into_parts();
    let body = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let reply = {
        let mut script = shared.script.lock().unwrap();
        script.queue.pop_front().unwrap_or_else(|| script.default.clone())
    };
    shared.requests.lock().unwrap().push(Received {
        at,
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        headers: parts.headers,
        body,
        status: reply.status,
    });
    if !reply.delay.is_zero() {
        tokio::time::sleep(reply.delay).await;
    }
    let mut response = Response::new(Body::from(reply.body));
    *response.status_mut() = StatusCode::from_u16(reply.status).unwrap();
    for (name, value) in &reply.headers {
        response
            .headers_mut()
            .insert(HeaderName::from_bytes(name.as_bytes()).unwrap(), HeaderValue::from_str(value).unwrap());
    }
    response
}

/// One message as the SMTP sink got it.
#[derive(Debug, Clone)]
pub struct Mail {
    /// `MAIL FROM`.
    pub from: String,
    /// Every `RCPT TO`.
    pub to: Vec<String>,
    /// What came after `DATA`, dot-stuffing undone, without the final `.`.
    pub data: String,
}

impl Mail {
    fn split(&self) -> (&str, &str) {
        self.data.split_once("\r\n\r\n").unwrap_or((&self.data, ""))
    }

    /// A header's value, unfolded, with RFC 2047 encoded words decoded; `None` if absent.
    pub fn header(&self, name: &str) -> Option<String> {
        let (head, _) = self.split();
        let unfolded = head.replace("\r\n ", " ").replace("\r\n\t", " ");
        unfolded.split("\r\n").find_map(|line| {
            let (field, value) = line.split_once(':')?;
            field.trim().eq_ignore_ascii_case(name).then(|| decode_words(value.trim()))
        })
    }

    /// The body as text, its Content-Transfer-Encoding (base64, quoted-printable) undone.
    pub fn body(&self) -> String {
        let (_, body) = self.split();
        let encoding = self.header("content-transfer-encoding").unwrap_or_default().to_ascii_lowercase();
        let bytes = match encoding.as_str() {
            "base64" => {
                let compact: String = body.chars().filter(|c| !c.is_ascii_whitespace()).collect();
                base64::engine::general_purpose::STANDARD.decode(compact).expect("a base64 body")
            }
            "quoted-printable" => decode_quoted_printable(body, false),
            _ => body.as_bytes().to_vec(),
        };
        String::from_utf8(bytes).expect("a UTF-8 body").replace("\r\n", "\n")
    }
}

/// Decodes `=?charset?B?…?=` and `=?charset?Q?…?=` words (UTF-8 assumed); the space between two
/// encoded words is not part of the text.
fn decode_words(value: &str) -> String {
    let mut out = String::new();
    let mut previous_encoded = false;
    for (i, token) in value.split(' ').enumerate() {
        let decoded = token.strip_prefix("=?").and_then(|t| t.strip_suffix("?=")).and_then(|t| {
            let mut parts = t.splitn(3, '?');
            let (_charset, encoding, text) = (parts.next()?, parts.next()?, parts.next()?);
            let bytes = match encoding {
                "B" | "b" => base64::engine::general_purpose::STANDARD.decode(text).ok()?,
                "Q" | "q" => decode_quoted_printable(text, true),
                _ => return None,
            };
            String::from_utf8(bytes).ok()
        });
        let encoded = decoded.is_some();
        if i > 0 && !(encoded && previous_encoded) {
            out.push(' ');
        }
        out.push_str(&decoded.unwrap_or_else(|| token.to_owned()));
        previous_encoded = encoded;
    }
    out
}

/// Quoted-printable (RFC 2045; `underscore_is_space` for RFC 2047's Q encoding).
fn decode_quoted_printable(text: &str, underscore_is_space: bool) -> Vec<u8> {
    let text = text.replace("=\r\n", "").replace("=\n", "");
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'=' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(byte) => {
                        out.push(byte);
                        i += 3;
                    }
                    Err(_) => {
                        out.push(b'=');
                        i += 1;
                    }
                }
            }
            b'_' if underscore_is_space => {
                out.push(b' ');
                i += 1;
            }
            byte => {
                out.push(byte);
                i += 1;
            }
        }
    }
    out
}

/// A minimal SMTP server: greets, accepts any sender and recipient, records each message.
/// Offers no AUTH, and no STARTTLS unless started with `start_offering_starttls`.
pub struct SmtpSink {
    port: u16,
    record: Arc<SmtpRecord>,
    /// The accept loop; it owns the listener and every session, so aborting it closes them all.
    task: Option<JoinHandle<()>>,
}

#[derive(Default)]
struct SmtpRecord {
    mails: Mutex<Vec<Mail>>,
    /// Every command line the clients sent (not the message data).
    commands: Mutex<Vec<String>>,
    /// Whether EHLO offers STARTTLS (refused with 454 when asked for: the sink has no TLS).
    offer_starttls: bool,
}

impl SmtpSink {
    pub async fn start() -> SmtpSink {
        SmtpSink::start_with(false).await
    }

    /// A sink whose EHLO answer offers STARTTLS, to see whether a client asks for it.
    pub async fn start_offering_starttls() -> SmtpSink {
        SmtpSink::start_with(true).await
    }

    async fn start_with(offer_starttls: bool) -> SmtpSink {
        let listener = bind_own_port().await;
        let port = listener.local_addr().unwrap().port();
        let record = Arc::new(SmtpRecord { offer_starttls, ..SmtpRecord::default() });
        let task = Some(tokio::spawn(smtp_serve(listener, record.clone())));
        SmtpSink { port, record, task }
    }

    /// Closes the port (connections are refused) and cuts the open sessions.
    pub async fn stop(&mut self) {
        stop_listening(&mut self.task, self.port).await;
    }

    /// Listens again on the same port, with the same record.
    pub async fn restart(&mut self) {
        assert!(self.task.is_none(), "the sink is running");
        let listener = bind_again(self.port).await;
        self.task = Some(tokio::spawn(smtp_serve(listener, self.record.clone())));
    }

    /// Every command line clients sent so far (`EHLO …`, `MAIL FROM:<…>`, …).
    pub fn commands(&self) -> Vec<String> {
        self.record.commands.lock().unwrap().clone()
    }

    /// `smtp://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    pub fn mails(&self) -> Vec<Mail> {
        self.record.mails.lock().unwrap().clone()
    }

    pub async fn wait_for(&self, what: &str, limit: Duration, done: impl Fn(&[Mail]) -> bool) -> Vec<Mail> {
        let deadline = Instant::now() + limit;
        loop {
            let mails = self.mails();
            if done(&mails) {
                return mails;
            }
            if Instant::now() >= deadline {
                panic!("waited {limit:?} for {what}; the sink got {} message(s): {mails:#?}", mails.len());
            }
            tokio::time::sleep(LOOK_EVERY).await;
        }
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// Accepts connections and holds each SMTP session in a task this one owns.
async fn smtp_serve(listener: TcpListener, record: Arc<SmtpRecord>) {
    let mut sessions = JoinSet::new();
    loop {
        let Ok((stream, _)) = listener.accept().await else { continue };
        while sessions.try_join_next().is_some() {}
        let record = record.clone();
        sessions.spawn(async move {
            if let Err(e) = smtp_session(stream, &record).await {
                eprintln!("smtp sink: session ended: {e}");
            }
        });
    }
}

async fn smtp_session(stream: tokio::net::TcpStream, record: &SmtpRecord) -> std::io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    write.write_all(b"220 sink.test ESMTP ready\r\n").await?;
    let mut from = String::new();
    let mut to = Vec::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        if read.read_until(b'\n', &mut line).await? == 0 {
            return Ok(()); // the client hung up
        }
        let command = String::from_utf8_lossy(&line).trim_end().to_owned();
        record.commands.lock().unwrap().push(command.clone());
        let verb = command.split([' ', ':']).next().unwrap_or("").to_ascii_uppercase();
        let reply: &[u8] = match verb.as_str() {
            "EHLO" if record.offer_starttls => b"250-sink.test\r\n250 STARTTLS\r\n",
            "EHLO" | "HELO" => b"250 sink.test\r\n",
            "STARTTLS" => b"454 4.7.0 TLS not available\r\n",
            "MAIL" => {
                from = angle_address(&command);
                to.clear();
                b"250 2.1.0 OK\r\n"
            }
            "RCPT" => {
                to.push(angle_address(&command));
                b"250 2.1.5 OK\r\n"
            }
            "DATA" => {
                write.write_all(b"354 End data with <CR><LF>.<CR><LF>\r\n").await?;
                let mut data = String::new();
                loop {
                    line.clear();
                    if read.read_until(b'\n', &mut line).await? == 0 {
                        return Ok(()); // cut in the middle: not a message
                    }
                    let text = String::from_utf8_lossy(&line);
                    if text == ".\r\n" || text == ".\n" {
                        break;
                    }
                    data.push_str(text.strip_prefix('.').unwrap_or(&text));
                }
                let data = data.strip_suffix("\r\n").unwrap_or(&data).to_owned();
                record.mails.lock().unwrap().push(Mail {
                    from: from.clone(),
                    to: std::mem::take(&mut to),
                    data,
                });
                b"250 2.0.0 queued\r\n"
            }
            "RSET" => {
                from.clear();
                to.clear();
                b"250 2.0.0 OK\r\n"
            }
            "NOOP" => b"250 2.0.0 OK\r\n",
            "QUIT" => {
                write.write_all(b"221 2.0.0 bye\r\n").await?;
                return Ok(());
            }
            _ => b"502 5.5.2 command not recognised\r\n",
        };
        write.write_all(reply).await?;
    }
}

/// The address between `<` and `>` in `MAIL FROM:<a@b> …` / `RCPT TO:<a@b>`.
fn angle_address(command: &str) -> String {
    let start = command.find('<').map_or(0, |i| i + 1);
    let end = command[start..].find('>').map_or(command.len(), |i| start + i);
    command[start..end].to_owned()
}
