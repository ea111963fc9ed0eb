//! The `lfslab` command line: run scenarios, print built-in ones, and
//! benchmark the simulator itself. Exit codes: 0 success, 1 a run failed
//! (limit reached, invariant broken, data mismatch), 2 bad input.

mod compare;
mod progress;
mod stdout;

use stdout::{out, outln};

use anyhow::Context;
use clap::{Parser, Subcommand};
use lfslab::engine::{self, Run};
use lfslab::scenario::{builtin, Scenario, BUILTIN_NAMES};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

#[global_allocator]
static ALLOC: lfslab::huge_pages::HugePageAlloc = lfslab::huge_pages::HugePageAlloc;

#[derive(Parser)]
#[command(name = "lfslab", version, about = "Deterministic simulator of log-structured filesystems on flash SSDs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario (a TOML file, or a built-in name; default: "default").
    Run {
        /// A scenario file (TOML) or a built-in name (`lfslab scenario` lists them).
        scenario: Option<String>,
        /// Root seed; replaces the scenario's seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Override a scenario field, e.g. --set ftl.gc_policy=cost-benefit --set job.0.iodepth=8
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Write the JSON report here ("-": to standard output, alone).
        #[arg(long)]
        json: Option<PathBuf>,
        /// Write the throughput time series as CSV here.
        #[arg(long)]
        csv: Option<PathBuf>,
        /// D2FS runs: write the regular / GC region utilisation over time (Fig. 11) as CSV here.
        #[arg(long)]
        regions_csv: Option<PathBuf>,
        /// Do not print the resolved scenario before the results.
        #[arg(long)]
        quiet: bool,
        /// Save the state after the precondition phase (files laid out and
        /// aged) to FILE, then measure as usual.
        #[arg(long, value_name = "FILE")]
        save_aged: Option<PathBuf>,
        /// Start from an aged state saved by --save-aged instead of aging
        /// again: the same bits as aging afresh. The scenario may differ
        /// only in the jobs' I/O pattern and runtime, limits and output.
        #[arg(long, value_name = "FILE", conflicts_with = "save_aged")]
        from_aged: Option<PathBuf>,
    },
    /// Run one workload on several designs side by side: summary table, then
    /// an output directory with the resolved scenarios, JSON, CSV and an HTML
    /// report with plots.
    Compare {
        /// Designs, comma-separated (f2fs, f2fs-adaptive, f2fs-lfs, zf2fs, iplfs, d2fs, f2fs-lfs-s8, csgc, rmipu, ext4).
        #[arg(long, default_value = "f2fs,zf2fs,iplfs,d2fs", value_delimiter = ',')]
        designs: Vec<String>,
        /// A built-in scenario or a scenario file; its [fs] table is replaced by each design's.
        #[arg(long, default_value = "fio-randwrite")]
        workload: String,
        /// Multiply device capacity and job runtimes by this factor (ratios kept).
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
        /// Root seed of every design's run; replaces the workload's seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Override a workload field, as for `run`.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Output directory (default lfslab-out/<workload>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Designs run at once, one thread each (default: the available
        /// cores); results are the same bits whatever the number.
        #[arg(long)]
        jobs: Option<usize>,
        /// Save each design's aged state (after file layout and aging) as
        /// DIR/<design>.aged, then measure as usual.
        #[arg(long, value_name = "DIR")]
        save_aged: Option<PathBuf>,
        /// Start each design from DIR/<design>.aged (see `run --from-aged`).
        #[arg(long, value_name = "DIR", conflicts_with = "save_aged")]
        from_aged: Option<PathBuf>,
    },
    /// Run a paper experiment (without a name: list them) and print the paper's figures beside ours.
    Reproduce {
        /// The experiment, e.g. d2fs-fio (omit to list them).
        experiment: Option<String>,
        /// Relative to the built-in size (1/16 of the paper's); 16 = paper size.
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
        /// Root seed of every design's run; replaces the experiment's seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Output directory (default lfslab-out/<experiment>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Designs run at once, one thread each (default: the available
        /// cores); results are the same bits whatever the number.
        #[arg(long)]
        jobs: Option<usize>,
        /// Override a field on every run, after the experiment's own
        /// settings (`fs.*` on each design's [fs], others on the workload),
        /// e.g. --set device.cmd_us=4 to see what a constant does.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
    /// Crash swarm: random file workloads on random small stacks of a
    /// design, power cuts at random points, remount from what the device
    /// holds (checkpoint, roll-forward, D2FS redo), go on, cut again; every
    /// promised block and every read is checked. A failure prints a
    /// reproducer, shrunk to the fewest operations that still fail.
    Swarm {
        /// Design(s) to run, comma-separated, or "all" (the designs of `compare`).
        #[arg(long, default_value = "all", value_delimiter = ',')]
        design: Vec<String>,
        /// How many seeds per design (default 100, or 1 when --seed is given).
        #[arg(long)]
        seeds: Option<u64>,
        /// First seed (default 1).
        #[arg(long)]
        seed: Option<u64>,
        /// Operations per seed (default 3000).
        #[arg(long)]
        ops: Option<u64>,
        /// Write the per-design totals as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Run a sweep file (base scenario, [grid] of settings, designs, seeds)
    /// on a local process pool or on Ray; writes sweep.csv and sweep.html.
    /// Runs through the Python package (pip install ./crates/lfslab-py).
    Sweep {
        /// The sweep file (TOML: base, [grid], designs, seeds, scale).
        file: PathBuf,
        /// Run on Ray: a cluster address, or none for a local Ray instance.
        #[arg(long, num_args = 0..=1, default_missing_value = "")]
        ray: Option<String>,
        /// Output directory (default lfslab-out/<file stem>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Local backend: worker processes (default: the cores).
        #[arg(long)]
        workers: Option<usize>,
    },
    /// Print a built-in scenario (or list them).
    Scenario {
        /// A built-in scenario's name (omit to list them).
        name: Option<String>,
        /// Print the reference of every scenario field (type, default,
        /// meaning) as Markdown, as in docs/scenario.md.
        #[arg(long, conflicts_with = "name")]
        schema: bool,
    },
    /// Measure simulator speed: simulated 4 KiB writes per wall-clock second
    /// and peak memory, on the built-in "bench" scenario (32 GiB, GC active).
    Bench {
        /// Override the device size in GiB (FTL path).
        #[arg(long)]
        capacity_gib: Option<f64>,
        /// Override the measured random-write volume in GiB (FTL path).
        #[arg(long)]
        io_gib: Option<f64>,
        /// Full stack: the designs to time on `compare`'s workload, comma-separated ("" for none).
        #[arg(long, default_value = "f2fs,zf2fs,iplfs,d2fs", value_delimiter = ',')]
        designs: Vec<String>,
        /// Full stack: the --scale values to time each design at; with more
        /// than one, a table follows of how each design's wall time grew from
        /// the smallest to the largest, split into more application writes
        /// and dearer ones.
        #[arg(long, default_value = "1", value_delimiter = ',')]
        scales: Vec<f64>,
        /// Database model: YCSB operations to time on d2fs-ycsb-a, through the whole stack and against a
        /// filesystem that does nothing (the model's own cost); 0 skips it.
        #[arg(long, default_value_t = 100_000)]
        database_ops: u64,
        /// Full stack: run each design and scale this many times and print the run whose wall time
        /// (layout plus measure) is the median, so one slow or lucky run does not move the figure.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=99))]
        runs: u32,
        /// Time one design at one scale in this process (the suite runs each so, for its peak memory).
        #[arg(long, hide = true)]
        one: Option<String>,
    },
}

fn load(name: Option<&str>, set: &[String], seed: Option<u64>) -> Result<Scenario, String> {
    let name = name.unwrap_or("default");
    // A fio job file or iolog runs as given, wrapped in a scenario.
    let (text, base) = lfslab::scenario::source_text(name, "scenario")?;
    let s = Scenario::from_toml_str_in(&text, set, &base).map_err(|e| format!("{name}: {e}"))?;
    Ok(match seed {
        Some(seed) => s.with_seed(seed),
        None => s,
    })
}

fn main() -> ExitCode {
    let code = run_cli(Cli::parse());
    // Buffered output goes out before exit, quietly if the reader is gone.
    stdout::flush();
    code
}

fn run_cli(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Run { scenario, seed, set, json, csv, regions_csv, quiet, save_aged, from_aged } => {
            let s = match load(scenario.as_deref(), &set, seed) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            // `--json -`: standard output carries the JSON report and nothing else.
            let json_stdout = json.as_deref() == Some(Path::new("-"));
            if !quiet && !json_stdout {
                outln!("# lfslab {} | seed {} | resolved scenario:", env!("CARGO_PKG_VERSION"), s.seed);
                outln!("{}", s.to_toml());
            }
            if let Some(avail) = memory_available() {
                if let Err(e) = engine::check_memory(&s, avail) {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            }
            let json_file = if json_stdout { None } else { json };
            let outputs = [("--json", &json_file), ("--csv", &csv), ("--regions-csv", &regions_csv), ("--save-aged", &save_aged)];
            for (flag, p) in outputs {
                if let Some(e) = p.as_deref().and_then(|p| check_output_file(flag, p).err()) {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            }
            let aged = engine::AgedPaths { from: from_aged, save: save_aged };
            match run_and_write(s, json_stdout, json_file.as_deref(), csv.as_deref(), regions_csv.as_deref(), &aged) {
                Ok(true) => ExitCode::SUCCESS,
                Ok(false) => ExitCode::from(1),
                Err(e) => {
                    eprintln!("error: {e:#}");
                    let bad_input = e.downcast_ref::<engine::RunError>().is_some_and(engine::RunError::is_bad_input);
                    ExitCode::from(if bad_input { 2 } else { 1 })
                }
            }
        }
        Command::Compare { designs, workload, scale, seed, set, out, jobs, save_aged, from_aged } => {
            let jobs = compare::jobs_or_cores(jobs);
            let o = compare::Options { designs, workload, scale, seed, set, out, jobs, from_aged, save_aged };
            exit_of(compare::compare_cmd(&o))
        }
        Command::Reproduce { experiment, scale, seed, out, jobs, set } => match experiment {
            None => {
                for e in lfslab::compare::EXPERIMENTS.iter() {
                    outln!("{:<12} {}", e.name, e.title);
                }
                ExitCode::SUCCESS
            }
            Some(name) => match compare::experiment_by_name(&name) {
                Ok(e) => exit_of(compare::reproduce_cmd(e, scale, seed, out, compare::jobs_or_cores(jobs), &set)),
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(2)
                }
            },
        },
        Command::Swarm { design, seeds, seed, ops, json } => exit_of(swarm_cmd(&design, seeds, seed, ops, json.as_deref())),
        Command::Sweep { file, ray, out, workers } => sweep_cmd(&file, ray.as_deref(), out.as_deref(), workers),
        Command::Scenario { schema: true, .. } => {
            out!("{}", lfslab::scenario::schema::reference_markdown());
            ExitCode::SUCCESS
        }
        Command::Scenario { name, .. } => match name {
            None => {
                let width = BUILTIN_NAMES.iter().map(|n| n.len()).max().unwrap_or(0);
                for n in BUILTIN_NAMES {
                    outln!("{n:<width$}  {}", lfslab::scenario::builtin_summary(n).unwrap_or_default());
                }
                ExitCode::SUCCESS
            }
            Some(n) => match builtin(&n) {
                Some(t) => {
                    out!("{t}");
                    ExitCode::SUCCESS
                }
                None => {
                    eprintln!("error: unknown built-in scenario {n:?}; valid: {}", BUILTIN_NAMES.join(", "));
                    ExitCode::from(2)
                }
            },
        },
        Command::Bench { one: Some(design), scales, .. } => {
            exit_of(bench_stack_one(&design, scales.first().copied().unwrap_or(1.0)))
        }
        Command::Bench { capacity_gib, io_gib, designs, scales, database_ops, runs, one: None } => {
            let mut set = Vec::new();
            if let Some(c) = capacity_gib {
                set.push(format!("device.capacity_gib={c}"));
            }
            if let Some(g) = io_gib {
                set.push(format!("job.0.io_size=\"{}k\"", (g * 1024.0 * 1024.0).round() as u64 / 4 * 4));
            }
            match load(Some("bench"), &set, None) {
                Ok(s) => match bench(s).and_then(|()| bench_stack(&designs, &scales, runs)).and_then(|()| bench_database(database_ops)) {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(e) => {
                        eprintln!("error: {e:#}");
                        ExitCode::from(1)
                    }
                },
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(2)
                }
            }
        }
    }
}

