//! [`FlockStats`]: what the last step did and what it cost, for panels, logs and benchmarks.

use core::time::Duration;

use bevy::platform::time::Instant;
use bevy::prelude::*;

/// Per-step statistics of the simulation, overwritten every step.
///
/// The candidate count is the tutorial's distance-check counter: how many boids the spatial hash
/// handed to the neighbour test. Timings are wall-clock and include waiting for worker threads.
#[derive(Resource, Reflect, Debug, Clone, Default)]
#[reflect(Resource, Default, Debug)]
pub struct FlockStats {
    /// Steps run since the plugin started.
    pub steps: u64,
    /// Boids in the hash this step.
    pub boids: usize,
    /// Distance checks made by the flocking rules this step.
    pub candidates: u64,
    /// Neighbours found (within the radius and field of view) this step.
    pub neighbours: u64,
    /// Time spent rebuilding the spatial hash.
    pub hash_build: Duration,
    /// Time spent in [`BoidsSystems::Steer`](crate::BoidsSystems::Steer), user systems included.
    pub steering: Duration,
    /// Time spent integrating.
    pub integrate: Duration,
    /// Boids or hunters whose non-finite position, velocity or acceleration was repaired, in all.
    pub repaired: u64,
    #[reflect(ignore)]
    pub(crate) steer_started: Option<Instant>,
}

impl FlockStats {
    /// Mean distance checks per boid this step.
    pub fn candidates_per_boid(&self) -> f64 {
        self.candidates as f64 / self.boids.max(1) as f64
    }

    /// Mean neighbours per boid this step.
    pub fn neighbours_per_boid(&self) -> f64 {
        self.neighbours as f64 / self.boids.max(1) as f64
    }

    /// Hash build, steering and integration together.
    pub fn step_time(&self) -> Duration {
        self.hash_build + self.steering + self.integrate
    }
}
