//! Scenario parsing and validation: defaults, and errors that name the field.

use super::*;

fn err_of(text: &str) -> ScenarioError {
    Scenario::from_toml_str(text).expect_err("scenario should be rejected")
}

#[test]
fn builtins_parse() {
    for name in BUILTIN_NAMES {
        let s = Scenario::from_toml_str(builtin(name).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!s.jobs.is_empty() || s.filebench.is_some() || s.database.is_some(), "{name} has no workload");
    }
}

#[test]
fn defaults_are_filled_and_printed() {
    let s = Scenario::from_toml_str("[[job]]\nrw = \"randread\"\n").unwrap();
    assert_eq!(s.seed, 1);
    assert_eq!(s.preset, Preset::Samsung970Pro);
    assert_eq!(s.jobs[0].bs_blocks, 1);
    assert_eq!(s.jobs[0].size_blocks, s.ssd.logical_pages);
    let text = s.to_toml();
    for knob in ["preset = \"970pro\"", "gc_policy = \"greedy\"", "iodepth = 1", "seed = 1", "program_us = 185"] {
        assert!(text.contains(knob), "resolved scenario lacks {knob}:\n{text}");
    }
    // The resolved text is itself a valid scenario describing the same run.
    let again = Scenario::from_toml_str(&text).unwrap();
    assert_eq!(again.ssd, s.ssd);
    assert_eq!(again.jobs, s.jobs);
}

#[test]
fn op_sizes_the_flash() {
    let s = Scenario::from_toml_str("[device]\ncapacity_gib = 1\nop = 0.28\n[[job]]\n").unwrap();
    let op = s.ssd.op();
    assert!(op >= 0.28 && op < 0.28 + 0.05, "op {op}");
}

/// The D2FS artifact's NVMeVirt: 256 GiB of flash, 239.25 GiB exported by
/// the conventional FTL (OP 7%), all 256 GiB by the zoned setup.
#[test]
fn flash_gib_sizes_the_device_by_its_flash() {
    let base = "[device]\npreset = \"970pro\"\nflash_gib = 16\n[[job]]\nsize = \"11520m\"\n";
    let gib = |pages: u64| (pages * 4096) as f64 / (1u64 << 30) as f64;
    let conv = Scenario::from_toml_str(&format!("{base}[fs]\nkind = \"f2fs\"\n")).unwrap();
    assert_eq!(conv.ssd.geometry.total_bytes(), 16 << 30);
    assert!((gib(conv.ssd.logical_pages) - 16.0 / 1.07).abs() < 1e-5, "exported {}", gib(conv.ssd.logical_pages));
    let zoned = Scenario::from_toml_str(&format!("{base}[fs]\nkind = \"zf2fs\"\n")).unwrap();
    assert_eq!(zoned.ssd.logical_pages * 4096, 16 << 30, "a zoned device exports all of its flash");
    // Its metadata area's GC reserve is beyond the flash: threshold 2, one head, two.
    assert_eq!(zoned.ssd.geometry.total_bytes(), (16 << 30) + 5 * (32 << 20));
    // The same file on both: 75% of the conventional device, 70% of the zoned one.
    assert_eq!(conv.jobs[0].size_blocks, zoned.jobs[0].size_blocks);
    // The resolved scenario carries both sizes, consistently, and re-runs.
    let again = Scenario::from_toml_str(&conv.to_toml()).unwrap();
    assert_eq!(again.ssd, conv.ssd);
    let e = err_of("[device]\nflash_gib = 16\ncapacity_gib = 15\n[[job]]\n");
    assert!(e.to_string().contains("device.capacity_gib = 15") && e.to_string().contains("set one of the two"), "{e}");
    let e = err_of("[device]\nflash_gib = 16.01\n[[job]]\n");
    assert!(e.to_string().contains("device.flash_gib = 16.01") && e.to_string().contains("superblocks"), "{e}");
}

