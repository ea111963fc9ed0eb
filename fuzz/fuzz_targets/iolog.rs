//! fio iologs (versions 2 and 3).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = lfslab::workload::iolog::parse(text);
    }
});
