//! Shared by the integration tests: an app on a fresh SQLite file, and a way to call it
//! in-process (no socket) or to run the real binary.

#![allow(dead_code)] // each test file uses a different part of this module

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use tempfile::TempDir;
use tower::ServiceExt;
use zayavka::app::{AppState, app};
use zayavka::clock::{Clock, ClockHand};
use zayavka::config::{DatabaseUrl, Settings};

use zayavka::store::Store;

pub mod inbox;
pub mod receivers;

pub const KEY: &str = "test-anon-key";

pub struct TestApp {
    pub router: Router,
    pub state: AppState,
    pub database: TestDatabase,
    /// Moves the app's clock, which stands still otherwise: a test makes time pass with it
    /// instead of waiting.
    pub clock: ClockHand,
}

pub async fn test_app() -> TestApp {
    test_app_with(|_| {}).await
}

pub async fn test_app_with(adjust: impl FnOnce(&mut Settings)) -> TestApp {
    let app = test_app_without_chores(adjust).await;
    app.state.spawn_background();
    app
}

/// The app without its background tasks (delivery, reminders, the hourly purges), for a test
/// that runs one of those itself and must not race the real one.
pub async fn test_app_without_chores(adjust: impl FnOnce(&mut Settings)) -> TestApp {
    let database = TestDatabase::new().await;
    let mut settings = Settings::defaults();
    settings.database_url = database.settings_url();
    settings.anon_key = Some(KEY.to_owned());
    // Every in-process request comes from one address; tests of the limit turn it on again (the
    // burst signals go with it).
    settings.rate_limit_per_minute = 0;
    // Requests built by tests carry no page-load proof, as a form on another site sends none;
    // tests/quarantine.rs covers the default, where that alone holds a lead.
    settings.hold_without_proof = false;
    adjust(&mut settings);
    let (clock, hand) = Clock::manual(jiff::Timestamp::now());
    let store = Store::open(&settings.database_url).await.unwrap().with_clock(clock);
    let state = AppState::new(settings, store).await.unwrap();
    TestApp { router: app(state.clone()), state, database, clock: hand }
}

/// A database of its own for one test, on the engine `ZAYAVKA_TEST_ENGINE` names (`sqlite`, the
/// default, or `postgres`): a file in a temporary folder, or a fresh schema in the PostgreSQL
/// database at `ZAYAVKA_TEST_POSTGRES_URL` (default: this machine's, database `test`), dropped
/// afterwards.
pub struct TestDatabase {
    pub url: String,
    pub dir: TempDir,
    schema: Option<String>,
}

