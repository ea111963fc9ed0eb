//! `--set key=value` overrides applied to scenario TOML before validation,
//! for parameter sweeps without editing files. Keys are dotted paths
//! (`ftl.gc_policy`, `device.op`); `job.N.field` addresses the N-th job.
//! Values are TOML literals; anything that does not parse as one is taken
//! as a string.

use super::error::ScenarioError;
use toml::{Table, Value};

pub fn apply(text: &str, overrides: &[String]) -> Result<String, ScenarioError> {
    if overrides.is_empty() {
        return Ok(text.to_string());
    }
    let mut root: Table = text.parse().map_err(|e: toml::de::Error| ScenarioError::Parse(e.to_string()))?;
    for expr in overrides {
        let (key, raw) = expr
            .split_once('=')
            .ok_or_else(|| ScenarioError::invalid("--set", format!("{expr:?}"), "expected key=value"))?;
        let value = parse_value(raw.trim());
        set_path(&mut root, key.trim(), value).map_err(|reason| ScenarioError::invalid("--set", format!("{expr:?}"), reason))?;
    }
    Ok(toml::to_string(&root).expect("table serialises"))
}

fn parse_value(raw: &str) -> Value {
    match format!("v = {raw}").parse::<Table>() {
        Ok(mut t) => t.remove("v").expect("parsed key"),
        Err(_) => Value::String(raw.to_string()),
    }
}

fn set_path(root: &mut Table, key: &str, value: Value) -> Result<(), String> {
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err("empty path component".into());
    }
    let mut table = root;
    let mut i = 0;
    while i + 1 < parts.len() {
        let part = parts[i];
        if part == "job" {
            let idx: usize = parts
                .get(i + 1)
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| "job overrides need an index: job.N.field".to_string())?;
            let jobs = table
                .get_mut("job")
                .and_then(Value::as_array_mut)
                .ok_or_else(|| "the scenario has no [[job]] tables".to_string())?;
            let len = jobs.len();
            table = jobs
                .get_mut(idx)
                .and_then(Value::as_table_mut)
                .ok_or_else(|| format!("job index {idx} out of range (scenario has {len} jobs)"))?;
            i += 2;
            continue;
        }
        table = table
            .entry(part.to_string())
            .or_insert_with(|| Value::Table(Table::new()))
            .as_table_mut()
            .ok_or_else(|| format!("{part} is not a table"))?;
        i += 1;
    }
    if i >= parts.len() {
        return Err("path ends at a table, not a field".into());
    }
    table.insert(parts[i].to_string(), value);
    // The device is sized by what it exports or by its flash: setting one
    // replaces the other (compare --set device.capacity_gib=64 on a
    // workload sized by flash_gib).
    for (set, other) in [("device.capacity_gib", "flash_gib"), ("device.flash_gib", "capacity_gib")] {
        if key == set {
            table.remove(other);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_nested_and_job_fields() {
        let text = "[device]\nop = 0.07\n[[job]]\nrw = \"randwrite\"\n";
        let out = apply(text, &["device.op=0.28".into(), "job.0.bs=\"8k\"".into(), "ftl.gc_policy=cost-benefit".into()])
            .unwrap();
        let t: Table = out.parse().unwrap();
        assert_eq!(t["device"]["op"].as_float(), Some(0.28));
        assert_eq!(t["job"][0]["bs"].as_str(), Some("8k"));
        assert_eq!(t["ftl"]["gc_policy"].as_str(), Some("cost-benefit"));
    }

    #[test]
    fn a_device_size_replaces_the_other_kind() {
        let text = "[device]\nflash_gib = 16\n";
        let t: Table = apply(text, &["device.capacity_gib=64".into()]).unwrap().parse().unwrap();
        assert_eq!(t["device"].as_table().unwrap().keys().collect::<Vec<_>>(), ["capacity_gib"]);
        let t: Table = apply("[device]\ncapacity_gib = 8\n", &["device.flash_gib=32".into()]).unwrap().parse().unwrap();
        assert_eq!(t["device"].as_table().unwrap().keys().collect::<Vec<_>>(), ["flash_gib"]);
    }

    #[test]
    fn bad_overrides_are_errors() {
        assert!(apply("[[job]]\n", &["device.op".into()]).is_err());
        assert!(apply("[[job]]\n", &["job.3.bs=4k".into()]).unwrap_err().to_string().contains("out of range"));
    }
}
