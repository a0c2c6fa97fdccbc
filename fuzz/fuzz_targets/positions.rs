#![no_main]
//! cargo +nightly fuzz run positions   (bodies in fuzz/bodies.rs, shared with tests/robust_fuzz.rs)
#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::positions(data));
