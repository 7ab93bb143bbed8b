//! [`FlockSpawn`]: spawn a flock from a seed, so the same seed gives the same flock.

use bevy::prelude::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use crate::components::{Boid, Position, Species, Velocity};
use crate::params::FlockParams;

/// A command that spawns `count` boids at seeded random positions in `region`, flying in seeded
/// random directions at between half and all of the flock's top speed (never below its minimum).
///
/// Boids are numbered from `first_index` ([`FlockIndex`]); species are dealt round-robin,
/// `index % species`, so every species gets about the same number. Each boid draws from its own
/// xoshiro256++ generator seeded with `seed` and its index, so boid `i` of a seed is always the
/// same, bit for bit, on every platform (given the same region and [`FlockParams`]).
///
/// ```
/// # use bevy::prelude::*;
/// # use murmuration_sim::prelude::*;
/// fn setup(mut commands: Commands) {
///     commands.queue(FlockSpawn::new(500, 42).with_species(2));
/// }
/// ```
#[derive(Reflect, Debug, Clone, PartialEq)]
#[reflect(Debug, Clone)]
pub struct FlockSpawn {
    /// How many boids.
    pub count: usize,
    /// How many species, at least 1.
    pub species: u16,
    /// Seed of the generator.
    pub seed: u64,
    /// Where the boids start, world units.
    pub region: Rect,
    /// The [`FlockIndex`] of the first boid.
    pub first_index: u32,
}

/// A boid's number within its seeded flock (see [`FlockSpawn`]).
#[derive(Component, Reflect, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[reflect(Component, Debug, Clone)]
pub struct FlockIndex(pub u32);

impl FlockSpawn {
    /// `count` boids of one species over the default 1280 x 720 bounds.
    pub fn new(count: usize, seed: u64) -> Self {
        Self {
            count,
            species: 1,
            seed,
            region: crate::SimulationBounds::default().rect,
            first_index: 0,
        }
    }

    /// Deals the boids over `species` species.
    pub fn with_species(mut self, species: u16) -> Self {
        self.species = species;
        self
    }

    /// Starts the boids in `region`.
    pub fn with_region(mut self, region: Rect) -> Self {
        self.region = region;
        self
    }

    /// The seeded boids this spawn makes under `params`, in spawn order.
    pub fn boids(
        &self,
        params: &FlockParams,
    ) -> impl Iterator<Item = (FlockIndex, Position, Velocity, Species)> {
        let region = Rect::from_corners(self.region.min, self.region.max);
        let species = u32::from(self.species.max(1));
        let top = params.max_speed.max(0.0);
        let floor = params.min_speed.clamp(0.0, top);
        let seed = self.seed;
        (0..self.count as u32).map(move |k| {
            let index = self.first_index.wrapping_add(k);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(
                seed ^ u64::from(index).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            );
            let x = region.min.x + rng.random::<f32>() * region.width();
            let y = region.min.y + rng.random::<f32>() * region.height();
            let angle = rng.random::<f32>() * core::f32::consts::TAU;
            let speed = (top * (0.5 + 0.5 * rng.random::<f32>())).max(floor);
            (
                FlockIndex(index),
                Position(Vec2::new(x, y)),
                Velocity(Vec2::from_angle(angle) * speed),
                Species((index % species) as u16),
            )
        })
    }
}

impl Command for FlockSpawn {
    type Out = ();

    fn apply(self, world: &mut World) {
        let params = world
            .get_resource::<FlockParams>()
            .cloned()
            .unwrap_or_default();
        let boids: Vec<_> = self
            .boids(&params)
            .map(|(i, p, v, s)| (Boid, i, p, v, s))
            .collect();
        world.spawn_batch(boids);
    }
}

/// Queues a [`FlockSpawn`]: the same as `commands.queue(spawn)`.
pub fn spawn_flock(commands: &mut Commands, spawn: FlockSpawn) {
    commands.queue(spawn);
}
