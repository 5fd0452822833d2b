//! smartgoban: a real wooden Go board made smart.
//!
//! A microcontroller under the board scans a grid of sensors and streams the scans over
//! serial; this crate turns them into moves under the Chinese Weiqi Rules, flags violations,
//! keeps the record and serves the live game over HTTP.
//!
//! The crate is split into a pure, deterministic **core** and a thin **shell**
//! (DESIGN.md, "Core and shell"):
//!
//! * core — [`rules`] (board, captures, ko, repetition, SGF), [`sensing`] (the scan
//!   stabiliser), [`referee`] (move inference and violations), [`event`] (what the core
//!   reports), [`session`] (the state machine that owns them) and [`calibrate`] (the guided
//!   calibration of the board's sensors). None of these read a clock,
//!   do I/O, or use tokio, axum, serialport or rppal; time comes in as an argument.
//! * shell — [`link`] (the serial protocol connection and the port), [`store`] (SQLite: games,
//!   events, checkpoints), [`daemon`] (the task that owns a [`session::Session`] and moves
//!   bytes), [`api`] (HTTP), [`config`], [`cli`].
//! * beside them — [`sim`], the virtual board that stands in for the hardware.
#![warn(missing_docs)]

pub mod calibrate;
pub mod clock;
pub mod event;
pub mod leds;
pub mod referee;
pub mod rules;
pub mod sensing;
pub mod session;

pub mod api;
pub mod cli;
pub mod config;
pub mod daemon;
pub mod devices;
pub mod files;
pub mod hall;
pub mod link;
pub mod mqtt;
pub mod store;

pub mod sim;
