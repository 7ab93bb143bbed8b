//! The simulation of [bevy_murmuration](https://crates.io/crates/bevy_murmuration): Craig
//! Reynolds' boids as Bevy components, resources and systems, with no window, GPU or system
//! package needed.
//!
//! Add [`BoidsPlugin`], spawn entities with [`Boid`] (which brings [`Position`], [`Velocity`],
//! [`Species`] and the rest), and every step of the plugin's schedule:
//! 1. [`BoidsSystems::BuildHash`] counting-sorts the boids into the
//!    [`SpatialHash`](hash::SpatialHash);
//! 2. [`BoidsSystems::Steer`] adds separation, alignment and cohesion, then each behaviour's
//!    force ([`edges`], [`obstacles`], [`flee`], [`seek`], [`units`], [`hunting`]) into each
//!    boid's [`Acceleration`], in parallel;
//! 3. [`BoidsSystems::Integrate`] moves every boid and hunter.
//!
#![cfg_attr(feature = "2d", doc = "```")]
#![cfg_attr(feature = "2d", doc = "use murmuration_sim::prelude::*;")]
#![cfg_attr(feature = "3d", doc = "```")]
#![cfg_attr(feature = "3d", doc = "use murmuration_sim3d::prelude::*;")]
//! use bevy::prelude::*;
//! use bevy::time::TimeUpdateStrategy;
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, BoidsPlugin))
//!     .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
//! app.world_mut().commands().queue(FlockSpawn::new(200, 7));
//! for _ in 0..60 {
//!     app.update();
//! }
//! let boids = app.world_mut().query::<&Boid>().iter(app.world()).count();
//! assert_eq!(boids, 200);
//! ```
//!
//! Each boid flies by its flock's [`FlockParams`]: the resource for boids in no flock, or a
//! [`Flock`] entity's own (see [`flock`]). Each behaviour is a module with its components, its
//! settings, its systems and its plugin; [`BoidsPlugins`] assembles them.
//!
//! # Bad input
//!
//! The plugin runs inside someone else's game, so bad input is survived, told once, and kept from
//! spreading (each case is a test in `murmuration_tests`: `bad_input`, `told_once`):
//!
//! - **Parameters and bounds** are checked in one place each, [`FlockParams::validate`],
//!   [`SimulationBounds::validate`](bounds::SimulationBounds::validate) and the behaviours'
//!   settings' [`Validate`](params::Validate), once after each change, whoever made it (your
//!   code, the panel, a preset). What is out of range is clamped and written back with one
//!   warning: a non-finite value becomes its default; a top speed, a perception radius or an
//!   obstacle's avoid distance below [`FlockParams::MIN_DISTANCE`] is raised to it; a negative
//!   force, minimum speed, separation distance, flee radius or crowding comfort becomes 0 (zero
//!   is allowed: no force, no separation); a minimum speed above the top speed is lowered to it,
//!   a separation distance beyond the perception radius to that; a field of view is kept within
//!   0 to 360 degrees; zero-size, inverted or non-finite bounds are fixed.
//! - **A boid with a NaN or infinite position** is parked at the centre of the bounds and
//!   stopped; a non-finite velocity or acceleration alone is zeroed. It happens before the hash
//!   is built, so no neighbour ever reads it; one warning, and
//!   [`FlockStats::repaired`](stats::FlockStats::repaired) counts every repair.
//! - **Everything else** just works: boids on exactly the same spot come apart (a deterministic
//!   tie-break), a boid far outside the bounds comes back, a 5-second frame is simulated as at
//!   most [`MAX_DT`] (0.1 s), unknown species ids are one more species, an [`Arrive`] target on
//!   the unit itself keeps it still, a hunter with no boids left coasts, no boids, one boid or a
//!   million boids step.
//! - **Runs replay bit for bit**: the same seed gives the same state after 10,000 steps on 1 and
//!   on 2 threads and on every SIMD build (every sum runs in a fixed order, and each boid's
//!   random start comes from its index).
//! - **Soak**: `cargo run --example soak -- --boids 1000 --steps 1000000` runs a flock with a
//!   hunter and an obstacle and checks every step that nothing is NaN and every speed is within
//!   `[min_speed, max_speed]`, and every 10,000 steps after the first fifth of the run that
//!   resident memory has not grown; CI runs 50,000 steps. The full run passed: 1,000,000 steps in
//!   967 s (sharing the machine with a build), 1,495 catches, no repairs, no memory growth.
//! - **Properties** (proptest): the spatial hash returns exactly the brute-force neighbour set
//!   for random positions, radii, bounds and both edge modes, and [`steer`](steering::steer)
//!   never exceeds its max force.
//!
//! One source, two crates: `murmuration_sim` is this source built with the `2d` feature (over
//! [`Vec2`](bevy::math::Vec2)), `murmuration_sim3d` the same source built with `3d` (over
//! [`Vec3`](bevy::math::Vec3)); [`math`] names the types of the dimension at hand.
#![warn(missing_docs)]

