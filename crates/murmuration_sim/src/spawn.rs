//! [`FlockSpawn`]: spawn a flock from a seed, so the same seed gives the same flock.

use bevy::prelude::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use crate::components::{Boid, Position, Species, Velocity};
use crate::dim;
use crate::flock::{Flock, InFlock};
use crate::math::{DIM, Region, Vector, per_axis};
use crate::params::FlockParams;

/// A command that spawns `count` boids at seeded random positions in `region`, flying in seeded
/// random directions at between half and all of the flock's top speed (never below its minimum).
///
/// Boids are numbered from `first_index` ([`FlockIndex`]); species are dealt round-robin,
/// `index % species`, so every species gets about the same number. Each boid draws from its own
/// xoshiro256++ generator seeded with `seed` and its index, so boid `i` of a seed is always the
/// same, bit for bit, on every platform (given the same region and [`FlockParams`]).
///
/// The command spawns them in one batch along a Z-order curve over `region`, not in index
/// order, so that the ECS table starts out in about the order of the
/// [`SpatialHash`](crate::hash::SpatialHash): the passes that go from one to the other (the hash's
/// scatter, the forces handed back to each boid) then touch memory nearly in sequence. Boids
/// never leave their table, so the order lasts as long as the flock keeps its neighbourhoods.
///
/// ```
/// # use bevy::prelude::*;
#[cfg_attr(feature = "2d", doc = "# use murmuration_sim::prelude::*;")]
#[cfg_attr(feature = "3d", doc = "# use murmuration_sim3d::prelude::*;")]
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
    pub region: Region,
    /// The [`FlockIndex`] of the first boid.
    pub first_index: u32,
    /// The [`Flock`] the boids join ([`InFlock`]); `None` for the default flock.
    pub flock: Option<Entity>,
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
            flock: None,
        }
    }

    /// Puts the boids in `flock`, a [`Flock`] entity: they fly by its parameters
    /// (and start at its speeds).
    pub fn in_flock(mut self, flock: Entity) -> Self {
        self.flock = Some(flock);
        self
    }

    /// Deals the boids over `species` species.
    pub fn with_species(mut self, species: u16) -> Self {
        self.species = species;
        self
    }

    /// Starts the boids in `region`.
    pub fn with_region(mut self, region: Region) -> Self {
        self.region = region;
        self
    }

    /// The seeded boids this spawn makes under `params`, in spawn order.
    pub fn boids(
        &self,
        params: &FlockParams,
    ) -> impl Iterator<Item = (FlockIndex, Position, Velocity, Species)> {
        let region = Region::from_corners(self.region.min, self.region.max);
        let species = u32::from(self.species.max(1));
        let top = params.max_speed.max(0.0);
        let floor = params.min_speed.clamp(0.0, top);
        let seed = self.seed;
        (0..self.count as u32).map(move |k| {
            let index = self.first_index.wrapping_add(k);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(
                seed ^ u64::from(index).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            );
            let size = region.size();
            let p = per_axis(|axis| region.min[axis] + rng.random::<f32>() * size[axis]);
            let heading = dim::random_direction(&mut rng);
            let speed = (top * (0.5 + 0.5 * rng.random::<f32>())).max(floor);
            (
                FlockIndex(index),
                Position(p),
                Velocity(heading * speed),
                Species((index % species) as u16),
            )
        })
    }
}

impl Command for FlockSpawn {
    type Out = ();

    fn apply(self, world: &mut World) {
        let params = match self.flock {
            Some(e) => match world.get::<Flock>(e) {
                Some(flock) => flock.params.clone(),
                None => {
                    warn!(
                        "bevy_murmuration: FlockSpawn into {e}, which is no Flock; nothing spawned"
                    );
                    return;
                }
            },
            None => world
                .get_resource::<FlockParams>()
                .cloned()
                .unwrap_or_default(),
        };
        let region = Region::from_corners(self.region.min, self.region.max);
        let mut boids: Vec<_> = self
            .boids(&params)
            .map(|(i, p, v, s)| (Boid, i, p, v, s))
            .collect();
        // A stable sort: boids on one key keep their index order, so the seed alone fixes the
        // order too.
        boids.sort_by_key(|(_, _, p, ..)| z_order(region, p.0));
        match self.flock {
            Some(e) => {
                let boids = boids.into_iter().map(move |b| (b, InFlock(e)));
                world.spawn_batch(boids);
            }
            None => {
                world.spawn_batch(boids);
            }
        }
    }
}

/// Bits of each axis in a [`z_order`] key: 16 in 2D, 10 in 3D.
const Z_BITS: u32 = 32 / DIM as u32;

