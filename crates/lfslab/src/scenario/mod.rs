//! Scenarios: the TOML schema (`file`), its validation into a runnable
//! configuration with documented defaults, and the built-in scenarios.

mod builtin;
mod error;
mod file;
mod overrides;
pub mod schema;

pub use builtin::{builtin, builtin_summary, BUILTIN_NAMES};
pub use error::ScenarioError;
pub use file::*;

use crate::fs::{DiscardPolicy, FsConfig, FsCosts, FsMode, GcStageCosts, IpuPolicy};
use crate::ftl::{FtlConfig, SsdConfig};
use crate::nand::{blocks_for_capacity, Geometry, Preset, SLOT_BYTES};
use crate::sim::{Limits, SimDuration};
use std::collections::BTreeMap;
use crate::workload::{fio_jobfile, iolog, parse_size, trace, AccessDistribution, HostCosts, JobSpec, Precondition, RwMode};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A validated scenario, ready to run.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The scenario with every default filled in (what `to_toml` prints).
    pub resolved: ScenarioFile,
    pub name: String,
    pub seed: u64,
    pub preset: Preset,
    pub ssd: SsdConfig,
    pub precondition: Precondition,
    pub host: HostCosts,
    pub jobs: Vec<JobSpec>,
    pub limits: Limits,
    pub series_interval: SimDuration,
    pub check_invariants: bool,
    /// A filesystem on the device, if the scenario has an [fs] table.
    pub fs: Option<FsScenario>,
    /// A filebench personality run instead of `jobs`.
    pub filebench: Option<crate::workload::filebench::FilebenchSpec>,
    /// A database model run (YCSB or TPC-C) instead of `jobs`.
    pub database: Option<crate::workload::database::DatabaseSpec>,
    /// What the input said that the simulation does not use (fio options
    /// without effect), for the report.
    pub input_notes: Vec<String>,
    /// Each job's options as given (fio's "job options"), and a fio job
    /// file's [global] section ("global options").
    pub job_options: Vec<BTreeMap<String, String>>,
    pub global_options: BTreeMap<String, String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FsScenario {
    pub config: FsConfig,
    /// Partition size in 4 KiB blocks, from LBA 0.
    pub partition_blocks: u64,
    /// How often the idle-work daemon (BG GC, discard, periodic checkpoint) wakes.
    pub daemon_interval: SimDuration,
    /// Blocks files may fill (mkfs's main area minus overprovisioning).
    pub user_blocks: u64,
    /// D2FS: the device runs Coupled GC over this partition (or is the
    /// ZNS or sFTL device the filesystem frees sections of).
    pub coupled: Option<crate::ftl::CoupledConfig>,
    /// CSGC: the sFTL device's migration executor.
    pub csd: Option<crate::ftl::CsdConfig>,
}

impl FsScenario {
    /// The device this filesystem runs on: page-mapped, or the block-mapped
    /// personality `coupled` names, with CSGC's executor when `csd` is set.
    pub fn device(&self, ssd: &SsdConfig) -> Result<crate::ftl::Ssd, crate::ftl::ConfigError> {
        let dev = match &self.coupled {
            None => crate::ftl::Ssd::new(ssd.clone())?,
            Some(cc) => crate::ftl::Ssd::new_coupled(ssd.clone(), cc.clone())?,
        };
        match &self.csd {
            Some(csd) => dev.with_executor(csd.clone()),
            None => Ok(dev),
        }
    }
}

const GIB: f64 = (1u64 << 30) as f64;
/// Most time-series rows a report may hold.
const MAX_SERIES_BUCKETS: u64 = 1_000_000;

fn finite_in(field: &str, v: f64, lo: f64, hi: f64) -> Result<f64, ScenarioError> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(v)
    } else {
        Err(ScenarioError::invalid(field, v, format!("must be between {lo} and {hi}")))
    }
}

fn us_to_ns(field: &str, v: f64) -> Result<u64, ScenarioError> {
    Ok((finite_in(field, v, 0.0, 1e9)? * 1000.0).round() as u64)
}

/// Parse "10s", "500ms", "2m", "100us", "1h" or a bare number of seconds.
pub fn parse_duration(field: &str, v: &DurationValue) -> Result<SimDuration, ScenarioError> {
    let secs = match v {
        DurationValue::Seconds(s) => *s,
        DurationValue::Text(t) => {
            let t = t.trim();
            let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
            let (num, unit) = t.split_at(split);
            let n: f64 = num.trim().parse().map_err(|_| {
                ScenarioError::invalid(field, format!("{t:?}"), "not a duration (e.g. \"10s\", \"500ms\")")
            })?;
            let mult = match unit {
                "" | "s" => 1.0,
                "ms" => 1e-3,
                "us" => 1e-6,
                "ns" => 1e-9,
                "m" => 60.0,
                "h" => 3600.0,
                _ => {
                    return Err(ScenarioError::invalid(
                        field,
                        format!("{t:?}"),
                        "unknown unit; use ns, us, ms, s, m or h",
                    ))
                }
            };
            n * mult
        }
    };
    if !(secs.is_finite() && secs > 0.0 && secs <= 1e7) {
        let shown = match v {
            DurationValue::Seconds(s) => s.to_string(),
            DurationValue::Text(t) => format!("{t:?}"),
        };
        return Err(ScenarioError::invalid(field, shown, "must be a positive duration of at most 10^7 s"));
    }
    Ok(SimDuration::from_secs_f64(secs))
}

/// A device sized by its raw flash (`device.flash_gib`).
struct FlashSized {
    capacity_gib: f64,
    logical_pages: u64,
    blocks_per_plane: u32,
}

/// What a device of `flash_gib` of raw flash exports, as the D2FS
/// artifact's NVMeVirt sizes it (its boot log: "FTL physical space:
/// 274876858368, logical space: 256894260157" for the conventional FTL,
/// physical = logical for the zoned setup, OP_AREA_PERCENT 0.07 and 0). A
/// conventional device exports flash / (1 + op). A zoned one exports all
/// of its flash as zones; lfslab's ZNS keeps a page-mapped metadata area
/// with its own device GC, whose reserve (`spare_sbs` superblocks: the GC
/// threshold, the log heads and two) is added beyond the flash, so the
/// filesystem sees every byte of it. CSGC's sFTL maps its OPU partition
/// a section to a superblock, so it exports whole superblocks (csgc.txt
/// §5.1: 64 GB of flash with 7% over-provisioning export 59.5 GB, 3,808
/// sections of 16 MB): `whole_superblocks` rounds the export down.
fn device_by_flash(
    geo: &Geometry,
    flash_gib: f64,
    op: f64,
    zoned: bool,
    whole_superblocks: bool,
    spare_sbs: u32,
) -> Result<FlashSized, ScenarioError> {
    let flash_gib = finite_in("device.flash_gib", flash_gib, 1.0 / 1024.0, 16_384.0)?;
    let sb = geo.superblock_bytes();
    let flash_bytes = (flash_gib * GIB) as u64;
    if flash_bytes % sb != 0 {
        return Err(ScenarioError::invalid(
            "device.flash_gib",
            flash_gib,
            format!("must be a whole number of {} MiB superblocks", sb >> 20),
        ));
    }
    let sbs = (flash_bytes / sb) as u32;
    let flash_pages = flash_bytes / SLOT_BYTES;
    let (logical_pages, blocks_per_plane) = if zoned {
        (flash_pages, sbs + spare_sbs)
    } else {
        let pages = (flash_pages as f64 / (1.0 + op)).floor() as u64;
        let sb_pages = geo.slots_per_superblock() as u64;
        (if whole_superblocks { pages / sb_pages * sb_pages } else { pages }, sbs)
    };
    Ok(FlashSized { capacity_gib: (logical_pages * SLOT_BYTES) as f64 / GIB, logical_pages, blocks_per_plane })
}

fn size_bytes(field: &str, v: &SizeValue, device_bytes: Option<u64>) -> Result<u64, ScenarioError> {
    match v {
        SizeValue::Bytes(b) => Ok(*b),
        SizeValue::Text(t) => {
            if let Some(p) = t.trim().strip_suffix('%') {
                let dev = device_bytes.ok_or_else(|| {
                    ScenarioError::invalid(field, format!("{t:?}"), "a percentage is not allowed here")
                })?;
                let pct: f64 = p
                    .trim()
                    .parse()
                    .map_err(|_| ScenarioError::invalid(field, format!("{t:?}"), "not a percentage"))?;
                if !(pct > 0.0 && pct <= 100.0) {
                    return Err(ScenarioError::invalid(field, format!("{t:?}"), "percentage must be in (0, 100]"));
                }
                Ok(((dev as f64 * pct / 100.0) as u64 / SLOT_BYTES) * SLOT_BYTES)
            } else {
                parse_size(t).map_err(|e| ScenarioError::invalid(field, format!("{t:?}"), e))
            }
        }
    }
}

/// `v` times `scale` if it is a size in bytes (rounded down to 4 KiB, at
/// least 4 KiB; zero stays zero); a percentage is returned as it is.
pub fn scale_size(field: &str, v: &SizeValue, scale: f64) -> Result<SizeValue, ScenarioError> {
    if matches!(v, SizeValue::Text(t) if t.trim().ends_with('%')) {
        return Ok(v.clone());
    }
    let b = size_bytes(field, v, None)?;
    if b == 0 {
        return Ok(v.clone());
    }
    let scaled = (b as f64 * scale / SLOT_BYTES as f64).floor().max(1.0) as u64 * SLOT_BYTES;
    Ok(SizeValue::Bytes(scaled))
}

fn blocks_of(field: &str, v: &SizeValue, bytes: u64) -> Result<u64, ScenarioError> {
    if bytes % SLOT_BYTES != 0 {
        return Err(ScenarioError::invalid(field, show(v), "must be a multiple of 4 KiB (the logical block size)"));
    }
    Ok(bytes / SLOT_BYTES)
}

fn show(v: &SizeValue) -> String {
    match v {
        SizeValue::Bytes(b) => b.to_string(),
        SizeValue::Text(t) => format!("{t:?}"),
    }
}

impl Scenario {
    /// Parse `text` after applying `--set key=value` overrides.
    pub fn from_toml_str_with(text: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
        Scenario::from_toml_str_in(text, overrides, Path::new("."))
    }

    /// The scenario file as written (defaults not filled), after `--set`
    /// overrides: what `compare` adapts per design before resolving.
    pub fn file_from_toml_with(text: &str, overrides: &[String]) -> Result<ScenarioFile, ScenarioError> {
        // The file's own mistakes first, with its own line numbers.
        toml::from_str::<ScenarioFile>(text).map_err(|e| ScenarioError::Parse(e.to_string()))?;
        toml::from_str(&overrides::apply(text, overrides)?)
            .map_err(|e| ScenarioError::Parse(e.to_string()).with_overrides(overrides))
    }

    /// Parse with relative paths (fio job files, iologs) resolved against `base`.
    pub fn from_toml_str_in(text: &str, overrides: &[String], base: &Path) -> Result<Scenario, ScenarioError> {
        let file = Scenario::file_from_toml_with(text, overrides)?;
        Scenario::from_file_in(file, base).map_err(|e| e.with_overrides(overrides))
    }

    pub fn from_toml_str(text: &str) -> Result<Scenario, ScenarioError> {
        let file: ScenarioFile = toml::from_str(text).map_err(|e| ScenarioError::Parse(e.to_string()))?;
        Scenario::from_file(file)
    }

    pub fn from_file(f: ScenarioFile) -> Result<Scenario, ScenarioError> {
        Scenario::from_file_in(f, Path::new("."))
    }