#[cfg(feature = "avian")]
pub mod avian;
mod block;
pub mod bounds;
pub mod components;
pub mod control;
#[cfg(feature = "2d")]
mod dim2;
#[cfg(feature = "2d")]
use dim2 as dim;
#[cfg(feature = "3d")]
mod dim3;
#[cfg(feature = "3d")]
use dim3 as dim;
pub mod edges;
pub mod flee;
pub mod flock;
pub mod hash;
pub mod hunting;
mod kernel;
mod lanes;
mod lattice;
pub mod math;
pub mod metrics;
mod motion;
mod neighbour_pass;
mod neighbours;
pub mod obstacles;
mod parallel;
pub mod params;
pub mod plugin;
pub mod population;
pub mod routes;
mod rules;
mod sample;
pub mod schedule;
pub mod seek;
mod simd;
pub mod spawn;
pub mod stats;
pub mod steering;
pub mod step;
mod table;
mod threats;
pub mod units;

pub use motion::MAX_DT;
pub use prelude::*;

/// `use murmuration_sim::prelude::*;` brings what a game types every day: the plugins, the
/// components of boids, flocks and what they meet, and the resources that set them up.
pub mod prelude {
    #[cfg(feature = "3d")]
    pub use crate::math::Box3;
    pub use crate::{
        bounds::SimulationBounds,
        components::{Acceleration, Boid, MaxSpeed, Position, Species, Velocity},
        flee::Predator,
        flock::{Flock, InFlock},
        hunting::{BoidCaught, CatchRules, Hunter},
        obstacles::Obstacle,
        params::FlockParams,
        plugin::{BoidsPlugin, BoidsPlugins},
        population::{FlockPopulation, Population},
        schedule::BoidsSystems,
        seek::Attractor,
        spawn::FlockSpawn,
        units::{Arrive, Unit, UnitCommand},
    };
}

/// What the benchmarks, the harness, the tests and the drawing crates reach inside the
/// simulation for. Not part of the API: it changes without notice.
#[doc(hidden)]
pub mod internal {
    pub use crate::components::{FlockId, HashSlot};
    pub use crate::dim::*;
    pub use crate::hash::{key, occupied_box};
    pub use crate::kernel::PassCounts;
    pub use crate::lanes::{Coords, Lanes, Real};
    pub use crate::motion::{integrate_one, previous_position};
    pub use crate::neighbour_pass::{FlockForces, flocking_forces, neighbour_sums};
    pub use crate::neighbours::{
        NeighbourSearch, for_each_neighbour, for_each_neighbour_brute_force, in_view,
        neighbours_of, slot_nearest,
    };
    pub use crate::rules::{
        Candidate, NeighbourSums, Observer, accumulate, accumulate_coincident, view_cos,
    };
    pub use crate::sample::CANDIDATE_CAP;
    pub use crate::simd::{SIMD_VAR, build_name, portable};
    pub use crate::table::{FlockRow, FlockTable, Perception};
}
