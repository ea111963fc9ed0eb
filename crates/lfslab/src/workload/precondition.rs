//! Preconditioning (SNIA SSS PTS v2.0 §3: fill, then random writes until
//! steady state): a sequential fill of a fraction of the logical space,
//! then uniform random 4 KiB overwrites of the filled range, submitted
//! back-to-back through the device's normal write path. Nothing is
//! measured; the measured phase starts when the device has drained.

use crate::ftl::Ssd;
use crate::nand::Lpn;
use crate::oracle::{DataOracle, DataTag};
use super::driver::{Phase, Progress, ProgressTick, AHEAD, HINT_SOON};
use crate::sim::{SimRng, SimTime};
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Precondition {
    /// Fraction of the exported capacity written sequentially (0..=1).
    pub fill: f64,
    /// Random 4 KiB overwrites of the filled range, in multiples of it.
    pub random_overwrite: f64,
    /// Fraction of the capacity at its end written once with dummy data
    /// (d2fs.txt Fig. 1's non-partitioned space); jobs do not touch it.
    pub dummy_tail: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct PreconditionSummary {
    pub blocks_written: u64,
    pub sim_time_s: f64,
}

/// Sequential fill uses 128 KiB commands (fio's default bs for seq jobs is
/// 4 KiB; larger commands only cut host overhead, the FTL sees 4 KiB slots).
const FILL_BLOCKS: u32 = 32;

pub fn precondition(
    ssd: &mut Ssd,
    oracle: &mut DataOracle,
    p: &Precondition,
    rng: &mut SimRng,
    start: SimTime,
    progress: Option<&Progress>,
) -> (SimTime, PreconditionSummary) {
    let filled = (ssd.logical_pages() as f64 * p.fill).floor() as u64;
    let dummy_from = ssd.logical_pages() - (ssd.logical_pages() as f64 * p.dummy_tail).floor() as u64;
    let dummy = ssd.logical_pages() - dummy_from;
    let total = filled + dummy + (filled as f64 * p.random_overwrite).round() as u64;
    let tick = |written: u64| {
        if let Some(pr) = progress {
            pr(&ProgressTick { phase: Phase::Precondition, done: written as f64, total: total as f64, ios: written });
        }
    };
    let mut t = start;
    let mut tag = rng.next_u64();
    let mut written = 0u64;
    // The data range, then the dummy tail, each written sequentially.
    for (from, to) in [(0, filled), (dummy_from, dummy_from + dummy)] {
        let mut lpn = from;
        while lpn < to {
            let nlb = FILL_BLOCKS.min((to - lpn) as u32);
            tag = tag.wrapping_add(1);
            let data = DataTag(tag);
            for i in 0..nlb as u64 {
                oracle.record_write(Lpn(lpn + i), data.block(i));
            }
            t = ssd.write(t, Lpn(lpn), nlb, 0, |i| data.block(i));
            lpn += nlb as u64;
            written += nlb as u64;
            if lpn % (1 << 16) == 0 {
                tick(written);
            }
        }
    }
    if filled > 0 {
        let overwrites = (filled as f64 * p.random_overwrite).round() as u64;
        // Draw `AHEAD` offsets early (the same draws in the same order) so
        // the device's and the oracle's entries for each are fetched before
        // its write: the workload driver's two-stage hint, at its distances.
        let mut ahead = [Lpn(0); AHEAD];
        let mut drawn = 0u64;
        for a in ahead.iter_mut().take(overwrites.min(AHEAD as u64) as usize) {
            *a = Lpn(rng.below(filled));
            drawn += 1;
        }
        for i in 0..overwrites {
            let slot = i as usize % AHEAD;
            let l = ahead[slot];
            if drawn < overwrites {
                ahead[slot] = Lpn(rng.below(filled));
                drawn += 1;
                ssd.prefetch_write(ahead[slot], 0);
                oracle.prefetch(ahead[slot]);
            }
            if i + (HINT_SOON as u64) < drawn {
                ssd.prefetch_write(ahead[(slot + HINT_SOON) % AHEAD], 1);
            }
            tag = tag.wrapping_add(1);
            let fp = DataTag(tag).block(0);
            oracle.record_write(l, fp);
            t = ssd.write(t, l, 1, 0, |_| fp);
            written += 1;
            if written % (1 << 16) == 0 {
                tick(written);
            }
        }
    }
    let end = ssd.flush(t);
    (end, PreconditionSummary { blocks_written: written, sim_time_s: end.saturating_since(start).as_secs_f64() })
}
