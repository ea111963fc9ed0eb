//! The page cache's LRU list as a ring of page keys in order of last use,
//! least recently used at the front. A use pushes the page's key again
//! and gives it a new tag (its position modulo `tags`); the page's entry
//! keeps its latest tag, so an older copy of the key on the ring is stale.
//! A bit per slot says whether the copy there is its page's latest, so
//! eviction reads the ring in order, one sequential line per eight pages,
//! and never looks at a page's entry to tell a stale copy from a live one
//! (a linked list chases a random line per page, 16 M pages at paper
//! size). The order of the live keys is the list's order exactly: moving
//! a page is dropping its old copy and pushing it at one end.
//!
//! The ring also decides whether an entry is current: its tag lies on the
//! ring (`is_current`). A page popped from the front and evicted keeps
//! its entry, which is now behind the front and so not current; the page
//! cache leaves it there rather than fetch a random line to clear it.
//! Such dead entries are cleared at compaction (`Compaction`), which the
//! ring asks for before the front has moved far enough for a dead tag to
//! come round again (`must_compact`), and one whose position a push at
//! the front reuses is cleared by that push's caller (`push_front`).

/// Tags are positions modulo this, so a page entry can hold one in 30 bits
/// (plus one, to leave 0 as "no page").
pub const TAGS: u64 = (1 << 30) - 1;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct LruRing {
    /// By slot; position `pos` is at slot `(head + pos - base) % keys.len()`.
    keys: Vec<u64>,
    /// A bit per slot: the copy there is its page's latest.
    live: Vec<u64>,
    /// Position of the front key; positions grow towards the back. Started
    /// high so pushes at the front never wrap it.
    base: u64,
    /// Slot of the front key.
    head: usize,
    /// Keys on the ring, stale ones included.
    len: usize,
    /// Positions are tagged modulo this (`TAGS`; smaller in tests).
    tags: u64,
    /// `tag(base)`, kept so `is_current` needs no division.
    base_tag: u32,
    /// The lowest front position since the last compaction: no dead entry's
    /// position is below it.
    low: u64,
}

impl LruRing {
    /// A ring for at most `max_live` pages at once.
    pub fn new(max_live: usize) -> Self {
        Self::with_tags(max_live, TAGS)
    }

    /// `new` with positions tagged modulo `tags` (at most `TAGS`).
    pub fn with_tags(max_live: usize, tags: u64) -> Self {
        // Twice the live pages it can hold: a compaction (which retags
        // every live page) comes at most once per as many stale pushes as
        // live pages.
        let limit = 2 * max_live + 2;
        assert!(tags <= TAGS && (limit as u64) * 3 < tags, "LRU ring of {limit} positions: tags are {tags} apart");
        let base = 1 << 62;
        // Zeroed, not touched: a large idle cache costs no RAM.
        LruRing {
            keys: vec![0; limit],
            live: vec![0; limit.div_ceil(64)],
            base,
            head: 0,
            len: 0,
            tags,
            base_tag: (base % tags) as u32,
            low: base,
        }
    }

    #[inline]
    fn tag(&self, pos: u64) -> u32 {
        (pos % self.tags) as u32
    }

    /// Slot of the `i`th key from the front.
    #[inline]
    fn slot(&self, i: usize) -> usize {
        let s = self.head + i;
        if s >= self.keys.len() { s - self.keys.len() } else { s }
    }

    /// How far behind the front's tag `tag` is (the ring's index of a
    /// current tag).
    #[inline]
    fn index_of(&self, tag: u32) -> u64 {
        let d = tag as i64 - self.base_tag as i64;
        (if d < 0 { d + self.tags as i64 } else { d }) as u64
    }

    #[inline]
    fn set_live(&mut self, s: usize, on: bool) {
        let (w, b) = (s / 64, 1u64 << (s % 64));
        if on {
            self.live[w] |= b;
        } else {
            self.live[w] &= !b;
        }
    }

    #[inline]
    fn is_live(&self, s: usize) -> bool {
        self.live[s / 64] >> (s % 64) & 1 != 0
    }

    /// Whether an entry tagged `tag` is current: its copy is on the ring.
    /// An entry whose copy was popped is not (its page was evicted).
    #[inline]
    pub fn is_current(&self, tag: u32) -> bool {
        self.index_of(tag) < self.len as u64
    }

