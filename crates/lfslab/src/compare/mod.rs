//! Side-by-side comparisons: one workload (a scenario whose `[fs]` table,
//! if any, is replaced) run on several designs, each a filesystem + FTL
//! configuration. Also the paper experiments of `lfslab reproduce`.
//!
//! `--scale` shrinks (or grows) the device capacity and every job runtime by
//! the same factor, so a workload keeps its ratios: file sizes in % stay %,
//! and the time to fill the device, hence when GC starts, scales with it.

mod design;
mod experiment;
mod html;
mod summary;

pub use design::{Design, AS_GIVEN, DESIGNS, PLANNED};
pub use experiment::{Chart, Experiment, Metric, PaperValue, Variant, EXPERIMENTS};
pub use html::{render_html, render_html_with};
pub use summary::{summary_csv, summary_table, SummaryRow};

use crate::engine::{self, AgedPaths, RunError};
use crate::metrics::RunReport;
use crate::scenario::{DurationValue, Scenario, ScenarioError, ScenarioFile};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub enum CompareError {
    /// A design name that does not exist (lists the valid ones), or one
    /// named twice (its output files would overwrite each other).
    BadDesignList(String),
    Scenario {
        design: String,
        error: ScenarioError,
    },
    Run {
        design: String,
        error: RunError,
    },
}

impl std::fmt::Display for CompareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompareError::BadDesignList(m) => f.write_str(m),
            CompareError::Scenario { design, error } => write!(f, "design {design}: {error}"),
            CompareError::Run { design, error } => write!(f, "design {design}: {error}"),
        }
    }
}
impl std::error::Error for CompareError {}

/// Resolve design names (comma-separated in the CLI).
pub fn designs_by_name(names: &[String]) -> Result<Vec<&'static Design>, CompareError> {
    if let Some(n) = names.iter().enumerate().find_map(|(i, n)| names[..i].contains(n).then_some(n)) {
        return Err(CompareError::BadDesignList(format!(
            "--designs names {n} twice; each design's files would overwrite the other's"
        )));
    }
    names
        .iter()
        .map(|n| {
            DESIGNS.iter().find(|d| d.name == n.as_str()).ok_or_else(|| {
                let valid: Vec<&str> = DESIGNS.iter().map(|d| d.name).collect();
                let planned = if PLANNED.contains(&n.as_str()) { " (planned, not built yet)" } else { "" };
                CompareError::BadDesignList(format!("unknown design {n:?}{planned}; valid: {}", valid.join(", ")))
            })
        })
        .collect()
}

/// The workload scenario for `design`, scaled by `scale`.
pub fn scenario_for(
    workload: &ScenarioFile,
    design: &Design,
    scale: f64,
    base: &Path,
) -> Result<Scenario, CompareError> {
    scenario_for_with(workload, design, scale, base, &[])
}

/// `design`'s [fs] table with `fs.*` overrides on top (`fs.kind` is what
/// makes the design, so it cannot be set).
fn design_fs(design: &Design, fs_set: &[String]) -> Result<crate::scenario::FsSection, ScenarioError> {
    if fs_set.is_empty() {
        return Ok(design.fs_section());
    }
    if let Some(o) = fs_set.iter().find(|o| o.split_once('=').is_some_and(|(k, _)| k.trim() == "fs.kind")) {
        return Err(ScenarioError::invalid(
            "--set",
            o,
            "fs.kind is what makes each design: choose them with --designs",
        ));
    }
    let f = ScenarioFile { fs: Some(design.fs_section()), ..ScenarioFile::default() };
    let text = toml::to_string(&f).expect("a scenario file serialises");
    Ok(Scenario::file_from_toml_with(&text, fs_set)?.fs.expect("the design's [fs] table"))
}

/// What a workload's [fs] table says about the volume and the host rather
/// than the design (the partition, GC's assumed lock and CPU costs) is kept
/// under every design that leaves it unset (ScaleLFS runs every design on
/// a 30 GB partition of the device, scalelfs.txt §5).
fn carry_over_host(w: &crate::scenario::FsSection, fs: &mut crate::scenario::FsSection) {
    fs.partition_gib = fs.partition_gib.or(w.partition_gib);
    fs.victim_scan_ns_per_segment = fs.victim_scan_ns_per_segment.or(w.victim_scan_ns_per_segment);
    fs.sentry_hold_ns = fs.sentry_hold_ns.or(w.sentry_hold_ns);
    fs.atomic_ns = fs.atomic_ns.or(w.atomic_ns);
    fs.svp_op_ns = fs.svp_op_ns.or(w.svp_op_ns);
    fs.lock_wake_ns = fs.lock_wake_ns.or(w.lock_wake_ns);
    fs.dpb_ns = fs.dpb_ns.or(w.dpb_ns);
}

