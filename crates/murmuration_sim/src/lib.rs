//! The simulation of [bevy_murmuration](https://crates.io/crates/bevy_murmuration): Craig
//! Reynolds' boids as Bevy components, resources and systems, with no window, GPU or system
//! package needed.
//!
//! Add [`BoidsPlugins`], spawn entities with [`Boid`] (which brings [`Position`], [`Velocity`],
//! [`Species`] and the rest), and every step of the plugin's schedule:
//! 1. [`BoidsSystems::BuildHash`] counting-sorts the boids into the [`SpatialHash`];
//! 2. [`BoidsSystems::Steer`] adds separation, alignment, cohesion (the [`rules`], each written
//!    once for one boid and for lanes of them), edges, obstacles, flee, seek, arrive and hunt
//!    forces into each boid's [`Acceleration`], in parallel;
//! 3. [`BoidsSystems::Integrate`] moves every boid and hunter.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy::time::TimeUpdateStrategy;
//! use murmuration_sim::prelude::*;
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, BoidsPlugins::default()))
//!     .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
//! app.world_mut().commands().queue(FlockSpawn::new(200, 7));
//! for _ in 0..60 {
//!     app.update();
//! }
//! let stats = app.world().resource::<FlockStats>();
//! assert_eq!(stats.boids, 200);
//! ```
//!
//! Each boid flies by its flock's [`FlockParams`]: the resource for boids in no flock, or a
//! [`Flock`] entity's own (see [`flock`]).
#![warn(missing_docs)]

pub mod behaviours;
mod block;
pub mod bounds;
pub mod components;
pub mod control;
#[cfg(feature = "2d")]
pub mod dim2;
#[cfg(feature = "2d")]
use dim2 as dim;
#[cfg(feature = "3d")]
pub mod dim3;
#[cfg(feature = "3d")]
use dim3 as dim;
pub mod flock;
pub mod hash;
pub mod hunt;
mod kernel;
pub mod lanes;
pub mod math;
pub mod metrics;
pub mod motion;
pub mod neighbour_pass;
pub mod neighbours;
mod parallel;
pub mod params;
pub mod plugin;
pub mod population;
pub mod rts;
pub mod rules;
mod sample;
pub mod simd;
pub mod spawn;
pub mod stats;
mod systems;
pub mod table;
mod threats;

pub use bounds::{Edges, SimulationBounds};
pub use components::{
    Acceleration, Arrive, Attractor, Boid, FlockId, HashSlot, Hunter, MaxSpeed, Obstacle, Position,
    Predator, PreviousPosition, Species, Velocity,
};
pub use control::SimulationControl;
pub use flock::{Flock, FlockMembers, InFlock};
pub use hash::{HashHit, KNearest, SpatialHash};
pub use hunt::{BoidCaught, CatchRules, CatchStats, OnCatch};
pub use kernel::PassCounts;
pub use metrics::{FlockMetrics, FlockShape, MetricsSettings};
pub use motion::{MAX_DT, integrate_one, keep_out_of_obstacles};
pub use neighbour_pass::{FlockForces, flocking_forces, neighbour_sums};
pub use neighbours::{
    NeighbourSearch, for_each_neighbour, for_each_neighbour_brute_force, neighbours_of,
};
pub use params::{FlockParams, NeighbourMode, ParamIssue};
pub use plugin::{
    BoidsPlugins, BoidsSchedule, BoidsSystems, HuntingPlugin, MetricsPlugin, PopulationPlugin,
    SteeringPlugin, SteeringSystems, StepPlugin, UnitsPlugin,
};
pub use population::{FlockPopulation, Population, ResetFlock};
pub use rts::{MoveOrder, OrderMarker, Selected, Unit, UnitCommand, UnitSettings};
pub use rules::NeighbourSums;
pub use sample::CANDIDATE_CAP;
pub use spawn::{FlockIndex, FlockSpawn, spawn_flock};
pub use stats::FlockStats;
pub use systems::sync::{TransformInterpolation, TransformSync, heading_rotation};
pub use table::{FlockRow, FlockTable, Perception};

/// `use murmuration_sim::prelude::*;` brings the plugins, the components and the resources.
pub mod prelude {
    pub use crate::{
        Acceleration, Arrive, Attractor, Boid, BoidCaught, BoidsPlugins, BoidsSchedule,
        BoidsSystems, CatchRules, CatchStats, Edges, Flock, FlockId, FlockIndex, FlockMembers,
        FlockMetrics, FlockParams, FlockPopulation, FlockShape, FlockSpawn, FlockStats, FlockTable,
        HashSlot, Hunter, HuntingPlugin, InFlock, MaxSpeed, MetricsPlugin, MetricsSettings,
        MoveOrder, NeighbourMode, NeighbourSearch, Obstacle, OnCatch, OrderMarker, Population,
        PopulationPlugin, Position, Predator, ResetFlock, Selected, SimulationBounds,
        SimulationControl, SpatialHash, Species, SteeringPlugin, SteeringSystems, StepPlugin, Unit,
        UnitCommand, UnitSettings, UnitsPlugin, Velocity,
    };
}
