//! Built-in scenarios, shipped as TOML in the repository's `scenarios/`
//! folder and embedded here so `lfslab run` works without files.

pub const BUILTIN_NAMES: [&str; 9] =
    ["default", "bench", "femu-hotcold", "waf-vs-op", "d2fs-fig1-fsgc", "d2fs-fig1-devgc", "d2fs-fio", "f2fs-fio", "fio-randwrite"];

/// The TOML text of a built-in scenario.
pub fn builtin(name: &str) -> Option<&'static str> {
    match name {
        "default" => Some(include_str!("../../../../scenarios/default.toml")),
        "bench" => Some(include_str!("../../../../scenarios/bench.toml")),
        "femu-hotcold" => Some(include_str!("../../../../scenarios/femu-hotcold.toml")),
        "waf-vs-op" => Some(include_str!("../../../../scenarios/waf-vs-op.toml")),
        "d2fs-fig1-fsgc" => Some(include_str!("../../../../scenarios/d2fs-fig1-fsgc.toml")),
        "d2fs-fig1-devgc" => Some(include_str!("../../../../scenarios/d2fs-fig1-devgc.toml")),
        "d2fs-fio" => Some(include_str!("../../../../scenarios/d2fs-fio.toml")),
        "f2fs-fio" => Some(include_str!("../../../../scenarios/f2fs-fio.toml")),
        "fio-randwrite" => Some(include_str!("../../../../scenarios/fio-randwrite.toml")),
        _ => None,
    }
}
