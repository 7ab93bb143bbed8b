//! What the examples, the benchmarks and the tests of
//! [bevy_murmuration](https://crates.io/crates/bevy_murmuration) share to fly a flock headless
//! and time or measure it, so that every number in BENCHMARKS.md and the README comes from the
//! same setup. Not published, and not part of the simulation's API.
#![warn(missing_docs)]

pub mod measured;
pub mod stress;

use murmuration_sim::math::DIM;

/// The room a boid has in a world as crowded as `area_per_boid` square units a boid are in 2D,
/// for a flock that sees `perception_radius`: the area itself in 2D; in 3D the volume in which
/// a perception ball holds as many boids as the perception disc does in 2D
/// (`4/3 pi r^3 / volume = pi r^2 / area`, so the volume is `4/3 r` times the area). The one
/// place the "as crowded in 3D" rule is written: the stress flock, the measured runs and the
/// tests size their worlds by it.
pub fn room_per_boid(area_per_boid: f32, perception_radius: f32) -> f32 {
    if DIM == 2 {
        area_per_boid
    } else {
        4.0 / 3.0 * perception_radius * area_per_boid
    }
}
