//! Pages under writeback: taken from the dirty set and submitted, their
//! writes not yet complete (the kernel's NR_WRITEBACK). balance_dirty_pages
//! counts them with the dirty pages (mm/page-writeback.c: `gdtc->dirty =
//! NR_FILE_DIRTY + NR_WRITEBACK`), so a writer cannot run ahead of the
//! device by more than the dirty limits allow.

use crate::sim::SimTime;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct UnderWriteback {
    /// (completion, pages), in completion order.
    batches: VecDeque<(SimTime, usize)>,
    pages: usize,
}

impl UnderWriteback {
    /// `pages` submitted at `now` complete at `done`.
    pub fn add(&mut self, now: SimTime, done: SimTime, pages: usize) {
        self.settle(now);
        if pages == 0 || done <= now {
            return;
        }
        // Completions mostly arrive in order: insert from the back.
        let at = self.batches.iter().rposition(|&(t, _)| t <= done).map_or(0, |i| i + 1);
        self.batches.insert(at, (done, pages));
        self.pages += pages;
    }

    /// Forget the batches complete by `now`.
    pub fn settle(&mut self, now: SimTime) {
        while let Some(&(t, n)) = self.batches.front() {
            if t > now {
                break;
            }
            self.batches.pop_front();
            self.pages -= n;
        }
    }

    /// Pages still under writeback (after the last `settle`).
    pub fn pages(&self) -> usize {
        self.pages
    }

    /// When the last page now under writeback completes (None if none is).
    pub fn last_done(&self) -> Option<SimTime> {
        self.batches.back().map(|&(t, _)| t)
    }

    /// The first instant at which at most `keep` pages are still under
    /// writeback (`now` if already so; call `settle(now)` first).
    pub fn until_at_most(&self, now: SimTime, keep: usize) -> SimTime {
        let mut left = self.pages;
        let mut t = now;
        for &(done, n) in &self.batches {
            if left <= keep {
                break;
            }
            left -= n;
            t = done;
        }
        t.max(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime(v * 1_000_000)
    }

    #[test]
    fn completed_batches_leave_the_count() {
        let mut w = UnderWriteback::default();
        w.add(ms(0), ms(10), 100);
        w.add(ms(1), ms(5), 50); // completes first though submitted later
        w.add(ms(2), ms(2), 7); // already complete: never counted
        assert_eq!(w.pages(), 150);
        w.settle(ms(5));
        assert_eq!(w.pages(), 100);
        w.settle(ms(10));
        assert_eq!(w.pages(), 0);
    }

    #[test]
    fn waits_for_the_completions_that_bring_the_count_down() {
        let mut w = UnderWriteback::default();
        w.add(ms(0), ms(4), 100);
        w.add(ms(0), ms(8), 100);
        w.add(ms(0), ms(12), 100);
        assert_eq!(w.until_at_most(ms(1), 300), ms(1));
        assert_eq!(w.until_at_most(ms(1), 200), ms(4));
        assert_eq!(w.until_at_most(ms(1), 150), ms(8));
        assert_eq!(w.until_at_most(ms(1), 0), ms(12));
    }
}
