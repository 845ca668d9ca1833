//! The command line: `--help`, clear start-up errors, graceful shutdown, export.

use crate::common;

use common::{Server, free_port, zayavka};

async fn run(args: &[&str], env: &[(&str, &str)]) -> (bool, String, String) {
    let output = zayavka().args(args).envs(env.iter().copied()).output().await.unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The audit trail's entries of `action`, as `zayavka admin audit --format jsonl` gives them.
async fn audited(env: &[(&str, &str)], action: &str) -> Vec<serde_json::Value> {
    let (ok, trail, stderr) = run(&["admin", "audit", "--format", "jsonl"], env).await;
    assert!(ok, "{stderr}");
    trail
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|e: &serde_json::Value| e["action"] == action)
        .collect()
}

#[tokio::test]
async fn help_lists_every_setting() {
    let (ok, stdout, _) = run(&["--help"], &[]).await;
    assert!(ok);
    for variable in [
        "ZAYAVKA_LISTEN",
        "ZAYAVKA_DATABASE_URL",
        "ZAYAVKA_ANON_KEY",
        "ZAYAVKA_BACKEND_URL",
        "ZAYAVKA_REDIRECT_URL",
        "ZAYAVKA_CONTACT_PHONE",
        "ZAYAVKA_LOG",
        "ZAYAVKA_WEBHOOK_URL",
        "ZAYAVKA_WEBHOOK_SECRET",
        "ZAYAVKA_TELEGRAM_BOT_TOKEN",
        "ZAYAVKA_TELEGRAM_CHAT_ID",
        "ZAYAVKA_TELEGRAM_API_URL",
        "ZAYAVKA_SMTP_URL",
        "ZAYAVKA_NOTIFY_EMAIL_TO",
        "ZAYAVKA_NOTIFY_EMAIL_FROM",
        "ZAYAVKA_NOTIFY_INCLUDE_PII",
        "ZAYAVKA_RETENTION_DAYS",
        "ZAYAVKA_REMIND_AFTER_HOURS",
        "ZAYAVKA_ESCALATE_AFTER_HOURS",
        "ZAYAVKA_PUBLIC_URL",
        "ZAYAVKA_TRUSTED_PROXIES",
        "ZAYAVKA_RATE_LIMIT_PER_MINUTE",
        "ZAYAVKA_MIN_FILL_SECONDS",
        "ZAYAVKA_HOLD_WITHOUT_PROOF",
        "ZAYAVKA_HOLD_DAYS",
        "ZAYAVKA_MAX_CONNECTIONS",
        "ZAYAVKA_HEADER_TIMEOUT_SECONDS",
        "--config",
    ] {
        assert!(stdout.contains(variable), "--help does not mention {variable}");
    }
}

/// `--help` shows what a setting is, not the secret it is set to: a database URL's password, a
/// webhook's URL (receivers often take their secret in it), the tokens and keys.
#[tokio::test]
async fn help_does_not_print_the_secrets_it_is_run_with() {
    let secrets = [
        ("ZAYAVKA_DATABASE_URL", "postgres://zayavka:db-password-1@127.0.0.1/z"),
        ("ZAYAVKA_WEBHOOK_URL", "https://hooks.example.org/T0/hook-secret-2"),
        ("ZAYAVKA_WEBHOOK_SECRET", "signing-secret-3"),
        ("ZAYAVKA_TELEGRAM_BOT_TOKEN", "1:bot-token-4"),
        ("ZAYAVKA_SMTP_URL", "smtps://user:smtp-password-5@mail.example.org"),
    ];
    let (ok, stdout, _) = run(&["--help"], &secrets).await;
    assert!(ok);
    for secret in ["db-password-1", "hook-secret-2", "signing-secret-3", "bot-token-4", "smtp-password-5"] {
        assert!(!stdout.contains(secret), "--help printed {secret}");
    }
}

