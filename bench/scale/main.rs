//! `cargo run --release --example scale -- fill|reads DATABASE_URL`: a year of leads in realistic
//! shape written through the store, and the operator reads timed on it (bench/README.md).

mod reads;
mod shape;

use clap::{Parser, Subcommand};
use zayavka::config::DatabaseUrl;

#[derive(Parser)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Fills an empty database with a year of leads.
    Fill {
        /// `sqlite://PATH` or `postgres://…`.
        database: String,
        #[arg(long, default_value_t = 20_000)]
        leads: usize,
        #[arg(long, default_value_t = 365)]
        days: i64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Only the leads, written as now: no calls, no spread over the year.
        #[arg(long)]
        leads_only: bool,
    },
    /// Times the store's work behind each operator request; one JSON line per request.
    Reads {
        database: String,
        #[arg(long, default_value_t = 15)]
        runs: usize,
    },
}

fn database(url: &str) -> anyhow::Result<DatabaseUrl> {
    if let Some(path) = url.strip_prefix("sqlite://") {
        return Ok(DatabaseUrl::Sqlite(path.into()));
    }
    anyhow::ensure!(url.starts_with("postgres://"), "sqlite://PATH or postgres://…");
    Ok(DatabaseUrl::Postgres(url.to_owned()))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    match Args::parse().command {
        Command::Fill { database: url, leads, days, seed, leads_only } => {
            let shape = shape::Shape { leads, days, seed, leads_only };
            let filled = shape::fill(&database(&url)?, &shape).await?;
            println!("{filled:#?}");
            let per_second = filled.leads as f64 / filled.insert_time.as_secs_f64();
            let cpu = filled.insert_cpu.as_secs_f64() * 1e6 / filled.leads as f64;
            println!("inserts: {per_second:.0} leads/s, {cpu:.1} µs of CPU a lead");
        }
        Command::Reads { database: url, runs } => {
            let url = database(&url)?;
            let store = zayavka::store::Store::open(&url).await?;
            let mut timed = reads::measure(&store, runs).await?;
            store.close().await;
            // The promise figures as a server's first request finds them: the server reads the
            // month ahead as it starts (ADR 0056), timed apart. A store of its own each run
            // (opening it is not timed).
            use zayavka::application::figures::{READ_AHEAD_MOST, read_ahead};
            let (mut ahead, mut first) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
            for _ in 0..runs {
                let fresh = zayavka::store::Store::open(&url).await?;
                let started = std::time::Instant::now();
                read_ahead(&fresh, jiff::Timestamp::now(), READ_AHEAD_MOST).await?;
                ahead.push(started.elapsed());
                let started = std::time::Instant::now();
                reads::promise(&fresh, jiff::Timestamp::now()).await?;
                first.push(started.elapsed());
                fresh.close().await;
            }
            for (request, mut times) in [
                ("the promise figures' month read ahead at a start", ahead),
                ("stats/promise, the first after start", first),
            ] {
                times.sort();
                timed.push(reads::Timed { request, median: times[runs / 2] });
            }
            for timed in timed {
                println!(
                    "{{\"request\": \"{}\", \"median_ms\": {:.3}}}",
                    timed.request,
                    timed.median.as_secs_f64() * 1000.0
                );
            }
        }
    }
    Ok(())
}
