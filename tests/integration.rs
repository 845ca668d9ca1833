//! Every integration test but `batches.rs`, compiled into one test binary: each file of `tests/`
//! is a module here, not a crate of its own, so the crate and its dependencies' generic code are
//! built and linked once instead of 34 times (ADR 0040). `batches.rs` stays a binary of its own:
//! it installs a process-wide log subscriber and reads everything the process logs.
//!
//! Run one file's tests with `cargo test --test integration NAME::` (e.g. `notify::`).

mod common;

mod abuse;
mod admin;
mod claims;
mod cli;
mod closed_days;
mod database_outage;
mod desk;
mod durability;
mod figures;
mod first_start;
mod flood;
mod form;
mod fuzz;
mod instances;
mod invisible;
mod name_merges;
mod notifications;
mod notify;
mod notify_watch;
mod observatory;
mod pages;
mod purge;
mod quarantine;
mod rest;
mod scale;
mod second_factor;
mod slow_clients;
mod storage_faults;
mod store_contract;
mod stranger;
mod supabase_schema;
mod team;
mod visitor_texts;
mod wire_types;