pub fn postgres_base_url() -> String {
    std::env::var("ZAYAVKA_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into())
}

impl TestDatabase {
    pub async fn new() -> TestDatabase {
        if std::env::var("ZAYAVKA_TEST_ENGINE").as_deref() == Ok("postgres") {
            return TestDatabase::postgres().await;
        }
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("leads.db").display());
        TestDatabase { url, dir, schema: None }
    }

    /// A fresh schema on PostgreSQL, whatever `ZAYAVKA_TEST_ENGINE` says.
    pub async fn postgres() -> TestDatabase {
        let dir = tempfile::tempdir().unwrap();
        let base = postgres_base_url();
        let schema = format!("zt_{}_{}", std::process::id(), rand_suffix());
        let (client, connection) = tokio_postgres::connect(&base, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(connection);
        // Trigram search (migration 0016) finds pg_trgm in `public`, never in a test's schema,
        // which is dropped with whatever it holds. Two tests may race to create it: one wins.
        let _ = client.batch_execute("CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public").await;
        client.batch_execute(&format!("CREATE SCHEMA {schema}")).await.unwrap();
        let separator = if base.contains('?') { '&' } else { '?' };
        let url = format!("{base}{separator}options=-csearch_path%3D{schema}");
        TestDatabase { url, dir, schema: Some(schema) }
    }

    pub fn settings_url(&self) -> DatabaseUrl {
        match self.schema {
            Some(_) => DatabaseUrl::Postgres(self.url.clone()),
            None => DatabaseUrl::Sqlite(self.dir.path().join("leads.db")),
        }
    }

    /// Runs `sql` (one or more statements) straight on the database, beside any running server.
    pub async fn execute(&self, sql: &str) {
        self.try_execute(sql).await.unwrap();
    }

    /// Makes the database refuse every new entry of the audit trail (`true`), as it would if it
    /// went away between a change and its entry, or take them again (`false`).
    pub async fn refuse_audit_entries(&self, refuse: bool) {
        let sql = match (self.schema.is_some(), refuse) {
            (false, true) => {
                "CREATE TRIGGER refuse_entries BEFORE INSERT ON audit BEGIN SELECT RAISE(ABORT, 'refused'); END;"
            }
            (false, false) => "DROP TRIGGER refuse_entries;",
            (true, true) => {
                "CREATE OR REPLACE FUNCTION refuse_entries() RETURNS trigger LANGUAGE plpgsql AS \
                 $$ BEGIN RAISE EXCEPTION 'refused'; END $$; \
                 CREATE TRIGGER refuse_entries BEFORE INSERT ON audit \
                 FOR EACH ROW EXECUTE FUNCTION refuse_entries();"
            }
            (true, false) => "DROP TRIGGER refuse_entries ON audit;",
        };
        self.execute(sql).await;
    }

    /// Runs `sql` on a connection of the test's own; the database's refusal as text.
    pub async fn try_execute(&self, sql: &str) -> Result<(), String> {
        if self.schema.is_some() {
            let (client, connection) =
                tokio_postgres::connect(&self.url, tokio_postgres::NoTls).await.unwrap();
            tokio::spawn(connection);
            client.batch_execute(sql).await.map_err(|e| format!("{e}: {:?}", e.as_db_error()))
        } else {
            let connection = rusqlite::Connection::open(self.dir.path().join("leads.db")).unwrap();
            connection.busy_timeout(std::time::Duration::from_secs(5)).unwrap();
            connection.execute_batch(sql).map_err(|e| e.to_string())
        }
    }

    /// The bytes of SQLite's trigram index of names (its parts' segments, where a deleted row's entries
    /// stay unless they are removed at once); `None` on PostgreSQL, whose GIN index keeps the
    /// trigrams hashed (non-ASCII) and loses a deleted row's entries at vacuum.
    pub async fn name_index_bytes(&self) -> Option<Vec<u8>> {
        if self.schema.is_some() {
            return None;
        }
        let connection = rusqlite::Connection::open(self.dir.path().join("leads.db")).unwrap();
        let mut parts = connection.prepare("SELECT part FROM lead_name_parts").unwrap();
        let parts: Vec<i64> = parts.query_map([], |row| row.get(0)).unwrap().map(Result::unwrap).collect();
        let mut bytes = Vec::new();
        for part in parts {
            let mut blocks =
                connection.prepare(&format!("SELECT block FROM lead_names_{part}_data")).unwrap();
            let blocks = blocks.query_map([], |row| row.get::<_, Option<Vec<u8>>>(0)).unwrap();
            bytes.extend(blocks.flat_map(|block| block.unwrap().unwrap_or_default()));
        }
        Some(bytes)
    }

    /// Takes the leads table on a connection of the test's own, the way each engine can, until
    /// `TableLock::release`.
    pub async fn lock_leads_table(&self) -> TableLock {
        if self.schema.is_some() {
            let (client, connection) =
                tokio_postgres::connect(&self.url, tokio_postgres::NoTls).await.unwrap();
            tokio::spawn(connection);
            client.batch_execute("BEGIN; LOCK TABLE \"CRN\" IN ACCESS EXCLUSIVE MODE").await.unwrap();
            TableLock::Postgres(client)
        } else {
            let connection = rusqlite::Connection::open(self.dir.path().join("leads.db")).unwrap();
            connection.execute_batch("BEGIN EXCLUSIVE").unwrap();
            TableLock::Sqlite(connection)
        }
    }

    /// Makes lead `id` look as if it had been sent `hours` ago.
    pub async fn backdate(&self, id: i64, hours: i64) {
        let at = self.time_ago(jiff::SignedDuration::from_hours(hours));
        self.execute(&format!("UPDATE \"CRN\" SET created_at = {at} WHERE id = {id}")).await;
    }

    /// The time `ago` before now in each engine's own spelling: timestamptz, or the RFC 3339
    /// text SQLite stores.
    fn time_ago(&self, ago: jiff::SignedDuration) -> String {
        let at = jiff::Timestamp::now() - ago;
        if self.schema.is_some() { format!("'{at}'::timestamptz") } else { format!("'{at:.6}'") }
    }
}

/// A lock on the leads table held by a test (`TestDatabase::lock_leads_table`).
pub enum TableLock {
    Postgres(tokio_postgres::Client),
    Sqlite(rusqlite::Connection),
}

impl TableLock {
    pub async fn release(self) {
        match self {
            TableLock::Postgres(client) => client.batch_execute("ROLLBACK").await.unwrap(),
            TableLock::Sqlite(connection) => connection.execute_batch("ROLLBACK").unwrap(),
        }
    }
}

fn rand_suffix() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    format!("{nanos}_{}", COUNTER.fetch_add(1, Ordering::Relaxed))
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        if let Some(schema) = &self.schema {
            // Drop is not async; psql is on every machine that runs PostgreSQL.
            // A lock timeout: a test's server task still holding a lock must not hang the run.
            let _ = std::process::Command::new("psql")
                .env("PGOPTIONS", "-c lock_timeout=10s")
                .args([&postgres_base_url(), "-q", "-c", &format!("DROP SCHEMA IF EXISTS {schema} CASCADE")])
                .stderr(std::process::Stdio::null())
                .status();
        }
    }
}

pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Answer {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.text()))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).map(|v| v.to_str().unwrap()).unwrap_or("")
    }
}

impl TestApp {
    pub async fn call(&self, request: Request<Body>) -> Answer {
        let response = self.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        Answer { status, headers, body }
    }

    pub async fn get(&self, path: &str) -> Answer {
        self.call(Request::get(path).body(Body::empty()).unwrap()).await
    }

    /// `POST /rest/v1/CRN` as the site sends it.
    pub async fn insert(&self, body: &str, prefer: &str) -> Answer {
        let request = Request::post("/rest/v1/CRN")
            .header("apikey", KEY)
            .header("content-type", "application/json")
            .header("prefer", prefer)
            .body(Body::from(body.to_owned()))
            .unwrap();
        self.call(request).await
    }

    /// `POST /rest/v1/CRN` with the key, a JSON body and these extra headers.
    pub async fn insert_with(&self, body: &str, headers: &[(&str, &str)]) -> Answer {
        let mut request =
            Request::post("/rest/v1/CRN").header("apikey", KEY).header("content-type", "application/json");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        self.call(request.body(Body::from(body.to_owned())).unwrap()).await
    }

    pub async fn stored(&self) -> Vec<zayavka::inbox::LeadRecord> {
        self.state.store.leads_after(0, 10_000).await.unwrap()
    }
}

/// The real `zayavka` binary, run on a free loopback port with its own database.
pub struct Server {
    pub child: tokio::process::Child,
    pub port: u16,
    pub database_url: String,
}

/// Every lead as `format`, the chunks every export is made of put together (nothing audited).
pub async fn exported(store: &Store, format: zayavka::export::Format) -> Vec<u8> {
    let mut chunks = zayavka::export::chunks(store.clone(), format);
    let mut file = Vec::new();
    while let Some(chunk) = chunks.recv().await {
        file.extend_from_slice(&chunk.unwrap());
    }
    file
}