    /// Replace the seed (the CLI's `--seed`).
    pub fn with_seed(mut self, seed: u64) -> Scenario {
        self.seed = seed;
        self.resolved.seed = Some(seed);
        self
    }

    /// The resolved scenario as TOML: every knob, ready to be re-run.
    pub fn to_toml(&self) -> String {
        toml::to_string(&self.resolved).expect("resolved scenario serialises")
    }

    pub fn from_file_in(f: ScenarioFile, base: &Path) -> Result<Scenario, ScenarioError> {
        let mut r = f.clone();
        let mut input_notes = Vec::new();
        let mut job_options: Vec<BTreeMap<String, String>> = f.jobs.iter().map(options_as_given).collect();
        let mut global_options = BTreeMap::new();
        if let Some(path) = r.fio_job_file.take() {
            let full = base.join(&path);
            let text = read_input(&full, JOB_FILE_LIMIT)
                .map_err(|e| ScenarioError::invalid("fio_job_file", format!("{path:?}"), e))?;
            let parsed = fio_jobfile::parse(&text)
                .map_err(|e| ScenarioError::invalid("fio_job_file", format!("{path:?}"), e))?;
            r.jobs.extend(parsed.jobs);
            input_notes.extend(parsed.ignored.into_iter().map(|n| format!("{path}: {n}")));
            job_options.extend(parsed.job_options);
            global_options = parsed.global_options;
        }
        // ---- device
        let d = &mut r.device;
        let preset_name = d.preset.get_or_insert_with(|| "970pro".into()).clone();
        let preset = Preset::parse(&preset_name).ok_or_else(|| {
            ScenarioError::invalid(
                "device.preset",
                format!("{preset_name:?}"),
                format!("unknown preset; valid: {}", Preset::NAMES.join(", ")),
            )
        })?;
        let mut geo = preset.geometry();
        let mut timing = preset.timing();
        let op = finite_in("device.op", *d.op.get_or_insert(preset.op()), 0.0001, 10.0)?;
        geo.channels = *d.channels.get_or_insert(geo.channels);
        geo.chips_per_channel = *d.chips_per_channel.get_or_insert(geo.chips_per_channel);
        geo.dies_per_chip = *d.dies_per_chip.get_or_insert(geo.dies_per_chip);
        geo.planes_per_die = *d.planes_per_die.get_or_insert(geo.planes_per_die);
        geo.pages_per_block = *d.pages_per_block.get_or_insert(geo.pages_per_block);
        let page_kib = *d.page_kib.get_or_insert(geo.page_bytes / 1024);
        if page_kib == 0 || page_kib % 4 != 0 || page_kib > 1024 {
            return Err(ScenarioError::invalid(
                "device.page_kib",
                page_kib,
                "must be a multiple of 4 between 4 and 1024",
            ));
        }
        geo.page_bytes = page_kib * 1024;
        // CSGC: a section is one superblock (the OPU partition maps a
        // section directly onto flash), so the block size follows the
        // section size unless the scenario sets it: 8 segments on 16 dies
        // of 4 KiB pages make 256-page (1 MiB) blocks, not the paper's 512.
        if r.fs.as_ref().is_some_and(|fs| fs.kind.as_deref() == Some("csgc")) && f.device.pages_per_block.is_none() {
            let segs = r.fs.as_ref().and_then(|fs| fs.segs_per_sec).unwrap_or(CSGC_SEGS_PER_SEC) as u64;
            let row = geo.dies() as u64 * geo.planes_per_die as u64 * (geo.page_bytes as u64 / SLOT_BYTES);
            let sec = segs * crate::fs::layout::BLOCKS_PER_SEG as u64;
            if segs == 0 || !sec.is_multiple_of(row) || sec / row > 65_536 {
                return Err(ScenarioError::invalid(
                    "fs.segs_per_sec",
                    segs,
                    format!("a CSGC section must fill whole flash pages on all {} dies ({row} blocks per page row)", geo.dies()),
                ));
            }
            geo.pages_per_block = (sec / row) as u32;
            d.pages_per_block = Some(geo.pages_per_block);
        }
        for (field, v) in [
            ("device.channels", geo.channels),
            ("device.chips_per_channel", geo.chips_per_channel),
            ("device.dies_per_chip", geo.dies_per_chip),
            ("device.planes_per_die", geo.planes_per_die),
            ("device.pages_per_block", geo.pages_per_block),
        ] {
            if v == 0 || v > 65_536 {
                return Err(ScenarioError::invalid(field, v, "must be between 1 and 65536"));
            }
        }
        let fs_kind = f.fs.as_ref().and_then(|x| x.kind.as_deref());
        let zoned_fs = fs_kind == Some("zf2fs");
        // CSGC maps a section to a superblock: its device exports whole ones
        // (a zoned device exports all of its flash, whole zones already).
        let csgc_fs = fs_kind == Some("csgc");
        let (capacity_gib, logical_pages) = match d.flash_gib {
            Some(flash) => {
                let spare_sbs = crate::ftl::gc_reserve_superblocks(r.ftl.gc_threshold_superblocks.unwrap_or(2), r.ftl.streams.unwrap_or(1));
                let sized = device_by_flash(&geo, flash, op, zoned_fs, csgc_fs, spare_sbs)?;
                if let Some(given) = d.capacity_gib.filter(|&c| (c - sized.capacity_gib).abs() > 1e-9 * sized.capacity_gib) {
                    return Err(ScenarioError::invalid(
                        "device.capacity_gib",
                        given,
                        format!(
                            "device.flash_gib = {flash} makes the device export {} GiB; set one of the two",
                            sized.capacity_gib
                        ),
                    ));
                }
                if let Some(b) = d.blocks_per_plane.filter(|&b| b != sized.blocks_per_plane) {
                    return Err(ScenarioError::invalid(
                        "device.blocks_per_plane",
                        b,
                        format!("device.flash_gib = {flash} makes {} blocks per plane; set one of the two", sized.blocks_per_plane),
                    ));
                }
                d.capacity_gib = Some(sized.capacity_gib);
                geo.blocks_per_plane = sized.blocks_per_plane;
                (sized.capacity_gib, sized.logical_pages)
            }
            None => {
                let capacity_gib =
                    finite_in("device.capacity_gib", *d.capacity_gib.get_or_insert(8.0), 1.0 / 1024.0, 16_384.0)?;
                let logical_pages = (capacity_gib * GIB / SLOT_BYTES as f64).floor() as u64;
                geo.blocks_per_plane = match d.blocks_per_plane {
                    Some(b) => b,
                    None => blocks_for_capacity(&geo, logical_pages * SLOT_BYTES, op),
                };
                (capacity_gib, logical_pages)
            }
        };
        d.blocks_per_plane = Some(geo.blocks_per_plane);
        timing.read_ns = us_to_ns("device.read_us", *d.read_us.get_or_insert(timing.read_ns as f64 / 1000.0))?;
        timing.program_ns =
            us_to_ns("device.program_us", *d.program_us.get_or_insert(timing.program_ns as f64 / 1000.0))?;
        timing.erase_ns = us_to_ns("device.erase_us", *d.erase_us.get_or_insert(timing.erase_ns as f64 / 1000.0))?;
        timing.channel_mbps = *d.channel_mbps.get_or_insert(timing.channel_mbps);
        timing.pcie_mbps = *d.pcie_mbps.get_or_insert(timing.pcie_mbps);
        timing.cmd_ns = us_to_ns("device.cmd_us", *d.cmd_us.get_or_insert(timing.cmd_ns as f64 / 1000.0))?;
        geo.validate().map_err(|e| {
            if e.field == "device.blocks_per_plane" && f.device.blocks_per_plane.is_none() {
                // Derived from the capacity: name what the user set.
                ScenarioError::invalid(
                    "device.capacity_gib",
                    capacity_gib,
                    format!(
                        "with device.pages_per_block = {} and device.page_kib = {page_kib} this makes {} block(s) per plane: {}; \
                         raise capacity_gib or lower pages_per_block",
                        geo.pages_per_block, e.value, e.reason
                    ),
                )
            } else {
                ScenarioError::invalid(e.field, e.value, e.reason)
            }
        })?;
        if logical_pages > geo.total_slots() {
            return Err(ScenarioError::invalid(
                "device.capacity_gib",
                capacity_gib,
                format!(
                    "exceeds the physical flash ({} GiB) of device.blocks_per_plane = {}",
                    geo.total_bytes() as f64 / GIB,
                    geo.blocks_per_plane
                ),
            ));
        }

        // ---- ftl
        let mapping_set = r.ftl.mapping.is_some();
        let t = &mut r.ftl;
        let default_buffer_kib = 2 * geo.dies() as u64 * geo.slots_per_unit() as u64 * 4;
        let buffer_kib = *t.write_buffer_kib.get_or_insert(default_buffer_kib);
        if buffer_kib % 4 != 0 || buffer_kib > (1 << 24) {
            return Err(ScenarioError::invalid(
                "ftl.write_buffer_kib",
                buffer_kib,
                "must be a multiple of 4 KiB, at most 16 GiB",
            ));
        }
        if t.gc_threshold_superblocks.is_some() && t.gc_threshold_pct.is_some() {
            return Err(ScenarioError::invalid(
                "ftl.gc_threshold_pct",
                t.gc_threshold_pct.unwrap_or(0.0),
                "set either ftl.gc_threshold_pct or ftl.gc_threshold_superblocks, not both",
            ));
        }
        // FEMU counts free lines "at most" a share: floor(share x lines).
        let at_most = |pct: f64| (pct / 100.0 * geo.superblocks() as f64).floor() as u32;
        if t.gc_threshold_superblocks.is_none() {
            if let Some(pct) = t.gc_threshold_pct.or(preset.gc_threshold_pct()) {
                let pct = finite_in("ftl.gc_threshold_pct", pct, 0.0, 50.0)?;
                t.gc_threshold_superblocks = Some(((pct / 100.0 * geo.superblocks() as f64).ceil() as u32).max(2));
            } else if let Some((forced, _)) = preset.femu_gc_pcts() {
                // lfslab collects while fewer than the threshold are free.
                t.gc_threshold_superblocks = Some((at_most(forced) + 1).max(2));
            }
        }
        if t.gc_background_pct.is_none() {
            t.gc_background_pct = preset.femu_gc_pcts().map(|(_, background)| background);
        }
        let gc_background_superblocks = match t.gc_background_pct {
            Some(pct) => at_most(finite_in("ftl.gc_background_pct", pct, 0.0, 50.0)?),
            None => 0,
        };
        let ftl = FtlConfig {
            mapping: t.mapping.get_or_insert_with(|| "page".into()).clone(),
            victim_policy: t.gc_policy.get_or_insert_with(|| "greedy".into()).clone(),
            gc_threshold_superblocks: *t.gc_threshold_superblocks.get_or_insert(2),
            gc_background_superblocks,
            write_buffer_slots: (buffer_kib / 4) as u32,
            streams: *t.streams.get_or_insert(1),
            map_segment_blocks: crate::ftl::interval_mapping::IntervalConfig::segment_blocks_for(r.volume_scale.unwrap_or(1.0)),
            remap_entry_ns: *t.remap_entry_ns.get_or_insert(100),
        };
        let mut ssd = SsdConfig { geometry: geo, timing, logical_pages, ftl };
        ssd.validate().map_err(|e| {
            if e.field == "device.op" && f.device.op.is_none() {
                // The user set the capacity, not the spare area: name it.
                ScenarioError::invalid(
                    "device.capacity_gib",
                    capacity_gib,
                    format!("too small with the preset's device.op = {op} (effective {}): {}", e.value, e.reason),
                )
            } else if e.field == "device.op" {
                // Name the value the user wrote, and what rounding made of it.
                ScenarioError::invalid(e.field, format!("{op} (effective {})", e.value), e.reason)
            } else {
                ScenarioError::invalid(e.field, e.value, e.reason)
            }
        })?;

        // ---- host, precondition
        let host = HostCosts {
            submit_ns: *r.host.submit_ns.get_or_insert(HostCosts::default().submit_ns),
            complete_ns: *r.host.complete_ns.get_or_insert(HostCosts::default().complete_ns),
        };
        let precondition = Precondition {
            fill: finite_in("precondition.fill", *r.precondition.fill.get_or_insert(0.0), 0.0, 1.0)?,
            random_overwrite: finite_in(
                "precondition.random_overwrite",
                *r.precondition.random_overwrite.get_or_insert(0.0),
                0.0,
                100.0,
            )?,
            dummy_tail: finite_in("precondition.dummy_tail", *r.precondition.dummy_tail.get_or_insert(0.0), 0.0, 1.0)?,
        };
        if precondition.fill + precondition.dummy_tail > 1.0 {
            return Err(ScenarioError::invalid(
                "precondition.dummy_tail",
                precondition.dummy_tail,
                format!("with precondition.fill = {} it covers more than the device", precondition.fill),
            ));
        }
        if r.fs.is_some() && precondition.dummy_tail > 0.0 {
            return Err(ScenarioError::invalid(
                "precondition.dummy_tail",
                precondition.dummy_tail,
                "applies to raw-device runs (the filesystem lays out its files itself)",
            ));
        }

        // ---- filesystem
        let fs = match r.fs.as_mut() {
            Some(f) => {
                let vs = finite_in("volume_scale", *r.volume_scale.get_or_insert(1.0), 1e-6, 1e6)?;
                let sb = ssd.geometry.slots_per_superblock() as u64;
                let fs = resolve_fs(f, logical_pages, sb, &mut r.host, vs)?;
                // The sections of zoned F2FS and CSGC are the device's
                // superblocks, from the main area to the device's end.
                if fs.coupled.as_ref().is_some_and(|c| c.personality.host_freed()) && !logical_pages.is_multiple_of(sb) {
                    return Err(ScenarioError::invalid(
                        "device.capacity_gib",
                        capacity_gib,
                        format!(
                            "{} maps a section to a device superblock, so the device exports whole ones: use a multiple of {} KiB",
                            f.kind.as_deref().unwrap_or_default(),
                            (sb * SLOT_BYTES) >> 10
                        ),
                    ));
                }
                Some(fs)
            }
            None => None,
        };

        // CSGC's device compute ([csd]) belongs to its sFTL device only.
        let mut fs = fs;
        match fs.as_mut().filter(|f| f.config.csgc.is_some()) {
            Some(f) => {
                let c = r.csd.get_or_insert_with(Default::default);
                let d = crate::ftl::CsdConfig::default();
                let csd = crate::ftl::CsdConfig {
                    executor_cores: *c.executor_cores.get_or_insert(d.executor_cores),
                    nvme_cmd_ns: *c.nvme_cmd_ns.get_or_insert(d.nvme_cmd_ns),
                    exec_req_ns: *c.exec_req_ns.get_or_insert(d.exec_req_ns),
                    exec_block_ns: *c.exec_block_ns.get_or_insert(d.exec_block_ns),
                    flash_op_ns: *c.flash_op_ns.get_or_insert(d.flash_op_ns),
                    coalesce_window: *c.coalesce_window.get_or_insert(d.coalesce_window),
                };
                csd.validate().map_err(|e| ScenarioError::invalid(e.field, e.value, e.reason))?;
                f.csd = Some(csd);
            }
            None if r.csd.is_some() => {
                return Err(ScenarioError::invalid("csd", "(set)", "describes CSGC's computational SSD: set fs.kind = \"csgc\""));
            }
            None => {}
        }

        // IPLFS runs on an Interval Mapping FTL exporting its whole partition.
        if let Some(f) = fs.as_ref().filter(|f| f.config.iplfs_device_blocks.is_some()) {
            if !ssd.ftl.mapping.starts_with("interval") {
                if mapping_set {
                    return Err(ScenarioError::invalid(
                        "ftl.mapping",
                        format!("{:?}", ssd.ftl.mapping),
                        "iplfs needs an Interval Mapping FTL: interval or interval-no-compaction",
                    ));
                }
                ssd.ftl.mapping = "interval".into();
                r.ftl.mapping = Some("interval".into());
            }
            ssd.logical_pages = f.partition_blocks;
        }
        // RM-IPU's remap command exists on the page-mapping FTL only.
        if fs.as_ref().is_some_and(|f| f.config.rmipu) && ssd.ftl.mapping != "page" {
            return Err(ScenarioError::invalid(
                "ftl.mapping",
                format!("{:?}", ssd.ftl.mapping),
                "rmipu remaps addresses in a page-mapping FTL: set ftl.mapping = \"page\"",
            ));
        }

        // ---- jobs, or a filebench personality
        let filebench = match &r.filebench {
            None => None,
            Some(v) => {
                if !r.jobs.is_empty() {
                    return Err(ScenarioError::invalid(
                        "filebench",
                        &v.personality,
                        "a scenario runs either [[job]] tables or a [filebench] personality, not both",
                    ));
                }
                let Some(f) = &fs else {
                    return Err(ScenarioError::invalid("filebench", &v.personality, "filebench runs on files: add an [fs] table"));
                };
                let spec = v.resolve().map_err(|e| ScenarioError::invalid("filebench", &v.personality, e))?;
                // Every entry may exist at once: all of them must fit, with
                // an inode each and a direct node per 1018 blocks.
                let blocks: u64 = spec.filesets.iter().map(|s| s.entries * s.mean_size.div_ceil(SLOT_BYTES)).sum();
                let entries: u64 = spec.filesets.iter().map(|s| s.entries).sum();
                check_files_fit(blocks, entries, f.user_blocks).map_err(|(need, offer)| {
                    ScenarioError::invalid(
                        "filebench.nfiles",
                        spec.filesets[0].entries,
                        format!(
                            "the fileset (mean file size x entries, with node blocks) needs {need} MiB but the filesystem \
                             offers {offer} MiB of user space: lower nfiles or filesize, or enlarge fs.partition_gib"
                        ),
                    )
                })?;
                Some(spec)
            }
        };
        // ---- or a database model
        let database = match &r.database {
            None => None,
            Some(v) => {
                if !r.jobs.is_empty() || filebench.is_some() {
                    return Err(ScenarioError::invalid(
                        "database.benchmark",
                        &v.benchmark,
                        "a scenario runs one workload: [[job]] tables, a [filebench] personality or a [database], not two",
                    ));
                }
                let Some(f) = &fs else {
                    return Err(ScenarioError::invalid("database.benchmark", &v.benchmark, "the database runs on files: add an [fs] table"));
                };
                let spec = v.resolve().map_err(|e| ScenarioError::invalid("database", &v.benchmark, e))?;
                let db_blocks = spec.footprint_bytes() / SLOT_BYTES;
                let cold = spec.cold_file_bytes.div_ceil(SLOT_BYTES);
                check_files_fit(db_blocks + cold, 16, f.user_blocks).map_err(|(need, offer)| {
                    ScenarioError::invalid(
                        if cold > 0 { "database.cold_file" } else if v.benchmark == "tpcc" { "database.warehouses" } else { "database.recordcount" },
                        v.cold_file.clone().unwrap_or_else(|| v.benchmark.clone()),
                        format!(
                            "the database ({} MiB loaded) and the cold file ({} MiB) need {need} MiB but the filesystem offers {offer} MiB of user space",
                            (db_blocks * SLOT_BYTES) >> 20,
                            (cold * SLOT_BYTES) >> 20
                        ),
                    )
                })?;
                Some(spec)
            }
        };
        if r.jobs.is_empty() && filebench.is_none() && database.is_none() {
            return Err(ScenarioError::invalid(
                "job",
                "[]",
                "at least one [[job]] table (or a [filebench] or [database] table) is required",
            ));
        }
        // Job sizes in % are of the partition; for D2FS, of the device
        // capacity (the virtual partition is not space one can fill).
        let device_bytes = match &fs {
            Some(f) if f.coupled.is_some() || f.config.iplfs_device_blocks.is_some() => logical_pages * SLOT_BYTES,
            Some(f) => f.partition_blocks * SLOT_BYTES,
            None => logical_pages * SLOT_BYTES,
        };
        let mut jobs = Vec::new();
        let mut group = 0;
        for (i, j) in r.jobs.iter_mut().enumerate() {
            if *j.stonewall.get_or_insert(false) && i > 0 {
                group += 1;
            }
            let mut spec = resolve_job(i, j, device_bytes, fs.is_some(), base)?;
            spec.group = group;
            jobs.push(spec);
        }

        // ---- the files must fit the filesystem's user space
        if let Some(f) = &fs {
            let mut named: std::collections::BTreeMap<&str, u64> = std::collections::BTreeMap::new();
            let mut total = 0u64;
            let mut files = 0u64;
            for j in &jobs {
                let per_clone: u64 = match &j.iolog {
                    Some(l) => l.file_extent_blocks.iter().sum(),
                    None => j.file_blocks * j.nrfiles as u64,
                };
                match &j.filename {
                    Some(n) => {
                        let e = named.entry(n.as_str()).or_insert(0);
                        *e = (*e).max(per_clone);
                    }
                    None => {
                        total += per_clone * j.numjobs as u64;
                        files += j.nrfiles as u64 * j.numjobs as u64;
                    }
                }
            }
            total += named.values().sum::<u64>();
            files += named.len() as u64;
            check_files_fit(total, files, f.user_blocks).map_err(|(need, offer)| {
                ScenarioError::invalid(
                    "job",
                    format!("{} MiB of files", (total * SLOT_BYTES) >> 20),
                    format!(
                        "the files (with their index blocks) need {need} MiB but the filesystem offers {offer} MiB of user space \
                         (the partition less F2FS's mkfs overprovisioning, or ext4's tables and journal): shrink size/filesize \
                         or enlarge fs.partition_gib"
                    ),
                )
            })?;
        }

        // ---- limits, output
        let max_sim = finite_in("limits.max_sim_time_s", *r.limits.max_sim_time_s.get_or_insert(86_400.0), 1e-6, 1e9)?;
        let max_events = *r.limits.max_events.get_or_insert(Limits::default().max_events);
        if max_events == 0 {
            return Err(ScenarioError::invalid("limits.max_events", 0, "must be positive"));
        }
        let interval_ms = finite_in(
            "output.timeseries_interval_ms",
            *r.output.timeseries_interval_ms.get_or_insert(100.0),
            0.001,
            3.6e6,
        )?;
        // Raw-device jobs tag writes with a stream the FTL must have; on a
        // filesystem F2FS picks the stream itself (its six logs).
        for (i, j) in jobs.iter().enumerate() {
            if fs.is_none() && j.stream as u32 >= ssd.ftl.streams {
                return Err(ScenarioError::invalid(
                    format!("job[{i}].stream"),
                    j.stream,
                    format!("the device has ftl.streams = {} (streams 0 to {})", ssd.ftl.streams, ssd.ftl.streams - 1),
                ));
            }
            if fs.is_some() && j.stream != 0 {
                return Err(ScenarioError::invalid(
                    format!("job[{i}].stream"),
                    j.stream,
                    "applies to raw-device jobs; on a filesystem F2FS chooses the stream of each log",
                ));
            }
        }
        // Each bucket is a row of the report: bound them where the span is known.
        let spans = match (&filebench, &database) {
            (Some(fb), _) => Some(vec![fb.runtime.as_secs_f64()]),
            (_, Some(db)) => match &db.bench {
                crate::workload::database::Bench::Tpcc(t) => Some(vec![t.runtime.as_secs_f64()]),
                crate::workload::database::Bench::Ycsb(_) => None,
            },
            _ => jobs.iter().map(|j| j.runtime.map(|d| d.as_secs_f64())).collect::<Option<Vec<f64>>>(),
        };
        if let Some(span) = spans {
            let span = span.into_iter().fold(0.0, f64::max);
            let buckets = span * 1000.0 / interval_ms;
            if buckets > MAX_SERIES_BUCKETS as f64 {
                return Err(ScenarioError::invalid(
                    "output.timeseries_interval_ms",
                    interval_ms,
                    format!(
                        "gives {buckets:.0} time-series rows over the {span} s runtime; at most {MAX_SERIES_BUCKETS}: use at least {:.3} ms",
                        span * 1000.0 / MAX_SERIES_BUCKETS as f64
                    ),
                ));
            }
        }
        let check_invariants = *r.output.check_invariants.get_or_insert(true);
        let seed = *r.seed.get_or_insert(1);
        let name = r.name.get_or_insert_with(|| "unnamed".into()).clone();
        Ok(Scenario {
            resolved: r,
            name,
            seed,
            preset,
            ssd,
            precondition,
            host,
            jobs,
            limits: Limits { max_sim_time: SimDuration::from_secs_f64(max_sim), max_events },
            series_interval: SimDuration::from_secs_f64(interval_ms / 1000.0),
            check_invariants,
            fs,
            filebench,
            database,
            input_notes,
            job_options,
            global_options,
        })
    }
}