/// A bad setting stops the start with one clear line on stderr, a non-zero exit, no backtrace.
async fn assert_refused_start(env: &[(&str, &str)], expected: &str) {
    let dir = tempfile::tempdir().unwrap();
    let database_url = format!("sqlite://{}", dir.path().join("leads.db").display());
    let mut all_env = vec![("ZAYAVKA_DATABASE_URL", database_url.as_str())];
    all_env.extend_from_slice(env);
    let (ok, _, stderr) = run(&["serve"], &all_env).await;
    assert!(!ok, "the start should fail for {env:?}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(lines.len(), 1, "one error line expected, got: {stderr}");
    assert!(lines[0].contains(expected), "'{expected}' not in: {stderr}");
    assert!(!stderr.contains("panicked") && !stderr.contains("backtrace"), "{stderr}");
}

#[tokio::test]
async fn bad_settings_stop_the_start_with_one_clear_line() {
    assert_refused_start(&[("ZAYAVKA_REDIRECT_URL", "not a url")], "ZAYAVKA_REDIRECT_URL").await;
    assert_refused_start(&[("ZAYAVKA_BACKEND_URL", "ftp://x")], "ZAYAVKA_BACKEND_URL").await;
    assert_refused_start(&[("ZAYAVKA_LISTEN", "localhost")], "ZAYAVKA_LISTEN").await;
    assert_refused_start(&[("ZAYAVKA_DATABASE_URL", "mysql://db")], "ZAYAVKA_DATABASE_URL").await;
    assert_refused_start(&[("ZAYAVKA_REMIND_AFTER_HOURS", "48")], "not before the 48-hour deadline").await;
    assert_refused_start(&[("ZAYAVKA_REMIND_AFTER_HOURS", "soon")], "'soon' is not a whole number").await;
    assert_refused_start(&[("ZAYAVKA_RETENTION_DAYS", "0")], "not between 1 and 3650 days").await;
    assert_refused_start(
        &[("ZAYAVKA_ESCALATE_AFTER_HOURS", "48")],
        "ZAYAVKA_ESCALATE_AFTER_HOURS: 48 is not before the 48-hour deadline",
    )
    .await;
}

#[tokio::test]
async fn an_unreachable_database_stops_the_start() {
    let port = free_port(); // nothing listens there
    let url = format!("postgres://postgres@127.0.0.1:{port}/test");
    assert_refused_start(&[("ZAYAVKA_DATABASE_URL", &url)], "cannot connect to PostgreSQL").await;
}

/// A PostgreSQL database whose `lower()` knows only ASCII (`LC_CTYPE 'C'`) would list every name
/// in capitals, never found by a search: it is refused at the start, before any migration.
#[tokio::test]
async fn a_postgresql_database_that_cannot_lower_ukrainian_letters_stops_the_start() {
    let base = common::postgres_base_url();
    let name = format!("zt_c_locale_{}", std::process::id());
    let (client, connection) = tokio_postgres::connect(&base, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    client
        .batch_execute(&format!(
            "CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"
        ))
        .await
        .unwrap();
    let url = format!("{}/{name}", base.rsplit_once('/').unwrap().0);
    let env = [("ZAYAVKA_DATABASE_URL", url.as_str()), ("ZAYAVKA_LISTEN", "127.0.0.1:0")];
    let started = tokio::time::timeout(std::time::Duration::from_secs(60), run(&["serve"], &env)).await;
    let tables: i64 = {
        let (inside, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
        let watched = tokio::spawn(connection);
        let count = inside
            .query_one("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", &[])
            .await
            .unwrap()
            .get(0);
        drop(inside);
        let _ = watched.await;
        count
    };
    client.batch_execute(&format!("DROP DATABASE {name} WITH (FORCE)")).await.unwrap();
    let (ok, _, stderr) = started.expect("the server started and served");
    assert!(!ok, "{stderr}");
    assert!(stderr.contains("does not lower Ukrainian letters") && stderr.contains("C.UTF-8"), "{stderr}");
    assert_eq!(tables, 0, "nothing was created");
}

/// A database migrated by a newer release (the binary moved back after an upgrade) is not opened:
/// this binary would fail or count wrong where it met what it does not know.
#[tokio::test]
async fn a_database_migrated_by_a_newer_release_is_not_opened() {
    let database = common::TestDatabase::new().await;
    let store = zayavka::store::Store::open(&database.settings_url()).await.unwrap();
    store.close().await;
    database
        .execute(match database.settings_url() {
            zayavka::config::DatabaseUrl::Sqlite(_) => "PRAGMA user_version = 999",
            zayavka::config::DatabaseUrl::Postgres(_) => "INSERT INTO zayavka_schema (version) VALUES (999)",
        })
        .await;
    let env = [("ZAYAVKA_DATABASE_URL", database.url.as_str())];
    let (ok, _, stderr) = run(&["leads", "export", "--format", "jsonl"], &env).await;
    assert!(!ok, "{stderr}");
    assert!(stderr.contains("migrated by a newer zayavka (its schema is at 999"), "{stderr}");
}

#[tokio::test]
async fn a_port_in_use_stops_the_start() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    assert_refused_start(&[("ZAYAVKA_LISTEN", &address)], &format!("cannot listen on {address}")).await;
}

#[tokio::test]
async fn an_unusable_data_folder_stops_the_start() {
    // A folder cannot be made inside a regular file, even by root.
    let file = tempfile::NamedTempFile::new().unwrap();
    let url = format!("sqlite://{}/data/leads.db", file.path().display());
    assert_refused_start(&[("ZAYAVKA_DATABASE_URL", &url)], "cannot create the data folder").await;
}

#[tokio::test]
async fn sigterm_stops_gracefully() {
    let dir = tempfile::tempdir().unwrap();
    let database_url = format!("sqlite://{}", dir.path().join("leads.db").display());
    let mut server = Server::start(&database_url).await;
    server.signal("TERM");
    let status =
        tokio::time::timeout(std::time::Duration::from_secs(15), server.child.wait()).await.unwrap().unwrap();
    assert!(status.success(), "{status:?}");
    // A clean close checkpoints and removes the write-ahead log.
    assert!(!dir.path().join("leads.db-wal").exists());
}

#[tokio::test]
async fn the_data_folder_and_database_are_created_on_first_start() {
    let dir = tempfile::tempdir().unwrap();
    let database_url = format!("sqlite://{}", dir.path().join("new/folder/leads.db").display());
    let _server = Server::start(&database_url).await;
    assert!(dir.path().join("new/folder/leads.db").exists());
}

#[tokio::test]
async fn export_writes_excel_ready_csv_and_jsonl_oldest_first() {
    let database = common::TestDatabase::new().await;
    let database_url = database.url.clone();
    let server = Server::start(&database_url).await;
    for (name, phone, comment) in
        [("Олена", "+380671234567", "null"), ("=HYPERLINK(\\\"http://x\\\")", "0501234567", "\"-2+3\"")]
    {
        let body =
            format!(r#"{{"name":"{name}","phone":"{phone}","confirmation":"Так","comment":{comment}}}"#);
        let (status, answer) = common::http(server.port, "POST", "/rest/v1/CRN", &body).await.unwrap();
        assert_eq!(status, 201, "{answer}");
    }
    let env = [("ZAYAVKA_DATABASE_URL", database_url.as_str())];

    let (ok, csv, stderr) = run(&["leads", "export", "--format", "csv"], &env).await;
    assert!(ok, "{stderr}");
    assert!(csv.starts_with('\u{FEFF}'), "UTF-8 byte-order mark for Excel");
    let lines: Vec<&str> = csv.trim_start_matches('\u{FEFF}').lines().collect();
    assert!(lines[0].starts_with("id,created_at,name,phone,confirmation,comment,"), "{}", lines[0]);
    assert!(lines[1].contains(",Олена,'+380671234567,Так,"), "{}", lines[1]);
    assert!(lines[2].contains(",\"'=HYPERLINK(\"\"http://x\"\")\","), "{}", lines[2]);
    assert!(lines[2].contains(",'-2+3,new,,"), "{}", lines[2]);

    let jsonl = server.export_jsonl().await;
    assert_eq!(jsonl.len(), 2);
    assert_eq!(jsonl[0]["name"], "Олена");
    assert!(jsonl[0]["id"].as_i64() < jsonl[1]["id"].as_i64());
    for key in ["id", "created_at", "name", "phone", "confirmation", "comment", "status", "policy_version"] {
        assert!(jsonl[0].get(key).is_some(), "{key}");
    }
}

/// With uk-UA settings Excel splits a CSV line at `;` (its list separator), and then at line breaks
/// inside quoted cells too. No piece may start a formula there, and a cell holding `;` is quoted.
/// `--format xlsx` is the same leads as a workbook of text and number cells.
#[tokio::test]
async fn the_export_is_safe_in_a_ukrainian_excel_and_comes_as_a_workbook_too() {
    use calamine::{Data, Reader as _};
    let database = common::TestDatabase::new().await;
    let database_url = database.url.clone();
    let server = Server::start(&database_url).await;
    let leads = [
        ("a;=1+1;b", "0671234567", "дзвонити;@SUM(A1)\n-1+1;\"=2+2\""),
        ("Олена", "0501234567", "=HYPERLINK(\"http://x\";\"клік\")"),
    ];
    for (name, phone, comment) in leads {
        let body =
            serde_json::json!({ "name": name, "phone": phone, "confirmation": "Так", "comment": comment });
        let (status, answer) =
            common::http(server.port, "POST", "/rest/v1/CRN", &body.to_string()).await.unwrap();
        assert_eq!(status, 201, "{answer}");
    }
    let env = [("ZAYAVKA_DATABASE_URL", database_url.as_str())];

    let (ok, csv, stderr) = run(&["leads", "export", "--format", "csv"], &env).await;
    assert!(ok, "{stderr}");
    assert!(csv.contains(",\"a;'=1+1;b\",0671234567,"), "{csv}");
    assert!(csv.contains(",\"дзвонити;'@SUM(A1)\n'-1+1;'\"\"=2+2\"\"\","), "{csv}");
    let rows = csv.trim_start_matches('\u{FEFF}');
    for piece in rows.split([';', '\n']).filter(|piece| !piece.is_empty()) {
        let first = piece.chars().next().unwrap();
        assert!(!"=+-@\t\r\"".contains(first), "a uk-UA Excel would start a cell with {piece:?}");
    }

    let output = common::zayavka()
        .args(["leads", "export", "--format", "xlsx"])
        .envs(env.iter().copied())
        .output()
        .await
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let mut workbook = calamine::Xlsx::new(std::io::Cursor::new(output.stdout)).unwrap();
    let sheet = workbook.sheet_names()[0].clone();
    let formulas = workbook.worksheet_formula(&sheet).unwrap();
    assert!(formulas.used_cells().all(|(_, _, formula)| formula.is_empty()), "a formula in the workbook");
    let range = workbook.worksheet_range(&sheet).unwrap();
    let rows: Vec<&[Data]> = range.rows().collect();
    let header: Vec<String> = rows[0].iter().map(ToString::to_string).collect();
    assert_eq!(
        header.join(","),
        csv.trim_start_matches('\u{FEFF}').lines().next().unwrap(),
        "the CSV's columns"
    );
    assert_eq!(rows.len(), 1 + leads.len());
    let jsonl = server.export_jsonl().await;
    for ((row, (name, _, comment)), line) in rows[1..].iter().zip(leads).zip(&jsonl) {
        assert_eq!(row[0], Data::Float(line["id"].as_i64().unwrap() as f64));
        assert_eq!(row[1], Data::String(line["created_at"].as_str().unwrap().to_owned()));
        assert_eq!(row[2], Data::String(name.to_owned()));
        assert_eq!(row[3], Data::String(line["phone"].as_str().unwrap().to_owned()));
        assert_eq!(row[5], Data::String(comment.to_owned()));
    }
    let trail = run(&["admin", "audit", "--format", "jsonl"], &env).await.1;
    assert!(trail.contains(r#""detail":"xlsx""#), "{trail}");
}

#[tokio::test]
async fn the_anon_key_is_generated_once_and_kept() {
    let database = common::TestDatabase::new().await;
    let database_url = database.url.clone();
    let key_of =
        |html: &str| html.split("\"anonKey\":\"").nth(1).unwrap().split('"').next().unwrap().to_owned();
    let mut keys = Vec::new();
    for _ in 0..2 {
        let mut command = zayavka();
        command.env("ZAYAVKA_DATABASE_URL", &database_url);
        let common::Serving { mut child, port, .. } = common::serve_on_any_port(command).await;
        let mut page = None;
        for _ in 0..100 {
            if let Ok((200, html)) = common::http(port, "GET", "/", "").await {
                page = Some(html);
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        keys.push(key_of(&page.expect("the server answers")));
        child.kill().await.unwrap();
    }
    assert!(keys[0].len() >= 32, "{}", keys[0]);
    assert_eq!(keys[0], keys[1]);
}

#[tokio::test]
async fn logs_never_hold_a_visitors_name_or_phone() {
    let database = common::TestDatabase::new().await;
    let mut command = zayavka();
    command
        .env("ZAYAVKA_DATABASE_URL", &database.url)
        .env("ZAYAVKA_ANON_KEY", common::KEY)
        // The most talkative level an operator might set, dependencies included.
        .env("ZAYAVKA_LOG", "trace")
        // A notification channel that fails, so its retries are logged too.
        .env("ZAYAVKA_WEBHOOK_URL", "http://127.0.0.1:9/hook")
        .env("ZAYAVKA_NOTIFY_INCLUDE_PII", "true")
        // A request of the test carries no page-load proof; a held lead would not be notified.
        .env("ZAYAVKA_HOLD_WITHOUT_PROOF", "false");
    let server = common::serve_on_any_port(command).await;
    let port = server.port;
    for _ in 0..100 {
        if let Ok((200, _)) = common::http(port, "GET", "/readyz", "").await {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let lead =
        r#"{"name":"Тарас Шевченко","phone":"+380 63 987 65 43","confirmation":"Так","comment":"Кобзар"}"#;
    let (status, _) = common::http(port, "POST", "/rest/v1/CRN?note=98765", lead).await.unwrap();
    assert_eq!(status, 201);
    // The notification's first attempt fails and is logged: watch /metrics count it.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let (_, metrics) = common::http(port, "GET", "/metrics", "").await.unwrap();
        if metrics.lines().any(|l| l.starts_with("zayavka_notifications_failed_total{channel=\"webhook\"} 1"))
        {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no failed notification counted: {metrics}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let bad = r#"{"name":"Тарас Шевченко","phone":"63 987 x","confirmation":"Так"}"#;
    common::http(port, "POST", "/rest/v1/CRN", bad).await.unwrap();
    let log = server.kill_and_read_log().await;
    assert!(log.contains("lead stored"), "the log says what happened: {log}");
    assert!(log.contains("notification failed"), "the failed notification is logged: {log}");
    // The phone as sent, as stored (E.164) and its national digits; the refused one as sent.
    // Not a short fragment such as "987": a timestamp's microseconds can hold it by chance.
    for secret in ["Тарас", "Шевченко", "Кобзар", "63 987 65 43", "639876543", "63 987 x"]
    {
        assert!(!log.contains(secret), "'{secret}' is in the log:\n{log}");
    }
}

#[tokio::test]
async fn backup_copies_a_running_database() {
    let dir = tempfile::tempdir().unwrap();
    let database_url = format!("sqlite://{}", dir.path().join("leads.db").display());
    let server = Server::start(&database_url).await;
    for n in 0..3 {
        let body =
            format!(r#"{{"name":"Лід {n}","phone":"+38067555000{n}","confirmation":"Так","comment":null}}"#);
        assert_eq!(common::http(server.port, "POST", "/rest/v1/CRN", &body).await.unwrap().0, 201);
    }
    let copy = dir.path().join("copy.db");
    let env = [("ZAYAVKA_DATABASE_URL", database_url.as_str())];
    let (ok, _, stderr) = run(&["backup", copy.to_str().unwrap()], &env).await;
    assert!(ok, "{stderr}");

    let copy_url = format!("sqlite://{}", copy.display());
    let (ok, jsonl, _) =
        run(&["leads", "export", "--format", "jsonl"], &[("ZAYAVKA_DATABASE_URL", &copy_url)]).await;
    assert!(ok);
    assert_eq!(jsonl.lines().count(), 3, "the copy holds every lead");
    // A copy of everyone's data is in the trail, as an export is.
    let backups = audited(&env, "exported").await;
    assert_eq!(backups.len(), 1, "{backups:?}");
    assert!(backups[0]["actor"].as_str().unwrap().starts_with("command line"), "{backups:?}");
    assert!(backups[0]["detail"].as_str().unwrap().contains(copy.to_str().unwrap()), "{backups:?}");

    let (ok, _, stderr) = run(&["backup", copy.to_str().unwrap()], &env).await;
    assert!(!ok && stderr.contains("exists already"), "an existing file is never overwritten: {stderr}");
}

#[tokio::test]
async fn backup_on_postgresql_points_to_pg_dump_and_writes_nothing() {
    let database = common::TestDatabase::postgres().await;
    let copy = database.dir.path().join("copy.db");
    let (ok, _, stderr) =
        run(&["backup", copy.to_str().unwrap()], &[("ZAYAVKA_DATABASE_URL", database.url.as_str())]).await;
    assert!(!ok && stderr.contains("pg_dump"), "{stderr}");
    assert!(!copy.exists());
}

#[tokio::test]
async fn build_static_writes_the_site_with_the_settings_filled_in() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("site");
    let env = [
        ("ZAYAVKA_BACKEND_URL", "https://abcd.supabase.co"),
        ("ZAYAVKA_ANON_KEY", "public-anon-key"),
        ("ZAYAVKA_CONTACT_PHONE", "+380 44 222 33 44"),
    ];
    let (ok, _, stderr) = run(&["build-static", out.to_str().unwrap()], &env).await;
    assert!(ok, "{stderr}");
    for page in ["index.html", "thank-you/index.html", "privacy-policy/index.html", "404.html"] {
        let html = std::fs::read_to_string(out.join(page)).unwrap();
        assert!(!html.contains("__ZAYAVKA_"), "{page} still has a token");
        assert!(html.contains("https://abcd.supabase.co"), "{page}");
    }
    let home = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(home.contains("+380 44 222 33 44") && home.contains("public-anon-key"));
    // The page's loader names its scripts (ADR 0036); each is written beside the pages.
    let scripts: Vec<&str> = home.split("\"/assets/").skip(1).map(|s| s.split('"').next().unwrap()).collect();
    assert!(!scripts.is_empty() && scripts.iter().all(|script| out.join("assets").join(script).exists()));

    let (ok, _, stderr) = run(&["build-static", out.to_str().unwrap()], &[("ZAYAVKA_ANON_KEY", "k")]).await;
    assert!(!ok && stderr.contains("ZAYAVKA_BACKEND_URL"), "{stderr}");
}

#[tokio::test]
async fn operator_commands_never_create_an_empty_database() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("typo.db").display());
    let (ok, _, stderr) = run(&["leads", "export"], &[("ZAYAVKA_DATABASE_URL", &url)]).await;
    assert!(!ok && stderr.contains("there is no database at"), "{stderr}");
    assert!(!dir.path().join("typo.db").exists());
}

#[tokio::test]
async fn operator_accounts_from_the_command_line() {
    let database = common::TestDatabase::new().await;
    let env = [("ZAYAVKA_DATABASE_URL", database.url.as_str())];
    let account = |command: &'static str, email: &'static str, password: &'static str| {
        let env = env.to_vec();
        async move {
            let mut child = zayavka()
                .args(["admin", command, email, "--password-stdin"])
                .envs(env)
                .stdin(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            use tokio::io::AsyncWriteExt;
            child.stdin.take().unwrap().write_all(format!("{password}\n").as_bytes()).await.unwrap();
            let output = child.wait_with_output().await.unwrap();
            (output.status.success(), String::from_utf8_lossy(&output.stderr).into_owned())
        }
    };
    // Before the server ever started: add-user creates the database.
    let (ok, said) = account("add-user", "Op@Example.org", "first password!").await;
    assert!(ok && said.contains("op@example.org added as admin"), "{said}");
    let (ok, said) = account("add-user", "op@example.org", "another password").await;
    assert!(!ok && said.contains("has an account already"), "{said}");
    let (ok, said) = account("add-user", "two@example.org", "short").await;
    assert!(!ok && said.contains("at least 10 characters"), "{said}");
    let (ok, said) = account("add-user", "not-an-address", "long enough password").await;
    assert!(!ok && said.contains("not an e-mail address"), "{said}");
    let (ok, said) = account("passwd", "nobody@example.org", "long enough password").await;
    assert!(!ok && said.contains("there is no operator"), "{said}");
    let (ok, said) = account("passwd", "op@example.org", "second password!").await;
    assert!(ok && said.contains("password of op@example.org changed"), "{said}");

    let store = zayavka::store::Store::open(&database.settings_url()).await.unwrap();
    let operator = store.operator("op@example.org".into()).await.unwrap().unwrap();
    assert!(operator.password_hash.starts_with("$argon2id$"));
    assert!(zayavka::auth::verify_password(Some(&operator.password_hash), "second password!"));
    assert!(!zayavka::auth::verify_password(Some(&operator.password_hash), "first password!"));
    // The trail has the change of password, by the command line, and no change for "nobody".
    let trail = store.audit_page(None, 10).await.unwrap();
    let changed: Vec<_> = trail
        .iter()
        .filter(|e| e.action == "changed_password")
        .map(|e| (e.actor.starts_with("command line"), e.detail.as_deref(), e.address.as_deref()))
        .collect();
    assert_eq!(changed, [(true, Some("op@example.org"), None)]);
    store.close().await;
}

/// The first account is an admin whatever the command asked: an operator alone could not run the
/// team, and with an account in place the setup link is gone.
#[tokio::test]
async fn the_first_account_is_an_admin_even_when_asked_for_an_operator() {
    let database = common::TestDatabase::new().await;
    let mut child = zayavka()
        .args(["admin", "add-user", "first@example.org", "--role", "operator", "--password-stdin"])
        .env("ZAYAVKA_DATABASE_URL", &database.url)
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use tokio::io::AsyncWriteExt;
    child.stdin.take().unwrap().write_all(b"long enough password\n").await.unwrap();
    let output = child.wait_with_output().await.unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success() && said.contains("first@example.org added as admin"), "{said}");
    let store = zayavka::store::Store::open(&database.settings_url()).await.unwrap();
    let account = store.operator("first@example.org".into()).await.unwrap().unwrap();
    assert_eq!(account.role, zayavka::team::Role::Admin);
    store.close().await;
}

/// A listing whose reader has gone (`zayavka admin users | head -0`) ends with an error, not a
/// panic (exit 101 and a backtrace hint on the operator's terminal).
#[tokio::test]
async fn a_listing_into_a_closed_pipe_ends_without_a_panic() {
    let database = common::TestDatabase::new().await;
    let store = zayavka::store::Store::open(&database.settings_url()).await.unwrap();
    common::add_account(&store, "op@example.org", "hash".into(), None).await;
    store.close().await;
    for command in [&["admin", "users"][..], &["admin", "closed-days", "list"], &["leads", "figures"]] {
        let mut child = zayavka()
            .args(command)
            .env("ZAYAVKA_DATABASE_URL", &database.url)
            .env("ZAYAVKA_CLOSED_DAYS", "2027-01-01")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes before the command has opened the database, let alone written.
        drop(child.stdout.take());
        let output = child.wait_with_output().await.unwrap();
        let said = String::from_utf8_lossy(&output.stderr);
        assert_ne!(output.status.code(), Some(101), "{command:?}: {said}");
        assert!(!said.contains("panicked"), "{command:?}: {said}");
    }
}

/// Without a terminal to ask on (`systemd-run --pipe`, `docker exec` without `-t`), adding an
/// account says how to give the password instead, and adds nobody.
#[tokio::test]
async fn without_a_terminal_the_password_is_asked_for_on_stdin() {
    let database = common::TestDatabase::new().await;
    // `setsid` runs the command in a session of its own: no controlling terminal.
    let output = tokio::process::Command::new("setsid")
        .arg(env!("CARGO_BIN_EXE_zayavka"))
        .args(["admin", "add-user", "op@example.org"])
        .env_clear()
        .env("ZAYAVKA_DATABASE_URL", &database.url)
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(said.contains("--password-stdin"), "{said}");
    let store = zayavka::store::Store::open(&database.settings_url()).await.unwrap();
    assert!(store.operator("op@example.org".into()).await.unwrap().is_none());
    store.close().await;
}

#[tokio::test]
async fn leads_erase_removes_one_persons_leads() {
    let database = common::TestDatabase::new().await;
    let server = Server::start(&database.url).await;
    for (name, phone) in [("Олена", "+380671234567"), ("Іван", "0501234567")] {
        let body = format!(r#"{{"name":"{name}","phone":"{phone}","confirmation":"Так"}}"#);
        assert_eq!(common::http(server.port, "POST", "/rest/v1/CRN", &body).await.unwrap().0, 201);
    }
    let env = [("ZAYAVKA_DATABASE_URL", database.url.as_str())];
    let (ok, _, stderr) = run(&["leads", "erase", "--phone", "not a phone"], &env).await;
    assert!(!ok && stderr.contains("does not look like a phone number"), "{stderr}");
    let (ok, _, stderr) = run(&["leads", "erase", "--phone", "067 123-45-67"], &env).await;
    assert!(ok && stderr.contains("1 lead(s) erased"), "{stderr}");
    let left = server.export_jsonl().await;
    assert_eq!(left.len(), 1);
    assert_eq!(left[0]["name"], "Іван");
}

/// An erasure whose number cannot yet be removed from SQLite's WAL (a reader holds an older
/// snapshot) fails, but the leads it deleted are in the audit trail; erasing again removes them.
#[tokio::test]
async fn an_erasure_that_finds_the_log_busy_is_still_in_the_audit_trail() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("leads.db");
    let database_url = format!("sqlite://{}", path.display());
    let server = Server::start(&database_url).await;
    let body = r#"{"name":"Олена","phone":"+380671234567","confirmation":"Так"}"#;
    assert_eq!(common::http(server.port, "POST", "/rest/v1/CRN", body).await.unwrap().0, 201);
    let reader = rusqlite::Connection::open(&path).unwrap();
    reader.execute_batch("BEGIN; SELECT count(*) FROM \"CRN\";").unwrap();

    let env = [("ZAYAVKA_DATABASE_URL", database_url.as_str())];
    let (ok, _, stderr) = run(&["leads", "erase", "--phone", "067 123 45 67"], &env).await;
    assert!(!ok && stderr.contains("busy"), "{stderr}");
    let erased = audited(&env, "erased").await;
    assert_eq!(erased.len(), 1, "{erased:?}");
    assert_eq!(erased[0]["detail"], "1 lead(s)");

    reader.execute_batch("COMMIT").unwrap();
    let (ok, _, stderr) = run(&["leads", "erase", "--phone", "067 123 45 67"], &env).await;
    assert!(ok && stderr.contains("0 lead(s) erased"), "{stderr}");
    assert_eq!(std::fs::metadata(dir.path().join("leads.db-wal")).map_or(0, |m| m.len()), 0);
}

#[tokio::test]
async fn leads_purge_deletes_the_leads_past_the_retention_period() {
    let database = common::TestDatabase::new().await;
    let mut server = Server::start_with(&database.url, &[("ZAYAVKA_RETENTION_DAYS", "30")]).await;
    let mut ids = Vec::new();
    for (name, phone) in [("Давня", "+380671234567"), ("Недавня", "0501234567")] {
        let body = format!(r#"{{"name":"{name}","phone":"{phone}","confirmation":"Так"}}"#);
        let (status, answer) = common::http(server.port, "POST", "/rest/v1/CRN", &body).await.unwrap();
        assert_eq!(status, 201, "{answer}");
        ids.push(serde_json::from_str::<serde_json::Value>(&answer).unwrap()[0]["id"].as_i64().unwrap());
    }
    // Stopped, so that its own hourly chore (its first runs at the start) cannot purge first.
    server.signal("TERM");
    server.child.wait().await.unwrap();
    database.backdate(ids[0], 24 * 31).await;
    database.backdate(ids[1], 24 * 29).await;
    let env = [("ZAYAVKA_DATABASE_URL", database.url.as_str()), ("ZAYAVKA_RETENTION_DAYS", "30")];
    let (ok, _, stderr) = run(&["leads", "purge"], &env).await;
    assert!(ok && stderr.contains("1 lead(s) older than 30 days deleted"), "{stderr}");
    let left = server.export_jsonl().await;
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(left[0]["name"], "Недавня");
    // Deleting leads leaves a trace: who, and how many.
    let purged = audited(&env, "purged").await;
    assert_eq!(purged.len(), 1, "{purged:?}");
    assert!(purged[0]["actor"].as_str().unwrap().starts_with("command line"), "{purged:?}");
    assert_eq!(purged[0]["detail"], "1 lead(s) older than 30 days");
}

/// A command run with other settings than the server's (a shell without the service's environment
/// file) purges by another retention period, or releases a lead without its notifications: it says
/// so, naming each setting it decides by that differs, and runs as asked.
#[tokio::test]
async fn a_command_with_other_settings_than_the_server_says_so() {
    let database = common::TestDatabase::new().await;
    let hook = "http://127.0.0.1:9/hook";
    let server_env = [("ZAYAVKA_RETENTION_DAYS", "365"), ("ZAYAVKA_WEBHOOK_URL", hook)];
    let server = Server::start_with(&database.url, &server_env).await;
    let body = r#"{"name":"Давня","phone":"+380671234567","confirmation":"Так"}"#;
    let (status, answer) = common::http(server.port, "POST", "/rest/v1/CRN", body).await.unwrap();
    assert_eq!(status, 201, "{answer}");
    let id = serde_json::from_str::<serde_json::Value>(&answer).unwrap()[0]["id"].as_i64().unwrap();
    database.backdate(id, 24 * 100).await;

    let env = [("ZAYAVKA_DATABASE_URL", database.url.as_str())];
    let same = [env[0], server_env[0], server_env[1]];
    let (ok, _, stderr) = run(&["leads", "purge"], &same).await;
    assert!(ok && stderr.contains("0 lead(s) older than 365 days deleted"), "{stderr}");
    assert!(!stderr.contains("warning"), "the server's settings: {stderr}");

    let with_retention = [env[0], ("ZAYAVKA_RETENTION_DAYS", "90")];
    let (ok, _, stderr) = run(&["leads", "purge"], &with_retention).await;
    assert!(ok && stderr.contains("1 lead(s) older than 90 days deleted"), "{stderr}");
    assert!(stderr.contains("warning: this command runs with other settings than the server"), "{stderr}");
    assert!(stderr.contains("ZAYAVKA_RETENTION_DAYS: the server's 365, this command's 90"), "{stderr}");
    assert!(!stderr.contains("channels"), "a purge sends nothing: {stderr}");

    let (_, _, stderr) = run(&["leads", "release", &id.to_string()], &env).await;
    assert!(stderr.contains("notification channels: the server's webhook, this command's none"), "{stderr}");
}

/// `zayavka leads export` names held leads and their reasons; `zayavka leads release ID` moves one
/// to the call list (its notification is queued then, once).
#[tokio::test]
async fn a_held_lead_is_exported_with_its_reasons_and_released_from_the_command_line() {
    let database = common::TestDatabase::new().await;
    let server = common::Server::start_with(&database.url, &[("ZAYAVKA_HOLD_WITHOUT_PROOF", "true")]).await;
    let lead = r#"{"name":"Олена","phone":"067 123 45 67","confirmation":"Так","comment":null}"#;
    let (status, answer) = common::http(server.port, "POST", "/rest/v1/CRN", lead).await.unwrap();
    assert_eq!(status, 201, "{answer}");
    let exported = server.export_jsonl().await;
    assert_eq!(exported[0]["held"], serde_json::json!(["no_proof"]), "a script's lead, held");
    let id = exported[0]["id"].as_i64().unwrap().to_string();

    let env = [("ZAYAVKA_DATABASE_URL", database.url.as_str())];
    let (ok, _, stderr) = run(&["leads", "release", &id], &env).await;
    assert!(ok, "{stderr}");
    assert!(stderr.contains("released"), "{stderr}");
    assert_eq!(server.export_jsonl().await[0]["held"], serde_json::Value::Null, "in the call list");

    let (ok, _, stderr) = run(&["leads", "release", &id], &env).await;
    assert!(!ok, "a lead in the call list is not held");
    assert!(stderr.contains("no held lead"), "{stderr}");

    // The same script again: held; released while the person's lead is open, it joins that lead.
    let (status, answer) = common::http(server.port, "POST", "/rest/v1/CRN", lead).await.unwrap();
    assert_eq!(status, 201, "{answer}");
    let again = server.export_jsonl().await[1]["id"].as_i64().unwrap().to_string();
    let (ok, _, stderr) = run(&["leads", "release", &again], &env).await;
    assert!(ok, "{stderr}");
    assert!(stderr.contains(&format!("a repeat of the person's open lead {id}")), "{stderr}");
    assert_eq!(server.export_jsonl().await[1]["repeat_of"].to_string(), id);
}

/// Logs written to a file (here a pipe) carry no colour codes; `ZAYAVKA_LOG_FORMAT=json` writes one
/// JSON object per line, with no name or phone in any of them.
#[tokio::test]
async fn logs_are_plain_off_a_terminal_and_json_when_asked() {
    let database = common::TestDatabase::new().await;
    let lead = r#"{"name":"Леся Українка","phone":"+380 50 111 22 33","confirmation":"Так","comment":null}"#;
    let mut logs = Vec::new();
    for format in ["text", "json"] {
        let mut command = zayavka();
        command
            .env("ZAYAVKA_DATABASE_URL", &database.url)
            .env("ZAYAVKA_ANON_KEY", common::KEY)
            .env("ZAYAVKA_LOG", "info")
            .env("ZAYAVKA_LOG_FORMAT", format);
        let server = common::serve_on_any_port(command).await;
        let (status, _) = common::http(server.port, "POST", "/rest/v1/CRN", lead).await.unwrap();
        assert_eq!(status, 201);
        logs.push(server.kill_and_read_log().await);
    }
    let (text, json) = (&logs[0], &logs[1]);
    assert!(!text.contains('\u{1b}'), "no escape codes into a pipe: {text}");
    assert!(text.contains("lead stored"), "{text}");
    let lines: Vec<serde_json::Value> = json
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect();
    assert!(
        lines.iter().all(|l| l["level"].is_string() && l["target"].is_string() && l["timestamp"].is_string())
    );
    let stored = lines.iter().find(|l| l["message"].as_str().is_some_and(|m| m.starts_with("lead stored")));
    assert!(stored.is_some_and(|l| l["id"].is_u64()), "the same fields as the text lines: {json}");
    for secret in ["Леся", "Українка", "50 111 22 33", "501112233"] {
        assert!(!text.contains(secret) && !json.contains(secret), "{secret} in the log");
    }
}
