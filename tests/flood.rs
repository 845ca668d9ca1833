//! A flood of distinct clients: through a trusted proxy, each submit from a new IPv6 /64. The
//! per-client state (the rate limit's buckets, the burst counts) is capped, so the flood cannot
//! grow the server's memory with every new address.
//!
//! Not run again on PostgreSQL: what it bounds, the per-client state, lives in front of the store
//! and is the same whichever engine stores the leads.

use crate::common;

use common::{KEY, Server, TestDatabase};
use http_body_util::BodyExt;
use hyper_util::rt::TokioIo;
use zayavka::abuse::MAX_REMEMBERED;

/// A line of `/proc/PID/status` (`VmRSS`, `VmHWM`), in MiB.
fn memory_mib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with(field)).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() / 1024
}

/// Sends `count` valid leads over one kept-alive connection, each from a /64 of its own (named
/// by `X-Forwarded-For`, which the server trusts from loopback), with a name and phone of its own.
async fn flood(port: u16, sender: u32, count: u32) {
    let stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let (mut connection, driver) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.unwrap();
    tokio::spawn(driver);
    for n in 0..count {
        let serial = sender * count + n;
        let client = format!("2001:db8:{:x}:{:x}::1", serial >> 16, serial & 0xffff);
        let body = format!(
            r#"{{"name":"Потік {serial}","phone":"+38067{serial:07}","confirmation":"Так","comment":null}}"#
        );
        let request = hyper::Request::post("/rest/v1/CRN")
            .header("host", "127.0.0.1")
            .header("apikey", KEY)
            .header("content-type", "application/json")
            .header("x-forwarded-for", client)
            .body(http_body_util::Full::new(hyper::body::Bytes::from(body)))
            .unwrap();
        connection.ready().await.unwrap();
        let response = connection.send_request(request).await.unwrap();
        let status = response.status().as_u16();
        let answer = response.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(status, 201, "{}", String::from_utf8_lossy(&answer));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_distinct_clients_keeps_the_server_small() {
    let database = TestDatabase::new().await;
    let server = Server::start_with(
        &database.url,
        &[("ZAYAVKA_RATE_LIMIT_PER_MINUTE", "60"), ("ZAYAVKA_TRUSTED_PROXIES", "127.0.0.1/32")],
    )
    .await;
    let (pid, port) = (server.child.id().unwrap(), server.port);
    let before = memory_mib(pid, "VmRSS:");
    // Twice as many clients as the state remembers.
    let senders: u32 = 16;
    let each = 2 * MAX_REMEMBERED as u32 / senders;
    let mut tasks = Vec::new();
    for sender in 0..senders {
        tasks.push(tokio::spawn(flood(port, sender, each)));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let (after, peak) = (memory_mib(pid, "VmRSS:"), memory_mib(pid, "VmHWM:"));
    eprintln!(
        "{} submits from distinct /64s: RSS {before} MiB before, {after} MiB after, peak {peak} MiB",
        senders * each
    );
    assert!(peak <= 64, "peak RSS {peak} MiB");
}
