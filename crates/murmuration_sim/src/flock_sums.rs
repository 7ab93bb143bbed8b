//! [`flock_sums`]: the neighbour sums of every boid in the hash at once, in slot (cell) order and
//! in parallel. This is the flocking rules' whole neighbour search, and what the steering
//! benchmark times.

use core::ops::Range;

use bevy::prelude::*;

use crate::behaviours::{FlockSums, RuleWeights, flocking_force, tie_break};
use crate::bounds::SimulationBounds;
use crate::hash::{HashHit, KNearest, SpatialHash};
use crate::kernel::slot_sums;
use crate::neighbours::{
    NeighbourSearch, Perception, for_each_neighbour, for_each_neighbour_brute_force,
};
use crate::parallel::{Parts, fold_parts};
use crate::params::{FlockParams, NeighbourMode};

/// What a pass over the flock counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PassCounts {
    /// Candidates checked (distance tests).
    pub candidates: u64,
    /// Neighbours found.
    pub neighbours: u64,
}

/// How the slots are cut over threads: many parts a thread, so that threads finish close
/// together though cells differ in cost.
const PARTS: Parts = Parts {
    min: 2048,
    per_thread: 32,
};

/// What [`flock_sums`] computes for every slot of the hash.
#[derive(Debug, Clone, Default)]
pub struct FlockSlots {
    /// Each boid's neighbour sums.
    pub sums: Vec<FlockSums>,
    /// Each boid's flocking force as a plain boid: flying at the params' `max_speed`, not a unit.
    /// Boids with a `MaxSpeed` or `Arrive` get theirs from `sums` instead.
    pub forces: Vec<Vec2>,
}

/// Fills `out` for every boid in `hash`, as the flocking rules see them under `params`, and
/// returns what the pass counted.
///
/// Boids are taken in slot order, which is cell order: the boids of one cell share their 3x3
/// block of cells, found once, and read the same candidates while they are in cache. The slots
/// are split over Bevy's compute task pool; each slot's result depends only on the hash, so it
/// is the same on any number of threads.
pub fn flock_sums(
    hash: &SpatialHash,
    params: &FlockParams,
    bounds: &SimulationBounds,
    search: NeighbourSearch,
    out: &mut FlockSlots,
) -> PassCounts {
    let pass = Pass {
        hash,
        bounds,
        search,
        perception: Perception::new(params),
        separation2: params.separation_distance * params.separation_distance,
        params,
    };
    let n = hash.len();
    out.sums.clear();
    out.sums.resize(n, FlockSums::default());
    out.forces.clear();
    out.forces.resize(n, Vec2::ZERO);
    let slots = (0..n, &mut out.sums[..], &mut out.forces[..]);
    let sums = |(slots, sums, forces): (Range<usize>, _, _)| pass.run(slots.start, sums, forces);
    fold_parts(slots, PARTS, sums, |a, b| PassCounts {
        candidates: a.candidates + b.candidates,
        neighbours: a.neighbours + b.neighbours,
    })
}

/// One pass's fixed inputs.
struct Pass<'a> {
    hash: &'a SpatialHash,
    bounds: &'a SimulationBounds,
    search: NeighbourSearch,
    perception: Perception,
    separation2: f32,
    params: &'a FlockParams,
}

impl Pass<'_> {
    /// The sums and forces of the slots `first..first + sums.len()`.
    fn run(&self, first: usize, sums: &mut [FlockSums], forces: &mut [Vec2]) -> PassCounts {
        let counts = self.sums(first, sums);
        let params = self.params;
        let weights = RuleWeights::of(params);
        for ((slot, s), force) in (first..).zip(sums.iter()).zip(forces.iter_mut()) {
            *force = flocking_force(
                s,
                self.hash.velocity(slot),
                params.max_speed,
                params.max_force,
                weights,
                false,
                params.separation_distance,
            );
        }
        counts
    }

    /// The sums of the slots `first..first + out.len()`.
    fn sums(&self, first: usize, out: &mut [FlockSums]) -> PassCounts {
        let kernel = self.search == NeighbourSearch::Grid
            && self.perception.mode == NeighbourMode::Radius
            && !self.hash.folds(1);
        if kernel {
            return slot_sums(self.hash, &self.perception, self.separation2, first, out);
        }
        let mut counts = PassCounts::default();
        let mut nearest = KNearest::new(0);
        for (slot, sums) in (first..).zip(out.iter_mut()) {
            let (s, candidates) = self.walk(slot, &mut nearest);
            counts.candidates += candidates;
            counts.neighbours += u64::from(s.neighbours);
            *sums = s;
        }
        counts
    }

    /// The sums of one boid through the plain neighbour walk: topological neighbours, a world
    /// so small the 3x3 block folds onto itself, or brute force.
    fn walk(&self, slot: usize, nearest: &mut KNearest) -> (FlockSums, u64) {
        let hash = self.hash;
        let species = hash.species();
        let own_species = species[slot];
        let mut sums = FlockSums::default();
        let add = |hit: HashHit| {
            let j = hit.slot;
            sums.add(
                hit.delta,
                hit.distance_squared,
                hash.velocity(j),
                species[j] == own_species,
                self.separation2,
                || tie_break(slot, j),
            );
        };
        let candidates = match self.search {
            NeighbourSearch::Grid => for_each_neighbour(hash, &self.perception, slot, nearest, add),
            NeighbourSearch::BruteForce => for_each_neighbour_brute_force(
                hash,
                self.bounds,
                &self.perception,
                slot,
                nearest,
                add,
            ),
        };
        (sums, candidates)
    }
}
