#![no_main]
//! cargo +nightly fuzz run edits   (bodies in fuzz/bodies.rs, shared with tests/robust_fuzz.rs)
#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::edits(data));
