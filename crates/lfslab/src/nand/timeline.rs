//! Resource timelines in the style of NVMeVirt (Kim et al., FAST'23) and
//! FEMU (Li et al., FAST'18): each die and each channel keeps the instant it
//! is next free; an operation reserves what it needs, in order, and learns
//! when it completes. Host I/O and device GC reserve the same timelines, so
//! they compete for dies and channels.

use super::address::DieId;
use super::geometry::Geometry;
use super::layout::Divisor;
use super::timing::Timing;
use crate::sim::{SimDuration, SimTime};

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Timelines {
    die_free: Vec<SimTime>,
    channel_free: Vec<SimTime>,
    channels: Divisor,
    /// Busy time per die, for utilisation figures.
    die_busy: Vec<SimDuration>,
    /// The last channel transfer computed: (bytes, MB/s, ns). Nearly every
    /// transfer is one program unit, and the division costs more than the
    /// rest of a reservation.
    #[serde(skip)]
    xfer_memo: (u64, u64, u64),
}

impl Timelines {
    pub fn new(geo: &Geometry) -> Self {
        let dies = geo.dies() as usize;
        Timelines {
            die_free: vec![SimTime::ZERO; dies],
            channel_free: vec![SimTime::ZERO; geo.channels as usize],
            channels: Divisor::new(geo.channels as u64),
            die_busy: vec![SimDuration::ZERO; dies],
            xfer_memo: (0, 0, 0),
        }
    }

    #[inline]
    fn channel(&self, die: DieId) -> usize {
        self.channels.rem(die.0 as u64) as usize
    }

    #[inline]
    fn channel_xfer(&mut self, timing: &Timing, bytes: u64) -> SimDuration {
        let (b, m, ns) = self.xfer_memo;
        if b == bytes && m == timing.channel_mbps {
            return SimDuration(ns);
        }
        let ns = timing.channel_xfer_ns(bytes);
        self.xfer_memo = (bytes, timing.channel_mbps, ns);
        SimDuration(ns)
    }

    /// Page read: tR on the die, then the data crosses the channel. The die's
    /// page register is held until the transfer ends.
    pub fn read(&mut self, timing: &Timing, die: DieId, at: SimTime, bytes: u64) -> SimTime {
        let d = die.0 as usize;
        let c = self.channel(die);
        let start = at.max(self.die_free[d]);
        let sensed = start + SimDuration(timing.read_ns);
        let xfer_start = sensed.max(self.channel_free[c]);
        let done = xfer_start + self.channel_xfer(timing, bytes);
        self.channel_free[c] = done;
        self.die_free[d] = done;
        self.die_busy[d] += done - start;
        done
    }

    /// Program: data crosses the channel into the die's register (die must be
    /// idle), then tPROG. Same order as NVMeVirt's `ssd_advance_nand`.
    pub fn program(&mut self, timing: &Timing, die: DieId, at: SimTime, bytes: u64) -> SimTime {
        let d = die.0 as usize;
        let c = self.channel(die);
        let xfer_start = at.max(self.die_free[d]).max(self.channel_free[c]);
        let xfer_done = xfer_start + self.channel_xfer(timing, bytes);
        self.channel_free[c] = xfer_done;
        let done = xfer_done + SimDuration(timing.program_ns);
        self.die_free[d] = done;
        self.die_busy[d] += done - xfer_start;
        done
    }

    /// Block erase: tBERS on the die, no channel data.
    pub fn erase(&mut self, timing: &Timing, die: DieId, at: SimTime) -> SimTime {
        let d = die.0 as usize;
        let start = at.max(self.die_free[d]);
        let done = start + SimDuration(timing.erase_ns);
        self.die_free[d] = done;
        self.die_busy[d] += done - start;
        done
    }

    pub fn die_free_at(&self, die: DieId) -> SimTime {
        self.die_free[die.0 as usize]
    }

    /// Latest instant any die is busy until.
    pub fn all_idle_at(&self) -> SimTime {
        self.die_free.iter().copied().max().unwrap_or(SimTime::ZERO)
    }

    pub fn die_busy_total(&self) -> SimDuration {
        self.die_busy.iter().fold(SimDuration::ZERO, |a, &b| a + b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (Geometry, Timing) {
        let g = Geometry {
            channels: 2,
            chips_per_channel: 1,
            dies_per_chip: 1,
            planes_per_die: 1,
            blocks_per_plane: 8,
            pages_per_block: 4,
            page_bytes: 4096,
        };
        // FEMU timings: 50 us read, 500 us program, 5 ms erase, free channel.
        (g, crate::nand::Preset::Femu.timing())
    }

    #[test]
    fn operations_on_one_die_serialise() {
        let (g, t) = setup();
        let mut tl = Timelines::new(&g);
        let p = tl.program(&t, DieId(0), SimTime::ZERO, 4096);
        assert_eq!(p, SimTime(500_000));
        // A read on the same die waits for the program (read-after-program interference).
        let r = tl.read(&t, DieId(0), SimTime(10), 4096);
        assert_eq!(r, SimTime(550_000));
        // Another die is independent.
        let r2 = tl.read(&t, DieId(1), SimTime(10), 4096);
        assert_eq!(r2, SimTime(50_010));
        let e = tl.erase(&t, DieId(1), SimTime::ZERO);
        assert_eq!(e, SimTime(5_050_010));
        assert_eq!(tl.all_idle_at(), e);
    }

    #[test]
    fn channel_is_shared_by_its_dies() {
        let (g, mut t) = setup();
        t.channel_mbps = 400; // 4096 B -> 10.24 us
        let g2 = Geometry { channels: 1, chips_per_channel: 2, ..g };
        let mut tl = Timelines::new(&g2);
        let a = tl.program(&t, DieId(0), SimTime::ZERO, 4096);
        let b = tl.program(&t, DieId(1), SimTime::ZERO, 4096);
        assert_eq!(a, SimTime(10_240 + 500_000));
        // Die 1's transfer waits for die 0's transfer on the shared channel.
        assert_eq!(b, SimTime(20_480 + 500_000));
    }
}
