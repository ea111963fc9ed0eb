//! Caps on a run: simulated time and number of events. Reaching one stops
//! the run with a message saying which limit and how to raise it.

use super::time::{SimDuration, SimTime};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_sim_time: SimDuration,
    pub max_events: u64,
}

impl Default for Limits {
    fn default() -> Self {
        // One simulated day and 10^10 events: far beyond any paper experiment,
        // low enough that a runaway loop ends.
        Limits { max_sim_time: SimDuration::from_secs(86_400), max_events: 10_000_000_000 }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LimitExceeded {
    SimTime { at: SimTime, limit: SimDuration },
    Events { at: SimTime, limit: u64 },
}

impl Limits {
    pub fn check(&self, at: SimTime, events: u64) -> Result<(), LimitExceeded> {
        if at.ns() > self.max_sim_time.ns() {
            return Err(LimitExceeded::SimTime { at, limit: self.max_sim_time });
        }
        if events > self.max_events {
            return Err(LimitExceeded::Events { at, limit: self.max_events });
        }
        Ok(())
    }
}

impl fmt::Display for LimitExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LimitExceeded::SimTime { at, limit } => write!(
                f,
                "simulated-time limit reached at {at} (limits.max_sim_time_s = {}); raise it in the scenario's [limits] table",
                limit.as_secs_f64()
            ),
            LimitExceeded::Events { at, limit } => write!(
                f,
                "event limit reached at {at} (limits.max_events = {limit}); raise it in the scenario's [limits] table"
            ),
        }
    }
}

impl std::error::Error for LimitExceeded {}