fn resolve_fs(
    f: &mut FsSection,
    device_blocks: u64,
    sb_blocks: u64,
    host: &mut HostSection,
    volume_scale: f64,
) -> Result<FsScenario, ScenarioError> {
    let cache_mib = *host.page_cache_mib.get_or_insert(1024);
    if cache_mib == 0 || cache_mib > (1 << 20) {
        return Err(ScenarioError::invalid("host.page_cache_mib", cache_mib, "must be between 1 and 1048576"));
    }
    let dirty_bg = *host.dirty_background_ratio.get_or_insert(10);
    let dirty = *host.dirty_ratio.get_or_insert(20);
    if dirty == 0 || dirty > 100 || dirty_bg > dirty {
        return Err(ScenarioError::invalid(
            "host.dirty_ratio",
            dirty,
            format!("must be 1..=100 and at least host.dirty_background_ratio ({dirty_bg})"),
        ));
    }
    // The kernel's periods are scaled with the volume (see `period`).
    let dirty_expire_s = finite_in("host.dirty_expire_s", *host.dirty_expire_s.get_or_insert(period(30.0, volume_scale)), 1e-6, 1e6)?;
    let dirty_writeback_s =
        finite_in("host.dirty_writeback_s", *host.dirty_writeback_s.get_or_insert(period(5.0, volume_scale)), 1e-6, 1e6)?;
    let bw_text = host.background_writeback.get_or_insert_with(|| "threshold".into()).clone();
    let on_threshold = match bw_text.as_str() {
        "tick" => false,
        "threshold" => true,
        _ => return Err(ScenarioError::invalid("host.background_writeback", format!("{bw_text:?}"), "valid: tick, threshold")),
    };
    let kind = f.kind.get_or_insert_with(|| "f2fs".into()).clone();
    if kind == "ext4" {
        let common = CommonFs { cache_mib, dirty_bg, dirty, dirty_expire_s, dirty_writeback_s, on_threshold };
        if let Some(c) = host.cores.filter(|&c| c > 0) {
            return Err(ScenarioError::invalid("host.cores", c, "is modelled for the F2FS family's GC workers only; leave it 0 with ext4"));
        }
        return resolve_ext4(f, device_blocks, volume_scale, common);
    }
    for (name, set) in [("commit_interval_s", f.commit_interval_s.is_some()), ("journal_mib", f.journal_mib.is_some())] {
        if set {
            return Err(ScenarioError::invalid(format!("fs.{name}"), "(set)", "is an ext4 option: set fs.kind = \"ext4\""));
        }
    }
    let rmipu = kind == "rmipu";
    let scalelfs = kind == "scalelfs";
    let (d2fs, zoned, iplfs, csgc) = match kind.as_str() {
        // RM-IPU is F2FS with remapped updates; its base mode is a knob
        // (fs.mode, default lfs: the paper does not say, and only LFS keeps
        // the hot log append-only).
        "f2fs" | "rmipu" | "scalelfs" => (false, false, false, false),
        "d2fs" => (true, false, false, false),
        "zf2fs" => (false, true, false, false),
        "iplfs" => (false, false, true, false),
        "csgc" => (false, false, false, true),
        _ => {
            return Err(ScenarioError::invalid(
                "fs.kind",
                format!("{kind:?}"),
                "unknown filesystem; valid: f2fs, d2fs, zf2fs, iplfs, csgc, rmipu, scalelfs, ext4",
            ))
        }
    };
    if !csgc {
        for (name, set) in [
            ("offload", f.offload.is_some()),
            ("pipeline_depth", f.pipeline_depth.is_some()),
            ("piggyback", f.piggyback.is_some()),
            ("offload_req_ns", f.offload_req_ns.is_some()),
            ("offload_prep_ns_per_block", f.offload_prep_ns_per_block.is_some()),
            ("offload_sync_ns_per_block", f.offload_sync_ns_per_block.is_some()),
        ] {
            if set {
                return Err(ScenarioError::invalid(format!("fs.{name}"), "(set)", "is a CSGC option: set fs.kind = \"csgc\""));
            }
        }
    }
    if !zoned && f.max_active_zones.is_some() {
        return Err(ScenarioError::invalid(
            "fs.max_active_zones",
            "(set)",
            "is a zoned option: set fs.kind = \"zf2fs\"",
        ));
    }
    let device_gib = device_blocks as f64 * SLOT_BYTES as f64 / GIB;
    let mut d2fs_parts = None;
    let partition_blocks = if d2fs {
        let d = d2fs_defaults(f, device_blocks, sb_blocks)?;
        let blocks = d.0 + d.1;
        d2fs_parts = Some(d);
        blocks
    } else if zoned {
        zf2fs_defaults(f, sb_blocks)?;
        device_blocks
    } else if csgc {
        csgc_defaults(f, sb_blocks)?;
        device_blocks
    } else if iplfs {
        iplfs_defaults(f)?;
        u32::MAX as u64 - 1
    } else {
        for (name, set) in [
            ("vop_regular", f.vop_regular.is_some()),
            ("upcall_records", f.upcall_records.is_some()),
            ("upcall_record_ns", f.upcall_record_ns.is_some()),
            ("cp_dead_sections", f.cp_dead_sections.is_some()),
        ] {
            if set {
                return Err(ScenarioError::invalid(
                    format!("fs.{name}"),
                    "(set)",
                    "is a D2FS option: set fs.kind = \"d2fs\"",
                ));
            }
        }
        let partition_gib =
            finite_in("fs.partition_gib", *f.partition_gib.get_or_insert(device_gib), 1.0 / 64.0, device_gib)?;
        (partition_gib * GIB / SLOT_BYTES as f64).floor() as u64
    };
    let partition_gib = partition_blocks as f64 * SLOT_BYTES as f64 / GIB;
    // ScaleLFS runs like LFS mode (scalelfs.txt §5: "no IPU/SSR").
    let mode_text = f.mode.get_or_insert_with(|| if rmipu || scalelfs { "lfs" } else { "adaptive" }.into()).clone();
    let mode = match mode_text.as_str() {
        "adaptive" => FsMode::Adaptive,
        "lfs" => FsMode::Lfs,
        _ => return Err(ScenarioError::invalid("fs.mode", format!("{mode_text:?}"), "valid: adaptive, lfs")),
    };
    let discard_text = f.discard.get_or_insert_with(|| "idle-batched".into()).clone();
    let discard = match discard_text.as_str() {
        "idle-batched" => DiscardPolicy::IdleBatched,
        "immediate" => DiscardPolicy::Immediate,
        "off" => DiscardPolicy::Off,
        // D2FS's own policy (d2fs.txt §6.3), set by `d2fs_defaults`.
        "on-invalidate" if d2fs => DiscardPolicy::Immediate,
        // Zoned F2FS resets each section a checkpoint frees; so does CSGC on sFTL.
        "zone-reset" if zoned || csgc => DiscardPolicy::Immediate,
        // IPLFS discards what each checkpoint superseded (iplfs.txt).
        "checkpoint" if iplfs => DiscardPolicy::Immediate,
        _ => {
            return Err(ScenarioError::invalid(
                "fs.discard",
                format!("{discard_text:?}"),
                "valid: idle-batched, immediate, off",
            ))
        }
    };
    let min_ipu_util = *f.min_ipu_util.get_or_insert(70);
    if min_ipu_util > 100 {
        return Err(ScenarioError::invalid("fs.min_ipu_util", min_ipu_util, "must be a percentage 0..=100"));
    }
    let segs_per_sec = *f.segs_per_sec.get_or_insert(1);
    let tuning = resolve_tuning(f, partition_blocks, segs_per_sec, volume_scale, iplfs.then_some(device_blocks))?;
    let ipu_text = f.ipu_policy.get_or_insert_with(|| "default".into()).clone();
    let ipu_policy = match ipu_text.as_str() {
        "default" if tuning.1 && mode == FsMode::Adaptive => IpuPolicy::SMALL_VOLUME,
        "default" => IpuPolicy::KERNEL_DEFAULT,
        t => IpuPolicy::parse(t).map_err(|e| ScenarioError::invalid("fs.ipu_policy", format!("{t:?}"), e))?,
    };
    let tuning = tuning.0;
    let d = FsCosts::default();
    if let Some(v) = f.gc_per_block_ns {
        return Err(ScenarioError::invalid(
            "fs.gc_per_block_ns",
            v,
            "FS GC is charged by stage now: set gc_meta_ns, gc_filemap_ns, gc_page_cache_ns and gc_write_ns instead",
        ));
    }
    // F2FS and zoned F2FS clean in the filesystem, where mkfs's reserve
    // matters: a scaled run gets the represented volume's (`mkfs_for`).
    let represented_blocks = (!d2fs && !iplfs && volume_scale != 1.0 && f.overprovision_pct.is_none())
        .then(|| (partition_blocks as f64 / volume_scale).round() as u64);
    let config = FsConfig {
        segs_per_sec,
        overprovision_pct: f.overprovision_pct,
        represented_blocks,
        mode,
        ipu_policy,
        min_ipu_util,
        discard,
        bg_gc: *f.bg_gc.get_or_insert(true),
        tuning,
        cp_interval_s: finite_in("fs.cp_interval_s", *f.cp_interval_s.get_or_insert(period(60.0, volume_scale)), 1e-6, 1e6)?,
        dirty_nats_ratio: {
            let r = *f.dirty_nats_ratio.get_or_insert(10);
            if r == 0 || r > 100 {
                return Err(ScenarioError::invalid("fs.dirty_nats_ratio", r, "must be a percentage 1..=100"));
            }
            r
        },
        costs: FsCosts {
            syscall_ns: *f.syscall_ns.get_or_insert(d.syscall_ns),
            per_block_ns: *f.per_block_ns.get_or_insert(d.per_block_ns),
            alloc_ns: *f.alloc_ns.get_or_insert(d.alloc_ns),
            bio_ns: *f.bio_ns.get_or_insert(d.bio_ns),
            gc: GcStageCosts {
                meta_ns: *f.gc_meta_ns.get_or_insert(d.gc.meta_ns),
                filemap_ns: *f.gc_filemap_ns.get_or_insert(d.gc.filemap_ns),
                page_cache_ns: *f.gc_page_cache_ns.get_or_insert(d.gc.page_cache_ns),
                write_ns: *f.gc_write_ns.get_or_insert(d.gc.write_ns),
            },
        },
        page_cache_pages: (cache_mib * 256) as usize,
        dirty_background_pct: dirty_bg,
        dirty_pct: dirty,
        dirty_expire_s,
        dirty_writeback_s,
        writeback_on_threshold: on_threshold,
        track_recovery: false,
        d2fs: None,
        zoned: zoned || csgc,
        rmipu,
        ext4: None,
        iplfs_device_blocks: iplfs.then_some(device_blocks),
        gc_engine: resolve_gc_engine(f, scalelfs, d2fs || iplfs || csgc)?,
        host_cores: resolve_cores(host)?,
        csgc: csgc.then(|| {
            let d = crate::fs::CsgcConfig::default();
            crate::fs::CsgcConfig {
                offload: *f.offload.get_or_insert(d.offload),
                pipeline_depth: *f.pipeline_depth.get_or_insert(d.pipeline_depth),
                piggyback: *f.piggyback.get_or_insert(d.piggyback),
                req_ns: *f.offload_req_ns.get_or_insert(d.req_ns),
                prep_ns_per_block: *f.offload_prep_ns_per_block.get_or_insert(d.prep_ns_per_block),
                sync_ns_per_block: *f.offload_sync_ns_per_block.get_or_insert(d.sync_ns_per_block),
            }
        }),
    };
    {
        use crate::fs::GcEngineKind;
        let e = &config.gc_engine;
        if matches!(e.kind, GcEngineKind::Pgc | GcEngineKind::Dgc) && config.mode != FsMode::Lfs {
            return Err(ScenarioError::invalid(
                "fs.mode",
                format!("{mode_text:?}"),
                format!("the {} GC engine collects in LFS mode only (no SSR): set fs.mode = \"lfs\"", e.kind.name()),
            ));
        }
    }
    if let Some(c) = &config.csgc {
        if c.pipeline_depth == 0 || c.pipeline_depth > 64 {
            return Err(ScenarioError::invalid("fs.pipeline_depth", c.pipeline_depth, "must be 1..=64 requests in flight"));
        }
    }
    let mut config = config;
    // Validate the layout now so a bad partition is a scenario error, not a run failure.
    let layout = config.mkfs(partition_blocks).map_err(|e| {
        let msg = e.to_string();
        let field = if msg.starts_with("fs.") {
            msg.split(' ').next().unwrap_or("fs").to_string()
        } else {
            "fs.partition_gib".into()
        };
        ScenarioError::invalid(field, partition_gib, msg)
    })?;
    let daemon_ms = daemon_interval_ms(f, volume_scale)?;
    let mut user_blocks = layout.user_blocks;
    let mut coupled = None;
    if let Some((regular, gc)) = d2fs_parts {
        // What the device can hold: the user blocks mkfs.f2fs would offer on
        // a partition of the device's capacity with default 2 MiB sections
        // (D2FS has no FS GC, so no reserve sized for big-section GC).
        let plain = crate::fs::Layout::mkfs(gc, 1, None).map_err(|e| {
            ScenarioError::invalid("device.capacity_gib", device_gib, format!("too small for D2FS: {e}"))
        })?;
        user_blocks = user_blocks.min(plain.user_blocks);
        config.d2fs = Some(crate::fs::D2fsConfig {
            gc_region_blocks: gc,
            user_blocks,
            upcall_record_ns: *f.upcall_record_ns.get_or_insert(1000),
            cp_dead_sections: *f.cp_dead_sections.get_or_insert(0),
            upcall_batch: 0,
        });
        coupled = Some(crate::ftl::CoupledConfig {
            partition_blocks,
            main_start: layout.main_blkaddr,
            gc_region_start: regular,
            records_per_upcall: *f.upcall_records.get_or_insert(256) as usize,
            personality: crate::ftl::MainArea::D2fs,
            max_active_zones: 0,
        });
    }
    if zoned || csgc {
        // Host-freed sections and no GC region: ZNS zones, or CSGC's sFTL.
        coupled = Some(crate::ftl::CoupledConfig {
            partition_blocks,
            main_start: layout.main_blkaddr,
            gc_region_start: partition_blocks,
            records_per_upcall: 1,
            personality: if csgc { crate::ftl::MainArea::Sftl } else { crate::ftl::MainArea::Zns },
            max_active_zones: if zoned { *f.max_active_zones.get_or_insert(14) } else { 0 },
        });
    }
    if zoned {
        // fs/f2fs/super.c (f2fs_remount, f2fs_default_check): "zoned: max
        // open zones %u is too small, need at least %u open zones", one per
        // active log (six).
        let zones = f.max_active_zones.expect("set above");
        let logs = crate::fs::layout::NR_CURSEG_TYPE;
        if zones < logs {
            return Err(ScenarioError::invalid(
                "fs.max_active_zones",
                zones,
                format!("too small: zoned F2FS needs at least {logs} open zones, one per active log (Linux refuses to mount)"),
            ));
        }
    }
    Ok(FsScenario {
        config,
        partition_blocks,
        daemon_interval: SimDuration::from_secs_f64(daemon_ms / 1000.0),
        user_blocks,
        coupled,
        csd: None,
    })
}

