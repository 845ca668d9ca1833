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
mod trail;
mod visitor_texts;
mod wire_types;

/// Every file of `tests/` runs: a module here, or a test binary of its own in Cargo.toml
/// (`autotests = false`: cargo finds no other). A file that is neither would compile nowhere and
/// check nothing, as `wire_types.rs` once did for weeks.
#[test]
fn every_test_file_is_a_module_here_or_a_binary_of_its_own() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let here = std::fs::read_to_string(root.join("tests/integration.rs")).unwrap();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let mut left_out = Vec::new();
    for entry in std::fs::read_dir(root.join("tests")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(module) = name.strip_suffix(".rs") else { continue };
        let binary = format!("path = \"tests/{name}\"");
        if !here.contains(&format!("\nmod {module};")) && !manifest.contains(&binary) {
            left_out.push(name);
        }
    }
    assert_eq!(left_out, Vec::<String>::new(), "files of tests/ that no test binary compiles");
}
