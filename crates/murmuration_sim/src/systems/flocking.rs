//! Separation, alignment and cohesion: every boid's neighbour sums in one pass over the hash,
//! then each boid's force from its sums.

use bevy::ecs::change_detection::ContiguousMut;
use bevy::prelude::*;

use crate::behaviours::{RuleWeights, flocking_force};
use crate::components::{Acceleration, Arrive, Boid, HashSlot, MaxSpeed};
use crate::flock_sums::{FlockSlots, flock_sums};
use crate::hash::SpatialHash;
use crate::neighbours::NeighbourSearch;
use crate::parallel::{Changing, DENSE, Parts, for_each_part};
use crate::stats::FlockStats;
use crate::systems::prepare::StepConfig;

/// Adds the three flocking rules to every boid's [`Acceleration`], in parallel.
///
/// Boids with [`Arrive`] (units) get separation only. A boid spawned since the hash was built
/// has no slot yet and waits for the next step.
pub(crate) fn flock(
    config: Res<StepConfig>,
    hash: Res<SpatialHash>,
    search: Res<NeighbourSearch>,
    mut boids: Query<(&HashSlot, &mut Acceleration, Option<&MaxSpeed>, Has<Arrive>), With<Boid>>,
    mut slots: Local<FlockSlots>,
    mut stats: ResMut<FlockStats>,
) {
    let params = &config.params;
    let counts = flock_sums(&hash, params, &config.bounds, *search, &mut slots);
    stats.candidates = counts.candidates;
    stats.neighbours = counts.neighbours;
    let weights = RuleWeights::of(params);
    let slots = &slots;
    for (slot, acceleration, max_speed, unit) in boids.contiguous_iter_mut().expect(DENSE) {
        // Every boid's acceleration changes: the change ticks are marked in the parts.
        let (acceleration, mut ticks) = ContiguousMut::bypass_change_detection_split(acceleration);
        let parts = (slot, acceleration, max_speed, Changing::new(&mut ticks));
        for_each_part(
            parts,
            Parts::EVEN,
            |(slot, acceleration, max_speed, changing)| {
                changing.mark();
                for (i, (slot, acceleration)) in slot.iter().zip(acceleration).enumerate() {
                    let slot = slot.0 as usize;
                    let Some(&force) = slots.forces.get(slot) else {
                        continue;
                    };
                    if max_speed.is_none() && !unit {
                        acceleration.0 += force;
                        continue;
                    }
                    // Rare: a boid with its own top speed, or a unit.
                    let speed = max_speed.map_or(params.max_speed, |m| m[i].0);
                    acceleration.0 += flocking_force(
                        &slots.sums[slot],
                        hash.velocity(slot),
                        speed,
                        params.max_force,
                        weights,
                        unit,
                        params.separation_distance,
                    );
                }
            },
        );
    }
}
