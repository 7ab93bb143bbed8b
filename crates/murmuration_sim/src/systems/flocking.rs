//! Separation, alignment and cohesion: one pass over each boid's neighbours in the hash.

use bevy::prelude::*;
use bevy::utils::Parallel;

use crate::behaviours::{FlockSums, RuleWeights, flocking_force, in_view, tie_break};
use crate::components::{Acceleration, Arrive, Boid, HashSlot, MaxSpeed};
use crate::hash::{KNearest, SpatialHash};
use crate::params::NeighbourMode;
use crate::stats::{FlockStats, PassCounts};
use crate::systems::prepare::StepConfig;

/// The neighbour sums of the boid in `slot`, read from the frozen hash, and how many candidates
/// were checked.
///
/// Radius mode walks the 3x3 block of cells around the boid (each row one or two contiguous
/// slices); topological mode keeps the `k` nearest visible boids.
#[inline]
pub(crate) fn neighbour_sums(
    hash: &SpatialHash,
    config: &StepConfig,
    slot: usize,
    nearest: &mut KNearest,
) -> (FlockSums, u64) {
    let p = hash.positions()[slot];
    let v = hash.velocities()[slot];
    let own_species = hash.species()[slot];
    let velocities = hash.velocities();
    let species = hash.species();
    let (r2, sep2, view) = (config.perception2, config.separation2, config.view_cos);
    let mut sums = FlockSums::default();
    let mut candidates = 0u64;
    match config.params.neighbour_mode {
        NeighbourMode::Radius => {
            hash.visit_block(p, 1, |run, offset, fold| {
                candidates += run.len() as u64;
                for j in run {
                    let d = hash.delta(p, j, offset, fold);
                    let d2 = d.length_squared();
                    if d2 < r2 && j != slot && in_view(d, v, view) {
                        let same = species[j] == own_species;
                        sums.add(d, d2, velocities[j], same, sep2, || tie_break(slot, j));
                    }
                }
            });
        }
        NeighbourMode::Topological { k } => {
            nearest.set_k(usize::from(k));
            let reach = config.params.perception_radius * NeighbourMode::TOPOLOGICAL_REACH;
            hash.k_nearest_into(
                p,
                reach,
                |hit| {
                    candidates += 1;
                    hit.slot != slot && in_view(hit.delta, v, view)
                },
                nearest,
            );
            for hit in nearest.as_slice() {
                let same = species[hit.slot] == own_species;
                let j = hit.slot;
                sums.add(
                    hit.delta,
                    hit.distance_squared,
                    velocities[j],
                    same,
                    sep2,
                    || tie_break(slot, j),
                );
            }
        }
    }
    (sums, candidates)
}

/// Adds the three flocking rules to every boid's [`Acceleration`], in parallel.
///
/// Boids with [`Arrive`] (units) get separation only. A boid spawned since the hash was built
/// has no slot yet and waits for the next step.
pub(crate) fn flock(
    config: Res<StepConfig>,
    hash: Res<SpatialHash>,
    mut boids: Query<(&HashSlot, &mut Acceleration, Option<&MaxSpeed>, Has<Arrive>), With<Boid>>,
    mut counts: Local<Parallel<PassCounts>>,
    scratch: Local<Parallel<Option<KNearest>>>,
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
            let (sums, candidates) = scratch.scope(|nearest| {
                let nearest = nearest.get_or_insert_with(|| KNearest::new(0));
                neighbour_sums(&hash, &config, slot, nearest)
            });
            let v = hash.velocities()[slot];
            let speed = max_speed.map_or(params.max_speed, |m| m.0);
            acceleration.0 += flocking_force(&sums, v, speed, params.max_force, weights, unit);
            counts.scope(|c| {
                c.candidates += candidates;
                c.neighbours += u64::from(sums.neighbours);
            });
        });
    let (mut candidates, mut neighbours) = (0, 0);
    for c in counts.iter_mut() {
        candidates += c.candidates;
        neighbours += c.neighbours;
        *c = PassCounts::default();
    }
    stats.candidates = candidates;
    stats.neighbours = neighbours;
}
