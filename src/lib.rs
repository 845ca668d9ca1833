//! zayavka: a self-hosted lead-capture site. Module map, lower layers first:
//!
//! - [`config`]: the settings (defaults → TOML file → environment), validated at start;
//! - [`lead`]: the lead and its rules (trim, clean, validate, phone to E.164 and its numbering
//!   plan), no HTTP, no storage;
//! - [`inbox`]: the operators' rules (the 48-hour promise, a lead's status after a call, search);
//! - [`abuse`]: rate limits and the signs of automation that hold a lead for review (the signed
//!   page-load proof, bursts), never dropping it;
//! - [`store`]: where leads are kept (SQLite with group commit, or PostgreSQL), migrations per
//!   engine;
//! - [`metrics`], [`notify`]: `/metrics` counters; the outbox's senders (Telegram, webhook,
//!   e-mail);
//! - [`site`]: the prerendered React site embedded in the binary, prepared at start-up;
//! - [`auth`]: operators' passwords, sessions and the login limiter;
//! - [`error`], [`http`]: the public API's one error type (PostgREST's shape); the HTTP surface,
//!   one module per area (PostgREST insert, no-JS form, page-load proof, pages, health, inbox API);
//! - [`app`]: `app(state) -> Router`, what `serve` serves and the tests call;
//! - [`export`], [`serve`]: `zayavka leads export`; start-up, the accept loop and graceful
//!   shutdown.

pub mod abuse;
pub mod app;
pub mod auth;
pub mod config;
pub mod error;
pub mod export;
pub mod http;
pub mod inbox;
pub mod lead;
pub mod metrics;
pub mod notify;
pub mod serve;
pub mod site;
pub mod store;
