//! `lfslab compare` and `lfslab reproduce`: run one workload on several
//! designs, print the summary table, write the output directory.

use crate::stdout::{out, outln};
use anyhow::{bail, Context};
use lfslab::compare::{self, Comparison, Design, Experiment, EXPERIMENTS};
use lfslab::scenario::{Scenario, ScenarioFile};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// A usage error (exit 2) rather than a failed run (exit 1).
#[derive(Debug)]
pub struct Usage(pub String);
impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for Usage {}

pub struct Options {
    pub designs: Vec<String>,
    pub workload: String,
    pub scale: f64,
    pub seed: Option<u64>,
    pub set: Vec<String>,
    pub out: Option<PathBuf>,
    /// Designs run at once.
    pub jobs: usize,
    /// Directories of per-design aged states to start from / save to.
    pub from_aged: Option<PathBuf>,
    pub save_aged: Option<PathBuf>,
}

/// `--jobs`, or the cores available.
pub fn jobs_or_cores(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1)
}

fn load_workload(name: &str, set: &[String]) -> Result<(ScenarioFile, PathBuf), Usage> {
    let (text, base) = lfslab::scenario::source_text(name, "workload").map_err(Usage)?;
    let f = Scenario::file_from_toml_with(&text, set).map_err(|e| Usage(format!("{name}: {e}")))?;
    Ok((f, base))
}

/// Settings split into `fs.*` ones, which go on each design's [fs] table,
/// and the rest, which go on the workload.
fn split_fs_settings(set: impl IntoIterator<Item = String>) -> (Vec<String>, Vec<String>) {
    set.into_iter().partition(|s| s.trim_start().starts_with("fs."))
}

pub fn run_comparison(workload_name: &str, o: &Options, designs: &[&'static Design]) -> anyhow::Result<Comparison> {
    let (fs_set, set) = split_fs_settings(o.set.iter().cloned());
    let (file, base) = load_workload(&o.workload, &set)?;
    let progress = RunProgress::new(designs.len(), o.jobs);
    let on_start = |i: usize, d: &Design, _: &Scenario| progress.start(i, d.name, d.description);
    let settings = compare::Settings {
        scale: o.scale,
        seed: o.seed,
        base,
        jobs: o.jobs,
        from_aged: o.from_aged.clone(),
        save_aged: o.save_aged.clone(),
        memory_available: crate::memory_available(),
        fs_overrides: fs_set,
    };
    let c = compare::run(workload_name, &file, designs, &settings, on_start, progress.bar.clone())
        .map_err(|e| compare_error(e, "design", &o.set))?;
    progress.finish();
    Ok(c)
}

/// A comparison's failure: bad input (exit 2) names the run (`what` its
/// kind) and the `--set` overrides; the rest fail the run (exit 1).
fn compare_error(e: compare::CompareError, what: &str, set: &[String]) -> anyhow::Error {
    match e {
        compare::CompareError::Scenario { design, error } => {
            anyhow::Error::new(Usage(format!("{what} {design}: {}", error.with_overrides(set))))
        }
        compare::CompareError::Run { ref error, .. } if error.is_bad_input() => anyhow::Error::new(Usage(e.to_string())),
        e => anyhow::Error::new(e),
    }
}

/// The progress line of `n` runs, and the line each prints as it starts.
/// Several runs at once have no single progress line: only the start lines.
struct RunProgress {
    label: Rc<Cell<String>>,
    bar: Option<lfslab::engine::Progress>,
    n: usize,
}

impl RunProgress {
    fn new(n: usize, jobs: usize) -> Self {
        let label = Rc::new(Cell::new(String::new()));
        let bar = if jobs > 1 && n > 1 { None } else { crate::progress::bar(label.clone()) };
        RunProgress { label, bar, n }
    }

    fn start(&self, i: usize, name: &str, description: &str) {
        self.label.set(format!("[{}/{}] {name}", i + 1, self.n));
        eprintln!("{}[{}/{}] {name}: {description}", if self.bar.is_some() { "\n" } else { "" }, i + 1, self.n);
    }

    fn finish(&self) {
        if self.bar.is_some() {
            eprintln!();
        }
    }
}

/// Write the output directory: resolved scenarios, JSON, CSV, HTML.
pub fn write_outputs(dir: &Path, c: &Comparison, plots: &str) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create output directory {}", dir.display()))?;
    let write = |name: &str, text: &str| -> anyhow::Result<()> {
        let p = dir.join(name);
        std::fs::write(&p, text)
            .with_context(|| format!("cannot write {} (output directory {})", p.display(), dir.display()))
    };
    write("comparison.json", &c.to_json())?;
    write("summary.csv", &compare::summary_csv(&c.summary))?;
    write("report.html", &compare::render_html_with(c, plots))?;
    for r in &c.runs {
        write(&format!("{}.toml", r.design), &r.scenario_toml)?;
        write(&format!("{}.json", r.design), &r.report.to_json())?;
        write(&format!("{}.timeseries.csv", r.design), &r.report.timeseries_csv())?;
        if let Some(csv) = r.report.regions_csv() {
            write(&format!("{}.regions.csv", r.design), &csv)?;
        }
    }
    Ok(())
}

pub fn compare_cmd(o: &Options) -> anyhow::Result<bool> {
    let designs = compare::designs_by_name(&o.designs).map_err(|e| Usage(e.to_string()))?;
    if designs.is_empty() {
        bail!(Usage("--designs names no design".into()));
    }
    let dir = o.out.clone().unwrap_or_else(|| default_out(&o.workload));
    check_outputs(&dir, o)?;
    let c = run_comparison(&o.workload, o, &designs)?;
    out!("{}", compare::summary_table(&c.summary));
    finish(&c, dir)
}