/// Host settings every filesystem takes.
/// host.cores: 0 (unlimited) or a core count.
fn resolve_cores(host: &mut HostSection) -> Result<u32, ScenarioError> {
    let cores = *host.cores.get_or_insert(0);
    if cores > 4096 {
        return Err(ScenarioError::invalid("host.cores", cores, "must be 0 (unlimited) to 4096"));
    }
    Ok(cores)
}

/// The foreground GC engine and ScaleLFS's switches (scalelfs.txt §4;
/// round2 spec §1.5). `fixed`: the kind has no F2FS GC to replace.
fn resolve_gc_engine(f: &mut FsSection, scalelfs: bool, fixed: bool) -> Result<crate::fs::GcEngineConfig, ScenarioError> {
    use crate::fs::GcEngineKind;
    let d = crate::fs::GcEngineConfig::default();
    let text = f.gc_engine.get_or_insert_with(|| if scalelfs { "dgc" } else { "serial" }.into()).clone();
    let kind = match text.as_str() {
        "serial" => GcEngineKind::Serial,
        "multi" => GcEngineKind::Multi,
        "pgc" => GcEngineKind::Pgc,
        "dgc" => GcEngineKind::Dgc,
        _ => return Err(ScenarioError::invalid("fs.gc_engine", format!("{text:?}"), "valid: serial, multi, pgc, dgc")),
    };
    if fixed && kind != GcEngineKind::Serial {
        return Err(ScenarioError::invalid("fs.gc_engine", format!("{text:?}"), "only F2FS, RM-IPU and ScaleLFS clean in the filesystem"));
    }
    let threads = *f.gc_threads.get_or_insert(match kind {
        GcEngineKind::Serial => 1,
        GcEngineKind::Dgc => 32,
        _ => 2,
    });
    if threads == 0 || threads > 1024 || (kind == GcEngineKind::Serial && threads != 1) {
        return Err(ScenarioError::invalid("fs.gc_threads", threads, "must be 1 for the serial engine, 1 to 1024 otherwise"));
    }
    if kind != GcEngineKind::Dgc {
        let set = [("svp", f.svp), ("dws", f.dws), ("lsu", f.lsu), ("cvs", f.cvs), ("dpb", f.dpb)];
        if let Some((name, _)) = set.iter().find(|(_, v)| v.is_some()) {
            return Err(ScenarioError::invalid(format!("fs.{name}"), "(set)", "is a ScaleLFS technique: it needs fs.gc_engine = \"dgc\""));
        }
    }
    let pgc_split_pct = *f.pgc_split_pct.get_or_insert(d.pgc_split_pct);
    if pgc_split_pct > 100 {
        return Err(ScenarioError::invalid("fs.pgc_split_pct", pgc_split_pct, "must be a percentage 0..=100"));
    }
    let batch_blocks = *f.gc_batch_blocks.get_or_insert(d.batch_blocks);
    if batch_blocks == 0 || batch_blocks > 4096 {
        return Err(ScenarioError::invalid("fs.gc_batch_blocks", batch_blocks, "must be 1 to 4096"));
    }
    Ok(crate::fs::GcEngineConfig {
        kind,
        threads,
        victims_per_scan: *f.gc_victims_per_scan.get_or_insert(d.victims_per_scan),
        svp: kind == GcEngineKind::Dgc && *f.svp.get_or_insert(d.svp),
        dws: kind == GcEngineKind::Dgc && *f.dws.get_or_insert(d.dws),
        lsu: kind == GcEngineKind::Dgc && *f.lsu.get_or_insert(d.lsu),
        cvs: kind == GcEngineKind::Dgc && *f.cvs.get_or_insert(d.cvs),
        dpb: kind == GcEngineKind::Dgc && *f.dpb.get_or_insert(d.dpb),
        pgc_split_pct,
        batch_blocks,
        dpb_ns: *f.dpb_ns.get_or_insert(d.dpb_ns),
        victim_scan_ns_per_segment: *f.victim_scan_ns_per_segment.get_or_insert(d.victim_scan_ns_per_segment),
        sentry_hold_ns: *f.sentry_hold_ns.get_or_insert(d.sentry_hold_ns),
        atomic_ns: *f.atomic_ns.get_or_insert(d.atomic_ns),
        svp_op_ns: *f.svp_op_ns.get_or_insert(d.svp_op_ns),
        lock_wake_ns: *f.lock_wake_ns.get_or_insert(d.lock_wake_ns),
    })
}

