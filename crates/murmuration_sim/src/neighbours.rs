//! Who a boid reacts to: [`Perception`] (radius, field of view, metric or topological) and
//! [`for_each_neighbour`], the neighbour walk that topological neighbours, the brute-force
//! reference and the debug overlays share (the kernel finds metric neighbours itself, with the
//! same test, [`rules::sees`]).

use bevy::prelude::*;

use crate::behaviours::{in_view, tie_break};
use crate::bounds::SimulationBounds;
use crate::hash::{HashHit, KNearest, SpatialHash, stride_for};
use crate::lanes::Coords;
use crate::math::{DIM, Vector};
use crate::params::NeighbourMode;
use crate::rules::{self, Candidate, NeighbourSums, Observer, accumulate_coincident};
use crate::table::{FlockTable, Perception};

/// How the flocking rules find each boid's neighbours.
///
/// [`Grid`](Self::Grid) (the default) checks only the 3x3 block of hash cells around a boid;
/// [`BruteForce`](Self::BruteForce) checks every other boid, `O(n^2)`: the reference that the
/// grid is tested and benchmarked against, with the same neighbours and so the same flock up to
/// float rounding. Other queries (flee, hunt, obstacles, metrics) always use the grid.
#[derive(Resource, Reflect, Debug, Clone, Copy, Default, PartialEq, Eq)]
#[reflect(Resource, Debug, Clone, Default, PartialEq)]
pub enum NeighbourSearch {
    /// The spatial hash's 3x3 block of cells.
    #[default]
    Grid,
    /// Every other boid.
    BruteForce,
}

/// Calls `f` for every neighbour of the boid in `slot` of the frozen hash, in hash order, and
/// returns how many candidates it checked.
///
/// A neighbour is another boid, visible within the field of view
/// (`dot(d, v) >= cos(fov / 2) |d| |v|`), and either within the perception radius
/// ([`NeighbourMode::Radius`]: the 3x3 block of cells around the boid, each row one or two
/// contiguous slices) or among the `k` nearest such boids within
/// [`NeighbourMode::TOPOLOGICAL_REACH`] radii ([`NeighbourMode::Topological`], which needs the
/// scratch list `nearest`).
#[inline]
pub fn for_each_neighbour(
    hash: &SpatialHash,
    perception: &Perception,
    slot: usize,
    nearest: &mut KNearest,
    f: impl FnMut(HashHit),
) -> u64 {
    match perception.mode {
        NeighbourMode::Radius => walk_radius(hash, perception, slot, 1, f),
        NeighbourMode::Topological { k } => {
            let (p, v, view) = (
                hash.position(slot),
                hash.velocity(slot),
                perception.view_cos,
            );
            let mut candidates = 0u64;
            nearest.set_k(usize::from(k));
            let reach = perception.radius * NeighbourMode::TOPOLOGICAL_REACH;
            hash.k_nearest_into(
                p,
                reach,
                |hit| {
                    candidates += 1;
                    hit.slot != slot && in_view(hit.delta, v, view)
                },
                nearest,
            );
            nearest.as_slice().iter().copied().for_each(f);
            candidates
        }
    }
}

/// The most candidates one boid checks in a step, about. Where the block of cells around a boid
/// holds more (a flock crushed into a few cells, as a predator herds it), the boid checks every
/// `k`-th group of 8 candidates, `k = ceil(block / CANDIDATE_CAP)`, and counts each neighbour it
/// finds `k` times. Alignment and cohesion, which use means, are unbiased; the separation push
/// and the neighbour count are estimates. A crush then costs at most about this many checks per
/// boid instead of growing with the square of the crowd.
///
/// 256 in 2D, 1,024 in 3D: a block of 3x3x3 cells holds about four times the boids of a block of
/// 3x3 at the same spacing, and a flock that keeps its spacing must stay under the cap, since a
/// sampled boid misses most of its nearest neighbours and the flock crushes further. Measured
/// (the spacing tests, 8,000 sheep pulled to a point in 3D): nearest neighbours at 0.91
/// separation distances with a cap of 1,024 (the cap never bites), 0.62 with 512, 0.41 with 256.
pub const CANDIDATE_CAP: usize = if DIM == 2 { 256 } else { 1024 };

/// [`for_each_neighbour`] by checking every other boid in the hash instead of the cells around
/// `slot` ([`NeighbourSearch::BruteForce`]): the same neighbours, in slot order, measured to the
/// nearest image under `bounds`. Returns the candidates checked (`n - 1`).
pub fn for_each_neighbour_brute_force(
    hash: &SpatialHash,
    bounds: &SimulationBounds,
    perception: &Perception,
    slot: usize,
    nearest: &mut KNearest,
    f: impl FnMut(HashHit),
) -> u64 {
    let p = hash.position(slot);
    let v = hash.velocity(slot);
    let view = perception.view_cos;
    let others = (0..hash.len()).filter(|&j| j != slot).map(|j| {
        let delta = bounds.delta(p, hash.position(j));
        HashHit {
            slot: j,
            delta,
            distance_squared: delta.length_squared(),
        }
    });
    match perception.mode {
        NeighbourMode::Radius => {
            let r2 = perception.radius * perception.radius;
            others
                .filter(|hit| hit.distance_squared < r2 && in_view(hit.delta, v, view))
                .for_each(f);
        }
        NeighbourMode::Topological { k } => {
            nearest.set_k(usize::from(k));
            let reach = perception.radius * NeighbourMode::TOPOLOGICAL_REACH;
            let reach2 = reach * reach;
            others
                .filter(|hit| hit.distance_squared < reach2 && in_view(hit.delta, v, view))
                .for_each(|hit| nearest.offer(hit));
            nearest.as_slice().iter().copied().for_each(f);
        }
    }
    hash.len().saturating_sub(1) as u64
}