/// `lfslab swarm`: Ok(false) when a seed failed.
fn swarm_cmd(designs: &[String], seeds: Option<u64>, seed: Option<u64>, ops: Option<u64>, json: Option<&Path>) -> anyhow::Result<bool> {
    let usage = |m: String| anyhow::Error::new(compare::Usage(m));
    let names: Vec<String> = if designs.iter().any(|d| d == "all") {
        lfslab::swarm::designs().map(String::from).collect()
    } else {
        designs.to_vec()
    };
    for n in &names {
        if !lfslab::swarm::designs().any(|d| d == n) {
            let valid: Vec<&str> = lfslab::swarm::designs().collect();
            return Err(usage(format!("--design: unknown design {n:?}; valid: all, {}", valid.join(", "))));
        }
    }
    if ops == Some(0) {
        return Err(usage("--ops: must be at least 1".into()));
    }
    if let Some(p) = json {
        check_output_file("--json", p).map_err(usage)?;
    }
    let n = seeds.unwrap_or(if seed.is_some() { 1 } else { 100 });
    let first = seed.unwrap_or(1);
    // A panic inside a seed is that seed's failure, reported with its reproducer.
    if std::env::var_os("LFSLAB_SWARM_PANICS").is_none() {
        lfslab::swarm::quiet_panics();
    }
    let mut all = Vec::new();
    let mut ok = true;
    outln!(
        "{:<14} {:>6} {:>6} {:>9} {:>8} {:>6} {:>6} {:>8} {:>8} {:>11} {:>9} {:>9} {:>7} {:>7} {:>6}",
        "design", "seeds", "failed", "ops", "crashes", "aftGC", "aftCP", "aftDisc", "upcalls", "promised", "unsynced", "redone", "fsGC", "devGC", "CPs"
    );
    for d in &names {
        let sum = lfslab::swarm::swarm(d, first, n, ops, |r| {
            if let Some(f) = &r.failure {
                eprintln!("FAIL {} -- {f}\n     setup: {}", r.reproducer(), r.setup);
            }
        })
        .map_err(usage)?;
        outln!(
            "{:<14} {:>6} {:>6} {:>9} {:>8} {:>6} {:>6} {:>8} {:>8} {:>11} {:>9} {:>9} {:>7} {:>7} {:>6}",
            sum.design, sum.seeds, sum.failed, sum.counts.ops, sum.counts.crashes, sum.counts.crashes_after_gc, sum.counts.crashes_after_checkpoint,
            sum.counts.crashes_after_discard, sum.counts.crashes_with_upcalls, sum.counts.promised_checked, sum.counts.unsynced_visible, sum.counts.records_redone, sum.counts.fs_gc,
            sum.counts.device_gc, sum.counts.checkpoints
        );
        for f in &sum.failures {
            outln!("  shrunk: {f}");
        }
        ok &= sum.failed == 0;
        all.push(sum);
    }
    let _ = std::panic::take_hook();
    if let Some(p) = json {
        std::fs::write(p, lfslab::swarm::summaries_json(&all))?;
    }
    Ok(ok)
}