/// CSGC's sFTL maps a section to a superblock, so a device sized by its
/// flash exports whole superblocks (csgc.txt §5.1: 64 GB with 7% OP export
/// 59.5 GB, 3,808 16 MB sections), and the default workload runs on it.
#[test]
fn csgc_exports_whole_superblocks() {
    let base = "[device]\npreset = \"970pro\"\nflash_gib = 16\n[[job]]\nsize = \"11520m\"\n";
    let s = Scenario::from_toml_str(&format!("{base}[fs]\nkind = \"csgc\"\n")).unwrap();
    let sb = s.ssd.geometry.slots_per_superblock() as u64;
    assert_eq!(s.ssd.logical_pages % sb, 0);
    assert_eq!(s.ssd.logical_pages, ((16u64 << 18) as f64 / 1.07) as u64 / sb * sb);
    crate::engine::Run::new(s).expect("csgc on a flash-sized device");
    let paper = Scenario::from_toml_str("[device]\npreset = \"openssd-csgc\"\nflash_gib = 64\n[fs]\nkind = \"csgc\"\n[[job]]\nsize = \"50%\"\n").unwrap();
    assert_eq!(paper.ssd.logical_pages * 4096, 3808 << 24, "59.5 GiB");
    // A given capacity that is not whole superblocks is refused, naming it.
    for kind in ["csgc", "zf2fs"] {
        let e = err_of(&format!("[device]\ncapacity_gib = 4.01\n[fs]\nkind = \"{kind}\"\n[[job]]\nsize = \"50%\"\n"));
        assert!(e.to_string().contains("device.capacity_gib = 4.01") && e.to_string().contains("whole"), "{kind}: {e}");
    }
}

#[test]
fn unknown_field_is_named() {
    let e = err_of("[device]\nchanels = 4\n[[job]]\n");
    assert!(e.to_string().contains("chanels"), "{e}");
}

#[test]
fn wrong_type_is_named() {
    let e = err_of("[device]\ncapacity_gib = \"big\"\n[[job]]\n");
    assert!(e.to_string().contains("capacity_gib"), "{e}");
}

#[test]
fn bad_values_name_field_and_value() {
    let cases = [
        ("[[job]]\nrw = \"randwrit\"\n", "job[0].rw", "randwrit"),
        ("[[job]]\nbs = \"5k\"\n", "job[0].bs", "5k"),
        ("[[job]]\nbs = \"-4k\"\n", "job[0].bs", "-4k"),
        ("[[job]]\nsize = \"1t\"\n", "job[0].size", "1t"),
        ("[[job]]\niodepth = 0\n", "job[0].iodepth", "0"),
        ("[[job]]\nruntime = \"10 parsecs\"\n", "job[0].runtime", "parsecs"),
        ("[[job]]\nrandom_distribution = \"zipf:-1\"\n", "job[0].random_distribution", "zipf:-1"),
        ("[device]\npreset = \"990evo\"\n[[job]]\n", "device.preset", "990evo"),
        ("[device]\nop = -0.1\n[[job]]\n", "device.op", "-0.1"),
        ("[device]\npage_kib = 6\n[[job]]\n", "device.page_kib", "6"),
        ("[device]\nchannels = 0\n[[job]]\n", "device.channels", "0"),
        ("[device]\nop = 0.001\n[[job]]\n", "device.op", "0.001"),
        ("[ftl]\ngc_policy = \"lru\"\n[[job]]\n", "ftl.gc_policy", "lru"),
        ("[precondition]\nfill = 1.5\n[[job]]\n", "precondition.fill", "1.5"),
        ("seed = 3\n", "job", "[]"),
        // ext4 refuses F2FS's options, and F2FS ext4's, by name.
        ("[fs]\nkind = \"ext4\"\nmode = \"lfs\"\n[[job]]\n", "fs.mode", "F2FS option"),
        ("[fs]\nkind = \"ext4\"\ndiscard = \"idle-batched\"\n[[job]]\n", "fs.discard", "idle-batched"),
        ("[fs]\nkind = \"ext4\"\njournal_mib = 4096\n[[job]]\n", "fs.journal_mib", "4096"),
        ("[fs]\nkind = \"ext4\"\njournal_mib = 2\n[[job]]\n", "fs.journal_mib", "JBD2_MIN_JOURNAL_BLOCKS"),
        ("[fs]\nkind = \"ext4\"\ncommit_interval_s = 0\n[[job]]\n", "fs.commit_interval_s", "0"),
        ("[fs]\njournal_mib = 16\n[[job]]\n", "fs.journal_mib", "ext4 option"),
        ("[device]\ncmd_us = -1\n[[job]]\n", "device.cmd_us", "-1"),
        ("[host]\nbackground_writeback = \"eager\"\n[fs]\n[[job]]\n", "host.background_writeback", "eager"),
    ];
    for (text, field, value) in cases {
        let e = err_of(text);
        let msg = e.to_string();
        assert!(msg.starts_with(field), "{text:?}: message {msg:?} should start with {field}");
        assert!(msg.contains(value), "{text:?}: message {msg:?} should quote {value}");
    }
}