    /// Whether the next push must wait for a compaction.
    #[inline]
    pub fn full(&self) -> bool {
        self.len >= self.keys.len()
    }

    /// Whether the front has moved so far since the last compaction that a
    /// dead entry's tag could soon read as current (a tag `tags - len`
    /// behind the front is read as on the ring): compact before the next
    /// lookup. One ring's length short of that, for margin.
    #[inline]
    pub fn must_compact(&self) -> bool {
        self.base - self.low >= self.tags - 2 * self.keys.len() as u64
    }

    /// Put `key` at the most recently used end; its tag.
    #[inline]
    pub fn push_back(&mut self, key: u64) -> u32 {
        debug_assert!(!self.full(), "LRU ring pushed while full");
        let s = self.slot(self.len);
        self.keys[s] = key;
        self.set_live(s, true);
        self.len += 1;
        self.tag(self.base + self.len as u64 - 1)
    }

    /// Put `key` at the least recently used end: its tag, and the key last
    /// popped from that position (or 0), whose entry, if it still holds
    /// this tag, is a dead one the caller must clear.
    #[inline]
    pub fn push_front(&mut self, key: u64) -> (u32, u64) {
        debug_assert!(!self.full(), "LRU ring pushed while full");
        self.head = if self.head == 0 { self.keys.len() - 1 } else { self.head - 1 };
        self.base -= 1;
        self.low = self.low.min(self.base);
        self.base_tag = self.tag(self.base);
        let old = std::mem::replace(&mut self.keys[self.head], key);
        self.set_live(self.head, true);
        self.len += 1;
        (self.base_tag, old)
    }

    /// The front key, its tag and whether it is its page's latest copy,
    /// taken off the ring.
    #[inline]
    pub fn pop_front(&mut self) -> Option<(u64, u32, bool)> {
        if self.len == 0 {
            return None;
        }
        let (s, tag) = (self.head, self.base_tag);
        let live = self.is_live(s);
        self.set_live(s, false);
        self.head = self.slot(1);
        self.base += 1;
        self.base_tag = if self.base_tag as u64 + 1 == self.tags { 0 } else { self.base_tag + 1 };
        self.len -= 1;
        Some((self.keys[s], tag, live))
    }

    /// The copy tagged `tag`, current, is no longer its page's latest (the
    /// page moved or left).
    #[inline]
    pub fn drop_copy(&mut self, tag: u32) {
        let i = self.index_of(tag) as usize;
        debug_assert!(i < self.len, "tag {tag} is not on the ring");
        let s = self.slot(i);
        debug_assert!(self.is_live(s), "tag {tag}'s copy is already stale");
        self.set_live(s, false);
    }

    /// Position of the front key.
    #[inline]
    pub fn front_pos(&self) -> u64 {
        self.base
    }

    /// The key at position `pos` if on the ring and its page's latest copy.
    #[inline]
    pub fn live_key_at(&self, pos: u64) -> Option<u64> {
        let i = pos.checked_sub(self.base).filter(|&i| i < self.len as u64)? as usize;
        let s = self.slot(i);
        self.is_live(s).then(|| self.keys[s])
    }

    /// Keys on the ring, stale ones included.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Live copies on the ring (a count of the bits: for checks).
    #[cfg(test)]
    pub fn live_count(&self) -> usize {
        self.live.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Start a compaction: the new tag of every current entry, for the
    /// caller to apply to all its entries (and clear the others) before
    /// `compact` drops the stale copies.
    pub fn compaction(&self) -> Compaction<'_> {
        let mut before = Vec::with_capacity(self.live.len() + 1);
        let mut n = 0u32;
        for w in &self.live {
            before.push(n);
            n += w.count_ones();
        }
        before.push(n);
        let mut plan = Compaction { ring: self, before, front: 0 };
        plan.front = plan.below(self.head);
        plan
    }

    /// Drop the stale keys: the live ones keep their order and get the
    /// tags `Compaction::new_tag` gave them.
    pub fn compact(&mut self) {
        let mut k = 0;
        for i in 0..self.len {
            let s = self.slot(i);
            if self.is_live(s) {
                let d = self.slot(k);
                self.keys[d] = self.keys[s];
                k += 1;
            }
        }
        self.live.fill(0);
        for i in 0..k {
            let s = self.slot(i);
            self.set_live(s, true);
        }
        self.len = k;
        self.low = self.base;
    }
}

