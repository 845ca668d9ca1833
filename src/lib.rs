//! zayavka: a self-hosted lead-capture site. The modules form layers; a module uses only those of
//! the layers below it (the test at the end of this file holds it to that):
//!
//! 1. rules, no HTTP and no storage:
//!    - [`clock`]: the time, which tests move instead of waiting for it (ADR 0035);
//!    - [`notice`]: the kinds of notice (new, reminder, overdue) and the channels that carry them;
//!    - [`lead`]: the lead and its rules (trim, clean, validate, phone to E.164);
//!    - [`calendar`]: the team's working hours, closed days and retry cadence;
//!    - [`config`]: the settings (defaults → TOML file → environment), validated at start;
//!    - [`inbox`]: the operators' rules (a lead's status, the 48-hour promise, claims, search);
//!    - [`team`]: roles, and what the audit trail records;
//!    - [`abuse`]: rate limits and the signs of automation that hold a lead for review;
//! 2. [`store`]: where leads are kept (SQLite with group commit, or PostgreSQL);
//! 3. what works with the store:
//!    - [`metrics`]: `/metrics` counters;
//!    - [`notify`]: the outbox's senders (Telegram, webhook, e-mail);
//!    - [`export`]: `zayavka leads export`;
//!    - [`site`]: the prerendered React site embedded in the binary, prepared at start-up;
//!    - [`auth`]: operators' passwords, second factor, sessions and the login limiter;
//! 4. [`application`]: the use cases, each one function the inbox and the command line both call,
//!    over a narrow set of services (store, settings, notifier, metrics, clock), never `AppState`:
//!    intake, leads (calls, release, erase), claims and round-robin, accounts, housekeeping;
//! 5. adapters over the use cases, side by side:
//!    - [`http`]: the HTTP surface, one module per area, and the `AppState` they share;
//!    - [`cli`]: the `zayavka` subcommands other than `serve`;
//! 6. [`app`]: `app(state) -> Router`, what `serve` serves and the tests call;
//! 7. [`serve`]: start-up, the accept loop and graceful shutdown (`main.rs` reads the settings and
//!    runs `serve` or a `cli` subcommand).

pub mod abuse;
pub mod app;
pub mod application;
pub mod auth;
pub mod calendar;
pub mod cli;
pub mod clock;
pub mod config;
pub mod export;
pub mod http;
pub mod inbox;
pub mod lead;
pub mod metrics;
pub mod notice;
pub mod notify;
pub mod serve;
pub mod site;
pub mod store;
pub mod team;

/// The layers above, lowest first: a module uses modules of lower layers only, never one of its
/// own layer or above.
#[cfg(test)]
const LAYERS: &[&[&str]] = &[
    &["clock", "notice", "lead"],
    &["calendar"],
    &["config"],
    &["inbox", "abuse", "team"],
    &["store"],
    &["metrics", "export", "site", "auth"],
    &["notify"],
    &["application"],
    &["http", "cli"],
    &["app"],
    &["serve"],
];

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Every `crate::module` a source file names outside its unit tests, with the file's top
    /// module.
    fn arrows() -> Vec<(String, String, String)> {
        fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    out.push(path);
                }
            }
        }
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        walk(&src, &mut files);
        let mut arrows = Vec::new();
        for file in files {
            let relative = file.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
            let from = relative.split('/').next().unwrap().trim_end_matches(".rs").to_owned();
            if from == "main" || from == "lib" {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            let code = text.split("#[cfg(test)]\nmod tests").next().unwrap();
            let mut names: Vec<&str> = code.split("crate::").skip(1).collect();
            // `use crate::{a::X, b::Y}` names several.
            for group in code.split("use crate::{").skip(1) {
                let group = group.split("};").next().unwrap();
                names.extend(group.split(',').map(str::trim));
            }
            for name in names {
                let to: String = name.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !to.is_empty() && to != from {
                    arrows.push((relative.clone(), from.clone(), to));
                }
            }
        }
        arrows
    }

    #[test]
    fn every_arrow_points_down() {
        let layer_of = |module: &str| super::LAYERS.iter().position(|layer| layer.contains(&module));
        let mut wrong = Vec::new();
        for (file, from, to) in arrows() {
            let (Some(from_layer), Some(to_layer)) = (layer_of(&from), layer_of(&to)) else {
                wrong.push(format!("{file}: {from} or {to} is in no layer of lib.rs"));
                continue;
            };
            if to_layer >= from_layer {
                wrong.push(format!("{file}: {from} uses {to}, which is not below it"));
            }
        }
        wrong.sort();
        wrong.dedup();
        assert!(wrong.is_empty(), "arrows that do not point down:\n{}", wrong.join("\n"));
    }

    #[test]
    fn the_arrow_reader_sees_uses() {
        let arrows = arrows();
        assert!(arrows.iter().any(|(_, from, to)| from == "http" && to == "store"));
        assert!(arrows.iter().any(|(_, from, to)| from == "store" && to == "lead"));
    }
}
