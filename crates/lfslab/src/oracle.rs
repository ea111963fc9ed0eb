//! Functional model of data. Every written 4 KiB block carries a
//! fingerprint derived from (writer's data tag, block index); the flash
//! stores it per slot; the oracle remembers what each logical block must
//! contain and checks every read against it.
//!
//! Ordering: the device model applies commands in submission order, so
//! the oracle records a write when it is submitted; a read racing an
//! unacknowledged write to the same block therefore expects the newer data
//! (which is one of the two outcomes NVMe allows).

use crate::nand::Lpn;
use crate::sim::mix64;
use serde::Serialize;

/// Content of one 4 KiB block. Never 0 (0 is "erased" in the flash store).
///
/// 32 bits: the flash store and the oracle keep one per block, so this is
/// 8 of the stack's bytes per 4 KiB. A read of wrong data goes unnoticed
/// only if its fingerprint equals the expected one, 1 in 2^31 per block
/// read; a bug that returns wrong data does so for many blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Fingerprint(pub u32);

impl Fingerprint {
    /// Content of slots that pad a partially filled flash page.
    pub const PADDING: Fingerprint = Fingerprint(u32::MAX);
}

/// Identifies the data of one write command; block `i` of the command has
/// fingerprint `tag.block(i)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataTag(pub u64);

impl DataTag {
    #[inline]
    pub fn block(self, index: u64) -> Fingerprint {
        // Top bit clear keeps it distinct from PADDING; |1 keeps it non-zero.
        Fingerprint(((mix64(self.0 ^ mix64(index.wrapping_add(1))) >> 33) as u32) | 1)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct OracleStats {
    pub blocks_checked_count: u64,
    pub mismatches_count: u64,
}

/// Expected content of every logical block. `None` = never written or trimmed.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct DataOracle {
    expected: Vec<u32>,
    stats: OracleStats,
    first_mismatch: Option<String>,
}

impl DataOracle {
    pub fn new(logical_blocks: u64) -> Self {
        DataOracle { expected: vec![0; logical_blocks as usize], stats: OracleStats::default(), first_mismatch: None }
    }

    #[inline]
    pub fn record_write(&mut self, lpn: Lpn, fp: Fingerprint) {
        self.expected[lpn.0 as usize] = fp.0;
    }

    #[inline]
    pub fn record_trim(&mut self, lpn: Lpn) {
        self.expected[lpn.0 as usize] = 0;
    }

    #[inline]
    pub fn prefetch(&self, lpn: Lpn) {
        crate::prefetch::prefetch(&self.expected, lpn.0 as usize);
    }

    pub fn expected(&self, lpn: Lpn) -> Option<Fingerprint> {
        match self.expected[lpn.0 as usize] {
            0 => None,
            v => Some(Fingerprint(v)),
        }
    }

    /// Check what a read returned; a mismatch is counted and the first one
    /// described, so the run can report it rather than abort mid-way.
    #[inline]
    pub fn check(&mut self, lpn: Lpn, got: Option<Fingerprint>) -> bool {
        self.stats.blocks_checked_count += 1;
        let want = self.expected(lpn);
        if want == got {
            return true;
        }
        self.stats.mismatches_count += 1;
        if self.first_mismatch.is_none() {
            self.first_mismatch = Some(format!("{lpn}: expected {want:?}, read {got:?}"));
        }
        false
    }

    pub fn stats(&self) -> &OracleStats {
        &self.stats
    }

    pub fn first_mismatch(&self) -> Option<&str> {
        self.first_mismatch.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_distinct_and_nonzero() {
        let a = DataTag(1);
        let b = DataTag(2);
        assert_ne!(a.block(0), a.block(1));
        assert_ne!(a.block(0), b.block(0));
        for i in 0..1000 {
            assert_ne!(a.block(i).0, 0);
            assert_ne!(a.block(i), Fingerprint::PADDING);
        }
    }

    #[test]
    fn oracle_checks_last_write() {
        let mut o = DataOracle::new(4);
        assert!(o.check(Lpn(0), None));
        o.record_write(Lpn(0), DataTag(5).block(0));
        assert!(o.check(Lpn(0), Some(DataTag(5).block(0))));
        assert!(!o.check(Lpn(0), Some(DataTag(6).block(0))));
        o.record_trim(Lpn(0));
        assert!(o.check(Lpn(0), None));
        assert_eq!(o.stats().mismatches_count, 1);
        assert_eq!(o.stats().blocks_checked_count, 4);
        assert!(o.first_mismatch().unwrap().contains("lpn:0"));
    }
}

/// A file's expected content, one fingerprint per block (0: a hole).
pub mod file_content {
    use super::Fingerprint;

    /// Blocks of [off, off + n) that hold nothing yet (new space a write needs).
    pub fn new_blocks(expected: &[u32], off: u64, n: u64) -> u64 {
        (off..off + n).filter(|&o| expected.get(o as usize).is_none_or(|&e| e == 0)).count() as u64
    }

    /// Record `content` written at `off`; returns how many blocks were holes.
    pub fn record(expected: &mut Vec<u32>, off: u64, content: &[Fingerprint]) -> u64 {
        let want = off as usize + content.len();
        if expected.len() < want {
            // Grow by an eighth, not double: the oracle is the largest per-file table.
            if want > expected.capacity() {
                expected.reserve_exact((want - expected.len()).max(expected.capacity() / 8));
            }
            expected.resize(want, 0);
        }
        let mut filled = 0;
        for (e, fp) in expected[off as usize..want].iter_mut().zip(content) {
            filled += (*e == 0) as u64;
            *e = fp.0;
        }
        filled
    }
}
