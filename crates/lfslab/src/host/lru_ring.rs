//! The page cache's LRU list as a ring of page keys in order of last use,
//! least recently used at the front. A use pushes the page's key again
//! and gives it a new tag; the page's entry keeps its latest tag, so an
//! older copy of the key on the ring is stale and is dropped when it
//! reaches the front (or at compaction). Eviction and its look-ahead then
//! read the ring in order, one sequential line per eight pages, where a
//! linked list chases a random line per page (16 M pages at paper size).
//! The order of the live keys is the list's order exactly: moving a page
//! is unlinking it (its old copy goes stale) and pushing it at one end.

use std::collections::VecDeque;

/// Tags are positions modulo this, so a page entry can hold one in 30 bits
/// (plus one, to leave 0 as "no page").
pub const TAGS: u64 = (1 << 30) - 1;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct LruRing {
    keys: VecDeque<u64>,
    /// Position of `keys[0]`; positions grow towards the back. Started high
    /// so pushes at the front never wrap it.
    base: u64,
    /// Length at which the ring is compacted before the next push: twice
    /// the live pages it can hold, so a compaction (which retags every live
    /// page) comes at most once per as many stale pushes as live pages.
    limit: usize,
}

impl LruRing {
    /// A ring for at most `max_live` pages at once.
    pub fn new(max_live: usize) -> Self {
        let limit = 2 * max_live + 2;
        assert!((limit as u64) < TAGS, "LRU ring of {limit} positions: tags are {TAGS} apart");
        // Reserved, not touched: a large idle cache costs no RAM, and the
        // ring never grows by copying.
        LruRing { keys: VecDeque::with_capacity(limit), base: 1 << 62, limit }
    }

    #[inline]
    fn tag(pos: u64) -> u32 {
        (pos % TAGS) as u32
    }

    /// Whether the next push must wait for `compact`.
    #[inline]
    pub fn full(&self) -> bool {
        self.keys.len() >= self.limit
    }

    /// Put `key` at the most recently used end; its tag.
    #[inline]
    pub fn push_back(&mut self, key: u64) -> u32 {
        debug_assert!(!self.full(), "LRU ring pushed while full");
        self.keys.push_back(key);
        Self::tag(self.base + self.keys.len() as u64 - 1)
    }

    /// Put `key` at the least recently used end; its tag.
    #[inline]
    pub fn push_front(&mut self, key: u64) -> u32 {
        debug_assert!(!self.full(), "LRU ring pushed while full");
        self.keys.push_front(key);
        self.base -= 1;
        Self::tag(self.base)
    }

    /// The front key and its tag, taken off the ring.
    #[inline]
    pub fn pop_front(&mut self) -> Option<(u64, u32)> {
        let key = self.keys.pop_front()?;
        let tag = Self::tag(self.base);
        self.base += 1;
        Some((key, tag))
    }

    /// Position of the front key.
    #[inline]
    pub fn front_pos(&self) -> u64 {
        self.base
    }

    /// The key at position `pos`, if on the ring.
    #[inline]
    pub fn key_at(&self, pos: u64) -> Option<u64> {
        self.keys.get(pos.checked_sub(self.base)? as usize).copied()
    }

    /// Keys on the ring, stale ones included.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Drop the stale keys and retag the live ones in order. `retag(key,
    /// tag, new)` says whether the page of `key` is still at `tag` and, if
    /// so, moves it to `new`.
    pub fn compact(&mut self, mut retag: impl FnMut(u64, u32, u32) -> bool) {
        let old = std::mem::take(&mut self.keys);
        let mut keys = VecDeque::with_capacity(self.limit);
        for (k, key) in old.into_iter().enumerate() {
            let new = Self::tag(self.base + keys.len() as u64);
            if retag(key, Self::tag(self.base + k as u64), new) {
                keys.push_back(key);
            }
        }
        self.keys = keys;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_follow_positions_at_both_ends() {
        let mut r = LruRing::new(4);
        let a = r.push_back(10);
        let b = r.push_back(11);
        let z = r.push_front(9);
        assert_eq!((b - a, a - z), (1, 1));
        assert_eq!(r.key_at(r.front_pos() + 2), Some(11));
        assert_eq!(r.pop_front(), Some((9, z)));
        assert_eq!(r.pop_front(), Some((10, a)));
    }

    #[test]
    fn compaction_keeps_live_keys_in_order_with_new_tags() {
        let mut r = LruRing::new(3);
        // Keys 1..=8 with tags; even keys live.
        let mut live: Vec<(u64, u32)> = (1..=8).map(|k| (k, r.push_back(k))).collect();
        assert!(r.full());
        r.compact(|key, tag, new| {
            let at = live.iter().position(|&(k, t)| (k, t) == (key, tag));
            if let (Some(i), true) = (at, key % 2 == 0) {
                live[i].1 = new;
                true
            } else {
                false
            }
        });
        assert_eq!(r.len(), 4);
        let popped: Vec<(u64, u32)> = std::iter::from_fn(|| r.pop_front()).collect();
        let kept: Vec<(u64, u32)> = live.into_iter().filter(|&(k, _)| k % 2 == 0).collect();
        assert_eq!(popped, kept);
    }
}
