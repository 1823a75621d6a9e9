//! Fakes for tests, compiled only with the `testing` feature: [`discord`] is a Discord
//! gateway and HTTP API on loopback that the Discord sense (and a whole `cn run` daemon)
//! can be pointed at; [`telegram`] is a Telegram Bot API. Nothing here is used by the crate itself.

pub mod discord;
pub mod telegram;
