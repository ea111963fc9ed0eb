//! The physical addresses of one Interval Mapping node's blocks, as the
//! simulator holds them (not as the FTL accounts them: `interval_mapping`
//! counts the artifact's bytes). IPLFS never reuses a block address, so a
//! node, once its segment is written, only loses mapped blocks; keeping
//! an entry for each of its blocks would make the simulator's memory grow
//! with every block ever written (about 2.5 times the device in `compare`'s
//! run, issue 12's memory budget). A written node with at most a quarter
//! of its blocks mapped therefore keeps only those: sorted offsets and
//! their addresses, 8 bytes each, with unmapped ones left as tombstones
//! until they are half the list. A write to an offset it does not hold
//! makes it dense again.

pub(super) const UNMAPPED: u32 = u32::MAX;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) enum NodeEntries {
    Dense(Box<[u32]>),
    /// Ascending offsets and their addresses (UNMAPPED: a tombstone).
    Sparse { offs: Box<[u32]>, ppns: Box<[u32]>, tombstones: u32 },
}

impl NodeEntries {
    pub(super) fn new(seg: u32) -> Self {
        NodeEntries::Dense(vec![UNMAPPED; seg as usize].into_boxed_slice())
    }

    #[inline]
    pub(super) fn get(&self, w: u32) -> u32 {
        match self {
            NodeEntries::Dense(e) => e[w as usize],
            NodeEntries::Sparse { offs, ppns, .. } => offs.binary_search(&w).map_or(UNMAPPED, |i| ppns[i]),
        }
    }

    /// Set offset `w` to `v` (UNMAPPED to unmap), returning what it held.
    pub(super) fn replace(&mut self, w: u32, v: u32, seg: u32) -> u32 {
        if let NodeEntries::Sparse { offs, ppns, tombstones } = self {
            match offs.binary_search(&w) {
                Ok(i) => {
                    let old = std::mem::replace(&mut ppns[i], v);
                    match (old == UNMAPPED, v == UNMAPPED) {
                        (false, true) => *tombstones += 1,
                        (true, false) => *tombstones -= 1,
                        _ => {}
                    }
                    if *tombstones as usize * 2 > offs.len() {
                        self.pack(seg);
                    }
                    return old;
                }
                Err(_) if v == UNMAPPED => return UNMAPPED,
                Err(_) => self.densify(seg),
            }
        }
        let NodeEntries::Dense(e) = self else { unreachable!("densified above") };
        std::mem::replace(&mut e[w as usize], v)
    }

    /// A written node with `mapped` of `seg` blocks mapped: go sparse if
    /// that is at most a quarter.
    pub(super) fn settle(&mut self, mapped: u32, seg: u32) {
        if matches!(self, NodeEntries::Dense(_)) && mapped <= seg / 4 {
            self.pack(seg);
        }
    }

    /// Rebuild as a sparse list of the mapped offsets only.
    fn pack(&mut self, seg: u32) {
        let (offs, ppns): (Vec<u32>, Vec<u32>) = self.mapped().unzip();
        debug_assert!(offs.len() <= seg as usize);
        *self = NodeEntries::Sparse { offs: offs.into_boxed_slice(), ppns: ppns.into_boxed_slice(), tombstones: 0 };
    }

    fn densify(&mut self, seg: u32) {
        let mut e = vec![UNMAPPED; seg as usize].into_boxed_slice();
        for (w, p) in self.mapped() {
            e[w as usize] = p;
        }
        *self = NodeEntries::Dense(e);
    }

    /// (offset, address) of every mapped block, in offset order.
    pub(super) fn mapped(&self) -> Box<dyn Iterator<Item = (u32, u32)> + '_> {
        match self {
            NodeEntries::Dense(e) => Box::new(e.iter().enumerate().map(|(w, &p)| (w as u32, p)).filter(|&(_, p)| p != UNMAPPED)),
            NodeEntries::Sparse { offs, ppns, .. } => Box::new(offs.iter().copied().zip(ppns.iter().copied()).filter(|&(_, p)| p != UNMAPPED)),
        }
    }

    #[cfg(test)]
    pub(super) fn is_sparse(&self) -> bool {
        matches!(self, NodeEntries::Sparse { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dense or sparse, the entries answer as a plain array would, through
    /// settling, unmapping past the tombstone limit and a write that
    /// densifies.
    #[test]
    fn sparse_entries_behave_like_an_array() {
        const SEG: u32 = 1024;
        let mut rng = crate::sim::SimRng::new(3);
        let mut want = vec![UNMAPPED; SEG as usize];
        let mut e = NodeEntries::new(SEG);
        for w in 0..SEG {
            assert_eq!(e.replace(w, w + 7, SEG), UNMAPPED);
            want[w as usize] = w + 7;
        }
        let mut mapped = SEG;
        for step in 0..20_000u32 {
            let w = rng.below(SEG as u64) as u32;
            let v = if rng.below(50) == 0 { step } else { UNMAPPED };
            assert_eq!(e.replace(w, v, SEG), want[w as usize], "step {step}, offset {w}");
            match (want[w as usize] == UNMAPPED, v == UNMAPPED) {
                (true, false) => mapped += 1,
                (false, true) => mapped -= 1,
                _ => {}
            }
            want[w as usize] = v;
            e.settle(mapped, SEG);
            if step % 997 == 0 {
                assert!((0..SEG).all(|w| e.get(w) == want[w as usize]), "step {step}");
                let listed: Vec<(u32, u32)> = e.mapped().collect();
                let expect: Vec<(u32, u32)> =
                    want.iter().enumerate().filter(|(_, &p)| p != UNMAPPED).map(|(w, &p)| (w as u32, p)).collect();
                assert_eq!(listed, expect, "step {step}");
            }
        }
        assert!(e.is_sparse() || mapped > SEG / 4, "{mapped} mapped and still dense");
    }
}
