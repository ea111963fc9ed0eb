//! Fuzzed parsers (issue 15): scenario TOML (parsed and resolved), fio job
//! files and fio iologs get byte- and token-level mutations of a seed corpus
//! (the built-in scenarios, the fio file shipped in scenarios/, sample
//! logs). Every input must come back as Ok or as an error: never a panic.
//! Deterministic (one seed); `LFSLAB_FUZZ_ITERS` sets the mutations per
//! target (CI runs the default; docs/robustness.md records long runs).

use lfslab::scenario::{builtin, Scenario, BUILTIN_NAMES};
use lfslab::sim::SimRng;
use lfslab::workload::{fio_jobfile, iolog};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Values that have broken parsers before: limits, signs, odd floats.
const TOKENS: &[&str] = &[
    "0", "-1", "1", "4096", "18446744073709551615", "18446744073709551616", "9223372036854775807", "1e308", "-1e308",
    "1e-9", "nan", "inf", "0.0", "\"\"", "\"%\"", "\"100%\"", "\"1e99k\"", "\"4k\"", "\"0s\"", "\"99999999h\"", "true",
    "[", "]", "=", "\n[[job]]\n", "\n[fs]\n", "\n[device]\n", "#", ";", "f", "wait", "write", "add", "include",
];

fn iters() -> usize {
    std::env::var("LFSLAB_FUZZ_ITERS").ok().and_then(|v| v.parse().ok()).unwrap_or(1500)
}

fn mutate(rng: &mut SimRng, seed: &[u8]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..1 + rng.below(2) {
        let len = b.len().max(1) as u64;
        let at = rng.below(len) as usize;
        match rng.below(6) {
            0 if !b.is_empty() => {
                let i = at.min(b.len() - 1);
                b[i] ^= 1 << rng.below(8);
            }
            1 => b.insert(at.min(b.len()), rng.below(256) as u8),
            2 if !b.is_empty() => {
                let end = (at + 1 + rng.below(16) as usize).min(b.len());
                b.drain(at.min(b.len())..end);
            }
            3 => {
                // Replace a number or word by a token.
                let t = TOKENS[rng.below(TOKENS.len() as u64) as usize].as_bytes();
                let end = b[at.min(b.len())..]
                    .iter()
                    .position(|c| c.is_ascii_whitespace() || *c == b'"')
                    .map_or(b.len(), |p| at.min(b.len()) + p);
                b.splice(at.min(b.len())..end, t.iter().copied());
            }
            4 if b.len() > 2 => {
                // Duplicate a slice elsewhere.
                let from = rng.below(b.len() as u64) as usize;
                let end = (from + 1 + rng.below(64) as usize).min(b.len());
                let chunk: Vec<u8> = b[from..end].to_vec();
                let to = at.min(b.len());
                b.splice(to..to, chunk);
            }
            _ => {
                let t = TOKENS[rng.below(TOKENS.len() as u64) as usize].as_bytes();
                let to = at.min(b.len());
                b.splice(to..to, t.iter().copied());
            }
        }
    }
    b
}

/// Run `parse` on `iters()` mutations of the corpus; a panic fails with the
/// input. `parse` says whether the input was accepted: a corpus whose
/// mutations are all refused would test only the first line of a parser.
fn fuzz(name: &str, corpus: &[String], parse: impl Fn(&str) -> bool) {
    for (i, c) in corpus.iter().enumerate() {
        assert!(parse(c), "{name}: corpus entry {i} is refused as it stands");
    }
    let mut rng = SimRng::new(0xF022 ^ name.len() as u64);
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut failures = Vec::new();
    let mut accepted = 0;
    let n = iters();
    for i in 0..n {
        let seed = corpus[i % corpus.len()].as_bytes();
        let input = String::from_utf8_lossy(&mutate(&mut rng, seed)).into_owned();
        match catch_unwind(AssertUnwindSafe(|| parse(&input))) {
            Ok(ok) => accepted += ok as usize,
            Err(_) => {
                failures.push(input);
                if failures.len() >= 3 {
                    break;
                }
            }
        }
    }
    std::panic::set_hook(hook);
    eprintln!("{name}: {n} mutated inputs, {accepted} accepted, {} panicked", failures.len());
    assert!(failures.is_empty(), "{name}: {} input(s) panicked, first: {:?}", failures.len(), failures[0]);
    assert!(accepted * 200 >= n, "{name}: only {accepted} of {n} mutations were accepted; the fuzzer barely reaches the parser");
}

#[test]
fn scenario_toml_never_panics() {
    let corpus: Vec<String> = BUILTIN_NAMES.iter().map(|n| builtin(n).expect("built-in").to_string()).collect();
    fuzz("scenario", &corpus, |t| Scenario::from_toml_str(t).is_ok());
}

#[test]
fn fio_job_files_never_panic() {
    let shipped = include_str!("../../../scenarios/rmipu-frag.fio").to_string();
    let corpus = vec![
        shipped,
        "[global]\nbs=4k\nsize=256m\n[w]\nrw=randwrite\niodepth=32\nnumjobs=2\nruntime=10s\ntime_based\n".to_string(),
        "[r]\nrw=randrw\nrwmixread=70\nfilesize=64m\nnrfiles=4\nfsync=8\ndirect=1\n".to_string(),
    ];
    fuzz("fio job file", &corpus, |t| {
        // Parsed, then resolved as a scenario would: both must hold.
        let Ok(jf) = fio_jobfile::parse(t) else { return false };
        let mut f = Scenario::file_from_toml_with("[device]\ncapacity_gib = 2\n[fs]\nkind = \"f2fs\"\n", &[]).unwrap();
        f.jobs = jf.jobs;
        Scenario::from_file(f).is_ok()
    });
}

#[test]
fn iologs_never_panic() {
    let corpus = vec![
        "fio version 2 iolog\nf add\nf open\nf write 0 4096\nf wait 100\nf read 8192 8192\nf sync\nf close\n".to_string(),
        "fio version 3 iolog\n0 a add\n0 b add\n10 a write 4096 4096\n20 b read 0 4096\n30 a datasync\n".to_string(),
    ];
    fuzz("iolog", &corpus, |t| iolog::parse(t).is_ok());
}

#[test]
fn block_traces_never_panic() {
    use lfslab::workload::trace;
    let corpus = vec![
        "128166372003061629,hm,0,Write,3154152960,4096,1346\n128166372003085791,hm,1,Read,1024,6144,200\n".to_string(),
        "0,20941264,8192,W,0.551706\n1,8,512,r,0.554041\n0,0,4096,w,1.0\n".to_string(),
        "  8,0    3        1     0.000000000   697  D  WS 3417048 + 8 [fs_mark]\n  8,0    1        2     0.000200000   697  D   R 16 + 16 [cat]\n  8,0    1        3     0.000300000   697  D   D 64 + 64 [fstrim]\n  8,0    1        4     0.000400000   697  D  FN [kworker]\n".to_string(),
    ];
    fuzz("block trace", &corpus, |t| trace::detect(t).is_some_and(|f| trace::parse(t, f).is_ok()));
}