/// `scenario_for`, with `fs.*` overrides applied on top of the design's
/// [fs] table (compare's `--set fs.mode=lfs`).
pub fn scenario_for_with(
    workload: &ScenarioFile,
    design: &Design,
    scale: f64,
    base: &Path,
    fs_set: &[String],
) -> Result<Scenario, CompareError> {
    let err = |error| CompareError::Scenario { design: design.name.into(), error };
    if !(scale.is_finite() && scale > 0.0 && scale <= 64.0) {
        return Err(err(ScenarioError::invalid("--scale", scale, "must be in (0, 64]")));
    }
    let mut f = workload.clone();
    if !design.is_as_given() {
        let mut fs = design_fs(design, fs_set).map_err(|e| err(e.with_overrides(fs_set)))?;
        if let Some(w) = &workload.fs {
            carry_over_host(w, &mut fs);
        }
        f.fs = Some(fs);
    }
    let name = f.name.clone().unwrap_or_else(|| "workload".into());
    f.name = Some(format!("{name}/{}", design.name));
    if scale != 1.0 {
        // Resolve once to learn the defaults being scaled.
        let unscaled = Scenario::from_file_in(f.clone(), base).map_err(err)?;
        match f.device.flash_gib {
            // A device sized by its flash scales by its flash.
            Some(flash) => f.device.flash_gib = Some(flash * scale),
            None => {
                let cap = unscaled.resolved.device.capacity_gib.expect("resolved");
                f.device.capacity_gib = Some(cap * scale);
            }
        }
        // A partition is a share of the device, and stays one.
        if let Some(p) = f.fs.as_mut().and_then(|fs| fs.partition_gib.as_mut()) {
            *p *= scale;
        }
        f.volume_scale = Some(unscaled.resolved.volume_scale.unwrap_or(1.0) * scale);
        // Host memory stands for the paper's as the device does.
        let cache = unscaled.resolved.host.page_cache_mib.unwrap_or(1024) as f64 * scale;
        f.host.page_cache_mib = Some((cache.round() as u64).max(1));
        for j in &mut f.jobs {
            if let Some(r) = &j.runtime {
                let secs = crate::scenario::parse_duration("job.runtime", r).map_err(err)?.as_secs_f64();
                j.runtime = Some(DurationValue::Seconds(secs * scale));
            }
            // A size in bytes stands for the paper's bytes as the device
            // does; a percentage scales with the device already.
            for (name, v) in [("size", &mut j.size), ("filesize", &mut j.filesize), ("io_size", &mut j.io_size), ("offset", &mut j.offset)] {
                if let Some(v) = v.as_mut() {
                    *v = crate::scenario::scale_size(&format!("job.{name}"), v, scale).map_err(err)?;
                }
            }
        }
        // A filebench fileset is sized for its device, as a job's `size` is.
        if let Some(fb) = &mut f.filebench {
            if let Ok(spec) = fb.resolve() {
                fb.nfiles = Some(((spec.filesets[0].entries as f64 * scale).round() as u64).max(1));
                fb.runtime = Some(spec.runtime.as_secs_f64() * scale);
            }
        }
        // A database is sized for its device and its work scales as a job's
        // runtime does. The buffer pool does not scale (measured in
        // docs/performance.md): its flushing works in pages per batch, and
        // a pool 16 times smaller runs out of free frames far more often.
        if let Some(db) = &mut f.database {
            scale_database(db, scale);
        }
    }
    Scenario::from_file_in(f, base).map_err(|e| match scale {
        1.0 => err(e.with_overrides(fs_set)),
        _ => err(ScenarioError::invalid("--scale", scale, format!("the scaled scenario is not valid: {e}"))),
    })
}