/// A compaction's plan: the rank of each live copy among the live ones.
pub struct Compaction<'a> {
    ring: &'a LruRing,
    /// Live copies in the slots before each word of `live`.
    before: Vec<u32>,
    /// Live copies in the slots before the front's.
    front: u32,
}

impl Compaction<'_> {
    /// Live copies in the slots before slot `s`.
    #[inline]
    fn below(&self, s: usize) -> u32 {
        self.before[s / 64] + (self.ring.live[s / 64] & ((1u64 << (s % 64)) - 1)).count_ones()
    }

    /// The tag after compaction of an entry tagged `tag`; None if the entry
    /// is not current (a dead one, to clear).
    #[inline]
    pub fn new_tag(&self, tag: u32) -> Option<u32> {
        let r = self.ring;
        let i = r.index_of(tag);
        if i >= r.len as u64 {
            return None;
        }
        let s = r.slot(i as usize);
        debug_assert!(r.is_live(s), "current tag {tag} on a stale copy");
        // Live copies from the front's slot up to this one, around the end.
        let rank = if s >= r.head { self.below(s) - self.front } else { self.below(s) + self.before[r.live.len()] - self.front };
        Some(r.tag(r.base + rank as u64))
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
        let (z, old) = r.push_front(9);
        assert_eq!((b - a, a - z, old), (1, 1, 0));
        assert_eq!(r.live_key_at(r.front_pos() + 2), Some(11));
        assert_eq!(r.pop_front(), Some((9, z, true)));
        assert!(!r.is_current(z) && r.is_current(a));
        // The position just popped, pushed again, shows what it held.
        assert_eq!(r.push_front(8), (z, 9));
        r.drop_copy(a);
        assert_eq!(r.live_key_at(r.front_pos() + 1), None);
        assert_eq!(r.pop_front(), Some((8, z, true)));
        assert_eq!(r.pop_front(), Some((10, a, false)));
        assert_eq!(r.pop_front(), Some((11, b, true)));
        assert_eq!(r.pop_front(), None);
    }

    /// Compaction keeps the live keys in order, with new tags from the
    /// front, across the end of the slots.
    #[test]
    fn compaction_keeps_live_keys_in_order_with_new_tags() {
        let mut r = LruRing::with_tags(6, 61);
        // Move the front so the keys wrap around the slots' end.
        for k in 0..5 {
            r.push_back(100 + k);
            r.pop_front();
        }
        // Keys 1..=8; odd keys pushed again later, so their first copies
        // go stale, and key 3 leaves.
        let mut tag: Vec<(u64, u32)> = (1..=8).map(|k| (k, r.push_back(k))).collect();
        for (k, t) in tag.iter_mut().filter(|(k, _)| k % 2 == 1) {
            r.drop_copy(*t);
            if *k != 3 {
                *t = r.push_back(*k);
            }
        }
        tag.retain(|&(k, _)| k != 3);
        assert_eq!((r.len(), r.live_count()), (11, 7));
        let plan = r.compaction();
        let renamed: Vec<(u64, u32)> = tag.iter().map(|&(k, t)| (k, plan.new_tag(t).expect("current"))).collect();
        assert_eq!(plan.new_tag(r.tag(r.front_pos() - 1)), None, "a popped tag is not current");
        r.compact();
        assert_eq!(r.len(), 7);
        let mut popped: Vec<(u64, u32)> = std::iter::from_fn(|| r.pop_front()).map(|(k, t, live)| {
            assert!(live);
            (k, t)
        }).collect();
        // Pop order is ring order: 2, 4, 6, 8, then 1, 5, 7 pushed again.
        assert_eq!(popped.iter().map(|p| p.0).collect::<Vec<_>>(), vec![2, 4, 6, 8, 1, 5, 7]);
        popped.sort();
        let mut renamed = renamed;
        renamed.sort();
        assert_eq!(popped, renamed);
    }

    #[test]
    fn the_front_moving_far_asks_for_compaction() {
        let mut r = LruRing::with_tags(1, 64);
        let mut n = 0;
        while !r.must_compact() {
            r.push_back(n);
            r.pop_front();
            n += 1;
        }
        // The tags less two rings: a dead tag is then still behind.
        assert_eq!(n, 64 - 2 * 4);
        r.compact();
        assert!(!r.must_compact());
    }
}
