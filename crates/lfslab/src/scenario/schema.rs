//! The scenario reference (`lfslab scenario --schema`, docs/scenario.md),
//! generated from the code so it cannot drift: field names, types and
//! meanings from `ScenarioFile`'s JSON schema (its doc comments), defaults
//! from resolving minimal scenarios. A test keeps docs/scenario.md equal to
//! this output.

use super::{Scenario, ScenarioFile};
use serde_json::Value;

/// Scenarios whose resolution supplies the defaults: every field a kind of
/// run fills in (a raw job, each filesystem kind).
const DEFAULT_SOURCES: [&str; 4] = [
    "[[job]]\nrw = \"randwrite\"\n",
    "[fs]\nkind = \"f2fs\"\n[[job]]\nrw = \"randwrite\"\nsize = \"10%\"\n",
    "[fs]\nkind = \"d2fs\"\n[[job]]\nrw = \"randwrite\"\nsize = \"10%\"\n",
    "[device]\ncapacity_gib = 16\n[fs]\nkind = \"zf2fs\"\n[[job]]\nrw = \"randwrite\"\nsize = \"10%\"\n",
];

/// Sections in file order: (TOML header, key in the root schema).
const SECTIONS: [(&str, &str); 11] = [
    ("top level", ""),
    ("[device]", "device"),
    ("[ftl]", "ftl"),
    ("[host]", "host"),
    ("[precondition]", "precondition"),
    ("[fs]", "fs"),
    ("[[job]]", "job"),
    ("[filebench]", "filebench"),
    ("[database]", "database"),
    ("[limits]", "limits"),
    ("[output]", "output"),
];

/// The first resolved value of `section.field` among the default sources.
fn default_of(resolved: &[Value], section: &str, field: &str) -> Option<String> {
    resolved.iter().find_map(|r| {
        let v = match section {
            "" => r.get(field)?,
            "job" => r.get("job")?.get(0)?.get(field)?,
            s => r.get(s)?.get(field)?,
        };
        Some(match v {
            Value::String(s) => format!("\"{s}\""),
            other => other.to_string(),
        })
    })
}

/// A property's type in words: "integer", "number", "string", "boolean",
/// "size" or "duration" (the two value kinds with their own syntax).
fn type_of(p: &Value) -> String {
    let name_of_ref = |r: &str| match r.rsplit('/').next() {
        Some("SizeValue") => "size".to_string(),
        Some("DurationValue") => "duration".to_string(),
        Some(other) => other.to_string(),
        None => "?".to_string(),
    };
    if let Some(r) = p.get("$ref").and_then(Value::as_str) {
        return name_of_ref(r);
    }
    for key in ["anyOf", "allOf"] {
        if let Some(alts) = p.get(key).and_then(Value::as_array) {
            let parts: Vec<String> =
                alts.iter().map(type_of).filter(|t| t != "null").collect();
            if !parts.is_empty() {
                return parts.join(" or ");
            }
        }
    }
    match p.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => {
            ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect::<Vec<_>>().join(" or ")
        }
        _ => "?".into(),
    }
}

/// One line of text for a table cell.
fn cell(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ").replace('|', "\\|")
}

/// The reference as Markdown.
pub fn reference_markdown() -> String {
    let root = serde_json::to_value(schemars::schema_for!(ScenarioFile)).expect("a schema serialises");
    let defs = root.get("definitions").cloned().unwrap_or(Value::Null);
    let resolved: Vec<Value> = DEFAULT_SOURCES
        .iter()
        .map(|t| {
            let s = Scenario::from_toml_str(t).expect("a default source resolves");
            serde_json::to_value(&s.resolved).expect("a resolved scenario serialises")
        })
        .collect();
    let mut out = String::from(
        "# Scenario reference\n\n\
         Every field of a scenario file, generated from the code by `lfslab scenario --schema`.\n\
         A test keeps this file equal to that output.\n\n\
         - Every field is optional.\n\
         - Unknown fields are errors.\n\
         - `lfslab run` prints the resolved scenario, with every default filled in.\n\
         - A default marked \"-\" depends on other fields; the meaning says how.\n\
         - Defaults shown are those of the `970pro` preset.\n\
         - Sizes are bytes, or strings like \"4k\", \"64m\" or \"70%\" (of the device).\n\
         - Durations are seconds, or strings like \"500ms\" or \"2m\".\n\
         - Ranges are in the meaning where the code checks them. A value out of range\n  \
           is refused with the field and the value named.\n",
    );
    for (header, key) in SECTIONS {
        let schema = match key {
            "" => root.clone(),
            k => {
                let prop = &root["properties"][k];
                let r = prop
                    .get("$ref")
                    .or_else(|| prop.get("items").and_then(|i| i.get("$ref")))
                    .or_else(|| {
                        prop.get("anyOf")?.as_array()?.iter().find_map(|a| a.get("$ref"))
                    })
                    .or_else(|| prop.get("allOf")?.as_array()?.iter().find_map(|a| a.get("$ref")))
                    .and_then(Value::as_str)
                    .unwrap_or_else(|| panic!("section {k} has no schema reference"));
                defs[r.rsplit('/').next().expect("a reference names a definition")].clone()
            }
        };
        out.push_str(&format!("\n## {header}\n\n"));
        if let Some(d) = schema.get("description").and_then(Value::as_str).filter(|_| !key.is_empty()) {
            out.push_str(&format!("{}\n\n", cell(d)));
        }
        out.push_str("| field | type | default | meaning |\n|---|---|---|---|\n");
        let Some(props) = schema.get("properties").and_then(Value::as_object) else { continue };
        for (field, p) in props {
            let t = type_of(p);
            // Sections are listed on their own.
            if key.is_empty() && SECTIONS.iter().any(|(_, k)| k == field) {
                continue;
            }
            let meaning = p.get("description").and_then(Value::as_str).unwrap_or("");
            let default = default_of(&resolved, key, field).unwrap_or_else(|| "-".into());
            out.push_str(&format!("| `{field}` | {t} | {} | {} |\n", cell(&default), cell(meaning)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/scenario.md is this output (LFSLAB_BLESS=1 rewrites it).
    #[test]
    fn docs_scenario_md_is_generated() {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenario.md");
        let got = reference_markdown();
        if std::env::var_os("LFSLAB_BLESS").is_some() {
            std::fs::write(&p, &got).unwrap();
            return;
        }
        let want = std::fs::read_to_string(&p).unwrap_or_default();
        assert!(got == want, "docs/scenario.md is stale: run LFSLAB_BLESS=1 cargo test -p lfslab --lib schema");
    }

    #[test]
    fn every_field_has_a_meaning() {
        let md = reference_markdown();
        let blank: Vec<&str> = md.lines().filter(|l| l.starts_with("| `") && l.ends_with("|  |")).collect();
        assert!(blank.is_empty(), "fields without a doc comment:\n{}", blank.join("\n"));
    }
}
