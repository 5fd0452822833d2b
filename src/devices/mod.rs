//! Hardware beside the board, each behind a small trait with a real driver and a simulated
//! twin (DESIGN.md "Core and shell"): the clock's faces ([`face`]) and buttons ([`buttons`]).

pub mod buttons;
pub mod face;
