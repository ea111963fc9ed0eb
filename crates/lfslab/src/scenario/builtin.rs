//! Built-in scenarios, shipped as TOML in the repository's `scenarios/`
//! folder and embedded here so `lfslab run` works without files.

pub const BUILTIN_NAMES: [&str; 4] = ["default", "bench", "femu-hotcold", "waf-vs-op"];

/// The TOML text of a built-in scenario.
pub fn builtin(name: &str) -> Option<&'static str> {
    match name {
        "default" => Some(include_str!("../../../../scenarios/default.toml")),
        "bench" => Some(include_str!("../../../../scenarios/bench.toml")),
        "femu-hotcold" => Some(include_str!("../../../../scenarios/femu-hotcold.toml")),
        "waf-vs-op" => Some(include_str!("../../../../scenarios/waf-vs-op.toml")),
        _ => None,
    }
}
