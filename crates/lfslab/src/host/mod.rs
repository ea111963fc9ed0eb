//! Host-side resources: CPU cores, simulated locks and the page cache.

mod cpu_pool;
mod lock;
mod lock_table;
mod lru_ring;
mod page_cache;
mod under_writeback;

pub use cpu_pool::{CpuPool, CPU_BUCKET};
pub use lock::{LockStats, SimMutex, SimRwLock};
pub use lock_table::{KeyedLock, LockTable, TimedLock};
pub use page_cache::{PageCache, PageCacheStats, Throttle, EVICTION_SIMPLIFICATION, MAX_PAUSE, MIN_WRITEBACK_PAGES};
