//! Host-side resources: simulated locks (and, later, page cache and threads).

mod lock;

pub use lock::{LockStats, SimMutex, SimRwLock};
