//! Built-in scenarios, shipped as TOML in the repository's `scenarios/`
//! folder and embedded here so `lfslab run` works without files.

pub const BUILTIN_NAMES: [&str; 30] = [
    "default",
    "bench",
    "femu-hotcold",
    "waf-vs-op",
    "d2fs-fig1-fsgc",
    "d2fs-fig1-devgc",
    "d2fs-fio",
    "f2fs-fio",
    "fio-randwrite",
    "d2fs-fileserver",
    "d2fs-ycsb-a",
    "d2fs-ycsb-f",
    "d2fs-tpcc",
    "iplfs-compaction",
    "csgc-fio",
    "csgc-fileserver",
    "csgc-varmail",
    "csgc-ycsb-a",
    "csgc-ycsb-f",
    "rmipu-seqread",
    "rmipu-metadata",
    "rmipu-fio",
    "rmipu-tpcc",
    "scalelfs-fio",
    "scalelfs-fileserver",
    "scalelfs-varmail",
    "scalelfs-oltp",
    "scalelfs-ycsb-a",
    "scalelfs-ycsb-b",
    "scalelfs-ycsb-update-only",
];

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
        "d2fs-fileserver" => Some(include_str!("../../../../scenarios/d2fs-fileserver.toml")),
        "d2fs-ycsb-a" => Some(include_str!("../../../../scenarios/d2fs-ycsb-a.toml")),
        "d2fs-ycsb-f" => Some(include_str!("../../../../scenarios/d2fs-ycsb-f.toml")),
        "d2fs-tpcc" => Some(include_str!("../../../../scenarios/d2fs-tpcc.toml")),
        "iplfs-compaction" => Some(include_str!("../../../../scenarios/iplfs-compaction.toml")),
        "csgc-fio" => Some(include_str!("../../../../scenarios/csgc-fio.toml")),
        "csgc-fileserver" => Some(include_str!("../../../../scenarios/csgc-fileserver.toml")),
        "csgc-varmail" => Some(include_str!("../../../../scenarios/csgc-varmail.toml")),
        "csgc-ycsb-a" => Some(include_str!("../../../../scenarios/csgc-ycsb-a.toml")),
        "csgc-ycsb-f" => Some(include_str!("../../../../scenarios/csgc-ycsb-f.toml")),
        "rmipu-seqread" => Some(include_str!("../../../../scenarios/rmipu-seqread.toml")),
        "rmipu-metadata" => Some(include_str!("../../../../scenarios/rmipu-metadata.toml")),
        "rmipu-fio" => Some(include_str!("../../../../scenarios/rmipu-fio.toml")),
        "rmipu-tpcc" => Some(include_str!("../../../../scenarios/rmipu-tpcc.toml")),
        "scalelfs-fio" => Some(include_str!("../../../../scenarios/scalelfs-fio.toml")),
        "scalelfs-fileserver" => Some(include_str!("../../../../scenarios/scalelfs-fileserver.toml")),
        "scalelfs-varmail" => Some(include_str!("../../../../scenarios/scalelfs-varmail.toml")),
        "scalelfs-oltp" => Some(include_str!("../../../../scenarios/scalelfs-oltp.toml")),
        "scalelfs-ycsb-a" => Some(include_str!("../../../../scenarios/scalelfs-ycsb-a.toml")),
        "scalelfs-ycsb-b" => Some(include_str!("../../../../scenarios/scalelfs-ycsb-b.toml")),
        "scalelfs-ycsb-update-only" => Some(include_str!("../../../../scenarios/scalelfs-ycsb-update-only.toml")),
        _ => None,
    }
}

/// What a built-in scenario is: the first sentence of its header comment
/// (the file says it, so the listing cannot drift from it).
pub fn builtin_summary(name: &str) -> Option<String> {
    let text = builtin(name)?;
    let comment: Vec<&str> = text.lines().map_while(|l| l.strip_prefix('#')).map(str::trim).collect();
    let joined = comment.join(" ");
    // A sentence ends at ". " before a capital ("Fig. 1" does not end one).
    let bytes = joined.as_bytes();
    let end = (0..bytes.len().saturating_sub(2))
        .find(|&i| bytes[i] == b'.' && bytes[i + 1] == b' ' && bytes[i + 2].is_ascii_uppercase())
        .map_or(joined.len(), |i| i + 1);
    Some(joined[..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_says_what_it_is() {
        for n in BUILTIN_NAMES {
            let s = builtin_summary(n).unwrap();
            assert!(s.len() > 20, "{n}: {s:?}");
        }
    }
}