#[test]
fn durations() {
    let f = "job[0].runtime";
    assert_eq!(parse_duration(f, &DurationValue::Text("500ms".into())).unwrap(), SimDuration::from_ms(500));
    assert_eq!(parse_duration(f, &DurationValue::Text("2m".into())).unwrap(), SimDuration::from_secs(120));
    assert_eq!(parse_duration(f, &DurationValue::Seconds(1.5)).unwrap(), SimDuration::from_ms(1500));
    assert!(parse_duration(f, &DurationValue::Seconds(-1.0)).is_err());
}

#[test]
fn d2fs_sizes_its_partition_and_round_trips() {
    let text = "[device]\ncapacity_gib = 4\n[fs]\nkind = \"d2fs\"\nvop_regular = 1.5\n[[job]]\nsize = \"70%\"\n";
    let s = Scenario::from_toml_str(text).unwrap();
    let f = s.fs.as_ref().unwrap();
    let cc = f.coupled.as_ref().unwrap();
    let cap = s.ssd.logical_pages;
    assert_eq!(cc.partition_blocks - cc.gc_region_start, cap / 8192 * 8192, "GC region = capacity in 32 MiB sections");
    assert_eq!(cc.gc_region_start, (1.5 * cap as f64) as u64 / 8192 * 8192);
    assert_eq!(f.config.segs_per_sec, 16);
    assert_eq!(f.config.mode, crate::fs::FsMode::Lfs);
    // 70% is of the device capacity, not of the virtual partition.
    assert_eq!(s.jobs[0].size_blocks, cap * 7 / 10);
    let again = Scenario::from_toml_str(&s.to_toml()).unwrap();
    assert_eq!(again.fs, s.fs);
}

#[test]
fn d2fs_options_are_checked() {
    let base = "[device]\ncapacity_gib = 4\n[[job]]\n[fs]\n";
    let cases = [
        ("vop_regular = 1.4", "fs.vop_regular"),
        ("kind = \"d2fs\"\nmode = \"adaptive\"", "fs.mode"),
        ("kind = \"d2fs\"\nsegs_per_sec = 4", "fs.segs_per_sec"),
        ("kind = \"d2fs\"\npartition_gib = 2", "fs.partition_gib"),
        ("kind = \"d2fs\"\nvop_regular = 0.1", "fs.vop_regular"),
        ("kind = \"d2fs\"\ndiscard = \"idle-batched\"", "fs.discard"),
        ("kind = \"zfs\"", "fs.kind"),
        ("discard = \"on-invalidate\"", "fs.discard"),
    ];
    for (fs, field) in cases {
        let e = err_of(&format!("{base}{fs}\n"));
        assert!(e.to_string().starts_with(field), "{fs}: {e}");
    }
}

