//! Simulation core: virtual time, the event scheduler, the seeded PRNG tree
//! and run limits. No other source of time or randomness exists in lfslab.

mod calendar;
mod limits;
mod rng;
mod scheduler;
mod time;

pub use calendar::Calendar;
pub use limits::{LimitExceeded, Limits};
pub use rng::{mix64, splitmix64, SimRng};
pub use scheduler::Scheduler;
pub use time::{SimDuration, SimTime};
