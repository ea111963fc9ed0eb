//! Assembles a scenario into a running stack (workload -> NVMe -> FTL ->
//! NAND) and runs it in phases: precondition, measure, report. Phases are
//! separate calls so a benchmark can time them; the library itself never
//! reads the wall clock.

use crate::ftl::{mapping_checker, Ssd};
use crate::metrics::{DeviceReport, DirReport, FtlReport, JobReport, RunReport, SimReport};
use crate::oracle::DataOracle;
use crate::scenario::Scenario;
use crate::sim::{LimitExceeded, SimRng, SimTime};
use crate::workload::{self, DirResult, PreconditionSummary, RunOutcome};
use crate::ftl::FtlStats;

#[derive(Debug)]
pub enum RunError {
    Limit(LimitExceeded),
    /// A full consistency check failed: a simulator bug, with context.
    Invariant(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Limit(l) => write!(f, "{l}"),
            RunError::Invariant(m) => write!(f, "FTL invariant violated: {m}"),
        }
    }
}
impl std::error::Error for RunError {}

pub struct Run {
    scenario: Scenario,
    ssd: Ssd,
    oracle: DataOracle,
    rng: SimRng,
    now: SimTime,
    precondition: PreconditionSummary,
    stats_before: FtlStats,
    outcome: Option<RunOutcome>,
}

const SIMPLIFICATIONS: [&str; 3] = [
    "device GC collects a whole victim superblock synchronously when free superblocks fall below the threshold (NVMeVirt-style foreground GC); there is no idle-time background GC yet",
    "a read of data whose program was already issued waits for the NAND program instead of hitting the write buffer",
    "host CPU costs per I/O are fixed assumptions (host.submit_ns, host.complete_ns), not measured kernel paths",
];

impl Run {
    pub fn new(scenario: Scenario) -> Run {
        let ssd = Ssd::new(scenario.ssd.clone()).expect("scenario validated the device");
        let oracle = DataOracle::new(scenario.ssd.logical_pages);
        let rng = SimRng::new(scenario.seed);
        Run {
            scenario,
            ssd,
            oracle,
            rng,
            now: SimTime::ZERO,
            precondition: PreconditionSummary::default(),
            stats_before: FtlStats::default(),
            outcome: None,
        }
    }

    pub fn ssd(&self) -> &Ssd {
        &self.ssd
    }

    pub fn precondition(&mut self) {
        let mut prng = self.rng.fork("precondition");
        let (end, summary) =
            workload::precondition(&mut self.ssd, &mut self.oracle, &self.scenario.precondition, &mut prng, self.now);
        self.now = end;
        self.precondition = summary;
        self.stats_before = self.ssd.stats();
    }

    pub fn measure(&mut self) -> Result<(), RunError> {
        let wrng = self.rng.fork("workload");
        let outcome = workload::run_jobs(
            &mut self.ssd,
            &mut self.oracle,
            &self.scenario.jobs,
            self.scenario.host,
            &wrng,
            self.now,
            self.scenario.limits,
            self.scenario.series_interval,
        )
        .map_err(RunError::Limit)?;
        self.outcome = Some(outcome);
        Ok(())
    }

    pub fn report(self) -> Result<RunReport, RunError> {
        if self.scenario.check_invariants {
            mapping_checker::check(&self.ssd).map_err(RunError::Invariant)?;
        }
        let outcome = self.outcome.expect("measure() before report()");
        let start = self.now;
        let s = &self.scenario;
        let g = &s.ssd.geometry;
        let counters = self.ssd.stats().since(&self.stats_before);
        let erases = self.ssd.erase_counts();
        let device = DeviceReport {
            preset: s.preset.name().into(),
            logical_bytes: s.ssd.logical_pages * 4096,
            physical_bytes: g.total_bytes(),
            op: (s.ssd.op() * 1e6).round() / 1e6,
            channels: g.channels,
            dies: g.dies(),
            page_bytes: g.page_bytes,
            superblocks: g.superblocks(),
            superblock_bytes: g.superblock_bytes(),
            mapping: s.ssd.ftl.mapping.clone(),
            mapping_memory_bytes: self.ssd.mapping_memory_bytes(),
        };
        let jobs = outcome
            .jobs
            .iter()
            .map(|j| {
                let runtime_ns = j.end.saturating_since(start).ns().max(1);
                let dir = |d: &DirResult| DirReport {
                    io_bytes: d.bytes,
                    bw_bytes: (d.bytes as u128 * 1_000_000_000 / runtime_ns as u128) as u64,
                    iops: ((d.ios as f64 * 1e9 / runtime_ns as f64) * 1000.0).round() / 1000.0,
                    runtime: runtime_ns / 1_000_000,
                    total_ios: d.ios,
                    clat_ns: d.clat.summary(),
                };
                JobReport { jobname: j.name.clone(), read: dir(&j.read), write: dir(&j.write) }
            })
            .collect();
        let ftl = FtlReport {
            gc_policy: s.ssd.ftl.victim_policy.clone(),
            waf: (counters.waf() * 1e6).round() / 1e6,
            gc_busy_s: counters.gc_busy_ns as f64 / 1e9,
            counters,
            free_superblocks_end: self.ssd.free_superblocks() as u64,
            erase_count_min: erases.iter().copied().min().unwrap_or(0),
            erase_count_max: erases.iter().copied().max().unwrap_or(0),
            erase_count_mean: ((erases.iter().map(|&e| e as f64).sum::<f64>() / erases.len().max(1) as f64) * 1e4)
                .round()
                / 1e4,
        };
        Ok(RunReport {
            lfslab_version: env!("CARGO_PKG_VERSION").into(),
            scenario: s.name.clone(),
            seed: s.seed,
            device,
            precondition: self.precondition,
            jobs,
            ftl,
            oracle: self.oracle.stats().clone(),
            sim: SimReport {
                measured_sim_time_s: outcome.end.saturating_since(start).as_secs_f64(),
                events: outcome.events,
                invariants_checked: s.check_invariants,
            },
            timeseries: outcome.series.buckets().to_vec(),
            simplifications: SIMPLIFICATIONS.iter().map(|s| s.to_string()).collect(),
        })
    }
}

/// Precondition, measure and report in one call.
pub fn run(scenario: Scenario) -> Result<RunReport, RunError> {
    let mut r = Run::new(scenario);
    r.precondition();
    r.measure()?;
    r.report()
}