/// Every lead as `format`, exported as `zayavka leads export` does it: through the use case, for
/// someone at the command line.
pub async fn exported_at_the_command_line(app: &TestApp, format: zayavka::export::Format) -> Vec<u8> {
    let actor = zayavka::application::Actor { name: "command line".into(), address: None };
    let mut export =
        zayavka::application::export::export(app.state.services(), format, &actor).await.unwrap();
    let mut file = Vec::new();
    while let Some(chunk) = export.next().await {
        file.extend_from_slice(&chunk.unwrap());
    }
    file
}

/// The newest leads of the call list, or the held ones, whoever has them, as the inbox's list
/// without a filter asks the store.
pub async fn newest_leads(store: &Store, held: bool, limit: u32) -> Vec<zayavka::inbox::LeadRecord> {
    let query = zayavka::store::LeadQuery {
        name_pattern: None,
        phone: None,
        open_only: false,
        overdue_before: None,
        before_id: None,
        held,
        holder: zayavka::store::Holder::Anyone,
        limit,
    };
    store.find_leads(query).await.unwrap()
}

/// The call list's first 50 leads, newest first, as the inbox's search for `search` by `holder`
/// asks the store.
pub async fn found_leads(
    store: &Store,
    search: &str,
    holder: zayavka::store::Holder,
) -> Vec<zayavka::inbox::LeadRecord> {
    let (name_pattern, phone) = zayavka::inbox::Search::parse(search).patterns();
    let query = zayavka::store::LeadQuery {
        name_pattern,
        phone,
        open_only: false,
        overdue_before: None,
        before_id: None,
        held: false,
        holder,
        limit: 50,
    };
    store.find_leads(query).await.unwrap()
}

/// A lead as the form sends it: `name`, and `phone_e164` as typed too.
pub fn new_lead(name: &str, phone_e164: &str) -> zayavka::lead::NewLead {
    zayavka::lead::NewLead {
        name: name.into(),
        phone: phone_e164.into(),
        phone_e164: phone_e164.into(),
        phone_in_plan: true,
        confirmation: "Так".into(),
        comment: None,
        held: Vec::new(),
        attribution: zayavka::lead::Attribution::default(),
    }
}

/// `name` at the command line, as a test's own changes name who made them in the trail.
pub fn by(name: &str) -> zayavka::application::Actor {
    zayavka::application::Actor { name: name.into(), address: None }
}

/// The audit entry a test's own change of lead `lead_id` writes with it: `action` by `actor`.
pub fn trail(actor: &str, action: zayavka::team::Action, lead_id: i64) -> zayavka::store::AuditEntry {
    by(actor).did(action, Some(lead_id), None)
}

/// Adds the account `email` with `password_hash` straight through the store, in the trail as added
/// by "a test": with `role`, or as the store decides without one. Fails if the account exists.
pub async fn add_account(
    store: &Store,
    email: &str,
    password_hash: String,
    role: Option<zayavka::team::Role>,
) {
    let added = store.add_operator(email.into(), password_hash, role, account_added()).await.unwrap();
    assert!(added.is_some(), "{email} had an account already");
}

/// The audit entry of an account a test adds itself (`Store::add_operator`).
pub fn account_added() -> zayavka::store::EntryOf<zayavka::team::Role> {
    Box::new(|role| by("a test").did(zayavka::team::Action::AddedOperator, None, Some(role.name().into())))
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

pub fn zayavka() -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_zayavka"));
    command.env_clear().env("PATH", std::env::var("PATH").unwrap_or_default()).kill_on_drop(true);
    command
}

/// A `zayavka serve` started by [`serve_on_any_port`]: its process, the port it bound, and its log.
pub struct Serving {
    pub child: tokio::process::Child,
    pub port: u16,
    log: std::sync::Arc<std::sync::Mutex<String>>,
    log_reader: tokio::task::JoinHandle<()>,
}

