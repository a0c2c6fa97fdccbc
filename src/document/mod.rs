//! Text, syntax tree and positions of one document.
pub mod grammar;
mod interior;
pub mod libyaml;
pub mod outline;
pub mod position;
mod settle;
pub mod text;
pub mod yaml;

pub use position::{Encoding, LineIndex, OutOfRange, Position};
pub use text::{Change, Document, Snapshot};