struct CommonFs {
    cache_mib: u64,
    dirty_bg: u32,
    dirty: u32,
    dirty_expire_s: f64,
    dirty_writeback_s: f64,
    on_threshold: bool,
}

/// fs.kind = "ext4": the partition, the journal and the mount options;
/// F2FS's options are refused by name.
fn resolve_ext4(f: &mut FsSection, device_blocks: u64, volume_scale: f64, c: CommonFs) -> Result<FsScenario, ScenarioError> {
    let f2fs_only = [
        ("mode", f.mode.is_some()),
        ("ipu_policy", f.ipu_policy.is_some()),
        ("segs_per_sec", f.segs_per_sec.is_some()),
        ("overprovision_pct", f.overprovision_pct.is_some()),
        ("min_ipu_util", f.min_ipu_util.is_some()),
        ("discard_granularity", f.discard_granularity.is_some()),
        ("max_victim_search", f.max_victim_search.is_some()),
        ("reclaim_segments", f.reclaim_segments.is_some()),
        ("dirty_nodes_pages", f.dirty_nodes_pages.is_some()),
        ("gc_min_sleep_time", f.gc_min_sleep_time.is_some()),
        ("gc_max_sleep_time", f.gc_max_sleep_time.is_some()),
        ("gc_no_gc_sleep_time", f.gc_no_gc_sleep_time.is_some()),
        ("gc_idle", f.gc_idle.is_some()),
        ("idle_interval", f.idle_interval.is_some()),
        ("min_fsync_blocks", f.min_fsync_blocks.is_some()),
        ("dirty_nats_ratio", f.dirty_nats_ratio.is_some()),
        ("bg_gc", f.bg_gc.is_some()),
        ("cp_interval_s", f.cp_interval_s.is_some()),
        ("alloc_ns", f.alloc_ns.is_some()),
        ("gc_meta_ns", f.gc_meta_ns.is_some()),
        ("gc_filemap_ns", f.gc_filemap_ns.is_some()),
        ("gc_page_cache_ns", f.gc_page_cache_ns.is_some()),
        ("gc_write_ns", f.gc_write_ns.is_some()),
        ("gc_engine", f.gc_engine.is_some()),
        ("gc_threads", f.gc_threads.is_some()),
        ("gc_victims_per_scan", f.gc_victims_per_scan.is_some()),
        ("svp", f.svp.is_some()),
        ("dws", f.dws.is_some()),
        ("lsu", f.lsu.is_some()),
        ("cvs", f.cvs.is_some()),
        ("dpb", f.dpb.is_some()),
        ("pgc_split_pct", f.pgc_split_pct.is_some()),
        ("gc_batch_blocks", f.gc_batch_blocks.is_some()),
        ("dpb_ns", f.dpb_ns.is_some()),
        ("victim_scan_ns_per_segment", f.victim_scan_ns_per_segment.is_some()),
        ("sentry_hold_ns", f.sentry_hold_ns.is_some()),
        ("atomic_ns", f.atomic_ns.is_some()),
        ("svp_op_ns", f.svp_op_ns.is_some()),
        ("lock_wake_ns", f.lock_wake_ns.is_some()),
        ("vop_regular", f.vop_regular.is_some()),
        ("offload", f.offload.is_some()),
        ("max_active_zones", f.max_active_zones.is_some()),
    ];
    if let Some((name, _)) = f2fs_only.iter().find(|(_, set)| *set) {
        return Err(ScenarioError::invalid(format!("fs.{name}"), "(set)", "is an F2FS option; ext4 does not have it"));
    }
    let device_gib = device_blocks as f64 * SLOT_BYTES as f64 / GIB;
    let partition_gib = finite_in("fs.partition_gib", *f.partition_gib.get_or_insert(device_gib), 1.0 / 64.0, device_gib)?;
    let partition_blocks = (partition_gib * GIB / SLOT_BYTES as f64).floor() as u64;
    let discard_text = f.discard.get_or_insert_with(|| "immediate".into()).clone();
    let discard = match discard_text.as_str() {
        "immediate" => true,
        "off" => false,
        _ => {
            return Err(ScenarioError::invalid(
                "fs.discard",
                format!("{discard_text:?}"),
                "valid for ext4: immediate (mount -o discard: at each commit, default) or off (nodiscard)",
            ))
        }
    };
    let commit = finite_in("fs.commit_interval_s", *f.commit_interval_s.get_or_insert(period(5.0, volume_scale)), 1e-6, 1e6)?;
    // mke2fs sizes the journal for the volume; a scaled run keeps the
    // represented volume's journal-to-volume ratio.
    let journal_mib = *f.journal_mib.get_or_insert_with(|| {
        let represented = (partition_blocks as f64 / volume_scale).round() as u64;
        let j = crate::fs::ext4::layout::default_journal_blocks(represented).unwrap_or(1024);
        ((j as f64 * volume_scale / 256.0).round() as u64).max(4)
    });
    if journal_mib < 4 {
        return Err(ScenarioError::invalid(
            "fs.journal_mib",
            journal_mib,
            "below jbd2's minimum of 1024 blocks, 4 MiB (JBD2_MIN_JOURNAL_BLOCKS; mke2fs refuses it)",
        ));
    }
    let journal_blocks = journal_mib * 256;
    let opts = crate::fs::Ext4Options { commit_interval_s: commit, discard, journal_blocks: Some(journal_blocks) };
    let layout = crate::fs::ext4::Ext4Layout::new(partition_blocks, Some(journal_blocks)).map_err(|_| match f.journal_mib {
        Some(m) => ScenarioError::invalid("fs.journal_mib", m, format!("does not fit a {partition_gib} GiB partition with its metadata")),
        None => ScenarioError::invalid("fs.partition_gib", partition_gib, "too small for ext4's metadata and journal"),
    })?;
    let d = FsCosts::default();
    let config = FsConfig {
        costs: FsCosts {
            syscall_ns: *f.syscall_ns.get_or_insert(d.syscall_ns),
            per_block_ns: *f.per_block_ns.get_or_insert(d.per_block_ns),
            bio_ns: *f.bio_ns.get_or_insert(d.bio_ns),
            ..d
        },
        page_cache_pages: (c.cache_mib * 256) as usize,
        dirty_background_pct: c.dirty_bg,
        dirty_pct: c.dirty,
        dirty_expire_s: c.dirty_expire_s,
        dirty_writeback_s: c.dirty_writeback_s,
        writeback_on_threshold: c.on_threshold,
        ext4: Some(opts),
        ..FsConfig::default()
    };
    let daemon_ms = daemon_interval_ms(f, volume_scale)?;
    let meta: u64 = layout.metadata_ranges().iter().map(|r| r.1).sum();
    Ok(FsScenario {
        config,
        partition_blocks,
        daemon_interval: SimDuration::from_secs_f64(daemon_ms / 1000.0),
        user_blocks: partition_blocks - meta,
        coupled: None,
        csd: None,
    })
}

