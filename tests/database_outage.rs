//! The database goes away: while PostgreSQL is down, submits answer 503 in PostgREST's shape and
//! `/readyz` says not ready; when it comes back the server recovers by itself. The test owns a real
//! PostgreSQL cluster (initdb in a temporary folder) so it can stop and start it.
//!
//! Not run again on PostgreSQL: it owns a PostgreSQL cluster of its own (initdb), whatever the
//! engine setting.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{Server, free_port, http};

struct Cluster {
    bin: PathBuf,
    data: PathBuf,
    port: u16,
    _dir: tempfile::TempDir,
}

/// PostgreSQL's server programs, and a way to run them as the `postgres` user (they refuse root).
fn postgres_bin() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|entry| entry.ok().map(|e| e.path().join("bin")))
        .filter(|bin| bin.join("initdb").exists())
        .collect();
    found.sort();
    found.pop()
}

fn as_postgres(program: &Path, args: &[&str]) -> bool {
    Command::new("runuser")
        .args(["-u", "postgres", "--"])
        .arg(program)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

impl Cluster {
    fn create() -> Option<Cluster> {
        let bin = postgres_bin()?;
        let dir = tempfile::tempdir().ok()?;
        let status = Command::new("chown").args(["postgres:postgres"]).arg(dir.path()).status().ok()?;
        if !status.success() {
            return None;
        }
        let data = dir.path().join("data");
        if !as_postgres(&bin.join("initdb"), &["-D", data.to_str()?, "-A", "trust", "-U", "postgres"]) {
            return None;
        }
        let cluster = Cluster { bin, data, port: free_port(), _dir: dir };
        cluster.start().then_some(cluster)
    }

    fn pg_ctl(&self, args: &[&str]) -> bool {
        let mut all = vec!["-D", self.data.to_str().unwrap(), "-w"];
        all.extend_from_slice(args);
        as_postgres(&self.bin.join("pg_ctl"), &all)
    }

    fn start(&self) -> bool {
        let socket_dir = self.data.parent().unwrap().to_str().unwrap().to_owned();
        let options = format!("-p {} -k {socket_dir} -c listen_addresses=127.0.0.1", self.port);
        self.pg_ctl(&["-o", &options, "-l", "/dev/null", "start"])
    }

    fn stop(&self) -> bool {
        self.pg_ctl(&["-m", "fast", "stop"])
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stop();
    }
}

const LEAD: &str = r#"{"name":"Олена","phone":"+380671234567","confirmation":"Так","comment":null}"#;

async fn ready(port: u16) -> u16 {
    http(port, "GET", "/readyz", "").await.map(|(status, _)| status).unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_postgresql_is_down_submits_get_503_and_the_server_recovers_by_itself() {
    let Some(cluster) = Cluster::create() else {
        assert!(
            std::env::var("CI").is_err(),
            "CI must be able to run its own PostgreSQL cluster (root, initdb)"
        );
        eprintln!("skipped: cannot create a PostgreSQL cluster here (needs root and PostgreSQL's initdb)");
        return;
    };
    let url = format!("postgres://postgres@127.0.0.1:{}/postgres", cluster.port);
    let server = Server::start(&url).await;
    assert_eq!(http(server.port, "POST", "/rest/v1/CRN", LEAD).await.unwrap().0, 201);

    assert!(cluster.stop(), "the cluster stops");
    let (status, body) = http(server.port, "POST", "/rest/v1/CRN", LEAD).await.unwrap();
    assert_eq!(status, 503, "{body}");
    let error: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(error["code"], "PGRST000");
    assert_eq!(ready(server.port).await, 503);
    assert_eq!(http(server.port, "GET", "/healthz", "").await.unwrap().0, 200, "the process itself is alive");

    assert!(cluster.start(), "the cluster starts again");
    let mut recovered = false;
    for _ in 0..100 {
        if ready(server.port).await == 200 {
            recovered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(recovered, "/readyz is ready again without a restart");
    let other = LEAD.replace("+380671234567", "+380671234568");
    assert_eq!(http(server.port, "POST", "/rest/v1/CRN", &other).await.unwrap().0, 201);
    assert_eq!(server.export_jsonl().await.len(), 2, "both acknowledged leads are there");
}
