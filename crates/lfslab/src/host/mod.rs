//! Host-side resources: simulated locks and the page cache.

mod lock;
mod page_cache;
mod page_index;
pub(crate) use page_index::PageIndex;

pub use lock::{LockStats, SimMutex, SimRwLock};
pub use page_cache::{PageCache, PageCacheStats, MIN_WRITEBACK_PAGES};
