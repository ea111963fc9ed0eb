//! Typed addresses, so a logical page can never be passed where a physical
//! one is expected.

use serde::Serialize;
use std::fmt;

/// Logical page number: a 4 KiB logical block address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
pub struct Lpn(pub u64);

/// Physical page number: a 4 KiB slot inside a flash page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
pub struct Ppn(pub u64);

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize)]
pub struct SuperblockId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct DieId(pub u32);

macro_rules! display_as {
    ($t:ty, $prefix:literal) => {
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}
display_as!(Lpn, "lpn:");
display_as!(Ppn, "ppn:");
display_as!(SuperblockId, "sb:");
display_as!(DieId, "die:");