/// Where `p` lies along a Z-order (Morton) curve over `region`, [`Z_BITS`] bits an axis: the
/// bits of its column, row (and layer) interleaved, so that points close together mostly get
/// keys close together. Points outside `region` (or not finite) take the nearest edge's key.
fn z_order(region: Region, p: Vector) -> u32 {
    let cells = (1u32 << Z_BITS) as f32;
    let size = region.size().max(Vector::splat(f32::MIN_POSITIVE));
    // `as` saturates, and takes NaN to 0.
    let q = ((p - region.min) / size * cells).clamp(Vector::ZERO, Vector::splat(cells - 1.0));
    let mut key = 0;
    for bit in 0..Z_BITS {
        for axis in 0..DIM {
            key |= ((q[axis] as u32 >> bit) & 1) << (bit * DIM as u32 + axis as u32);
        }
    }
    key
}

/// Queues a [`FlockSpawn`]: the same as `commands.queue(spawn)`.
pub fn spawn_flock(commands: &mut Commands, spawn: FlockSpawn) {
    commands.queue(spawn);
}

#[cfg(test)]
mod tests {
    use bevy::prelude::*;

    use super::{FlockIndex, FlockSpawn, Z_BITS, z_order};
    use crate::components::Position;
    use crate::math::{DIM, Vector, region, xyz};
    use crate::params::FlockParams;

    #[test]
    fn the_curve_keeps_quadrants_together() {
        let world = region([-100.0, -50.0, 20.0], [300.0, 150.0, 90.0]);
        let last = ((1u64 << (Z_BITS * DIM as u32)) - 1) as u32;
        assert_eq!(z_order(world, world.min), 0);
        assert_eq!(z_order(world, world.max), last);
        // Everything in the lower left quarter (eighth) comes before everything in the upper right.
        let corner = |fx: f32, fy: f32| world.min + world.size() * xyz([fx, fy, fx.min(fy)]);
        let low = [
            corner(0.0, 0.0),
            corner(0.49, 0.0),
            corner(0.0, 0.49),
            corner(0.49, 0.49),
        ];
        let high = [
            corner(0.5, 0.5),
            corner(0.99, 0.5),
            corner(0.5, 0.99),
            corner(1.0, 1.0),
        ];
        let last_low = low.iter().map(|&p| z_order(world, p)).max().unwrap();
        let first_high = high.iter().map(|&p| z_order(world, p)).min().unwrap();
        assert!(last_low < first_high, "{last_low} vs {first_high}");
        // Outside, degenerate or not a number: the nearest edge, never a panic.
        assert_eq!(z_order(world, Vector::splat(-1e9)), 0);
        assert_eq!(z_order(world, Vector::splat(f32::INFINITY)), last);
        assert_eq!(z_order(world, Vector::NAN), 0);
        let point = region([0.0; 3], [0.0; 3]);
        // A region of no size: right of it is the last column, below it the first row (and in
        // front of it the first layer): every x bit set, no other.
        let x_bits = (0..Z_BITS).fold(0, |k, bit| k | 1 << (bit * DIM as u32));
        assert_eq!(z_order(point, xyz([1.0, -1.0, -1.0])), x_bits);
    }

    #[test]
    fn a_flock_is_spawned_in_space_filling_order() {
        let mut world = World::new();
        let spawn = FlockSpawn::new(2000, 7).with_region(region([0.0; 3], [1000.0; 3]));
        spawn.clone().apply(&mut world);
        let mut query = world.query::<(&FlockIndex, &Position)>();
        let stored: Vec<(u32, Vector)> = query.iter(&world).map(|(i, p)| (i.0, p.0)).collect();
        // Every boid of the seed, each exactly as seeded.
        let mut by_index = stored.clone();
        by_index.sort_by_key(|b| b.0);
        let seeded: Vec<(u32, Vector)> = spawn
            .boids(&FlockParams::default())
            .map(|(i, p, ..)| (i.0, p.0))
            .collect();
        assert_eq!(by_index, seeded);
        // Neighbours in the table are neighbours in space: the mean step from one boid to the
        // next is a small fraction of the index order's (random points: about half the side).
        let mean_step = |boids: &[(u32, Vector)]| {
            let steps = boids.windows(2).map(|w| w[0].1.distance(w[1].1));
            steps.sum::<f32>() / (boids.len() - 1) as f32
        };
        let (table, index) = (mean_step(&stored), mean_step(&seeded));
        // (A step along the curve is about a cell of n cells, `n^(-1/DIM)` of the side.)
        let gain = if DIM == 2 { 10.0 } else { 4.0 };
        assert!(
            table < index / gain,
            "table order {table}, index order {index}"
        );
    }
}