impl Serving {
    /// Kills the server and returns its whole log.
    pub async fn kill_and_read_log(mut self) -> String {
        self.child.kill().await.unwrap();
        self.log_reader.await.unwrap();
        self.log.lock().unwrap().clone()
    }
}

/// Starts `command` listening on port 0 and reads the port the system picked from its start-up
/// line. A port picked free beforehand can be taken by any other socket of the machine before the
/// server binds it (CI saw it); port 0 cannot collide. The log is kept and also passed through to
/// the test's own stderr, where a failing test shows it. The command's `ZAYAVKA_LOG` must keep
/// `zayavka::serve` at info.
pub async fn serve_on_any_port(mut command: tokio::process::Command) -> Serving {
    use tokio::io::AsyncBufReadExt;
    let mut child = command
        .env("ZAYAVKA_LISTEN", "127.0.0.1:0")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).split(b'\n');
    let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let (port_tx, port_rx) = tokio::sync::oneshot::channel();
    let kept = log.clone();
    let log_reader = tokio::spawn(async move {
        let mut port_tx = Some(port_tx);
        while let Ok(Some(line)) = lines.next_segment().await {
            let line = String::from_utf8_lossy(&line);
            eprintln!("{line}");
            let mut text = kept.lock().unwrap();
            text.push_str(&line);
            text.push('\n');
            if let Some(port) = bound_port(&line) {
                if let Some(tx) = port_tx.take() {
                    let _ = tx.send(port);
                }
            }
        }
    });
    let port = tokio::time::timeout(std::time::Duration::from_secs(20), port_rx)
        .await
        .expect("the server named its port within 20 s")
        .unwrap_or_else(|_| panic!("the server stopped before listening:\n{}", log.lock().unwrap()));
    Serving { child, port, log, log_reader }
}

/// The port in `zayavka is serving on http://127.0.0.1:PORT` (the line may carry colour codes, or
/// be a JSON object).
fn bound_port(line: &str) -> Option<u16> {
    let rest = line.split("serving on http://").nth(1)?;
    let address = rest.split(|c: char| c.is_whitespace() || c == '\u{1b}' || c == '"').next()?;
    address.parse::<std::net::SocketAddr>().ok().map(|a| a.port())
}

impl Server {
    pub async fn start(database_url: &str) -> Server {
        Server::start_with(database_url, &[]).await
    }

