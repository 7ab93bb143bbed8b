//! [`FlockSpawn`]: spawn a flock from a seed, so the same seed gives the same flock.

use bevy::prelude::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use crate::components::{Boid, Position, Species, Velocity};
use crate::dim;
use crate::flock::{Flock, InFlock};
use crate::math::{Region, Vector, per_axis};
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
/// [`SpatialHash`](crate::SpatialHash): the passes that go from one to the other (the hash's
/// scatter, the forces handed back to each boid) then touch memory nearly in sequence. Boids
/// never leave their table, so the order lasts as long as the flock keeps its neighbourhoods.
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

/// Where `p` lies along a Z-order (Morton) curve over `region`, 16 bits an axis: the bits of
/// its column and row interleaved, so that points close together mostly get keys close
/// together. Points outside `region` (or not finite) take the nearest edge's key.
fn z_order(region: Region, p: Vector) -> u32 {
    let size = region.size().max(Vector::splat(f32::MIN_POSITIVE));
    // `as` saturates, and takes NaN to 0.
    let q = ((p - region.min) / size * 65536.0).clamp(Vector::ZERO, Vector::splat(65535.0));
    /// The 16 bits of `v` spread to the even bits of the result.
    fn spread(v: u32) -> u32 {
        let mut x = v & 0xffff;
        x = (x | (x << 8)) & 0x00ff_00ff;
        x = (x | (x << 4)) & 0x0f0f_0f0f;
        x = (x | (x << 2)) & 0x3333_3333;
        (x | (x << 1)) & 0x5555_5555
    }
    spread(q.x as u32) | spread(q.y as u32) << 1
}

/// Queues a [`FlockSpawn`]: the same as `commands.queue(spawn)`.
pub fn spawn_flock(commands: &mut Commands, spawn: FlockSpawn) {
    commands.queue(spawn);
}

// NOTE: written over 2D points; not yet run in 3D.
#[cfg(all(test, feature = "2d"))]
mod tests {
    use bevy::prelude::*;

    use super::{FlockIndex, FlockSpawn, z_order};
    use crate::components::Position;
    use crate::params::FlockParams;

    #[test]
    fn the_curve_keeps_quadrants_together() {
        let region = Rect::new(-100.0, -50.0, 300.0, 150.0);
        assert_eq!(z_order(region, region.min), 0);
        assert_eq!(z_order(region, region.max), u32::MAX);
        // Everything in the lower left quarter comes before everything in the upper right.
        let corner = |fx: f32, fy: f32| region.min + region.size() * Vec2::new(fx, fy);
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
        let last_low = low.iter().map(|&p| z_order(region, p)).max().unwrap();
        let first_high = high.iter().map(|&p| z_order(region, p)).min().unwrap();
        assert!(last_low < first_high, "{last_low} vs {first_high}");
        // Outside, degenerate or not a number: the nearest edge, never a panic.
        assert_eq!(z_order(region, Vec2::new(-1e9, -1e9)), 0);
        assert_eq!(z_order(region, Vec2::splat(f32::INFINITY)), u32::MAX);
        assert_eq!(z_order(region, Vec2::NAN), 0);
        let point = Rect::from_center_size(Vec2::ZERO, Vec2::ZERO);
        // A region of no size: right of it is the last column, below it the first row.
        assert_eq!(z_order(point, Vec2::new(1.0, -1.0)), 0x5555_5555);
    }

    #[test]
    fn a_flock_is_spawned_in_space_filling_order() {
        let mut world = World::new();
        let spawn = FlockSpawn::new(2000, 7).with_region(Rect::new(0.0, 0.0, 1000.0, 1000.0));
        spawn.clone().apply(&mut world);
        let mut query = world.query::<(&FlockIndex, &Position)>();
        let stored: Vec<(u32, Vec2)> = query.iter(&world).map(|(i, p)| (i.0, p.0)).collect();
        // Every boid of the seed, each exactly as seeded.
        let mut by_index = stored.clone();
        by_index.sort_by_key(|b| b.0);
        let seeded: Vec<(u32, Vec2)> = spawn
            .boids(&FlockParams::default())
            .map(|(i, p, ..)| (i.0, p.0))
            .collect();
        assert_eq!(by_index, seeded);
        // Neighbours in the table are neighbours in space: the mean step from one boid to the
        // next is a small fraction of the index order's (random points: about half the side).
        let mean_step = |boids: &[(u32, Vec2)]| {
            let steps = boids.windows(2).map(|w| w[0].1.distance(w[1].1));
            steps.sum::<f32>() / (boids.len() - 1) as f32
        };
        let (table, index) = (mean_step(&stored), mean_step(&seeded));
        assert!(
            table < index / 10.0,
            "table order {table}, index order {index}"
        );
    }
}
