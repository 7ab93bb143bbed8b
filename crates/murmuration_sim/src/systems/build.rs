//! The one system that rebuilds the [`SpatialHash`] each step.

use bevy::platform::time::Instant;
use bevy::prelude::*;

use crate::components::{Boid, HashSlot, Position, Species, Velocity};
use crate::hash::{SpatialHash, occupied_box};
use crate::stats::FlockStats;
use crate::systems::prepare::StepConfig;

/// Counting-sorts every boid into the hash and writes each one's [`HashSlot`].
///
// NOTE: the two passes must see the boids in the same order; a query iterates its tables in
// the same order twice within one system, and nothing can change them in between.
pub(crate) fn build_hash(
    config: Res<StepConfig>,
    mut hash: ResMut<SpatialHash>,
    mut boids: Query<(Entity, &Position, &Velocity, &Species, &mut HashSlot), With<Boid>>,
    mut stats: ResMut<FlockStats>,
) {
    let start = Instant::now();
    let bounds = &config.bounds;
    let count = boids.iter().len();
    let occupied = if bounds.wraps() {
        bounds.rect
    } else {
        occupied_box(boids.iter().map(|b| b.1.0)).unwrap_or(bounds.rect)
    };
    let mut builder = hash.begin(bounds, config.params.perception_radius, occupied, count);
    for (_, position, ..) in &boids {
        builder.count(position.0);
    }
    for (entity, position, velocity, species, mut slot) in &mut boids {
        let placed = builder.place(entity, position.0, velocity.0, species.0);
        slot.set_if_neq(HashSlot(placed));
    }
    drop(builder);
    stats.steps += 1;
    stats.boids = count;
    stats.hash_build = start.elapsed();
    stats.steer_started = Some(Instant::now());
}
