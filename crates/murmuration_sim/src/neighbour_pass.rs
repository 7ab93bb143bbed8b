//! [`neighbour_sums`]: the neighbour sums of every boid in the hash at once, in slot (cell)
//! order and in parallel. This is the flocking rules' whole neighbour search, and what the
//! steering benchmark times.

use core::ops::Range;

use crate::bounds::SimulationBounds;
use crate::hash::{KNearest, SpatialHash};
use crate::kernel::{PassCounts, slot_sums};
use crate::neighbours::{NeighbourSearch, walk_sums};
use crate::parallel::{Parts, fold_parts};
use crate::rules::NeighbourSums;
use crate::table::FlockTable;

/// How the slots are cut over threads: many parts a thread, so that threads finish close
/// together though cells differ in cost.
const PARTS: Parts = Parts {
    min: 256,
    per_thread: 32,
};

/// Fills `out` with the [`NeighbourSums`] of every boid in `hash` (by slot), each seeing as its
/// flock in `table` says, and returns what the pass counted.
///
/// Boids are taken in slot order, which is cell order: the boids of one cell share their block
/// of cells, found once, and read the same candidates while they are in cache (the kernel). The
/// slots are split over Bevy's compute task pool; each slot's result depends only on the hash,
/// so it is the same on any number of threads. With [`NeighbourSearch::BruteForce`], or in a
/// world so small that the block of cells around a boid folds onto itself, every boid walks its
/// neighbours one at a time instead.
pub fn neighbour_sums(
    hash: &SpatialHash,
    table: &FlockTable,
    bounds: &SimulationBounds,
    search: NeighbourSearch,
    out: &mut Vec<NeighbourSums<f32>>,
) -> PassCounts {
    let n = hash.len();
    // Only sized, not cleared: the pass writes every slot.
    out.resize(n, NeighbourSums::zero());
    let walk = search == NeighbourSearch::BruteForce || hash.folds(1);
    let brute_force = (search == NeighbourSearch::BruteForce).then_some(bounds);
    let part = |(slots, out): (Range<usize>, &mut [NeighbourSums<f32>])| {
        if !walk {
            return slot_sums(hash, table, slots.start, out);
        }
        let mut counts = PassCounts::default();
        let mut nearest = KNearest::new(0);
        for (slot, sums) in slots.zip(out) {
            let (s, candidates) = walk_sums(hash, table, brute_force, slot, &mut nearest);
            counts.candidates += candidates;
            counts.neighbours += u64::from(s.neighbour_count());
            *sums = s;
        }
        counts
    };
    fold_parts((0..n, &mut out[..]), PARTS, part, PassCounts::plus)
}
