//! The HTTP surface, one module per area; the `app` module merges them. Each handler takes the
//! shared `AppState`; the public API answers errors with `error::ApiError`.

pub mod admin;
pub mod claims;
pub mod client;
pub mod error;
pub mod export;
pub mod form;
pub mod health;
pub mod inbox_api;
pub mod pages;
pub mod proof;
pub mod rest;
pub mod second_factor;
pub mod security;
mod state;
pub mod submit;
pub mod team;

pub use state::AppState;

/// How long a request may take, from its first byte to the answer: a stalled upload or a stuck
/// handler must not hold a connection for ever.
pub const REQUEST_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(30);