fn scale_database(db: &mut crate::workload::database::DatabaseVars, scale: f64) {
    use crate::workload::database::Bench;
    let Ok(spec) = db.resolve() else { return };
    let n = |x: u64| ((x as f64 * scale).round() as u64).max(1);
    if spec.cold_file_bytes > 0 {
        db.cold_file = Some(format!("{}k", n(spec.cold_file_bytes >> 10)));
    }
    match spec.bench {
        Bench::Ycsb(y) => {
            db.recordcount = Some(n(y.recordcount));
            db.operationcount = Some(n(y.operationcount));
        }
        Bench::Tpcc(t) => {
            db.warehouses = Some(n(t.warehouses));
            db.runtime = Some(t.runtime.as_secs_f64() * scale);
        }
    }
}

/// Run `scenarios` on up to `jobs` threads, each taking the next scenario
/// not yet started; reports come back in scenario order.
fn run_parallel(
    scenarios: Vec<(Scenario, AgedPaths)>,
    jobs: usize,
) -> Vec<Result<crate::metrics::RunReport, engine::RunError>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let n = scenarios.len();
    let queue: Vec<Mutex<Option<(Scenario, AgedPaths)>>> = scenarios.into_iter().map(|s| Mutex::new(Some(s))).collect();
    let results: Vec<Mutex<Option<Result<crate::metrics::RunReport, engine::RunError>>>> =
        (0..n).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(n) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let (s, aged) = queue[i].lock().expect("queue lock").take().expect("each scenario runs once");
                let r = engine::run_aged(s, None, &aged);
                *results[i].lock().expect("result lock") = Some(r);
            });
        }
    });
    results.into_iter().map(|m| m.into_inner().expect("result lock").expect("every scenario ran")).collect()
}

/// One design's run: the scenario that reproduces it and its report.
#[derive(Clone, Debug, Serialize)]
pub struct DesignRun {
    pub design: String,
    pub description: String,
    /// The resolved scenario (TOML): `lfslab run` on it repeats the run.
    pub scenario_toml: String,
    pub report: RunReport,
}

#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    pub workload: String,
    pub scale: f64,
    pub seed: u64,
    pub summary: Vec<SummaryRow>,
    pub runs: Vec<DesignRun>,
}

impl Comparison {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("comparison serialises")
    }
}

/// How a comparison runs.
#[derive(Clone, Debug)]
pub struct Settings {
    /// `--scale`: capacity and runtimes multiplied (see `scenario_for`).
    pub scale: f64,
    /// Replaces the workload's seed.
    pub seed: Option<u64>,
    /// Where the workload's relative paths (fio files, iologs) resolve.
    pub base: PathBuf,
    /// Designs run at once, one thread each.
    pub jobs: usize,
    /// Directories of aged states, one `<design>.aged` per design: start
    /// from them (`--from-aged`) or save them (`--save-aged`).
    pub from_aged: Option<PathBuf>,
    pub save_aged: Option<PathBuf>,
    /// Memory the runs may use (bytes); designs that would not fit, `jobs`
    /// at a time, are refused before anything runs.
    pub memory_available: Option<u64>,
    /// `--set fs.*` overrides, applied on top of each design's [fs] table.
    pub fs_overrides: Vec<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            scale: 1.0,
            seed: None,
            base: PathBuf::from("."),
            jobs: 1,
            from_aged: None,
            save_aged: None,
            memory_available: None,
            fs_overrides: Vec::new(),
        }
    }
}

impl Settings {
    fn aged_paths(&self, label: &str) -> AgedPaths {
        let file = format!("{label}.aged");
        AgedPaths {
            from: self.from_aged.as_ref().map(|d| d.join(&file)),
            save: self.save_aged.as_ref().map(|d| d.join(&file)),
        }
    }
}

/// One run of a comparison: a design under a label (its output files'
/// name), on a workload, with `fs.*` settings on top of the design's.
pub struct RunSpec<'a> {
    pub label: String,
    pub design: &'a Design,
    pub workload: &'a ScenarioFile,
    pub fs_set: Vec<String>,
    /// Settings already applied to `workload`, named in the run's description.
    pub workload_set: Vec<String>,
}

impl RunSpec<'_> {
    /// The design's description, and the settings the run adds to it.
    pub fn describe(&self) -> String {
        let set: Vec<&str> = self.workload_set.iter().chain(&self.fs_set).map(String::as_str).collect();
        match set.is_empty() {
            true => self.design.description.to_string(),
            false => format!("{} (with {})", self.design.description, set.join(", ")),
        }
    }
}

