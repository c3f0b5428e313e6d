//! The simulated GPU's clocks.
//!
//! The system timestamp runs at [`TIMESTAMP_HZ`] (24 MHz, the architected
//! timer frequency of common Bifrost SoCs such as RK3566/RK3568), derived from
//! CLOCK_MONOTONIC, so it never goes backwards. The cycle counter pretends a
//! [`GPU_CLOCK_HZ`] core clock on the same time base.

use crate::kmod::monotonic_ns;

pub const TIMESTAMP_HZ: u64 = 24_000_000;
pub const GPU_CLOCK_HZ: u64 = 800_000_000;

#[derive(Debug, Default)]
pub struct SimClock;

impl SimClock {
    /// System timestamp ticks (CLOCK_MONOTONIC × 24 MHz).
    pub fn timestamp(&self) -> u64 {
        let ns = monotonic_ns() as u128;
        (ns * TIMESTAMP_HZ as u128 / 1_000_000_000) as u64
    }

    /// GPU cycle counter ticks.
    pub fn cycles(&self) -> u64 {
        let ns = monotonic_ns() as u128;
        (ns * GPU_CLOCK_HZ as u128 / 1_000_000_000) as u64
    }
}
