//! Integration tests: the product end to end (one test binary, shared helpers in `support`).

mod actions;
mod api;
mod architecture;
mod blitz;
mod board;
mod calibrate;
mod cli;
mod clock;
mod config;
mod corpus;
mod count;
mod crash;
mod disk;
mod feeds;
mod games;
mod inject;
mod leds;
mod outage;
mod page;
mod property;
mod recovery;
mod referee;
mod serial_faults;
mod support;
mod systemd;
mod takeback;
