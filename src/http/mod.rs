//! The HTTP surface, one module per area; `crate::app::app` merges them.

pub mod admin;
pub mod client;
pub mod form;
pub mod health;
pub mod pages;
pub mod proof;
pub mod rest;
pub mod security;
pub mod submit;
