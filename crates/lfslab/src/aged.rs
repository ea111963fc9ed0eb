//! An aged state on disk: what a run's precondition phase built (files laid
//! out and aged, device and filesystem state, the clock), so later runs of
//! the same setup measure from it instead of aging again (issue 12).
//!
//! The file is a magic line, a header (format, lfslab version, the
//! scenario's *aging key*) and the state, in bincode. The aging key is the
//! resolved scenario minus what only the measured phase reads (job I/O
//! pattern, runtime, limits, output), plus the files each job lays out; a
//! run may start from an aged state only when its key is equal, so the
//! result is the same bits as aging afresh (tested in engine).

use crate::scenario::Scenario;
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use serde_json::Value;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

const MAGIC: &[u8; 12] = b"lfslab-aged\n";
/// Bump when the saved structures change shape within one version, or
/// when aging would leave another state: a loaded state must be what a
/// fresh aging gives (16: the page cache's LRU list is a ring of keys; 18:
/// IPLFS's pending discards are `SegBitmaps`; 19: D2FS's migration records
/// are found by batch, not by a hash index; 20: a batch keeps only its end;
/// 21: IPLFS's pending discards come from the SIT's maps, no bitmaps kept;
/// 22: so do D2FS's deferred ones, with a map of blocks they skip; 23:
/// D2FS's migration records are two 32-bit LBAs, ids by place).
const FORMAT: u32 = 23;

#[derive(Serialize, Deserialize)]
struct Header {
    format: u32,
    lfslab_version: String,
    scenario: String,
    /// The aging key as JSON text (bincode cannot carry a `Value`).
    key: String,
}

/// Scenario fields that only the measured phase reads.
const MEASURE_ONLY: [&str; 5] = ["name", "job", "limits", "output", "fio_job_file"];

/// What must match for two runs to share an aged state.
pub fn aging_key(s: &Scenario) -> Value {
    let mut v = serde_json::to_value(&s.resolved).expect("a resolved scenario serialises");
    let obj = v.as_object_mut().expect("a scenario is a table");
    for k in MEASURE_ONLY {
        obj.remove(k);
    }
    if s.fs.is_some() {
        let files: Vec<Value> = s
            .jobs
            .iter()
            .map(|j| {
                serde_json::json!({
                    "clones": j.numjobs,
                    "file_blocks": crate::workload::file_sizes(j),
                    "filename": j.filename,
                })
            })
            .collect();
        obj.insert("files laid out".into(), Value::Array(files));
    }
    v
}

/// Every field where `saved` and `now` differ, as "path: saved X, this run Y".
fn differences(path: &str, saved: &Value, now: &Value, out: &mut Vec<String>) {
    let join = |k: &str| if path.is_empty() { k.to_string() } else { format!("{path}.{k}") };
    match (saved, now) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                differences(&join(k), a.get(k).unwrap_or(&Value::Null), b.get(k).unwrap_or(&Value::Null), out);
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                differences(&join(&i.to_string()), x, y, out);
            }
        }
        _ if saved == now => {}
        _ => out.push(format!("{path}: the aged state has {saved}, this run has {now}")),
    }
}

#[derive(Debug)]
pub struct AgedError(pub String);

impl std::fmt::Display for AgedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Write `state`, made by `scenario`'s precondition phase, to `path`.
pub fn save<T: Serialize>(path: &Path, scenario: &Scenario, state: &T) -> Result<(), AgedError> {
    let err = |e: &dyn std::fmt::Display| AgedError(format!("cannot write aged state {}: {e}", path.display()));
    let file = std::fs::File::create(path).map_err(|e| err(&e))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    w.write_all(MAGIC).map_err(|e| err(&e))?;
    let header = Header {
        format: FORMAT,
        lfslab_version: env!("CARGO_PKG_VERSION").into(),
        scenario: scenario.name.clone(),
        key: aging_key(scenario).to_string(),
    };
    bincode::serialize_into(&mut w, &header).map_err(|e| err(&e))?;
    bincode::serialize_into(&mut w, state).map_err(|e| err(&e))?;
    w.flush().map_err(|e| err(&e))
}

/// Read an aged state for `scenario`, refusing one made by another setup.
pub fn load<T: DeserializeOwned>(path: &Path, scenario: &Scenario) -> Result<T, AgedError> {
    let name = path.display();
    let file = std::fs::File::open(path).map_err(|e| AgedError(format!("cannot read aged state {name}: {e}")))?;
    let mut r = BufReader::with_capacity(1 << 20, file);
    let mut magic = [0u8; 12];
    if r.read_exact(&mut magic).is_err() || &magic != MAGIC {
        return Err(AgedError(format!("{name} is not an lfslab aged state (made with --save-aged)")));
    }
    let h: Header = bincode::deserialize_from(&mut r).map_err(|e| AgedError(format!("{name}: damaged header: {e}")))?;
    if h.format != FORMAT || h.lfslab_version != env!("CARGO_PKG_VERSION") {
        return Err(AgedError(format!(
            "{name} was saved by lfslab {} (format {}); this is lfslab {} (format {FORMAT}): age again with --save-aged",
            h.lfslab_version,
            h.format,
            env!("CARGO_PKG_VERSION")
        )));
    }
    let saved: Value = serde_json::from_str(&h.key).map_err(|e| AgedError(format!("{name}: damaged header: {e}")))?;
    let mut diff = Vec::new();
    differences("", &saved, &aging_key(scenario), &mut diff);
    if !diff.is_empty() {
        return Err(AgedError(format!(
            "{name} was aged by scenario {:?} with another setup ({}); only the jobs' I/O pattern, runtime, limits and output may differ",
            h.scenario,
            diff.join("; ")
        )));
    }
    bincode::deserialize_from(&mut r).map_err(|e| AgedError(format!("{name}: damaged state: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn differences_name_the_fields() {
        let diff = |a: &Value, b: &Value| {
            let mut out = Vec::new();
            differences("", a, b, &mut out);
            out
        };
        let a = json!({"fs": {"mode": "lfs", "segs_per_sec": 16}, "seed": 1});
        let b = json!({"fs": {"mode": "adaptive", "segs_per_sec": 16}, "seed": 1});
        assert_eq!(diff(&a, &b), ["fs.mode: the aged state has \"lfs\", this run has \"adaptive\""]);
        assert!(diff(&a, &a).is_empty());
        let c = json!({"fs": {"mode": "lfs", "segs_per_sec": 8}});
        assert_eq!(diff(&a, &c).len(), 2);
        assert!(diff(&a, &c)[1].starts_with("seed: the aged state has 1, this run has null"));
    }
}
