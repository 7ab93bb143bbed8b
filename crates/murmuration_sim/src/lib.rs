//! The simulation of [bevy_murmuration](https://crates.io/crates/bevy_murmuration): Craig
//! Reynolds' boids as Bevy components, resources and systems, with no window, GPU or system
//! package needed.
//!
//! Add [`BoidsPlugin`], spawn entities with [`Boid`] (which brings [`Position`], [`Velocity`],
//! [`Species`] and the rest), and every step of the plugin's schedule:
//! 1. [`BoidsSystems::BuildHash`] counting-sorts the boids into the [`SpatialHash`];
//! 2. [`BoidsSystems::Steer`] adds separation, alignment, cohesion, edges, obstacles, flee, seek,
//!    arrive and hunt forces into each boid's [`Acceleration`], in parallel;
//! 3. [`BoidsSystems::Integrate`] moves every boid and hunter.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy::time::TimeUpdateStrategy;
//! use murmuration_sim::prelude::*;
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, BoidsPlugin::default()))
//!     .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
//! app.world_mut().commands().queue(FlockSpawn::new(200, 7));
//! for _ in 0..60 {
//!     app.update();
//! }
//! let stats = app.world().resource::<FlockStats>();
//! assert_eq!(stats.boids, 200);
//! ```
#![warn(missing_docs)]

pub mod behaviours;
pub mod bounds;
pub mod components;
pub mod control;
pub mod flock_sums;
pub mod hash;
pub mod hunt;
mod kernel;
pub mod metrics;
pub mod neighbours;
mod parallel;
pub mod params;
pub mod plugin;
pub mod population;
pub mod rts;
pub mod spawn;
pub mod stats;
pub mod stress;
mod systems;

pub use bounds::{Edges, SimulationBounds};
pub use components::{
    Acceleration, Arrive, Attractor, Boid, HashSlot, Hunter, MaxSpeed, Obstacle, Position,
    Predator, PreviousPosition, Species, Velocity,
};
pub use control::SimulationControl;
pub use flock_sums::{FlockSlots, PassCounts, flock_sums};
pub use hash::{HashHit, KNearest, SpatialHash};
pub use hunt::{BoidCaught, CatchRules, CatchStats, OnCatch};
pub use kernel::CANDIDATE_CAP;
pub use metrics::{FlockMetrics, MetricsSettings};
pub use neighbours::{
    NeighbourSearch, Perception, for_each_neighbour, for_each_neighbour_brute_force, neighbours_of,
};
pub use params::{FlockParams, NeighbourMode, ParamIssue};
pub use plugin::{BoidsPlugin, BoidsSystems};
pub use population::{FlockPopulation, ResetFlock};
pub use rts::{MoveOrder, OrderMarker, Selected, Unit, UnitCommand, UnitSettings};
pub use spawn::{FlockIndex, FlockSpawn, spawn_flock};
pub use stats::FlockStats;
pub use systems::integrate::{MAX_DT, integrate_one, keep_out_of_obstacles};
pub use systems::sync::{TransformInterpolation, heading_rotation};

/// `use murmuration_sim::prelude::*;` brings the plugin, the components and the resources.
pub mod prelude {
    pub use crate::{
        Acceleration, Arrive, Attractor, Boid, BoidCaught, BoidsPlugin, BoidsSystems, CatchRules,
        CatchStats, Edges, FlockIndex, FlockMetrics, FlockParams, FlockPopulation, FlockSpawn,
        FlockStats, HashSlot, Hunter, MaxSpeed, MetricsSettings, MoveOrder, NeighbourMode,
        NeighbourSearch, Obstacle, OnCatch, OrderMarker, Position, Predator, ResetFlock, Selected,
        SimulationBounds, SimulationControl, SpatialHash, Species, Unit, UnitCommand, UnitSettings,
        Velocity,
    };
}