    pub async fn start_with(database_url: &str, env: &[(&str, &str)]) -> Server {
        let mut command = zayavka();
        command
            .env("ZAYAVKA_DATABASE_URL", database_url)
            .env("ZAYAVKA_ANON_KEY", KEY)
            .env("ZAYAVKA_LOG", "warn,zayavka::serve=info")
            .env("ZAYAVKA_RATE_LIMIT_PER_MINUTE", "0")
            // As in `test_app_with`: the tests' own requests carry no page-load proof.
            .env("ZAYAVKA_HOLD_WITHOUT_PROOF", "false")
            .envs(env.iter().copied());
        let Serving { child, port, .. } = serve_on_any_port(command).await;
        let server = Server { child, port, database_url: database_url.to_owned() };
        for _ in 0..200 {
            if matches!(http(port, "GET", "/readyz", "").await, Ok((200, _))) {
                return server;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("the server did not become ready");
    }

    pub fn signal(&self, signal: &str) {
        let pid = self.child.id().expect("running").to_string();
        let status = std::process::Command::new("kill").args([&format!("-{signal}"), &pid]).status().unwrap();
        assert!(status.success());
    }

    /// `zayavka leads export --format jsonl` on this server's database.
    pub async fn export_jsonl(&self) -> Vec<serde_json::Value> {
        let output = zayavka()
            .args(["leads", "export", "--format", "jsonl"])
            .env("ZAYAVKA_DATABASE_URL", &self.database_url)
            .output()
            .await
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }
}

/// One HTTP/1.1 request over a fresh connection; the status and body.
pub async fn http(port: u16, method: &str, path: &str, json: &str) -> Result<(u16, String), String> {
    http_from([127, 0, 0, 1], port, method, path, json).await
}

/// The same, from another loopback address (the whole 127.0.0.0/8 is this machine), so one test
/// can be two clients.
pub async fn http_from(
    source: [u8; 4],
    port: u16,
    method: &str,
    path: &str,
    json: &str,
) -> Result<(u16, String), String> {
    use hyper_util::rt::TokioIo;
    let socket = tokio::net::TcpSocket::new_v4().map_err(|e| e.to_string())?;
    socket.bind((std::net::Ipv4Addr::from(source), 0).into()).map_err(|e| e.to_string())?;
    let stream = socket.connect(([127, 0, 0, 1], port).into()).await.map_err(|e| e.to_string())?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| e.to_string())?;
    tokio::spawn(connection);
    let request = Request::builder()
        .method(method)
        .uri(path)
        .header("host", "127.0.0.1")
        .header("apikey", KEY)
        .header("content-type", "application/json")
        .header("prefer", "return=representation")
        .body(http_body_util::Full::new(Bytes::from(json.to_owned())))
        .unwrap();
    let response = sender.send_request(request).await.map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let body = response.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
    Ok((status, String::from_utf8_lossy(&body).into_owned()))
}

/// A request with extra headers; the status, the `Set-Cookie` header and the body.
pub async fn request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    use hyper_util::rt::TokioIo;
    let stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.unwrap();
    tokio::spawn(connection);
    let mut request = hyper::Request::builder()
        .method(method)
        .uri(path)
        .header("host", format!("127.0.0.1:{port}"))
        .header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request.body(http_body_util::Full::new(hyper::body::Bytes::from(body.to_owned()))).unwrap();
    let response = sender.send_request(request).await.unwrap();
    let status = response.status().as_u16();
    let cookie =
        response.headers().get("set-cookie").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, cookie, String::from_utf8_lossy(&body).into_owned())
}

/// Adds an operator account through `zayavka admin add-user EMAIL --password-stdin`.
pub async fn add_operator(database_url: &str, email: &str, password: &str) {
    use tokio::io::AsyncWriteExt;
    let mut add = zayavka()
        .args(["admin", "add-user", email, "--password-stdin"])
        .env("ZAYAVKA_DATABASE_URL", database_url)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    add.stdin.take().unwrap().write_all(format!("{password}\n").as_bytes()).await.unwrap();
    assert!(add.wait().await.unwrap().success());
}

/// Signs in to the inbox of the server on `port`; the session cookie (`name=value`) and the
/// CSRF token.
pub async fn sign_in(port: u16, email: &str, password: &str) -> (String, String) {
    let body = serde_json::json!({ "email": email, "password": password }).to_string();
    let (status, set_cookie, answer) = request(port, "POST", "/admin/api/login", &[], &body).await;
    assert_eq!(status, 200, "{answer}");
    let cookie = set_cookie.split(';').next().unwrap().to_owned();
    let csrf = serde_json::from_str::<serde_json::Value>(&answer).unwrap()["csrf_token"]
        .as_str()
        .unwrap()
        .to_owned();
    (cookie, csrf)
}

/// `POST /leads` as the form sends it without JavaScript; the status and the body.
pub async fn post_form(port: u16, fields: &[(&str, &str)]) -> Result<(u16, String), String> {
    use hyper_util::rt::TokioIo;
    let body = fields
        .iter()
        .map(|(name, value)| {
            format!("{name}={}", value.bytes().map(|b| format!("%{b:02X}")).collect::<String>())
        })
        .collect::<Vec<_>>()
        .join("&");
    let stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.map_err(|e| e.to_string())?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| e.to_string())?;
    tokio::spawn(connection);
    let request = Request::post("/leads")
        .header("host", "127.0.0.1")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(http_body_util::Full::new(Bytes::from(body)))
        .unwrap();
    let response = sender.send_request(request).await.map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let body = response.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
    Ok((status, String::from_utf8_lossy(&body).into_owned()))
}