/// The boid in `slot` as one observer, seeing as its flock does.
pub(crate) fn observer_of(hash: &SpatialHash, table: &FlockTable, slot: usize) -> Observer<f32> {
    let row = table.row(hash.flock_of(slot));
    Observer::new(
        Coords::of(hash.position(slot)),
        Coords::of(hash.velocity(slot)),
        hash.key_of(slot),
        row.perception2,
        row.separation2,
        row.view_cos2,
    )
}

/// The [`NeighbourSums`] of the boid in `slot` through the neighbour walk, one neighbour at a
/// time ([`rules::accumulate`] on `f32`), and the candidates it checked: for topological
/// neighbours, a world so small the block of cells folds onto itself, and (with `brute_force`
/// set to the world's bounds) the brute-force reference.
pub(crate) fn walk_sums(
    hash: &SpatialHash,
    table: &FlockTable,
    brute_force: Option<&SimulationBounds>,
    slot: usize,
    nearest: &mut KNearest,
) -> (NeighbourSums<f32>, u64) {
    let o = observer_of(hash, table, slot);
    let perception = table.row(hash.flock_of(slot)).perception();
    let mut sums = NeighbourSums::zero();
    let add = |hit: HashHit| {
        let j = hit.slot;
        let c = Candidate {
            position: Coords::of(hash.position(slot) + hit.delta),
            velocity: Coords::of(hash.velocity(j)),
            key: hash.key_of(j),
        };
        if hit.distance_squared > 0.0 {
            let d = Coords::of(hit.delta);
            rules::accumulate(&mut sums, &o, true, d, hit.distance_squared, &c);
        } else {
            accumulate_coincident(&mut sums, &o, &c, Coords::of(tie_break(slot, j)));
        }
    };
    let (candidates, stride) = match brute_force {
        None if perception.mode == NeighbourMode::Radius => {
            for_each_sampled_neighbour(hash, &perception, slot, add)
        }
        None => (for_each_neighbour(hash, &perception, slot, nearest, add), 1),
        Some(bounds) => (
            for_each_neighbour_brute_force(hash, bounds, &perception, slot, nearest, add),
            1,
        ),
    };
    if stride > 1 {
        sums = sums.scaled(stride as f32);
    }
    (sums, candidates)
}

/// [`for_each_neighbour`] for metric neighbours, but where the cells around `slot` hold more
/// than [`CANDIDATE_CAP`] boids, only every [`sample_stride`]-th of them, as the kernel samples
/// a crowded block (a world so small that its cells fold onto each other is one crowd: every
/// boid sees every other). Returns the candidates checked and the stride.
fn for_each_sampled_neighbour(
    hash: &SpatialHash,
    perception: &Perception,
    slot: usize,
    f: impl FnMut(HashHit),
) -> (u64, usize) {
    let mut boids = 0;
    hash.visit_block(hash.position(slot), 1, |run, _, _| boids += run.len());
    let stride = sample_stride(boids);
    (walk_radius(hash, perception, slot, stride, f), stride)
}

/// The metric neighbours of the boid in `slot` among every `stride`-th boid of the cells
/// around it (counted across the cells' runs, so a sample is spread over the whole block).
/// Returns the candidates checked.
fn walk_radius(
    hash: &SpatialHash,
    perception: &Perception,
    slot: usize,
    stride: usize,
    mut f: impl FnMut(HashHit),
) -> u64 {
    let (p, v) = (hash.position(slot), hash.velocity(slot));
    let r2 = perception.radius * perception.radius;
    hash.visit_every(p, 1, stride, |j, delta| {
        let distance_squared = delta.length_squared();
        if distance_squared < r2 && j != slot && in_view(delta, v, perception.view_cos) {
            f(HashHit {
                slot: j,
                delta,
                distance_squared,
            });
        }
    })
}

/// How sparsely a block of cells holding `boids` boids is sampled: every `k`-th candidate (the
/// kernel: every `k`-th group of eight), `k = ceil(boids / CANDIDATE_CAP)`; 1 within the cap.
pub(crate) fn sample_stride(boids: usize) -> usize {
    stride_for(boids, CANDIDATE_CAP)
}

/// The neighbours of the boid in `slot`, collected, for tools and debug overlays (the simulation
/// itself never allocates per boid).
pub fn neighbours_of(hash: &SpatialHash, perception: &Perception, slot: usize) -> Vec<HashHit> {
    let mut out = Vec::new();
    let mut nearest = KNearest::new(0);
    for_each_neighbour(hash, perception, slot, &mut nearest, |hit| out.push(hit));
    out
}

/// The slot of the boid nearest to `point` (for picking one with the mouse), if any.
pub fn slot_nearest(hash: &SpatialHash, point: Vector) -> Option<usize> {
    hash.nearest(point, f32::INFINITY, |_| true)
        .map(|hit| hit.slot)
}
