//! Integration tests: the product end to end (one test binary, shared helpers in `support`).

mod api;
mod architecture;
mod board;
mod cli;
mod corpus;
mod referee;
mod support;
