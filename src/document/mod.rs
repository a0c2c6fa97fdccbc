//! Text, syntax tree and positions of one document.
pub mod grammar;
