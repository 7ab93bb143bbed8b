//! The one system that rebuilds the [`SpatialHash`] each step.

use bevy::ecs::change_detection::ContiguousMut;
use bevy::platform::time::Instant;
use bevy::prelude::*;

use crate::bounds::StepBounds;
use crate::components::{Boid, FlockId, HashSlot, MaxSpeed, Position, Species, Velocity};
use crate::hash::{SpatialHash, Table, occupied_box};
use crate::parallel::DENSE;
use crate::stats::FlockStats;
use crate::table::FlockTable;
use crate::units::Arrive;

/// Counting-sorts every boid into the hash, in parts on the compute task pool, and writes each
/// one's [`HashSlot`]. Cells are as wide as the largest perception radius of any flock. Beside
/// its motion the hash keeps what its flocking force needs: its key (flock, species, and
/// whether it is a unit) and its own top speed.
///
// NOTE: the two passes must see the boids in the same order; a query iterates its tables in
// the same order twice within one system, and nothing can change them in between. Both read
// the components as one slice per table (Bevy's contiguous access).
pub(crate) fn build_hash(
    bounds: Res<StepBounds>,
    table: Res<FlockTable>,
    mut hash: ResMut<SpatialHash>,
    mut boids: Query<
        (
            Entity,
            &Position,
            &Velocity,
            &Species,
            (&FlockId, Option<&MaxSpeed>, Has<Arrive>),
            &mut HashSlot,
        ),
        With<Boid>,
    >,
    mut stats: ResMut<FlockStats>,
) {
    let start = Instant::now();
    let occupied = if bounds.wraps() {
        bounds.rect
    } else {
        occupied_box(boids.iter().map(|b| b.1.0)).unwrap_or(bounds.rect)
    };
    let tables = boids.contiguous_iter().expect(DENSE);
    let lens = tables.map(|(entities, ..)| entities.len());
    let mut build = hash.begin_parted(&bounds, table.cell_size(), occupied, lens);
    for (_, positions, ..) in boids.contiguous_iter().expect(DENSE) {
        build.count(positions);
    }
    for (entities, positions, velocities, species, (flocks, max_speed, unit), slots) in
        boids.contiguous_iter_mut().expect(DENSE)
    {
        // Only a slot that moved counts as a change.
        let (slots, mut ticks) = ContiguousMut::bypass_change_detection_split(slots);
        let now = ticks.this_run();
        let table = Table {
            entities,
            positions,
            velocities,
            species,
            flocks,
            max_speed,
            unit,
            slots,
            changed: ticks.changed_mut(),
            now,
        };
        build.place(table);
    }
    build.finish();
    stats.steps += 1;
    stats.boids = hash.len();
    stats.hash_build = start.elapsed();
    stats.steer_started = Some(Instant::now());
}
