//! What the examples, the benchmarks and the tests of
//! [bevy_murmuration](https://crates.io/crates/bevy_murmuration) share to fly a flock headless
//! and time or measure it, so that every number in BENCHMARKS.md and the README comes from the
//! same setup. Not published, and not part of the simulation's API.
#![warn(missing_docs)]

pub mod measured;
pub mod stress;
