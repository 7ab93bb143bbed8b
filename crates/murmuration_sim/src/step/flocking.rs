//! Separation, alignment and cohesion: every boid's force in one pass over the hash (see
//! [`flocking_forces`]), then one pass over the boids that adds each one's force.

use bevy::ecs::change_detection::ContiguousMut;
use bevy::prelude::*;

use crate::bounds::StepBounds;
use crate::components::{Acceleration, Boid, HashSlot};
use crate::hash::SpatialHash;
use crate::neighbour_pass::{FlockForces, flocking_forces};
use crate::neighbours::NeighbourSearch;
use crate::parallel::{Changing, DENSE, Parts, for_each_part};
use crate::stats::FlockStats;
use crate::table::FlockTable;

/// Adds the three flocking rules to every boid's [`Acceleration`], in parallel.
///
/// Each boid steers at its own top speed ([`MaxSpeed`](crate::MaxSpeed), else its flock's) with
/// its flock's limits and weights; boids with [`Arrive`](crate::Arrive) (units) get separation
/// only ([`unit_force`](crate::rules::unit_force)). A boid spawned since the hash was built has
/// no slot yet and waits for the next step.
pub(crate) fn flock(
    bounds: Res<StepBounds>,
    table: Res<FlockTable>,
    hash: Res<SpatialHash>,
    search: Res<NeighbourSearch>,
    mut boids: Query<(&HashSlot, &mut Acceleration), With<Boid>>,
    mut forces: ResMut<FlockForces>,
    mut stats: ResMut<FlockStats>,
) {
    let counts = flocking_forces(&hash, &table, &bounds, *search, &mut forces);
    stats.candidates = counts.candidates;
    stats.neighbours = counts.neighbours;
    let forces = &forces.force[..];
    for (slots, acceleration) in boids.contiguous_iter_mut().expect(DENSE) {
        // Every boid's acceleration changes: the change ticks are marked in the parts.
        let (acceleration, mut ticks) = ContiguousMut::bypass_change_detection_split(acceleration);
        let parts = (slots, acceleration, Changing::new(&mut ticks));
        for_each_part(parts, Parts::EVEN, |(slots, acceleration, changing)| {
            changing.mark();
            for (slot, acceleration) in slots.iter().zip(acceleration) {
                if let Some(&force) = forces.get(slot.0 as usize) {
                    acceleration.0 += force;
                }
            }
        });
    }
}