/// The kernel knobs of issue 10: defaults from the volume the run stands
/// for, bad values named by field.
#[test]
fn f2fs_kernel_knobs_follow_the_represented_volume() {
    let base = "[device]\ncapacity_gib = 8\n[[job]]\nsize = \"10%\"\n[fs]\nkind = \"f2fs\"\n";
    // An 8 GiB volume is small (f2fs_tuning_parameters): force + honor-opu-write, granularity 1.
    let small = Scenario::from_toml_str(base).unwrap();
    let t = &small.fs.as_ref().unwrap().config;
    assert_eq!(t.ipu_policy.name(), "force,honor-opu-write");
    assert_eq!(t.tuning.discard_granularity, 1);
    assert_eq!(t.tuning.dirty_nodes_pages, 4096);
    // The same run standing for 128 GiB: the kernel's large-volume defaults,
    // absolute thresholds scaled by 1/16.
    let big = Scenario::from_toml_str(&format!("volume_scale = 0.0625\n{base}")).unwrap();
    let t = &big.fs.as_ref().unwrap().config;
    assert_eq!(t.ipu_policy.name(), "fsync");
    assert_eq!(t.tuning.discard_granularity, 16);
    assert_eq!((t.tuning.dirty_nodes_pages, t.tuning.max_victim_search), (256, 256));
    // rec_prefree_segments: 5% of main (a ratio), capped at 4096 x 1/16.
    let main = big.fs.as_ref().map(|f| crate::fs::Layout::mkfs(f.partition_blocks, 1, None).unwrap().main_segments).unwrap();
    assert_eq!(t.tuning.reclaim_segments, (main * 5 / 100).min(256));
    assert!(big.to_toml().contains("ipu_policy = \"default\""));
    // The kernel's periods run at the represented volume's pace: a period's
    // dirty data is the same share of the volume (`period`).
    let (c, s) = (&big.fs.as_ref().unwrap().config, &small.fs.as_ref().unwrap().config);
    assert_eq!((s.dirty_expire_s, s.dirty_writeback_s, s.cp_interval_s), (30.0, 5.0, 60.0));
    assert_eq!((c.dirty_expire_s, c.dirty_writeback_s, c.cp_interval_s), (1.875, 0.3125, 3.75));
    assert_eq!(big.fs.as_ref().unwrap().daemon_interval, crate::sim::SimDuration::from_secs_f64(0.0625));
    for (line, field) in [
        ("ipu_policy = \"bogus\"", "fs.ipu_policy"),
        ("gc_idle = 3", "fs.gc_idle"),
        ("discard_granularity = 0", "fs.discard_granularity"),
        ("gc_max_sleep_time = 1000", "fs.gc_max_sleep_time"),
        ("dirty_nats_ratio = 0", "fs.dirty_nats_ratio"),
    ] {
        let e = err_of(&format!("{base}{line}\n"));
        assert!(e.to_string().contains(field), "{line}: {e}");
    }
    let e = err_of(&format!("volume_scale = 0\n{base}"));
    assert!(e.to_string().contains("volume_scale"), "{e}");
}

/// The femu preset takes FEMU's GC thresholds (run-blackbox.sh's defaults):
/// GC forced while at most 5% of the lines are free, background GC while at
/// most 25% are, both rounded down as FEMU's `(int)` casts do; other
/// presets have no background GC unless asked.
#[test]
fn femu_takes_femus_gc_thresholds() {
    let base = "[device]\npreset = \"femu\"\ncapacity_gib = 4\n[[job]]\nrw = \"randwrite\"\nsize = \"50%\"\n";
    let s = Scenario::from_toml_str(base).unwrap();
    let sbs = s.ssd.geometry.superblocks();
    assert_eq!(sbs, 72, "4 GiB and 12.5% spare in 64 MiB lines");
    // At most floor(3.6) = 3 free forces GC: lfslab collects below 4.
    assert_eq!((s.ssd.ftl.gc_threshold_superblocks, s.ssd.ftl.gc_background_superblocks), (4, 18));
    let s = Scenario::from_toml_str(&format!("{base}[ftl]\ngc_background_pct = 10\n")).unwrap();
    assert_eq!(s.ssd.ftl.gc_background_superblocks, 7);
    let s = Scenario::from_toml_str("[device]\ncapacity_gib = 4\n[[job]]\nsize = \"50%\"\n").unwrap();
    assert_eq!((s.ssd.ftl.gc_threshold_superblocks, s.ssd.ftl.gc_background_superblocks), (2, 0), "970pro: NVMeVirt's");
    match err_of(&format!("{base}[ftl]\ngc_background_pct = 60\n")) {
        ScenarioError::Invalid { field, .. } => assert_eq!(field, "ftl.gc_background_pct"),
        e => panic!("{e}"),
    }
}