/// A kernel period (vm.dirty_expire_centisecs, vm.dirty_writeback_centisecs,
/// F2FS's cp_interval, jbd2's commit interval, and the daemon tick that
/// polls them) in a run that stands for a volume `1 / volume_scale` times
/// its size. Such a run's runtime is scaled as its volume is while the
/// device keeps its speed, so a period's worth of writes is the same
/// number of blocks but a `1 / volume_scale` times larger share of the
/// volume. That share is what the kernel's periods decide: how dense the
/// dirty pages lie in a file when kupdate writes them (and so how many
/// node blocks a checkpoint writes per data block), how many node and
/// journal blocks each period's checkpoint or commit carries per volume
/// turnover. Scaling the period with the volume keeps every share at the
/// represented volume's, as the absolute thresholds in blocks are kept.
fn period(kernel_default: f64, volume_scale: f64) -> f64 {
    kernel_default * volume_scale
}

/// fs.daemon_interval_ms: how often the simulated background threads look
/// at the clock, 1 s by default, polling the scaled periods as finely in a
/// scaled run (never coarser than 1 s, never under 1 ms).
fn daemon_interval_ms(f: &mut FsSection, volume_scale: f64) -> Result<f64, ScenarioError> {
    let default = period(1000.0, volume_scale.min(1.0)).max(1.0);
    finite_in("fs.daemon_interval_ms", *f.daemon_interval_ms.get_or_insert(default), 1.0, 3.6e6)
}

/// SMALL_VOLUME_SEGMENTS (fs/f2fs/f2fs.h): 16 GiB of 2 MiB segments.
const SMALL_VOLUME_SEGMENTS: u32 = 16 * 512;

/// The kernel's background knobs with their defaults. Size-dependent ones
/// follow the volume the run stands for (`volume_scale`): the small-volume
/// tuning of `f2fs_tuning_parameters` is decided on its main segments, and
/// absolute thresholds in blocks or segments are multiplied by the scale so
/// a scaled run keeps the paper volume's ratios. Returns the tuning and
/// whether that volume is "small" (for the default IPU policy).
fn resolve_tuning(
    f: &mut FsSection,
    partition_blocks: u64,
    segs_per_sec: u32,
    volume_scale: f64,
    iplfs_device_blocks: Option<u64>,
) -> Result<(crate::fs::FsTuning, bool), ScenarioError> {
    let d = crate::fs::FsTuning::default();
    // IPLFS's partition is virtual: the kernel would size itself by the flash.
    let represented = (iplfs_device_blocks.unwrap_or(partition_blocks) as f64 / volume_scale) as u64;
    let represented_main = crate::fs::Layout::mkfs(represented.min(u32::MAX as u64 - 1), segs_per_sec, None)
        .map(|l| l.main_segments)
        .unwrap_or(0);
    let small = represented_main <= SMALL_VOLUME_SEGMENTS;
    let scaled = |v: u64| ((v as f64 * volume_scale).round() as u64).max(1);
    let positive = |field: &str, v: u64| {
        if v == 0 {
            Err(ScenarioError::invalid(format!("fs.{field}"), v, "must be positive"))
        } else {
            Ok(v)
        }
    };
    let sleep = |field: &str, v: &mut Option<u64>, default: u64| -> Result<u64, ScenarioError> {
        let v = *v.get_or_insert(default);
        if v == 0 || v > 86_400_000 {
            return Err(ScenarioError::invalid(format!("fs.{field}"), v, "must be 1..=86400000 ms"));
        }
        Ok(v)
    };
    let gc_min_sleep_ms = sleep("gc_min_sleep_time", &mut f.gc_min_sleep_time, d.gc_min_sleep_ms)?;
    let gc_max_sleep_ms = sleep("gc_max_sleep_time", &mut f.gc_max_sleep_time, d.gc_max_sleep_ms)?;
    let gc_no_gc_sleep_ms = sleep("gc_no_gc_sleep_time", &mut f.gc_no_gc_sleep_time, d.gc_no_gc_sleep_ms)?;
    if gc_max_sleep_ms < gc_min_sleep_ms {
        return Err(ScenarioError::invalid(
            "fs.gc_max_sleep_time",
            gc_max_sleep_ms,
            format!("must be at least fs.gc_min_sleep_time ({gc_min_sleep_ms})"),
        ));
    }
    let gc_idle = *f.gc_idle.get_or_insert(0);
    if gc_idle > 2 {
        return Err(ScenarioError::invalid("fs.gc_idle", gc_idle, "valid: 0 (default), 1 (cost-benefit), 2 (greedy)"));
    }
    let granularity = *f.discard_granularity.get_or_insert(if small { 1 } else { d.discard_granularity });
    if granularity == 0 || granularity > 512 {
        return Err(ScenarioError::invalid("fs.discard_granularity", granularity, "must be 1..=512 blocks"));
    }
    let tuning = crate::fs::FsTuning {
        discard_granularity: granularity,
        max_victim_search: positive(
            "max_victim_search",
            *f.max_victim_search.get_or_insert(scaled(d.max_victim_search as u64) as u32) as u64,
        )? as u32,
        // rec_prefree_segments: 5% of this volume's main segments (a ratio, so
        // not scaled), capped at DEF_MAX_RECLAIM_PREFREE_SEGMENTS x volume_scale.
        reclaim_segments: {
            let main = crate::fs::Layout::mkfs(iplfs_device_blocks.unwrap_or(partition_blocks), segs_per_sec, None)
                .map_or(0, |l| l.main_segments);
            let default =
                crate::fs::default_reclaim_segments(main, scaled(crate::fs::MAX_RECLAIM_PREFREE_SEGMENTS)).max(1);
            positive("reclaim_segments", *f.reclaim_segments.get_or_insert(default as u32) as u64)? as u32
        },
        dirty_nodes_pages: positive(
            "dirty_nodes_pages",
            *f.dirty_nodes_pages.get_or_insert(scaled(d.dirty_nodes_pages)),
        )?,
        gc_min_sleep_ms,
        gc_max_sleep_ms,
        gc_no_gc_sleep_ms,
        gc_idle,
        idle_interval_s: finite_in("fs.idle_interval", *f.idle_interval.get_or_insert(d.idle_interval_s), 0.0, 1e6)?,
        min_fsync_blocks: *f.min_fsync_blocks.get_or_insert(d.min_fsync_blocks),
    };
    Ok((tuning, small))
}

