//! A vector that allocates storage in chunks on first write, so a table
//! indexed over a huge, mostly untouched range (IPLFS's partition of many
//! terabytes) costs memory only where it is used. Reading an untouched
//! index yields the default value.

use std::ops::{Index, IndexMut};

const CHUNK_BITS: u32 = 12;
const CHUNK: usize = 1 << CHUNK_BITS;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Chunked<T: Clone> {
    len: usize,
    default: T,
    chunks: Vec<Option<Box<[T]>>>,
}

impl<T: Clone> Chunked<T> {
    pub fn new(len: usize, default: T) -> Self {
        let chunks = vec![None; len.div_ceil(CHUNK)];
        crate::huge_pages::keep_small_pages(&chunks);
        Chunked { len, chunks, default }
    }

    /// Indices and values of the allocated chunks, in index order (untouched
    /// indices hold the default and are skipped).
    pub fn iter_allocated(&self) -> impl Iterator<Item = (usize, &T)> + '_ {
        let len = self.len;
        self.chunks.iter().enumerate().filter_map(|(c, ch)| ch.as_ref().map(|ch| (c, ch))).flat_map(move |(c, ch)| {
            let base = c * CHUNK;
            ch[..CHUNK.min(len - base)].iter().enumerate().map(move |(i, v)| (base + i, v))
        })
    }

    /// Hint that index `i` is read or written soon: fetch its entry's
    /// first cache line (nothing for an untouched chunk).
    #[inline]
    pub fn prefetch(&self, i: usize) {
        if let Some(Some(c)) = self.chunks.get(i >> CHUNK_BITS) {
            crate::prefetch::prefetch(c, i & (CHUNK - 1));
        }
    }

    /// How many indices are backed by memory.
    #[cfg(test)]
    pub fn allocated(&self) -> usize {
        self.chunks.iter().flatten().count() * CHUNK
    }
}

impl<T: Clone> Index<usize> for Chunked<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        debug_assert!(i < self.len, "index {i} beyond {}", self.len);
        match &self.chunks[i >> CHUNK_BITS] {
            Some(c) => &c[i & (CHUNK - 1)],
            None => &self.default,
        }
    }
}

impl<T: Clone> IndexMut<usize> for Chunked<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        debug_assert!(i < self.len, "index {i} beyond {}", self.len);
        let d = &self.default;
        let c = self.chunks[i >> CHUNK_BITS].get_or_insert_with(|| vec![d.clone(); CHUNK].into_boxed_slice());
        &mut c[i & (CHUNK - 1)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untouched_indices_are_default_and_free() {
        let mut v = Chunked::new(1 << 30, 0u32);
        assert_eq!(v[123_456_789], 0);
        assert_eq!(v.allocated(), 0);
        v[123_456_789] = 7;
        assert_eq!(v[123_456_789], 7);
        assert_eq!(v.allocated(), CHUNK);
        let set: Vec<(usize, u32)> = v.iter_allocated().filter(|(_, &x)| x != 0).map(|(i, &x)| (i, x)).collect();
        assert_eq!(set, vec![(123_456_789, 7)]);
    }
}
