//! Slow clients: a visitor on a bad connection whose upload stalls, or a stranger who opens
//! thousands of connections and sends nothing, or a request a byte at a time. The server cuts a
//! request off after 30 s with an answer the client can read, stores nothing half-sent, closes
//! connections that send no request head in time, holds no more connections than it can, and
//! serves everyone else meanwhile. Runs the real binary over real sockets.
//!
//! Not run again on PostgreSQL: connection handling in front of the store; the engine does not take
//! part.

use crate::common;

use std::time::{Duration, Instant};

use common::{KEY, Server, TestDatabase, http, serve_on_any_port};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

/// Sends the headers and the first part of a body of `length` bytes, then nothing more; returns
/// the raw answer once the server closes the connection.
async fn stalled_upload(
    port: u16,
    path: &str,
    content_type: &str,
    length: usize,
    first_part: &str,
) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\napikey: {KEY}\r\nContent-Type: {content_type}\r\n\
         Content-Length: {length}\r\n\r\n{first_part}"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(60), stream.read_to_end(&mut answer))
        .await
        .expect("the server never answered the stalled upload")
        .unwrap();
    String::from_utf8_lossy(&answer).into_owned()
}

fn status_and_body(answer: &str) -> (&str, &str) {
    let status = answer.split(' ').nth(1).unwrap_or("");
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    (status, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_upload_is_answered_after_30_s_and_stores_nothing() {
    let database = TestDatabase::new().await;
    let server = Server::start(&database.url).await;
    let began = Instant::now();

    let api = stalled_upload(server.port, "/rest/v1/CRN", "application/json", 200, r#"{"name":"Оле"#);
    let form = stalled_upload(
        server.port,
        "/leads",
        "application/x-www-form-urlencoded",
        200,
        "name=%D0%9E%D0%BB%D0%B5",
    );
    let someone_else = async {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let lead = r#"{"name":"Марія","phone":"+380671234567","confirmation":"Так"}"#;
        let (status, body) = http(server.port, "POST", "/rest/v1/CRN", lead).await.unwrap();
        (status, body, began.elapsed())
    };
    let (api, form, (status, body, served_after)) = tokio::join!(api, form, someone_else);
    let waited = began.elapsed();

    // Everyone else is served at once.
    assert_eq!(status, 201, "{body}");
    assert!(served_after < Duration::from_secs(10), "a second visitor waited {served_after:?}");

    // The API client gets PostgREST's error shape with a Ukrainian explanation, not an empty body.
    let (status, body) = status_and_body(&api);
    assert_eq!(status, "408", "{api}");
    assert!(api.to_ascii_lowercase().contains("content-type: application/json"), "{api}");
    let error: serde_json::Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {api}"));
    assert!(error["message"].as_str().unwrap().contains("30 s"), "{body}");
    assert!(error["details"].as_str().unwrap().contains("Спробуйте, будь ласка, ще раз"), "{body}");

    // The visitor without JavaScript gets the site's error page in Ukrainian, not a blank page.
    let (status, body) = status_and_body(&form);
    assert_eq!(status, "408", "{form}");
    assert!(body.contains("Сталася неочікувана помилка"), "{form}");
    assert!(
        form.to_ascii_lowercase().contains("content-security-policy"),
        "the security headers too: {form}"
    );

    assert!(
        waited >= Duration::from_secs(29) && waited < Duration::from_secs(45),
        "cut off after {waited:?}"
    );
    let stored = server.export_jsonl().await;
    assert_eq!(stored.len(), 1, "only the complete lead: {stored:?}");
    assert_eq!(stored[0]["name"], "Марія");
}

/// How a slow client misbehaves.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Slow {
    /// Connects and sends nothing.
    Silent,
    /// Sends a request head a byte at a time and never finishes it.
    HeadByTheByte,
    /// Asks for `/healthz`, reads the answer, then keeps the connection open and says nothing.
    IdleAfterAnswer,
}

/// A byte this often from each trickling client.
const TRICKLE_EVERY: Duration = Duration::from_millis(500);

/// One slow connection from 127.0.0.1: reports on `opened` whether it could connect (for
/// `IdleAfterAnswer`, once answered), then stays until the server closes it and reports on `closed`
/// its number and how long it had been left alone (since it opened, or since its answer) when that
/// happened.
async fn slow_client(
    port: u16,
    slow: Slow,
    number: usize,
    opened: mpsc::UnboundedSender<bool>,
    closed: mpsc::UnboundedSender<(usize, Duration)>,
) {
    slow_client_from(1, port, slow, number, opened, closed).await;
}

/// The same from 127.0.0.`source` (the whole 127.0.0.0/8 is this machine: one test, many clients).
async fn slow_client_from(
    source: u8,
    port: u16,
    slow: Slow,
    number: usize,
    opened: mpsc::UnboundedSender<bool>,
    closed: mpsc::UnboundedSender<(usize, Duration)>,
) {
    let connect = async {
        let socket = tokio::net::TcpSocket::new_v4()?;
        socket.bind(([127, 0, 0, source], 0).into())?;
        socket.connect(([127, 0, 0, 1], port).into()).await
    };
    let connected = tokio::time::timeout(Duration::from_secs(20), connect).await;
    let Ok(Ok(stream)) = connected else {
        let _ = opened.send(false);
        return;
    };
    let mut left_alone_since = Instant::now();
    if slow != Slow::IdleAfterAnswer {
        let _ = opened.send(true);
    }
    let (mut reader, mut writer) = stream.into_split();
    let first_part = match slow {
        Slow::Silent => String::new(),
        Slow::HeadByTheByte => "POST /rest/v1/CRN HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".to_owned(),
        Slow::IdleAfterAnswer => "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".to_owned(),
    };
    if writer.write_all(first_part.as_bytes()).await.is_err() {
        let _ = closed.send((number, left_alone_since.elapsed()));
        return;
    }
    if slow == Slow::IdleAfterAnswer {
        let mut answer = Vec::new();
        let mut buffer = [0; 1024];
        while !String::from_utf8_lossy(&answer).contains("ok\n") {
            match reader.read(&mut buffer).await {
                Ok(0) | Err(_) => panic!("no answer: {}", String::from_utf8_lossy(&answer)),
                Ok(n) => answer.extend_from_slice(&buffer[..n]),
            }
        }
        left_alone_since = Instant::now();
        let _ = opened.send(true);
    }
    let trickle = async {
        if slow == Slow::HeadByTheByte {
            loop {
                tokio::time::sleep(TRICKLE_EVERY).await;
                if writer.write_all(b"a").await.is_err() {
                    break;
                }
            }
        }
        // The server closed the connection (or this client sends no more): the read sees it.
        std::future::pending::<()>().await;
    };
    let closed_by_server = async {
        let mut buffer = [0; 1024];
        while let Ok(1..) = reader.read(&mut buffer).await {}
    };
    tokio::select! {
        () = closed_by_server => {}
        () = trickle => {}
    }
    let _ = closed.send((number, left_alone_since.elapsed()));
}

/// Waits until `count` reports have come on `receiver`, at most `deadline`.
async fn collect<T>(receiver: &mut mpsc::UnboundedReceiver<T>, count: usize, deadline: Duration) -> Vec<T> {
    let mut reports = Vec::new();
    let _ = tokio::time::timeout(deadline, async {
        while reports.len() < count {
            match receiver.recv().await {
                Some(report) => reports.push(report),
                None => break,
            }
        }
    })
    .await;
    reports
}

/// `GET /healthz` and a visitor's submit: their statuses and how long each took.
async fn visitor(port: u16) -> [(u16, Duration); 2] {
    let timed = |method: &'static str, path: &'static str, body: &'static str| async move {
        let began = Instant::now();
        let answer = tokio::time::timeout(Duration::from_secs(5), http(port, method, path, body)).await;
        let status = match answer {
            Ok(Ok((status, _))) => status,
            Ok(Err(error)) => panic!("{method} {path}: {error}"),
            Err(_) => panic!("{method} {path}: no answer within 5 s"),
        };
        (status, began.elapsed())
    };
    let health = timed("GET", "/healthz", "").await;
    let lead = r#"{"name":"Марія","phone":"+380671234567","confirmation":"Так"}"#;
    let submit = timed("POST", "/rest/v1/CRN", lead).await;
    [health, submit]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_that_send_no_request_head_in_time_are_closed() {
    let database = TestDatabase::new().await;
    let server = Server::start_with(&database.url, &[("ZAYAVKA_HEADER_TIMEOUT_SECONDS", "1")]).await;
    let kinds = [Slow::Silent, Slow::HeadByTheByte, Slow::IdleAfterAnswer];
    let (opened_tx, mut opened) = mpsc::unbounded_channel();
    let (closed_tx, mut closed) = mpsc::unbounded_channel();
    let clients = 30;
    for number in 0..clients {
        let kind = kinds[number % kinds.len()];
        tokio::spawn(slow_client(server.port, kind, number, opened_tx.clone(), closed_tx.clone()));
    }
    let opened = collect(&mut opened, clients, Duration::from_secs(20)).await;
    assert!(opened.len() == clients && opened.iter().all(|&ok| ok), "{opened:?}");

    let closed = collect(&mut closed, clients, Duration::from_secs(10)).await;
    assert_eq!(closed.len(), clients, "closed by the server within 10 s: {closed:?}");
    for (number, left_alone) in closed {
        let kind = kinds[number % kinds.len()];
        assert!(
            left_alone > Duration::from_millis(500) && left_alone < Duration::from_secs(3),
            "{kind:?} closed after {left_alone:?}, the timeout is 1 s"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_connection_cap_the_longest_idle_connection_makes_room_for_a_visitor() {
    let database = TestDatabase::new().await;
    let server = Server::start_with(
        &database.url,
        &[("ZAYAVKA_MAX_CONNECTIONS", "20"), ("ZAYAVKA_HEADER_TIMEOUT_SECONDS", "60")],
    )
    .await;
    let (opened_tx, mut opened) = mpsc::unbounded_channel();
    let (closed_tx, mut closed) = mpsc::unbounded_channel();
    // One after another, so that their age is their number: 10 that have asked something (each
    // reports itself open once answered, so the server knows it has), then 30 that never finish a
    // request head.
    for number in 0..40 {
        let kind = match (number < 10, number % 2 == 0) {
            (true, _) => Slow::IdleAfterAnswer,
            (false, true) => Slow::Silent,
            (false, false) => Slow::HeadByTheByte,
        };
        tokio::spawn(slow_client(server.port, kind, number, opened_tx.clone(), closed_tx.clone()));
        assert_eq!(opened.recv().await, Some(true));
    }
    let mut gone: Vec<usize> = collect(&mut closed, 20, Duration::from_secs(10))
        .await
        .into_iter()
        .map(|(number, _)| number)
        .collect();
    gone.sort_unstable();
    assert_eq!(
        gone,
        (10..30).collect::<Vec<_>>(),
        "the oldest 20 of those that sent no request make room for the newest 20, and the clients \
         that asked something keep their connections"
    );

    let [(health, health_took), (submit, submit_took)] = visitor(server.port).await;
    assert_eq!((health, submit), (200, 201));
    assert!(health_took < Duration::from_secs(1) && submit_took < Duration::from_secs(1));
    // Each of the visitor's connections that found the cap full took the place of the oldest that
    // was left: both, or only the first when its slot was free again before the second came.
    let gone = collect(&mut closed, 2, Duration::from_secs(2)).await;
    let mut gone: Vec<usize> = gone.into_iter().map(|(number, _)| number).collect();
    gone.sort_unstable();
    assert!(gone == [30] || gone == [30, 31], "{gone:?}");
}

/// The slow connections a stranger opens against a server that may hold fewer than half of them.
const SLOW_CONNECTIONS: usize = 2_000;
/// Open files for the server: soft and hard, so it cannot raise them (a small VPS or container).
const SERVER_FILE_LIMIT: u32 = 1_024;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_thousand_slow_connections_do_not_keep_a_visitor_waiting() {
    // This test holds each slow connection's socket: it needs more than the usual 1024 files.
    let files = rlimit::increase_nofile_limit(u64::MAX).unwrap();
    assert!(files > SLOW_CONNECTIONS as u64 + 200, "the test needs more open files than {files}");
    let database = TestDatabase::new().await;
    // The binary, started by a shell that lowers the file limit first.
    let mut command = tokio::process::Command::new("sh");
    command
        .arg("-c")
        .arg(format!("ulimit -n {SERVER_FILE_LIMIT} && exec \"$0\" serve"))
        .arg(env!("CARGO_BIN_EXE_zayavka"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("ZAYAVKA_DATABASE_URL", &database.url)
        .env("ZAYAVKA_ANON_KEY", KEY)
        .env("ZAYAVKA_LOG", "warn,zayavka::serve=info")
        .env("ZAYAVKA_RATE_LIMIT_PER_MINUTE", "0")
        .kill_on_drop(true);
    let server = serve_on_any_port(command).await;
    let port = server.port;

    // Slow bodies are cut off at the request time limit, which the tests above and below cover;
    // these never end by themselves.
    let kinds = [Slow::Silent, Slow::HeadByTheByte];
    let (opened_tx, mut opened) = mpsc::unbounded_channel();
    let (closed_tx, mut closed) = mpsc::unbounded_channel();
    // From 200 addresses, 10 each: within each address's share, so the server's own cap is what
    // closes them.
    let mut clients = tokio::task::JoinSet::new();
    for number in 0..SLOW_CONNECTIONS {
        let kind = kinds[number % kinds.len()];
        // 127.0.0.2 to 127.0.0.201; the visitor is 127.0.0.1.
        let source = 2 + (number % 200) as u8;
        clients.spawn(slow_client_from(source, port, kind, number, opened_tx.clone(), closed_tx.clone()));
    }
    let opened = collect(&mut opened, SLOW_CONNECTIONS, Duration::from_secs(60)).await;
    let connected = opened.iter().filter(|&&ok| ok).count();
    eprintln!("{connected} of {SLOW_CONNECTIONS} slow connections opened");

    // Once the server has taken them in (what it cannot hold, it closes: the connections that
    // have waited longest), a visitor comes while the rest trickle on.
    let must_close = connected.saturating_sub(SERVER_FILE_LIMIT as usize);
    let gone = collect(&mut closed, must_close, Duration::from_secs(20)).await.len();

    let [(health, health_took), (submit, submit_took)] = visitor(port).await;
    eprintln!("{gone} closed; /healthz answered in {health_took:?}, a submit in {submit_took:?}");
    assert_eq!((health, submit), (200, 201));
    assert!(health_took < Duration::from_secs(1), "/healthz took {health_took:?}");
    assert!(submit_took < Duration::from_secs(1), "the submit took {submit_took:?}");
    assert!(gone >= must_close, "only {gone} of the {connected} closed: more open than the server's files");

    clients.shutdown().await;
    server.kill_and_read_log().await;
}

/// The server's default connection cap, and the share of one client address.
const DEFAULT_MAX_CONNECTIONS: usize = 4_096;
const CONNECTIONS_PER_CLIENT: usize = 512;

/// Opens `SLOW_CONNECTIONS` silent or trickling connections at once, from `source_of(number)`.
fn open_slow_connections(
    port: u16,
    source_of: impl Fn(usize) -> u8,
    opened: &mpsc::UnboundedSender<bool>,
    closed: &mpsc::UnboundedSender<(usize, Duration)>,
) -> tokio::task::JoinSet<()> {
    let kinds = [Slow::Silent, Slow::HeadByTheByte];
    let mut clients = tokio::task::JoinSet::new();
    for number in 0..SLOW_CONNECTIONS {
        let kind = kinds[number % kinds.len()];
        clients.spawn(slow_client_from(
            source_of(number),
            port,
            kind,
            number,
            opened.clone(),
            closed.clone(),
        ));
    }
    clients
}

/// Raises this process's open-file limit for the slow connections' sockets and the server's.
fn files_for_both_sides() {
    let files = rlimit::increase_nofile_limit(u64::MAX).unwrap();
    let needed = (DEFAULT_MAX_CONNECTIONS + SLOW_CONNECTIONS + 500) as u64;
    assert!(files >= needed, "the test needs {needed} open files, the limit is {files}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_thousand_slow_connections_from_one_address_keep_only_its_share() {
    files_for_both_sides();
    let database = TestDatabase::new().await;
    let server = Server::start_with(&database.url, &[("ZAYAVKA_HEADER_TIMEOUT_SECONDS", "60")]).await;
    let (opened_tx, mut opened) = mpsc::unbounded_channel();
    let (closed_tx, mut closed) = mpsc::unbounded_channel();
    let clients = open_slow_connections(server.port, |_| 2, &opened_tx, &closed_tx);
    let connected = collect(&mut opened, SLOW_CONNECTIONS, Duration::from_secs(60)).await;
    let connected = connected.iter().filter(|&&ok| ok).count();

    // The server is far from its cap, but 127.0.0.2 holds no more than its share.
    let must_close = connected - CONNECTIONS_PER_CLIENT;
    let gone = collect(&mut closed, must_close, Duration::from_secs(20)).await.len();
    let [(health, health_took), (submit, submit_took)] = visitor(server.port).await;
    eprintln!(
        "{connected} opened from one address, {gone} closed; /healthz answered in {health_took:?}, \
         a submit in {submit_took:?}"
    );
    assert_eq!((health, submit), (200, 201));
    assert_eq!(gone, must_close, "one address keeps {CONNECTIONS_PER_CLIENT} connections");
    drop(clients);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_thousand_slow_connections_from_200_addresses_are_all_held() {
    files_for_both_sides();
    let database = TestDatabase::new().await;
    let server = Server::start_with(&database.url, &[("ZAYAVKA_HEADER_TIMEOUT_SECONDS", "60")]).await;
    let (opened_tx, mut opened) = mpsc::unbounded_channel();
    let (closed_tx, mut closed) = mpsc::unbounded_channel();
    let clients =
        open_slow_connections(server.port, |number| 2 + (number % 200) as u8, &opened_tx, &closed_tx);
    let connected = collect(&mut opened, SLOW_CONNECTIONS, Duration::from_secs(60)).await;
    assert!(connected.iter().all(|&ok| ok), "{} of {SLOW_CONNECTIONS} opened", connected.len());

    // The visitor's connections are taken after all of them.
    let [(health, health_took), (submit, submit_took)] = visitor(server.port).await;
    eprintln!("/healthz answered in {health_took:?}, a submit in {submit_took:?}");
    assert_eq!((health, submit), (200, 201));
    let mut gone = 0;
    while closed.try_recv().is_ok() {
        gone += 1;
    }
    assert_eq!(gone, 0, "2,000 connections are within the cap: none is closed to make room");
    drop(clients);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trusted_proxy_is_not_held_to_one_address_s_share() {
    let database = TestDatabase::new().await;
    let server = Server::start_with(
        &database.url,
        &[("ZAYAVKA_HEADER_TIMEOUT_SECONDS", "60"), ("ZAYAVKA_TRUSTED_PROXIES", "127.0.0.3")],
    )
    .await;
    let (opened_tx, mut opened) = mpsc::unbounded_channel();
    let (closed_tx, mut closed) = mpsc::unbounded_channel();
    // One after another, so that their age is their number: a client's share and 100 more, then
    // as many from the proxy, which carries many clients' connections.
    let clients = CONNECTIONS_PER_CLIENT + 100;
    for number in 0..2 * clients {
        let source = if number < clients { 2 } else { 3 };
        tokio::spawn(slow_client_from(
            source,
            server.port,
            Slow::Silent,
            number,
            opened_tx.clone(),
            closed_tx.clone(),
        ));
        assert_eq!(opened.recv().await, Some(true));
    }
    let must_close = clients - CONNECTIONS_PER_CLIENT;
    let mut gone: Vec<usize> = collect(&mut closed, must_close, Duration::from_secs(10))
        .await
        .into_iter()
        .map(|(number, _)| number)
        .collect();
    // Taken after all of them: had the proxy's been over a share, one would have been asked to close.
    let [(health, _), _] = visitor(server.port).await;
    assert_eq!(health, 200);
    while let Ok((number, _)) = closed.try_recv() {
        gone.push(number);
    }
    gone.sort_unstable();
    assert_eq!(gone, (0..must_close).collect::<Vec<_>>(), "the client's oldest, none of the proxy's");
}
