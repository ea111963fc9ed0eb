//! A bitmap over main-area segments with a population count: F2FS's
//! `dirty_segmap[type]` / `nr_dirty[type]` (fs/f2fs/segment.h,
//! `struct dirty_seglist_info`). Victim searches walk it with
//! `find_next_bit`, so a search costs what it visits, not the volume.

/// The bits of the 64-bit word starting at index `base` that lie in
/// `lo..hi`; the word must overlap the range.
pub fn word_span(base: u64, lo: u64, hi: u64) -> u64 {
    debug_assert!(lo < base + 64 && base < hi, "word at {base} outside {lo}..{hi}");
    let low = if base < lo { !0u64 << (lo - base) } else { !0 };
    let high = if hi < base + 64 { (1u64 << (hi - base)) - 1 } else { !0 };
    low & high
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct DirtySegmap {
    words: Vec<u64>,
    len: u32,
    count: u32,
}

impl DirtySegmap {
    pub fn new(len: u32) -> Self {
        DirtySegmap { words: vec![0; (len as usize).div_ceil(64)], len, count: 0 }
    }

    pub fn count(&self) -> u32 {
        self.count
    }

    /// Segments the map covers.
    pub fn segments(&self) -> u32 {
        self.len
    }

    /// Segments `64 * i ..` as bits (0 past the end).
    pub fn word(&self, i: usize) -> u64 {
        self.words.get(i).copied().unwrap_or(0)
    }

    pub fn contains(&self, i: u32) -> bool {
        self.words[(i / 64) as usize] >> (i % 64) & 1 == 1
    }

    /// Add `i`; whether it was absent.
    pub fn insert(&mut self, i: u32) -> bool {
        let w = &mut self.words[(i / 64) as usize];
        let b = 1u64 << (i % 64);
        let absent = *w & b == 0;
        if absent {
            *w |= b;
            self.count += 1;
        }
        absent
    }

    /// Drop `i`; whether it was present.
    pub fn remove(&mut self, i: u32) -> bool {
        let w = &mut self.words[(i / 64) as usize];
        let b = 1u64 << (i % 64);
        let present = *w & b != 0;
        if present {
            *w &= !b;
            self.count -= 1;
        }
        present
    }

    /// The first set index in `from..end` (the kernel's `find_next_bit`;
    /// the tests' reference searches walk the map with it).
    #[cfg(test)]
    pub fn find_next(&self, from: u32, end: u32) -> Option<u32> {
        let end = end.min(self.len);
        if from >= end {
            return None;
        }
        let mut wi = (from / 64) as usize;
        let mut w = self.words[wi] & (!0u64 << (from % 64));
        loop {
            if w != 0 {
                let i = wi as u32 * 64 + w.trailing_zeros();
                return (i < end).then_some(i);
            }
            wi += 1;
            if wi as u32 * 64 >= end {
                return None;
            }
            w = self.words[wi];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_next_and_count() {
        let mut m = DirtySegmap::new(300);
        for i in [3, 64, 65, 299] {
            m.insert(i);
        }
        m.insert(64);
        assert_eq!(m.count(), 4);
        assert_eq!(m.find_next(0, 300), Some(3));
        assert_eq!(m.find_next(4, 300), Some(64));
        assert_eq!(m.find_next(66, 300), Some(299));
        assert_eq!(m.find_next(66, 299), None);
        m.remove(299);
        m.remove(299);
        assert_eq!(m.count(), 3);
        assert_eq!(m.find_next(66, 300), None);
        assert!(m.contains(65) && !m.contains(66));
    }
}
