//! Scenario TOML, parsed and resolved: Ok or an error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = lfslab::scenario::Scenario::from_toml_str(text);
    }
});
