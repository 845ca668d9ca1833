//! zayavka: a self-hosted lead-capture site. Module map:
//!
//! - [`config`]: the settings (defaults → TOML file → environment), validated at start;
//! - [`lead`]: the lead and its rules (trim, clean, validate, phone to E.164), no HTTP;
//! - [`store`]: where leads are kept (SQLite with group commit), migrations per engine;
//! - [`site`]: the prerendered React site embedded in the binary, prepared at start-up;
//! - [`http`]: the HTTP surface, one module per area (PostgREST insert, no-JS form, pages, health);
//! - [`error`]: the API's one error type, answered in PostgREST's shape;
//! - [`app`]: `app(state) -> Router`, what `main.rs` serves and the tests call;
//! - [`export`]: `zayavka leads export`;
//! - [`serve`]: start-up, serving and graceful shutdown.

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