fn default_out(workload: &str) -> PathBuf {
    let stem = Path::new(workload).file_stem().and_then(|s| s.to_str()).unwrap_or("run");
    PathBuf::from("lfslab-out").join(stem)
}

fn finish(c: &Comparison, dir: PathBuf) -> anyhow::Result<bool> {
    finish_with(c, dir, "")
}

/// `finish` with experiment plots added to the HTML report.
fn finish_with(c: &Comparison, dir: PathBuf, plots: &str) -> anyhow::Result<bool> {
    write_outputs(&dir, c, plots)?;
    outln!(
        "\nreport: {} (also comparison.json, summary.csv, per-design .toml/.json/.csv)",
        dir.join("report.html").display()
    );
    let bad: u64 = c.summary.iter().map(|r| r.mismatches).sum();
    if bad > 0 {
        eprintln!("error: {bad} reads returned data other than the last write");
        return Ok(false);
    }
    Ok(true)
}

pub fn experiment_by_name(name: &str) -> Result<&'static Experiment, Usage> {
    EXPERIMENTS.iter().find(|e| e.name == name).ok_or_else(|| {
        let valid: Vec<&str> = EXPERIMENTS.iter().map(|e| e.name).collect();
        Usage(format!("unknown experiment {name:?}; valid: {}", valid.join(", ")))
    })
}

/// Output and aged-state directories are checked before anything runs.
fn check_outputs(dir: &Path, o: &Options) -> anyhow::Result<()> {
    crate::check_output_dir("--out", dir).map_err(Usage)?;
    if let Some(d) = &o.save_aged {
        crate::check_output_dir("--save-aged", d).map_err(Usage)?;
    }
    Ok(())
}

pub fn reproduce_cmd(
    e: &Experiment,
    scale: f64,
    seed: Option<u64>,
    out: Option<PathBuf>,
    jobs: usize,
    user_set: &[String],
) -> anyhow::Result<bool> {
    let runs = e.runs();
    let mut names: Vec<String> = runs.iter().map(|r| r.1).filter(|&n| n != compare::AS_GIVEN.name).map(String::from).collect();
    names.sort();
    names.dedup();
    let mut designs = compare::designs_by_name(&names)?;
    designs.push(&compare::AS_GIVEN);
    let dir = out.unwrap_or_else(|| PathBuf::from("lfslab-out").join(e.name));
    crate::check_output_dir("--out", &dir).map_err(Usage)?;
    outln!("# {}: {}\n# {}", e.name, e.title, e.caveat);
    if !user_set.is_empty() {
        outln!("# every run with --set {} (the paper's figures were not made so)", user_set.join(" --set "));
    }
    // Each run's workload (the experiment's, or its own) with the run's
    // settings outside [fs], then the user's.
    let split = |set: &[&str]| split_fs_settings(set.iter().map(|s| s.to_string()).chain(user_set.iter().cloned()));
    let mut files: Vec<(&str, Vec<String>, ScenarioFile, PathBuf)> = Vec::new();
    for (_, _, w, set) in &runs {
        let (w, other) = (w.unwrap_or(e.workload), split(set).1);
        if !files.iter().any(|(n, o, _, _)| *n == w && *o == other) {
            let (f, base) = load_workload(w, &other)?;
            files.push((w, other, f, base));
        }
    }
    let specs: Vec<compare::RunSpec> = runs
        .iter()
        .map(|(label, d, w, set)| {
            let (fs_set, other) = split(set);
            let w = w.unwrap_or(e.workload);
            let f = &files.iter().find(|(n, o, _, _)| *n == w && *o == other).expect("loaded").2;
            let design = designs.iter().find(|x| x.name == *d).expect("resolved");
            compare::RunSpec { label: label.to_string(), design, workload: f, fs_set, workload_set: other }
        })
        .collect();
    let settings = compare::Settings {
        scale,
        seed,
        base: files[0].3.clone(),
        jobs,
        memory_available: crate::memory_available(),
        ..compare::Settings::default()
    };
    let progress = RunProgress::new(specs.len(), jobs);
    let on_start = |i: usize, r: &compare::RunSpec, _: &Scenario| progress.start(i, &r.label, &r.describe());
    let c = compare::run_specs(e.name, &specs, &settings, on_start, progress.bar.clone())
        .map_err(|err| compare_error(err, "run", &[]))?;
    progress.finish();
    out!("{}", compare::summary_table(&c.summary));
    if !e.paper.is_empty() {
        let w = e.paper.iter().map(|p| p.design.len()).max().unwrap_or(0).max(10);
        outln!("\n{:<w$} {:<44} {:>10} {:>10}  source", "run", "metric", "paper", "lfslab");
        for p in e.paper {
            let ours = p.metric.measure(&c, p.design).map_or("-".to_string(), |v| format!("{v:.2}"));
            outln!("{:<w$} {:<44} {:>10.2} {:>10}  {}", p.design, p.metric.label(), p.paper, ours, p.source);
        }
    }
    for ch in e.charts {
        outln!("\n{} ({})", ch.title, ch.y_label);
        let w = c.summary.iter().map(|r| r.design.len()).max().unwrap_or(4).max(4);
        for r in &c.summary {
            let vals: Vec<String> = ch
                .metrics
                .iter()
                .filter_map(|m| m.measure(&c, &r.design).map(|v| format!("{} {v:.2}", m.label())))
                .collect();
            outln!("  {:<w$}  {}", r.design, vals.join(" | "));
        }
    }
    finish_with(&c, dir, &e.charts_html(&c))
}
