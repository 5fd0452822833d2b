//! What can go wrong reading an SGF file.

use thiserror::Error;

/// Why an SGF file could not be read. Each message names the part of the file (the node of the
/// main line, counted from the root = node 0), the property and the value at fault.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SgfError {
    /// No game tree in the text: nothing that starts with `(` followed by a node.
    #[error("no SGF game tree found: an SGF file starts with \"(;\" (the text holds none)")]
    NoGameTree,
    /// The first game tree is not well-formed SGF.
    #[error(
        "the SGF text of the first game tree is malformed ({reason}); \
         {nodes_read} node(s) of its main line could be read before the fault"
    )]
    Syntax {
        /// What the SGF parser found wrong.
        reason: String,
        /// Nodes of the main line read before the fault (a hint to where it is).
        nodes_read: usize,
    },
    /// The first game tree is for another game than Go (`GM` other than 1).
    #[error("the first game tree is not a Go game: GM[{game}] (Go is GM[1])")]
    NotGo {
        /// The `GM` value.
        game: String,
    },
    /// `SZ` gives a rectangular board.
    #[error("root node: SZ[{value}] is a rectangular board; only square boards are supported")]
    NonSquareBoard {
        /// The `SZ` value.
        value: String,
    },
    /// `SZ` is not a size from 2 to 19.
    #[error("root node: SZ[{value}] is not a supported board size (2 to 19)")]
    UnsupportedSize {
        /// The `SZ` value.
        value: String,
    },
    /// A move or setup point lies outside the board.
    #[error("main-line node {node} (the root is node 0): {property}[{value}] is outside the {size}×{size} board")]
    PointOffBoard {
        /// Node of the main line (root = 0).
        node: usize,
        /// `B`, `W`, `AB`, `AW` or `AE`.
        property: String,
        /// The point as written.
        value: String,
        /// The board size.
        size: u8,
    },
    /// A property value that cannot be read.
    #[error(
        "main-line node {node} (the root is node 0): {property}[{value}] is not a valid {expected}"
    )]
    BadValue {
        /// Node of the main line (root = 0).
        node: usize,
        /// The property identifier.
        property: String,
        /// The value(s) as written, joined with `][`.
        value: String,
        /// What the property should hold.
        expected: &'static str,
    },
    /// A node holds more than one move (`B` and `W`, or one of them twice).
    #[error(
        "main-line node {node} (the root is node 0) holds two moves ({first} and {second}); \
         an SGF node holds at most one"
    )]
    TwoMovesInNode {
        /// Node of the main line (root = 0).
        node: usize,
        /// The first move property, e.g. `B[dp]`.
        first: String,
        /// The second one.
        second: String,
    },
    /// Setup (`AB`, `AW`, `AE`, `PL`) after the first move: a record of a game played on a
    /// board cannot hold it, and ignoring it would change the game.
    #[error(
        "main-line node {node} (the root is node 0): setup property {property} after move {after_move} \
         is not supported (setup stones may only come before the first move)"
    )]
    SetupAfterMoves {
        /// Node of the main line (root = 0).
        node: usize,
        /// `AB`, `AW`, `AE` or `PL`.
        property: String,
        /// How many moves came before it.
        after_move: usize,
    },
    /// The record is larger than any game: more nodes, or more moves in its main line, than
    /// are read ([`super::MAX_NODES`], [`super::MAX_MOVES`]), so memory stays bounded
    /// whatever the file holds.
    #[error(
        "the record is too large to be a game: more than {limit} {what} (at most {limit} are read)"
    )]
    TooLarge {
        /// What there are too many of.
        what: &'static str,
        /// The limit.
        limit: usize,
    },
}