/// Exit code of a command: 0, 1 (failed run or data mismatch), 2 (usage).
/// `lfslab sweep`: the Python package's sweep (`python3 -m lfslab sweep`),
/// which has the Ray backend; its exit status is this command's.
fn sweep_cmd(file: &Path, ray: Option<&str>, out: Option<&Path>, workers: Option<usize>) -> ExitCode {
    let python = std::env::var("LFSLAB_PYTHON").unwrap_or_else(|_| "python3".into());
    let mut cmd = std::process::Command::new(&python);
    cmd.args(["-m", "lfslab", "sweep"]).arg(file);
    if let Some(a) = ray {
        cmd.arg("--ray");
        if !a.is_empty() {
            cmd.arg(a);
        }
    }
    if let Some(o) = out {
        cmd.arg("--out").arg(o);
    }
    if let Some(w) = workers {
        cmd.arg("--workers").arg(w.to_string());
    }
    // Is the package there? Say how to get it rather than Python's traceback.
    let probe = std::process::Command::new(&python).args(["-c", "import lfslab.sweep"]).output();
    match probe {
        Ok(o) if o.status.success() => {}
        Ok(_) => {
            eprintln!("error: lfslab sweep runs through the Python package, which {python} cannot import: pip install ./crates/lfslab-py");
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("error: lfslab sweep runs through Python ({python}: {e}); set LFSLAB_PYTHON to the interpreter with the lfslab package");
            return ExitCode::from(2);
        }
    }
    match cmd.status() {
        Ok(st) => ExitCode::from(st.code().unwrap_or(1).clamp(0, 255) as u8),
        Err(e) => {
            eprintln!("error: cannot start {python}: {e}");
            ExitCode::from(1)
        }
    }
}

