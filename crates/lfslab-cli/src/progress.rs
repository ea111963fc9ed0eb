//! The progress line on stderr (only on a terminal, never under CI): which
//! run, which phase, how far, and an estimate of the wall time left.

use lfslab::workload::{Phase, ProgressTick};
use std::cell::Cell;
use std::io::{IsTerminal, Write};
use std::rc::Rc;
use std::time::Instant;

/// A progress line; `label` names the run ("[2/4] d2fs" or a scenario).
pub fn bar(label: Rc<Cell<String>>) -> Option<lfslab::engine::Progress> {
    if !std::io::stderr().is_terminal() || std::env::var_os("CI").is_some() {
        return None;
    }
    // Per phase: when it started (wall) and the last (done, ios) seen, for rates and the ETA.
    let state: Rc<Cell<(Option<Phase>, Instant, f64, u64)>> = Rc::new(Cell::new((None, Instant::now(), 0.0, 0)));
    Some(Rc::new(move |p: &ProgressTick| {
        let (phase, started, last_done, last_ios) = state.get();
        let (started, last_done, last_ios) =
            if phase != Some(p.phase) || p.done < last_done { (Instant::now(), 0.0, 0) } else { (started, last_done, last_ios) };
        state.set((Some(p.phase), started, p.done, p.ios));
        let wall = started.elapsed().as_secs_f64();
        let eta = if p.total > 0.0 && p.done > 0.0 { wall * (p.total - p.done).max(0.0) / p.done } else { 0.0 };
        let how_far = match p.phase {
            Phase::Measure => {
                let rate = if p.done > last_done { (p.ios.saturating_sub(last_ios)) as f64 / (p.done - last_done) } else { 0.0 };
                format!("{:>8.1}/{:.0} s simulated | {:>8.0} IOPS", p.done, p.total, rate)
            }
            _ => format!("{:>8.0}/{:.0} MiB", p.done / 256.0, p.total / 256.0),
        };
        let l = label.take();
        let _ = write!(std::io::stderr(), "\r{l} {:<12} {how_far} | ETA {:>4.0} s   ", p.phase.name(), eta);
        label.set(l);
    }))
}
