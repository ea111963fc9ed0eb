//! Block traces: MSR Cambridge CSV, blkparse text, UMass/SPC CSV.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Some(format) = lfslab::workload::trace::detect(text) {
            let _ = lfslab::workload::trace::parse(text, format);
        }
    }
});
