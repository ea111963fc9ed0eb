//! A set of small integer ids (segment numbers, node ids) that is written
//! on every block update and read in order only at checkpoint or fsync: a
//! bitmap for membership plus the ids in insertion order, sorted when read.
//! Cheaper than a `BTreeSet` on the write path; iteration order is the
//! same (ascending), so results do not change.

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct IdSet {
    bits: Vec<u64>,
    /// Members in insertion order; may hold ids removed since (filtered on read).
    list: Vec<u32>,
    len: usize,
}

impl IdSet {
    pub fn len(&self) -> usize {
        self.len
    }

    #[cfg_attr(not(test), allow(dead_code))]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn contains(&self, id: u32) -> bool {
        self.bits.get((id / 64) as usize).is_some_and(|w| w >> (id % 64) & 1 == 1)
    }

    pub fn insert(&mut self, id: u32) {
        let w = (id / 64) as usize;
        if w >= self.bits.len() {
            self.bits.resize(w + 1, 0);
        }
        let b = 1u64 << (id % 64);
        if self.bits[w] & b == 0 {
            self.bits[w] |= b;
            self.list.push(id);
            self.len += 1;
        }
    }

    pub fn remove(&mut self, id: u32) {
        if self.contains(id) {
            self.bits[(id / 64) as usize] &= !(1u64 << (id % 64));
            self.len -= 1;
            // Keep the stale entries bounded.
            if self.list.len() > 2 * self.len + 1024 {
                let bits = &self.bits;
                self.list.retain(|&i| bits[(i / 64) as usize] >> (i % 64) & 1 == 1);
            }
        }
    }

    /// Members, ascending.
    pub fn sorted(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.list.iter().copied().filter(|&i| self.contains(i)).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Members, ascending; the set is left empty.
    pub fn take_sorted(&mut self) -> Vec<u32> {
        let v = self.sorted();
        for &i in &v {
            self.bits[(i / 64) as usize] = 0;
        }
        self.list.clear();
        self.len = 0;
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_as_an_ordered_set() {
        let mut s = IdSet::default();
        for i in [9, 3, 700, 3, 64] {
            s.insert(i);
        }
        s.remove(700);
        s.remove(5);
        s.insert(700);
        s.remove(9);
        assert_eq!(s.len(), 3);
        assert!(s.contains(64) && !s.contains(9));
        assert_eq!(s.sorted(), vec![3, 64, 700]);
        assert_eq!(s.take_sorted(), vec![3, 64, 700]);
        assert!(s.is_empty() && !s.contains(3));
        s.insert(3);
        assert_eq!(s.sorted(), vec![3]);
    }
}