/// Options a filesystem kind fixes: each (name, acceptable) must hold.
fn fixed_options(checks: &[(&str, bool)], reason: &str) -> Result<(), ScenarioError> {
    match checks.iter().find(|(_, ok)| !ok) {
        Some((name, _)) => Err(ScenarioError::invalid(format!("fs.{name}"), "(set)", reason)),
        None => Ok(()),
    }
}

/// IPLFS defaults and checks (iplfs.txt): append-only logs in a partition
/// of 2^32 - 2 blocks (lfslab's block addresses are 32-bit), one segment per
/// section, no GC, discards at checkpoint.
fn iplfs_defaults(f: &mut FsSection) -> Result<(), ScenarioError> {
    fixed_options(
        &[
            ("segs_per_sec", f.segs_per_sec.is_none_or(|s| s == 1)),
            ("partition_gib", f.partition_gib.is_none()),
            ("mode", f.mode.as_deref().is_none_or(|m| m == "lfs")),
            ("ipu_policy", f.ipu_policy.as_deref().is_none_or(|m| m == "none" || m == "default")),
            ("bg_gc", f.bg_gc != Some(true)),
            ("discard", f.discard.as_deref().is_none_or(|m| m == "checkpoint")),
        ],
        "IPLFS sizes its own partition, appends only (mode = lfs, no IPU), has no GC and discards at checkpoint",
    )?;
    f.segs_per_sec = Some(1);
    f.mode = Some("lfs".into());
    f.ipu_policy = Some("none".into());
    f.bg_gc = Some(false);
    f.discard = Some("checkpoint".into());
    Ok(())
}

/// Zoned F2FS defaults and checks (d2fs.txt §8.1: 32 MiB zones, one per
/// superblock; F2FS on zoned devices runs LFS only): sections are zones,
/// freed sections are reset. The partition is the whole device.
fn zf2fs_defaults(f: &mut FsSection, sb_blocks: u64) -> Result<(), ScenarioError> {
    superblock_sections(
        f,
        sb_blocks,
        format!("zoned F2FS sections are the device's zones ({} KiB superblocks)", sb_blocks * 4),
        "zoned F2FS uses the whole device, appends only (mode = lfs, no IPU) and resets freed zones",
    )
}

/// Zoned F2FS and CSGC: a section is one device superblock, the filesystem
/// takes the whole device, appends only and resets the sections it frees.
fn superblock_sections(f: &mut FsSection, sb_blocks: u64, sections: String, options: &str) -> Result<(), ScenarioError> {
    let seg = crate::fs::layout::BLOCKS_PER_SEG as u64;
    let want = (sb_blocks / seg) as u32;
    if !sb_blocks.is_multiple_of(seg) || *f.segs_per_sec.get_or_insert(want) != want {
        return Err(ScenarioError::invalid("fs.segs_per_sec", f.segs_per_sec.unwrap_or(0), sections));
    }
    fixed_options(
        &[
            ("partition_gib", f.partition_gib.is_none()),
            ("mode", f.mode.as_deref().is_none_or(|m| m == "lfs")),
            ("ipu_policy", f.ipu_policy.as_deref().is_none_or(|m| m == "none" || m == "default")),
            ("discard", f.discard.as_deref().is_none_or(|m| m == "zone-reset")),
        ],
        options,
    )?;
    f.mode = Some("lfs".into());
    f.ipu_policy = Some("none".into());
    f.discard = Some("zone-reset".into());
    Ok(())
}

/// CSGC's default section: 8 segments (csgc.txt §3.2, §5.1).
const CSGC_SEGS_PER_SEC: u32 = 8;

/// CSGC defaults and checks (csgc.txt §5.1): F2FS in LFS mode over the
/// whole sFTL device, background GC off, sections = superblocks (the
/// device resolution sized the blocks for it), freed sections reset.
fn csgc_defaults(f: &mut FsSection, sb_blocks: u64) -> Result<(), ScenarioError> {
    superblock_sections(
        f,
        sb_blocks,
        format!(
            "CSGC sections are the device's superblocks ({} KiB with the device's pages_per_block); leave device.pages_per_block unset to size blocks for the section",
            sb_blocks * 4
        ),
        "CSGC's F2FS uses the whole sFTL device, appends only (mode = lfs, no IPU: the OPU partition takes no overwrite) and resets freed sections",
    )?;
    f.bg_gc.get_or_insert(false);
    Ok(())
}

/// D2FS defaults and checks (d2fs.txt §6.3, §8.2): sections are device
/// superblocks, append-only logging, no FS GC; the partition is the regular
/// region (p_regular x capacity, metadata included) plus a GC region of one
/// capacity, both whole sections. Returns (regular blocks, GC-region blocks).
fn d2fs_defaults(f: &mut FsSection, device_blocks: u64, sb_blocks: u64) -> Result<(u64, u64), ScenarioError> {
    let seg = crate::fs::layout::BLOCKS_PER_SEG as u64;
    if !sb_blocks.is_multiple_of(seg) {
        return Err(ScenarioError::invalid(
            "device",
            format!("{} KiB superblocks", sb_blocks * 4),
            "D2FS needs superblocks of whole 2 MiB segments",
        ));
    }
    let want = (sb_blocks / seg) as u32;
    if *f.segs_per_sec.get_or_insert(want) != want {
        return Err(ScenarioError::invalid(
            "fs.segs_per_sec",
            f.segs_per_sec.unwrap_or(0),
            format!("D2FS sections are the device superblock: {want} segments"),
        ));
    }
    if f.partition_gib.is_some() {
        return Err(ScenarioError::invalid(
            "fs.partition_gib",
            "(set)",
            "D2FS sizes its partition from fs.vop_regular",
        ));
    }
    fixed_options(
        &[
            ("mode", f.mode.as_deref().is_none_or(|m| m == "lfs")),
            ("ipu_policy", f.ipu_policy.as_deref().is_none_or(|m| m == "none" || m == "default")),
            ("bg_gc", f.bg_gc != Some(true)),
            ("discard", f.discard.as_deref().is_none_or(|m| m == "on-invalidate")),
        ],
        "D2FS appends only (mode = lfs, no IPU), has no FS GC and discards on invalidation (d2fs.txt §6.3)",
    )?;
    f.mode = Some("lfs".into());
    f.ipu_policy = Some("none".into());
    f.bg_gc = Some(false);
    f.discard = Some("on-invalidate".into());
    let vop = finite_in("fs.vop_regular", *f.vop_regular.get_or_insert(1.4), 0.25, 64.0)?;
    let (regular, gc) = crate::fs::D2fsConfig::partition(device_blocks, sb_blocks, vop);
    if regular + gc >= u32::MAX as u64 {
        return Err(ScenarioError::invalid("fs.vop_regular", vop, "the partition would exceed 2^32 blocks (16 TiB)"));
    }
    Ok((regular, gc))
}

/// Whether `files` files of `blocks` data blocks in all fit `user_blocks`,
/// counting a direct node per 1018 blocks, an inode per file and a little
/// slack; Err((needed MiB, offered MiB)) if not.
fn check_files_fit(blocks: u64, files: u64, user_blocks: u64) -> Result<(), (u64, u64)> {
    let need = blocks + blocks / 1018 + 2 * files + 16;
    if need > user_blocks {
        return Err(((need * SLOT_BYTES) >> 20, (user_blocks * SLOT_BYTES) >> 20));
    }
    Ok(())
}

/// What a workload file given directly to `run` or `compare` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputKind {
    Scenario,
    FioJobFile,
    Iolog,
}

/// Tell a scenario from a fio job file or a replay log: fio iologs by their
/// "fio version N iolog" first line, job files by the `.fio` extension,
/// block traces by their lines (`trace::detect`), and a file that is none
/// of these and not TOML by parsing it as a job file.
pub fn input_kind(path: &Path, text: &str) -> InputKind {
    if iolog::version(text).is_some() {
        return InputKind::Iolog;
    }
    match path.extension().and_then(|e| e.to_str()) {
        Some("fio") => return InputKind::FioJobFile,
        // A broken scenario gets the TOML error, not a fio one.
        Some("toml") => return InputKind::Scenario,
        _ => {}
    }
    if trace::detect(text).is_some() {
        return InputKind::Iolog;
    }
    if toml::from_str::<toml::Value>(text).is_err() && fio_jobfile::parse(text).is_ok() {
        return InputKind::FioJobFile;
    }
    InputKind::Scenario
}

/// The scenario text that runs `path` as given: itself for a scenario; for a
/// fio job file, its jobs on F2FS (or on the raw device when they name
/// `filename=/dev/...`); for an iolog, a replay on the raw device.
/// Device and filesystem are the defaults; `--set` changes them.
pub fn scenario_text_for(path: &Path, text: &str) -> Result<String, String> {
    let file = path.file_name().and_then(|f| f.to_str()).unwrap_or("input");
    let stem = path.file_stem().and_then(|f| f.to_str()).unwrap_or("input");
    let quoted = |s: &str| toml::Value::String(s.to_string()).to_string();
    Ok(match input_kind(path, text) {
        InputKind::Scenario => text.to_string(),
        InputKind::FioJobFile => {
            let parsed = fio_jobfile::parse(text).map_err(|e| format!("{file}: {e}"))?;
            let fs = if parsed.on_device { "" } else { "[fs]\nkind = \"f2fs\"\n" };
            format!("name = {}\nfio_job_file = {}\n{fs}", quoted(stem), quoted(file))
        }
        InputKind::Iolog => format!(
            "name = {}\n[[job]]\nname = {}\nread_iolog = {}\n",
            quoted(stem),
            quoted(stem),
            quoted(file)
        ),
    })
}

/// Read a workload file given to `run` or `compare` and return the scenario
/// text that runs it (`scenario_text_for`). A replay log is only peeked at:
/// the replay reads it later, under the iolog size limit.
pub fn load_input(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let mut head = vec![0u8; 4096];
    let mut f = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let n = f.read(&mut head).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let head = String::from_utf8_lossy(&head[..n]);
    // Whole lines only: the last may be cut.
    let head = if n == 4096 { head.rsplit_once('\n').map_or("", |(h, _)| h).to_string() } else { head.into_owned() };
    if matches!(input_kind(path, &head), InputKind::Iolog) {
        return scenario_text_for(path, &head);
    }
    scenario_text_for(path, &read_input(path, JOB_FILE_LIMIT)?)
}

/// The scenario text `name` stands for, and the folder its relative paths
/// resolve in: a readable file (a scenario, fio job file or iolog, as
/// `load_input` wraps it), else a built-in. `what` names it in the error
/// ("scenario", "workload").
pub fn source_text(name: &str, what: &str) -> Result<(String, std::path::PathBuf), String> {
    let path = Path::new(name);
    if path.is_file() {
        let text = load_input(path)?;
        return Ok((text, path.parent().map(Path::to_path_buf).unwrap_or_default()));
    }
    match builtin(name) {
        Some(t) => Ok((t.to_string(), std::path::PathBuf::from("."))),
        None => Err(format!(
            "{what} {name:?} is neither a readable scenario file nor a built-in (built-ins: {})",
            BUILTIN_NAMES.join(", ")
        )),
    }
}

/// Largest scenario or fio job file read (they are a few KiB).
pub const JOB_FILE_LIMIT: u64 = 16 << 20;
/// Largest iolog read: about 20 M operations.
pub const IOLOG_LIMIT: u64 = 1 << 30;

/// Read a UTF-8 input file of at most `limit` bytes (a device such as
/// /dev/zero, or a huge file, is refused rather than read until memory
/// runs out).
pub fn read_input(path: &Path, limit: u64) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.len() as u64 > limit {
        return Err(format!("{} is larger than {} MiB; lfslab reads at most that", path.display(), limit >> 20));
    }
    String::from_utf8(bytes)
        .map_err(|e| format!("{} is not UTF-8 text (byte {})", path.display(), e.utf8_error().valid_up_to()))
}

