//! Unit tests of the derivation engine.
