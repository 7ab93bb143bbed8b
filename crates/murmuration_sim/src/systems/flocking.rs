//! Separation, alignment and cohesion: one pass over each boid's neighbours in the hash.

use bevy::prelude::*;
use bevy::utils::Parallel;

use crate::behaviours::{FlockSums, RuleWeights, flocking_force, tie_break};
use crate::components::{Acceleration, Arrive, Boid, HashSlot, MaxSpeed};
use crate::hash::{KNearest, SpatialHash};
use crate::kernel::{Observer, radius_sums};
use crate::neighbours::for_each_neighbour;
use crate::params::NeighbourMode;
use crate::stats::{FlockStats, PassCounts};
use crate::systems::prepare::StepConfig;

/// The neighbour sums of the boid in `slot`, read from the frozen hash, and how many candidates
/// were checked.
#[inline]
fn neighbour_sums(
    hash: &SpatialHash,
    config: &StepConfig,
    slot: usize,
    nearest: &mut KNearest,
) -> (FlockSums, u64) {
    let own_species = hash.species()[slot];
    let perception = &config.perception;
    if perception.mode == NeighbourMode::Radius && !hash.folds(1) {
        let observer = Observer::new(hash, slot, perception, config.separation2);
        return radius_sums(hash, &observer);
    }
    // Topological neighbours, or a world so small the 3x3 block folds onto itself.
    let species = hash.species();
    let mut sums = FlockSums::default();
    let candidates = for_each_neighbour(hash, &config.perception, slot, nearest, |hit| {
        let j = hit.slot;
        sums.add(
            hit.delta,
            hit.distance_squared,
            hash.velocity(j),
            species[j] == own_species,
            config.separation2,
            || tie_break(slot, j),
        );
    });
    (sums, candidates)
}

/// What each thread keeps between boids: its counts, and the list the topological mode fills.
#[derive(Default)]
pub(crate) struct Scratch {
    counts: PassCounts,
    nearest: Option<KNearest>,
}

/// Adds the three flocking rules to every boid's [`Acceleration`], in parallel.
///
/// Boids with [`Arrive`] (units) get separation only. A boid spawned since the hash was built
/// has no slot yet and waits for the next step.
pub(crate) fn flock(
    config: Res<StepConfig>,
    hash: Res<SpatialHash>,
    mut boids: Query<(&HashSlot, &mut Acceleration, Option<&MaxSpeed>, Has<Arrive>), With<Boid>>,
    mut scratch: Local<Parallel<Scratch>>,
    mut stats: ResMut<FlockStats>,
) {
    let params = &config.params;
    let weights = RuleWeights {
        separation: params.separation_weight,
        alignment: params.alignment_weight,
        cohesion: params.cohesion_weight,
    };
    boids
        .par_iter_mut()
        .for_each(|(slot, mut acceleration, max_speed, unit)| {
            let slot = slot.0 as usize;
            if slot >= hash.len() {
                return;
            }
            let sums = scratch.scope(|scratch| {
                let nearest = scratch.nearest.get_or_insert_with(|| KNearest::new(0));
                let (sums, candidates) = neighbour_sums(&hash, &config, slot, nearest);
                scratch.counts.candidates += candidates;
                scratch.counts.neighbours += u64::from(sums.neighbours);
                sums
            });
            let v = hash.velocity(slot);
            let speed = max_speed.map_or(params.max_speed, |m| m.0);
            acceleration.0 += flocking_force(
                &sums,
                v,
                speed,
                params.max_force,
                weights,
                unit,
                params.separation_distance,
            );
        });
    let (mut candidates, mut neighbours) = (0, 0);
    for scratch in scratch.iter_mut() {
        candidates += scratch.counts.candidates;
        neighbours += scratch.counts.neighbours;
        scratch.counts = PassCounts::default();
    }
    stats.candidates = candidates;
    stats.neighbours = neighbours;
}