fn load_iolog(field: &str, path: &str, base: &Path) -> Result<iolog::Iolog, ScenarioError> {
    let full: PathBuf = base.join(path);
    let text = read_input(&full, IOLOG_LIMIT).map_err(|e| ScenarioError::invalid(field, format!("{path:?}"), e))?;
    let parsed = match (iolog::version(&text), trace::detect(&text)) {
        (Some(_), _) => iolog::parse(&text),
        (None, Some(format)) => trace::parse(&text, format),
        (None, None) => iolog::parse(&text).map_err(|e| format!("{e}; lfslab replays {}", trace::ACCEPTED)),
    };
    parsed.map_err(|e| ScenarioError::invalid(field, format!("{path:?}"), e))
}

/// A [[job]] table's fields as given, as strings (the report's "job options").
fn options_as_given(j: &JobSection) -> BTreeMap<String, String> {
    let table = toml::Value::try_from(j).expect("a job section serialises");
    table
        .as_table()
        .map(|t| {
            t.iter()
                .map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_string)))
                .collect()
        })
        .unwrap_or_default()
}

fn resolve_job(
    i: usize,
    j: &mut JobSection,
    device_bytes: u64,
    on_fs: bool,
    base: &Path,
) -> Result<JobSpec, ScenarioError> {
    let f = |name: &str| format!("job[{i}].{name}");
    if !on_fs {
        for (name, set) in [
            ("nrfiles", j.nrfiles.is_some()),
            ("filesize", j.filesize.is_some()),
            // O_DIRECT on the block device is what a raw job is; buffered
            // block-device I/O is not modelled.
            ("direct", j.direct.is_some_and(|d| d != 1)),
            ("fsync", j.fsync.is_some()),
        ] {
            if set {
                return Err(ScenarioError::invalid(
                    f(name),
                    "(set)",
                    "is a file option: add an [fs] table to run jobs on a filesystem",
                ));
            }
        }
    }
    let name = j.name.get_or_insert_with(|| format!("job{i}")).clone();
    let rw_text = j.rw.get_or_insert_with(|| "randwrite".into()).clone();
    let rw = RwMode::parse(&rw_text).ok_or_else(|| {
        ScenarioError::invalid(
            f("rw"),
            format!("{rw_text:?}"),
            format!("unknown rw; valid: {}", RwMode::NAMES.join(", ")),
        )
    })?;
    let bs_v = j.bs.get_or_insert(SizeValue::Text("4k".into())).clone();
    let bs_bytes = size_bytes(&f("bs"), &bs_v, None)?;
    if bs_bytes == 0 || bs_bytes > (128 << 20) {
        return Err(ScenarioError::invalid(f("bs"), show(&bs_v), "must be between 4 KiB and 128 MiB"));
    }
    let bs_blocks = blocks_of(&f("bs"), &bs_v, bs_bytes)?;
    let offset_v = j.offset.get_or_insert(SizeValue::Bytes(0)).clone();
    let offset_bytes = size_bytes(&f("offset"), &offset_v, Some(device_bytes))?;
    let offset_blocks = blocks_of(&f("offset"), &offset_v, offset_bytes)?;
    if offset_bytes >= device_bytes {
        return Err(ScenarioError::invalid(
            f("offset"),
            show(&offset_v),
            format!("beyond the device ({device_bytes} bytes)"),
        ));
    }
    let size_v = j.size.get_or_insert(SizeValue::Text("100%".into())).clone();
    let size_bytes_v = size_bytes(&f("size"), &size_v, Some(device_bytes - offset_bytes))?;
    let size_blocks = blocks_of(&f("size"), &size_v, size_bytes_v)?;
    if size_bytes_v + offset_bytes > device_bytes {
        return Err(ScenarioError::invalid(
            f("size"),
            show(&size_v),
            format!("offset + size exceeds the device ({device_bytes} bytes)"),
        ));
    }
    if size_blocks < bs_blocks {
        return Err(ScenarioError::invalid(f("size"), show(&size_v), "smaller than bs"));
    }
    let iodepth = *j.iodepth.get_or_insert(1);
    if iodepth == 0 || iodepth > 65_536 {
        return Err(ScenarioError::invalid(f("iodepth"), iodepth, "must be between 1 and 65536"));
    }
    let numjobs = *j.numjobs.get_or_insert(1);
    if numjobs == 0 || numjobs > 1024 {
        return Err(ScenarioError::invalid(f("numjobs"), numjobs, "must be between 1 and 1024"));
    }
    let rwmixread = *j.rwmixread.get_or_insert(50);
    if rwmixread > 100 {
        return Err(ScenarioError::invalid(f("rwmixread"), rwmixread, "must be a percentage 0..=100"));
    }
    let runtime = match &j.runtime {
        Some(v) => Some(parse_duration(&f("runtime"), v)?),
        None => None,
    };
    let io_size_blocks = match j.io_size.clone() {
        Some(v) => {
            let b = size_bytes(&f("io_size"), &v, Some(device_bytes))?;
            if b == 0 {
                return Err(ScenarioError::invalid(f("io_size"), show(&v), "must be positive"));
            }
            Some(blocks_of(&f("io_size"), &v, b)?)
        }
        None => None,
    };
    let dist_text = j.random_distribution.get_or_insert_with(|| "random".into()).clone();
    let distribution = AccessDistribution::parse(&dist_text)
        .map_err(|e| ScenarioError::invalid(f("random_distribution"), format!("{dist_text:?}"), e))?;
    let stream = *j.stream.get_or_insert(0);
    let (nrfiles, file_blocks, fsync_every) = if on_fs {
        if offset_blocks != 0 {
            return Err(ScenarioError::invalid(f("offset"), show(&offset_v), "offsets inside files are not supported"));
        }
        let direct = *j.direct.get_or_insert(1);
        if direct > 1 {
            return Err(ScenarioError::invalid(f("direct"), direct, "must be 0 (buffered) or 1 (O_DIRECT)"));
        }
        let nrfiles = *j.nrfiles.get_or_insert(1);
        if nrfiles == 0 || nrfiles > 1_000_000 {
            return Err(ScenarioError::invalid(f("nrfiles"), nrfiles, "must be between 1 and 1000000"));
        }
        let file_blocks = match j.filesize.clone() {
            Some(v) => {
                let b = size_bytes(&f("filesize"), &v, Some(device_bytes))?;
                blocks_of(&f("filesize"), &v, b)?
            }
            None => size_blocks / nrfiles as u64,
        };
        if file_blocks < bs_blocks {
            return Err(ScenarioError::invalid(
                f("filesize"),
                file_blocks * 4096,
                "each file must hold at least one bs",
            ));
        }
        if file_blocks > crate::fs::node::MAX_FILE_BLOCKS {
            return Err(ScenarioError::invalid(
                f("filesize"),
                file_blocks * 4096,
                "exceeds the F2FS maximum file size",
            ));
        }
        (nrfiles, file_blocks, *j.fsync.get_or_insert(0))
    } else {
        (1, size_blocks, 0)
    };
    let size_blocks = if on_fs { file_blocks * nrfiles as u64 } else { size_blocks };
    let time_based = *j.time_based.get_or_insert(runtime.is_some());
    if time_based && runtime.is_none() {
        // fio: "time_based requires a runtime".
        return Err(ScenarioError::invalid(f("time_based"), true, "requires a runtime (set job.runtime)"));
    }
    let replay_no_stall = *j.replay_no_stall.get_or_insert(false);
    let time_scale = *j.replay_time_scale.get_or_insert(100);
    if time_scale == 0 || time_scale > 1_000_000 {
        return Err(ScenarioError::invalid(f("replay_time_scale"), time_scale, "must be a percentage in 1..=1000000"));
    }
    let fold = *j.replay_fold.get_or_insert(false);
    if fold && on_fs {
        return Err(ScenarioError::invalid(f("replay_fold"), true, "folds addresses into the raw device: remove the [fs] table or the option"));
    }
    let log = match j.read_iolog.clone() {
        Some(path) => {
            let mut log = load_iolog(&f("read_iolog"), &path, base)?;
            let device_blocks = device_bytes / SLOT_BYTES;
            if time_scale != 100 {
                for o in &mut log.ops {
                    o.at = SimDuration((o.at.0 as u128 * time_scale as u128 / 100).min(u64::MAX as u128 / 2) as u64);
                }
            }
            if fold {
                // Requests that would straddle the end start over at 0.
                for o in log.ops.iter_mut().filter(|o| o.blocks > 0) {
                    o.off_blocks %= device_blocks;
                    if o.off_blocks + o.blocks as u64 > device_blocks {
                        o.off_blocks = 0;
                    }
                }
                for e in &mut log.file_extent_blocks {
                    *e = (*e).min(device_blocks);
                }
            }
            let log = Arc::new(log);
            let extent = log.file_extent_blocks.iter().copied().max().unwrap_or(0);
            let total: u64 = log.file_extent_blocks.iter().sum();
            if !on_fs && extent > device_blocks {
                return Err(ScenarioError::invalid(
                    f("read_iolog"),
                    format!("{path:?}"),
                    format!(
                        "the log spans {} bytes, more than the {} available (set replay_fold = true in the job to fold it into the device)",
                        extent * SLOT_BYTES,
                        device_bytes
                    ),
                ));
            }
            if on_fs && total > device_blocks {
                return Err(ScenarioError::invalid(
                    f("read_iolog"),
                    format!("{path:?}"),
                    format!(
                        "the log spans {} bytes, more than the {} available",
                        extent.max(total) * SLOT_BYTES,
                        device_bytes
                    ),
                ));
            }
            if on_fs && log.ops.iter().any(|o| o.action == iolog::IologAction::Trim) {
                return Err(ScenarioError::invalid(
                    f("read_iolog"),
                    format!("{path:?}"),
                    "trim on files is not supported",
                ));
            }
            Some(log)
        }
        None => None,
    };
    let nrfiles = match &log {
        Some(l) if on_fs => l.files.len() as u32,
        _ => nrfiles,
    };
    let filename = j.filename.clone();
    if filename.is_some() {
        if !on_fs {
            return Err(ScenarioError::invalid(f("filename"), "(set)", "is a file option: add an [fs] table"));
        }
        if nrfiles != 1 || log.is_some() {
            return Err(ScenarioError::invalid(
                f("filename"),
                "(set)",
                "a named file needs nrfiles = 1 and no read_iolog",
            ));
        }
    }
    let direct = j.direct.unwrap_or(1) == 1;
    let group_reporting = *j.group_reporting.get_or_insert(false);
    let layout_fallocate = match j.layout.as_deref() {
        None | Some("write") => false,
        Some("fallocate") if on_fs => true,
        Some("fallocate") => return Err(ScenarioError::invalid(f("layout"), "\"fallocate\"", "is a file option: add an [fs] table")),
        Some(other) => return Err(ScenarioError::invalid(f("layout"), format!("{other:?}"), "valid: write, fallocate")),
    };
    Ok(JobSpec {
        layout_fallocate,
        direct,
        group_reporting,
        filename,
        time_based,
        group: 0,
        iolog: log,
        replay_no_stall,
        nrfiles,
        file_blocks,
        fsync_every,
        name,
        rw,
        rwmixread,
        bs_blocks: bs_blocks as u32,
        iodepth,
        numjobs,
        offset_blocks,
        size_blocks,
        runtime,
        io_size_blocks,
        distribution,
        stream,
    })
}

#[cfg(test)]
mod tests;