/// Run `workload` on each design; `on_start(i, design)` is called before
/// each run (the CLI's progress), `progress` is passed to the engine.
/// `settings.jobs` > 1 runs that many designs at once on their own threads
/// (each run is self-contained and seeded, so the results are the same bits
/// as a sequential run); then every `on_start` is called first and there is
/// no per-run progress.
pub fn run(
    workload_name: &str,
    workload: &ScenarioFile,
    designs: &[&Design],
    settings: &Settings,
    mut on_start: impl FnMut(usize, &Design, &Scenario),
    progress: Option<engine::Progress>,
) -> Result<Comparison, CompareError> {
    let specs: Vec<RunSpec> = designs
        .iter()
        .map(|d| RunSpec { label: d.name.into(), design: d, workload, fs_set: settings.fs_overrides.clone(), workload_set: Vec::new() })
        .collect();
    run_specs(workload_name, &specs, settings, |i, r, s| on_start(i, r.design, s), progress)
}

/// `run` over explicit runs, each with its label, workload and settings
/// (`lfslab reproduce`'s sweeps); `settings.fs_overrides` is not used.
pub fn run_specs(
    name: &str,
    specs: &[RunSpec],
    settings: &Settings,
    mut on_start: impl FnMut(usize, &RunSpec, &Scenario),
    progress: Option<engine::Progress>,
) -> Result<Comparison, CompareError> {
    let (scale, jobs) = (settings.scale, settings.jobs);
    let mut runs = Vec::new();
    let mut used_seed = 0;
    // Every run's scenario is checked before anything runs.
    let mut scenarios = Vec::new();
    for r in specs {
        let mut s = scenario_for_with(r.workload, r.design, scale, &settings.base, &r.fs_set)
            .map_err(|e| relabel(e, &r.label))?;
        if let Some(seed) = settings.seed {
            s = s.with_seed(seed);
        }
        scenarios.push(s);
    }
    if let Some(avail) = settings.memory_available {
        // The largest `jobs` runs may run at once: each gets its share.
        let at_once = jobs.clamp(1, scenarios.len().max(1)) as u64;
        for (r, s) in specs.iter().zip(&scenarios) {
            engine::check_memory(s, avail / at_once).map_err(|error| CompareError::Run { design: r.label.clone(), error })?;
        }
    }
    if let Some(dir) = &settings.save_aged {
        std::fs::create_dir_all(dir).map_err(|e| CompareError::Run {
            design: specs.first().map_or(String::new(), |r| r.label.clone()),
            error: RunError::Aged(format!("cannot create aged-state directory {}: {e}", dir.display())),
        })?;
    }
    let describe = RunSpec::describe;
    if jobs > 1 && specs.len() > 1 {
        for (i, (r, s)) in specs.iter().zip(&scenarios).enumerate() {
            used_seed = s.seed;
            on_start(i, r, s);
        }
        let work = specs.iter().zip(&scenarios).map(|(r, s)| (s.clone(), settings.aged_paths(&r.label))).collect();
        let reports = run_parallel(work, jobs);
        for ((r, s), report) in specs.iter().zip(scenarios).zip(reports) {
            let report = report.map_err(|error| CompareError::Run { design: r.label.clone(), error })?;
            runs.push(DesignRun { design: r.label.clone(), description: describe(r), scenario_toml: s.to_toml(), report });
        }
    } else {
        for (i, (r, s)) in specs.iter().zip(scenarios).enumerate() {
            used_seed = s.seed;
            on_start(i, r, &s);
            let toml = s.to_toml();
            let report = engine::run_aged(s, progress.clone(), &settings.aged_paths(&r.label))
                .map_err(|error| CompareError::Run { design: r.label.clone(), error })?;
            runs.push(DesignRun { design: r.label.clone(), description: describe(r), scenario_toml: toml, report });
        }
    }
    let summary = runs.iter().map(SummaryRow::of).collect();
    Ok(Comparison { workload: name.into(), scale, seed: used_seed, summary, runs })
}

/// A run's errors name its label (the design, or a sweep point).
fn relabel(e: CompareError, label: &str) -> CompareError {
    match e {
        CompareError::Scenario { error, .. } => CompareError::Scenario { design: label.into(), error },
        e => e,
    }
}