#[test]
fn csgc_sizes_blocks_for_its_sections_and_rejects_misplaced_options() {
    let base = "[device]\npreset = \"openssd-csgc\"\ncapacity_gib = 4\n[[job]]\nrw = \"randwrite\"\nsize = \"50%\"\n";
    let s = Scenario::from_toml_str(&format!("{base}[fs]\nkind = \"csgc\"\n")).unwrap();
    // 8 segments of 512 blocks on 16 dies of 4 KiB pages: 256-page blocks.
    assert_eq!(s.ssd.geometry.pages_per_block, 256);
    assert_eq!(s.ssd.geometry.slots_per_superblock(), 8 * 512);
    let fs = s.fs.as_ref().unwrap();
    assert_eq!(fs.config.segs_per_sec, 8);
    assert!(fs.config.zoned && !fs.config.bg_gc && fs.csd.is_some());
    assert_eq!(fs.coupled.as_ref().unwrap().personality, crate::ftl::MainArea::Sftl);
    // 5% of the superblocks (csgc.txt §4), from the preset.
    let sbs = s.ssd.geometry.superblocks() as f64;
    assert_eq!(s.ssd.ftl.gc_threshold_superblocks, (0.05 * sbs).ceil() as u32);
    let s = Scenario::from_toml_str(&format!("{base}[fs]\nkind = \"csgc\"\nsegs_per_sec = 2\n")).unwrap();
    assert_eq!(s.ssd.geometry.pages_per_block, 64);
    let cases = [
        (format!("{base}[fs]\nkind = \"f2fs\"\noffload = false\n"), "fs.offload"),
        (format!("{base}[fs]\nkind = \"f2fs\"\n[csd]\nexecutor_cores = 2\n"), "csd"),
        (format!("{base}[fs]\nkind = \"csgc\"\n[csd]\ncoalesce_window = 0\n"), "csd.coalesce_window"),
        (format!("{base}[fs]\nkind = \"csgc\"\npipeline_depth = 0\n"), "fs.pipeline_depth"),
        (format!("{base}[fs]\nkind = \"csgc\"\nmode = \"adaptive\"\n"), "fs.mode"),
        (format!("{base}[fs]\nkind = \"csgc\"\nsegs_per_sec = 3\n"), "fs.segs_per_sec"),
        ("[device]\npreset = \"openssd-csgc\"\ncapacity_gib = 4\npages_per_block = 512\n[fs]\nkind = \"csgc\"\nsegs_per_sec = 8\n[[job]]\nsize = \"50%\"\n".to_string(), "fs.segs_per_sec"),
        (format!("{base}[ftl]\ngc_threshold_pct = 5\ngc_threshold_superblocks = 4\n"), "ftl.gc_threshold_pct"),
        (format!("{base}[ftl]\ngc_threshold_pct = 80\n"), "ftl.gc_threshold_pct"),
    ];
    for (text, field) in cases {
        match err_of(&text) {
            ScenarioError::Invalid { field: f, .. } => assert_eq!(f, field, "{text}"),
            e => panic!("{text}: {e}"),
        }
    }
}
