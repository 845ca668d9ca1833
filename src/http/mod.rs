//! The HTTP surface, one module per area; the `app` module merges them. Each handler takes the
//! shared `AppState`, parses the request, calls a use case (`crate::application`) with the
//! services the state lends, and renders the answer. The public API answers errors with
//! `error::ApiError`, the inbox's API with `admin_error::AdminError`.

pub mod admin;
pub mod admin_error;
pub mod claims;
pub mod client;
pub mod closed_days;
pub mod error;
pub mod export;
pub mod form;
pub mod health;
pub mod idempotency;
pub mod inbox_api;
pub mod leads;
pub mod notifications;
pub mod pages;
pub mod proof;
pub mod rest;
pub mod second_factor;
pub mod security;
pub mod sign_in;
mod state;
pub mod stats;
pub mod submit;
pub mod team;

pub use state::AppState;

/// How long a request may take, from its first byte to the answer: a stalled upload or a stuck
/// handler must not hold a connection for ever.
pub const REQUEST_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(30);
