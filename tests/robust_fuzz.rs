//! The fuzz targets' bodies (fuzz/bodies.rs) on stable Rust: every seed (the repository's
//! examples and fixtures, and ../shared/corpus/ when present) through each body, then
//! mutated seeds (byte flips, YAML-token insertions, truncations, splices, duplicated lines)
//! for a bounded time: `CWL_MCP_FUZZ_SECS` (default 20). A failing input is written to
//! `target/tmp/robust_fuzz/` so that `cargo +nightly fuzz run <target> <file>` replays it.
mod common;

#[path = "../fuzz/bodies.rs"]
mod bodies;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

type Body = fn(&[u8]);

const TARGETS: &[(&str, Body)] = &[
    ("diagnostics", bodies::diagnostics),
    ("positions", bodies::positions),
    ("edits", bodies::edits),
];

/// Inputs that once failed (fuzz/regressions/, named `<target>-<what>.bin`).
fn regressions() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn fuzz_regressions_stay_fixed() {
    let found = regressions();
    assert!(!found.is_empty());
    for (name, data) in &found {
        for &(target, body) in TARGETS {
            run(target, body, name, data);
        }
    }
}

fn seeds() -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = common::cwl_files(&root.join("examples"));
    files.extend(common::cwl_files(&root.join("tests/fixtures")));
    if let Some(shared) = common::shared_dir() {
        files.extend(common::cwl_files(&shared.join("corpus")));
    }
    files
        .into_iter()
        .filter_map(|p| Some((p.display().to_string(), std::fs::read(&p).ok()?)))
        .collect()
}

fn run(target: &str, body: Body, name: &str, input: &[u8]) {
    if catch_unwind(AssertUnwindSafe(|| body(input))).is_err() {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("robust_fuzz");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("{target}-{:016x}.bin", hash(input)));
        std::fs::write(&file, input).unwrap();
        panic!(
            "fuzz body `{target}` failed on {name}; input saved to {}",
            file.display()
        );
    }
}

fn hash(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325, |h, &x| {
        (h ^ x as u64).wrapping_mul(0x100_0000_01b3)
    })
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const TOKENS: &[&[u8]] = &[
    b":",
    b": ",
    b"- ",
    b"[",
    b"]",
    b"{",
    b"}",
    b",",
    b"\"",
    b"'",
    b"#",
    b"&x ",
    b"*x",
    b"!!str ",
    b"|",
    b">-",
    b"\n",
    b"\r\n",
    b"\r",
    b"\t",
    b"  ",
    b"? ",
    b"---\n",
    b"...\n",
    b"%YAML 1.2\n",
    b"\xc3\xa9",
    b"\xe6\x97\xa5",
    b"\xf0\x9f\x98\x80",
    b"\xff",
    b"\0",
    b"mcp:Tool",
    b"class: ",
    b"hints:\n",
    b"requirements:\n",
    b"$graph:\n",
    b"run:\n",
    b"annotations:",
    b"readOnlyHint: ",
    b"name: -",
    b"$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\n",
];

fn mutate(rng: &mut Rng, seeds: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut data = seeds[rng.below(seeds.len())].1.clone();
    for _ in 0..1 + rng.below(8) {
        let at = rng.below(data.len() + 1);
        match rng.below(7) {
            0 if !data.is_empty() => {
                let i = rng.below(data.len());
                data[i] ^= 1 << rng.below(8);
            }
            1 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                data.splice(at..at, t.iter().copied());
            }
            2 => {
                let end = (at + rng.below(64)).min(data.len());
                data.drain(at..end);
            }
            3 => data.truncate(at),
            4 => {
                let other = &seeds[rng.below(seeds.len())].1;
                let from = rng.below(other.len() + 1);
                let to = (from + rng.below(400)).min(other.len());
                data.splice(at..at, other[from..to].iter().copied());
            }
            5 => {
                // Duplicate a line (repeated keys, deeper structures).
                let start = data[..at]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |i| i + 1);
                let end = data[at..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(data.len(), |i| at + i + 1);
                let line = data[start..end].to_vec();
                data.splice(start..start, line);
            }
            _ => {
                // Append operation bytes after a NUL (for `positions` and `edits`).
                data.push(0);
                for _ in 0..rng.below(48) {
                    data.push(rng.next() as u8);
                }
            }
        }
    }
    data
}

#[test]
fn fuzz_bodies_over_the_seed_corpus_and_mutations() {
    let seeds = seeds();
    assert!(seeds.len() >= 3, "no seeds");
    let started = Instant::now();
    let mut runs = 0usize;
    let mut per_target = [Duration::ZERO; 3];
    for (name, data) in &seeds {
        for (k, &(target, body)) in TARGETS.iter().enumerate() {
            // `edits` reparses and reanalyses at every step, `positions` converts hundreds of
            // positions with ropey (slow in unoptimised builds): keep them to smaller seeds.
            if (target == "edits" && data.len() > 4_000)
                || (target == "positions" && data.len() > 8_000)
            {
                continue;
            }
            let t = Instant::now();
            run(target, body, name, data);
            per_target[k] += t.elapsed();
            runs += 1;
        }
    }
    let seeded = started.elapsed();
    eprintln!("seeded time per target (diagnostics, positions, edits): {per_target:.1?}");
    let secs: u64 = std::env::var("CWL_MCP_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let seed: u64 = std::env::var("CWL_MCP_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed);
    let mut rng = Rng(seed | 1);
    let small: Vec<(String, Vec<u8>)> = seeds
        .iter()
        .filter(|(_, d)| d.len() <= 8_000)
        .cloned()
        .collect();
    let deadline = Instant::now() + Duration::from_secs(secs);
    let mut mutated = 0usize;
    while Instant::now() < deadline {
        let data = mutate(&mut rng, &small);
        let (target, body) = TARGETS[mutated % TARGETS.len()];
        run(
            target,
            body,
            &format!("mutation {mutated} (seed {seed})"),
            &data,
        );
        mutated += 1;
    }
    eprintln!(
        "fuzz bodies: {} seeds, {runs} seeded runs in {seeded:.1?}; {mutated} mutated inputs in {secs} s",
        seeds.len()
    );
}