fn exit_of(r: anyhow::Result<bool>) -> ExitCode {
    match r {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e:#}");
            if e.downcast_ref::<compare::Usage>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// Returns Ok(false) when the run finished but the data oracle found
/// mismatches. `json_stdout`: the JSON report replaces the text on stdout.
fn run_and_write(
    s: Scenario,
    json_stdout: bool,
    json: Option<&Path>,
    csv: Option<&Path>,
    regions: Option<&Path>,
    aged: &engine::AgedPaths,
) -> anyhow::Result<bool> {
    let label = std::rc::Rc::new(std::cell::Cell::new(s.name.clone()));
    let bar = progress::bar(label);
    let shown = bar.is_some();
    let report = engine::run_aged(s, bar, aged)?;
    if shown {
        eprintln!();
    }
    if json_stdout {
        outln!("{}", report.to_json());
    } else {
        out!("{}", report.to_text());
    }
    if let Some(p) = json {
        std::fs::write(p, report.to_json()).with_context(|| format!("cannot write JSON report to {}", p.display()))?;
    }
    if let Some(p) = csv {
        std::fs::write(p, report.timeseries_csv())
            .with_context(|| format!("cannot write time-series CSV to {}", p.display()))?;
    }
    if let Some(p) = regions {
        let text = report.regions_csv().context("--regions-csv needs a D2FS run (fs.kind = \"d2fs\")")?;
        std::fs::write(p, text).with_context(|| format!("cannot write region CSV to {}", p.display()))?;
    }
    if report.oracle.mismatches_count > 0 {
        eprintln!("error: {} reads returned data other than the last write", report.oracle.mismatches_count);
        return Ok(false);
    }
    Ok(true)
}

/// Refuse an output path that cannot be written before simulating, not
/// after: open it for writing (an existing file is left as it was).
pub fn check_output_file(flag: &str, p: &Path) -> Result<(), String> {
    let existed = p.exists();
    match std::fs::OpenOptions::new().write(true).create(true).truncate(false).open(p) {
        Ok(_) => {
            if !existed {
                let _ = std::fs::remove_file(p);
            }
            Ok(())
        }
        Err(e) => Err(format!("{flag} {}: cannot write there: {e}", p.display())),
    }
}

/// The same for an output directory: created if missing, and written to.
pub fn check_output_dir(flag: &str, dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{flag} {}: cannot create it: {e}", dir.display()))?;
    check_output_file(flag, &dir.join(".lfslab-write-check"))
}

/// The machine's available memory (`MemAvailable` in /proc/meminfo), to
/// refuse a run that cannot fit before it allocates; `LFSLAB_MEMORY_MIB`
/// sets it instead (to cap what lfslab may use).
pub fn memory_available() -> Option<u64> {
    if let Some(mib) = std::env::var("LFSLAB_MEMORY_MIB").ok().and_then(|v| v.parse::<u64>().ok()) {
        return Some(mib << 20);
    }
    proc_kib_field("/proc/meminfo", "MemAvailable:")
}

fn peak_rss_bytes() -> Option<u64> {
    proc_kib_field("/proc/self/status", "VmHWM:")
}

/// A "Key: N kB" line of a /proc file, in bytes.
fn proc_kib_field(file: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The full-stack part of the suite: each design at each scale in a child
/// process (`bench --one`), so each peak memory is its own.
fn bench_stack(designs: &[String], scales: &[f64], runs: u32) -> anyhow::Result<()> {
    let designs: Vec<&String> = designs.iter().filter(|d| !d.is_empty()).collect();
    if designs.is_empty() {
        return Ok(());
    }
    outln!("\nfull stack on compare's workload (fio-randwrite): wall time per phase, application 4 KiB writes per wall second");
    outln!(
        "{:<8} {:>5} {:>9} {:>9} {:>12} {:>8} {:>10} {:>12} {:>9}",
        "design", "scale", "layout s", "measure s", "app writes", "M/s", "B per 4K", "steady IOPS", "total WAF"
    );
    let exe = std::env::current_exe()?;
    // Per design, per scale in `scales`' order: the median run's wall
    // seconds and application writes.
    let mut growth: Vec<(&String, Vec<(f64, f64)>)> = Vec::new();
    for d in designs {
        let mut per_scale = Vec::new();
        for &scale in scales {
            // (layout + measure seconds, app writes, the row) of each run.
            let mut rows: Vec<(f64, f64, String)> = Vec::new();
            for _ in 0..runs {
                let out = std::process::Command::new(&exe)
                    .args(["bench", "--one", d, "--scales", &scale.to_string()])
                    .output()?;
                let text = String::from_utf8_lossy(&out.stdout);
                let Some(l) = text.lines().find(|l| l.starts_with("one ")) else {
                    anyhow::bail!("bench of {d} at scale {scale} failed: {}", String::from_utf8_lossy(&out.stderr))
                };
                let cols: Vec<&str> = l.split_whitespace().collect();
                let secs = |i: usize| cols.get(i).and_then(|c| c.parse::<f64>().ok());
                let wall = secs(3).zip(secs(4)).map(|(a, b)| a + b).context("bench row without its times")?;
                let writes = secs(5).context("bench row without app writes")?;
                rows.push((wall, writes, l[4..].to_string()));
            }
            rows.sort_by(|a, b| a.0.total_cmp(&b.0));
            let (wall, writes, row) = &rows[rows.len() / 2];
            outln!("{row}");
            per_scale.push((*wall, *writes));
        }
        growth.push((d, per_scale));
    }
    // Issue 12's measure of cost linear in work: wall time from the smallest
    // scale to the largest, and how much of it is more work per simulated
    // second (a design whose IOPS grow with size) rather than dearer writes.
    if scales.len() > 1 {
        let by_scale = |a: &usize, b: &usize| scales[*a].total_cmp(&scales[*b]);
        let (lo, hi) = ((0..scales.len()).min_by(by_scale).expect("scales"), (0..scales.len()).max_by(by_scale).expect("scales"));
        outln!("\ngrowth from scale {} to {}: wall time, application writes, wall time per application write", scales[lo], scales[hi]);
        outln!("{:<14} {:>8} {:>11} {:>10}", "design", "wall", "app writes", "per write");
        for (d, v) in &growth {
            let (wall, writes) = (v[hi].0 / v[lo].0, v[hi].1 / v[lo].1);
            outln!("{:<14} {:>7.1}x {:>10.1}x {:>9.2}x", format!("{d}:"), wall, writes, wall / writes);
        }
    }
    Ok(())
}

/// The database model's own cost: d2fs-ycsb-a's measured phase through the
/// whole stack, and the same clients and engine against `NullFs`.
fn bench_database(ops: u64) -> anyhow::Result<()> {
    if ops == 0 {
        return Ok(());
    }
    let set = [format!("database.operationcount={ops}")];
    let file = lfslab::scenario::Scenario::file_from_toml_with(
        lfslab::scenario::builtin("d2fs-ycsb-a").expect("built-in"),
        &set,
    )?;
    let s = lfslab::scenario::Scenario::from_file_in(file, Path::new("."))?;
    let spec = s.database.clone().expect("a database scenario");
    let cfg = lfslab::workload::DriverConfig {
        costs: s.host,
        start: lfslab::sim::SimTime::ZERO,
        limits: s.limits,
        series_interval: s.series_interval,
        daemon_interval: None,
        progress: None,
    };
    let rng = lfslab::sim::SimRng::new(s.seed);
    let mut run = Run::new(s)?;
    run.precondition()?;
    let t0 = Instant::now();
    run.measure()?;
    let full = t0.elapsed().as_secs_f64();
    let mut null = lfslab::fs::null::NullFs::new(lfslab::sim::SimDuration::from_us(100));
    let (mut db, _) = lfslab::workload::database::populate(&mut null, &spec, &rng, cfg.start, None)?;
    let t1 = Instant::now();
    lfslab::workload::database::run(&mut null, &spec, &mut db, &rng.fork("workload"), &cfg)
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let model = t1.elapsed().as_secs_f64();
    outln!("\ndatabase model (d2fs-ycsb-a on d2fs, {ops} YCSB operations): measured phase wall time");
    outln!("full stack      {full:>8.2} s wall  {:>8.0} ops/s", ops as f64 / full);
    outln!("model alone     {model:>8.2} s wall  {:>5.1}% of the full stack", 100.0 * model / full);
    Ok(())
}

/// One design at one scale: layout/aging and measured phase timed apart;
/// writes are the application's (file layout excluded); memory is the
/// process's peak over the device's 4 KiB blocks.
fn bench_stack_one(design: &str, scale: f64) -> anyhow::Result<bool> {
    let d = lfslab::compare::designs_by_name(&[design.to_string()])?;
    let file = lfslab::scenario::Scenario::file_from_toml_with(
        lfslab::scenario::builtin("fio-randwrite").expect("built-in"),
        &[],
    )?;
    let s = lfslab::compare::scenario_for(&file, d[0], scale, Path::new("."))?;
    let blocks = s.ssd.geometry.total_slots();
    let mut run = Run::new(s)?;
    let t0 = Instant::now();
    run.precondition()?;
    let layout = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    run.measure()?;
    let meas = t1.elapsed().as_secs_f64();
    let report = run.report()?;
    let w = report.fs.as_ref().map_or(0, |f| f.counters.app_write_blocks);
    let rss = peak_rss_bytes().unwrap_or(0);
    // The simulated results too, so a sweep of scales shows they hold.
    let row = lfslab::compare::SummaryRow::of(&lfslab::compare::DesignRun {
        design: design.into(),
        description: String::new(),
        scenario_toml: String::new(),
        report,
    });
    outln!(
        "one {:<8} {:>5} {:>9.2} {:>9.2} {:>12} {:>8.2} {:>10.1} {:>12.0} {:>9.3}",
        design,
        scale,
        layout,
        meas,
        w,
        w as f64 / meas / 1e6,
        rss as f64 / blocks as f64,
        row.steady_iops,
        row.total_waf
    );
    Ok(true)
}

fn bench(s: Scenario) -> anyhow::Result<()> {
    let cap = s.ssd.logical_pages * 4096;
    outln!("bench: {} | {:.1} GiB exported | seed {}", s.name, cap as f64 / (1u64 << 30) as f64, s.seed);
    let t0 = Instant::now();
    let mut run = Run::new(s)?;
    let build = t0.elapsed();
    let t1 = Instant::now();
    let before = run.ssd().stats();
    run.precondition()?;
    let pre = t1.elapsed();
    let pre_stats = run.ssd().stats().since(&before);
    let t2 = Instant::now();
    run.measure()?;
    let meas = t2.elapsed();
    let report = run.report()?;
    let w = report.ftl.counters.host_write_slots;
    outln!("setup           {:>8.2} s wall", build.as_secs_f64());
    outln!(
        "precondition    {:>8.2} s wall  {:>12} 4 KiB writes  {:>6.2} M/s  (GC victims {})",
        pre.as_secs_f64(),
        pre_stats.host_write_slots,
        pre_stats.host_write_slots as f64 / pre.as_secs_f64() / 1e6,
        pre_stats.gc_count
    );
    outln!(
        "randwrite (GC)  {:>8.2} s wall  {:>12} 4 KiB writes  {:>6.2} M/s  (GC victims {}, WAF {:.2}, {} events)",
        meas.as_secs_f64(),
        w,
        w as f64 / meas.as_secs_f64() / 1e6,
        report.ftl.counters.gc_count,
        report.ftl.waf,
        report.sim.events
    );
    if let Some(rss) = peak_rss_bytes() {
        outln!("peak RSS        {:>8.1} MiB", rss as f64 / (1u64 << 20) as f64);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    /// Every subcommand, argument and flag says what it is in --help.
    #[test]
    fn every_argument_has_help() {
        let cmd = Cli::command();
        for sub in cmd.get_subcommands() {
            assert!(sub.get_about().is_some(), "subcommand {} has no help", sub.get_name());
            for arg in sub.get_arguments().filter(|a| !a.is_hide_set()) {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                assert!(arg.get_help().is_some(), "{} {id} has no help text", sub.get_name());
            }
        }
    }
}
