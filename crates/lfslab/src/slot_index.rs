//! An index from a 64-bit key to a 32-bit slot of a table the caller
//! keeps: open addressing with linear probing, 8 bytes a bucket (32 bits
//! of the key's hash and the slot number), at most 5/8 full. The key
//! itself lives in the caller's table (`key_of`), so a bucket is compared
//! by its hash bits first and by the table's key only when they match.
//! Deletion shifts the rest of the probe run back, so there are no
//! tombstones. Nothing iterates it, so runs stay deterministic. The
//! database buffer pool (page -> frame) and the page cache (inode -> page
//! table, for inodes from 2^16) use it.
//!
//! Against a `HashMap<u64, u32>` (17 bytes a bucket, up to 7/8 full, and
//! the old table alive while it grows) this halves the index's memory.

use crate::sim::mix64;

const EMPTY: u64 = 0;
const MIN_BUCKETS: usize = 64;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct SlotIndex {
    /// (hash bits << 32) | (slot + 1); 0 = empty.
    buckets: Vec<u64>,
    len: usize,
}

#[inline]
fn hash_bits(key: u64) -> u64 {
    mix64(key) >> 32
}

/// The bucket that indexes `slot` under `key`.
#[inline]
fn bucket(key: u64, slot: u32) -> u64 {
    hash_bits(key) << 32 | (slot as u64 + 1)
}

impl Default for SlotIndex {
    fn default() -> Self {
        SlotIndex::with_capacity(0)
    }
}

/// Buckets for `n` entries at most 5/8 full.
fn buckets_for(n: usize) -> usize {
    (n * 8 / 5 + 1).next_power_of_two().max(MIN_BUCKETS)
}

impl SlotIndex {
    /// Room for `n` keys without growing (the buckets are zeroed memory,
    /// so the untouched part costs no RAM).
    pub fn with_capacity(n: usize) -> Self {
        SlotIndex { buckets: vec![EMPTY; buckets_for(n)], len: 0 }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn mask(&self) -> usize {
        self.buckets.len() - 1
    }

    /// Where `key` sits: Ok(bucket) if present, Err(first empty bucket) if not.
    #[inline]
    fn find(&self, key: u64, key_of: impl Fn(u32) -> u64) -> Result<usize, usize> {
        let h = hash_bits(key);
        let mut b = h as usize & self.mask();
        loop {
            let e = self.buckets[b];
            if e == EMPTY {
                return Err(b);
            }
            if e >> 32 == h && key_of((e as u32).wrapping_sub(1)) == key {
                return Ok(b);
            }
            b = (b + 1) & self.mask();
        }
    }

    pub fn get(&self, key: u64, key_of: impl Fn(u32) -> u64) -> Option<u32> {
        self.find(key, key_of).ok().map(|b| (self.buckets[b] as u32).wrapping_sub(1))
    }

    /// Index `slot` under `key`, which must not be present.
    pub fn insert(&mut self, key: u64, slot: u32, key_of: impl Fn(u32) -> u64) {
        assert!(slot < u32::MAX, "slot {slot} out of range");
        if buckets_for(self.len + 1) > self.buckets.len() {
            self.grow();
        }
        match self.find(key, key_of) {
            Ok(b) => panic!("key {key:#x} indexed twice (bucket {b})"),
            Err(b) => self.buckets[b] = bucket(key, slot),
        }
        self.len += 1;
    }

    /// Remove `key`, returning its slot.
    pub fn remove(&mut self, key: u64, key_of: impl Fn(u32) -> u64) -> Option<u32> {
        let b = self.find(key, key_of).ok()?;
        Some(self.remove_at(b))
    }

    /// Empty bucket `hole`, returning its slot.
    fn remove_at(&mut self, mut hole: usize) -> u32 {
        let slot = (self.buckets[hole] as u32).wrapping_sub(1);
        let mask = self.mask();
        // Shift back every later entry of the run whose home is not in (hole, j].
        let mut j = hole;
        loop {
            j = (j + 1) & mask;
            let e = self.buckets[j];
            if e == EMPTY {
                break;
            }
            let home = (e >> 32) as usize & mask;
            let stays = if hole <= j { hole < home && home <= j } else { hole < home || home <= j };
            if !stays {
                self.buckets[hole] = e;
                hole = j;
            }
        }
        self.buckets[hole] = EMPTY;
        self.len -= 1;
        slot
    }

    fn grow(&mut self) {
        let n = self.buckets.len() * 2;
        let old = std::mem::replace(&mut self.buckets, vec![EMPTY; n]);
        let mask = self.mask();
        for e in old.into_iter().filter(|&e| e != EMPTY) {
            let mut b = (e >> 32) as usize & mask;
            while self.buckets[b] != EMPTY {
                b = (b + 1) & mask;
            }
            self.buckets[b] = e;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SimRng;
    use std::collections::BTreeMap;

    /// Random inserts, replacements and removes agree with a BTreeMap,
    /// through growth and backward-shift deletion (keys collide in their low
    /// hash bits often at the small sizes).
    #[test]
    fn agrees_with_a_map() {
        let mut rng = SimRng::new(7);
        let mut keys: Vec<u64> = Vec::new(); // slot -> key
        let mut free: Vec<u32> = Vec::new();
        let mut model: BTreeMap<u64, u32> = BTreeMap::new();
        let mut idx = SlotIndex::default();
        for step in 0..200_000u64 {
            let key = rng.below(5_000) << 32 | rng.below(8);
            if model.contains_key(&key) && rng.below(2) == 0 {
                let want = model.remove(&key);
                assert_eq!(idx.remove(key, |s| keys[s as usize]), want, "step {step}");
                free.push(want.unwrap());
            } else {
                let slot = free.pop().unwrap_or_else(|| {
                    keys.push(0);
                    keys.len() as u32 - 1
                });
                keys[slot as usize] = key;
                // A key already present moves to the new slot.
                let replaced = idx.remove(key, |s| keys[s as usize]);
                idx.insert(key, slot, |s| keys[s as usize]);
                assert_eq!(replaced, model.insert(key, slot), "step {step}");
                free.extend(replaced);
            }
            let probe = rng.below(5_000) << 32 | rng.below(8);
            assert_eq!(idx.get(probe, |s| keys[s as usize]), model.get(&probe).copied(), "step {step}");
            assert_eq!(idx.len(), model.len());
        }
    }
}
