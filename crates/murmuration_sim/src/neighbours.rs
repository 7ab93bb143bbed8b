//! Who a boid reacts to: [`Perception`] (radius, field of view, metric or topological) and
//! [`for_each_neighbour`], the neighbour walk that topological neighbours, the brute-force
//! reference and the debug overlays share (the kernel finds metric neighbours itself, with the
//! same test, [`rules::sees`]).

use bevy::prelude::*;

use crate::block::Block;
use crate::bounds::SimulationBounds;
use crate::hash::{HashHit, KNearest, SpatialHash};
use crate::lanes::{Coords, fill};
use crate::math::Vector;
use crate::params::NeighbourMode;
use crate::rules::{
    self, Candidate, NeighbourSums, Observer, VIEW_ALL, VIEW_NARROW, VIEW_WIDE,
    accumulate_coincident, view_kind,
};
use crate::sample::{CANDIDATE_CAP, Sample};
use crate::steering::tie_break;
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

/// Field of view: `dot(d, v) / (|d| |v|) >= view_cos`, without a square root or division
/// (`rules::in_view` for one boid).
///
/// A boid that does not move (`v = 0`) sees all around, and so does one with `view_cos <= -1`.
#[inline]
pub fn in_view(d: Vector, v: Vector, view_cos: f32) -> bool {
    let d = Coords::of(d);
    let d2 = d.length_squared();
    let o = Observer::new(
        Coords::zero(),
        Coords::of(v),
        0,
        0.0,
        0.0,
        view_cos * view_cos,
    );
    match view_kind(view_cos) {
        VIEW_ALL => true,
        VIEW_NARROW => rules::in_view::<f32, VIEW_NARROW>(&o, d, d2),
        _ => rules::in_view::<f32, VIEW_WIDE>(&o, d, d2),
    }
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
        NeighbourMode::Radius => {
            let block = Block::around(hash, slot);
            let mut f = f;
            walk_radius(hash, perception, slot, &block, &Sample::ALL, |hit, _| {
                f(hit)
            })
            .0
        }
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
    // The own cell and the unsampled block, and a crowded block's sample, weighed apart.
    let mut parts = [NeighbourSums::zero(); 2];
    let add = |hit: HashHit, sampled: bool| {
        let sums = &mut parts[usize::from(sampled)];
        let j = hit.slot;
        let c = Candidate {
            position: Coords::of(hash.position(slot) + hit.delta),
            velocity: Coords::of(hash.velocity(j)),
            key: hash.key_of(j),
        };
        if hit.distance_squared > 0.0 {
            let d = Coords::of(hit.delta);
            rules::accumulate(sums, &o, true, d, hit.distance_squared, &c);
        } else {
            accumulate_coincident(sums, &o, &c, Coords::of(tie_break(slot, j)));
        }
    };
    let (candidates, weight) = match brute_force {
        None if perception.mode == NeighbourMode::Radius => {
            for_each_sampled_neighbour(hash, &perception, slot, add)
        }
        None => {
            let mut add = add;
            let visited = for_each_neighbour(hash, &perception, slot, nearest, |h| add(h, false));
            (visited, 1.0)
        }
        Some(bounds) => {
            let mut add = add;
            let visited =
                for_each_neighbour_brute_force(hash, bounds, &perception, slot, nearest, |h| {
                    add(h, false)
                });
            (visited, 1.0)
        }
    };
    let [own, rest] = parts;
    let (a, b) = (own.fields(), rest.scaled(weight));
    let b = *b.fields();
    let sums = NeighbourSums::from_fields(fill(0.0, |f| a[f] + b[f]));
    (sums, candidates)
}

/// [`for_each_neighbour`] for metric neighbours, but where the cells around `slot` hold more
/// than [`CANDIDATE_CAP`] boids, only their [`Sample`], as the kernel takes it (a world so small
/// that its cells fold onto each other is one crowd: every boid sees every other): `f(hit,
/// sampled)`, `sampled` for a neighbour found in the sample of the rest of the block. Returns the
/// candidates checked and what each of the rest's stands for ([`Sample::weight`]).
fn for_each_sampled_neighbour(
    hash: &SpatialHash,
    perception: &Perception,
    slot: usize,
    f: impl FnMut(HashHit, bool),
) -> (u64, f32) {
    let block = Block::around(hash, slot);
    let sample = block.sample(CANDIDATE_CAP, hash.turn());
    let (checked, rest) = walk_radius(hash, perception, slot, &block, &sample, f);
    (checked, sample.weight(block.boids(), rest as usize))
}

/// The metric neighbours of the boid in `slot` among the `sample` of `block`, the block of cells
/// around it: `f(hit, sampled)` as [`Sample::visit`] says. Returns the candidates checked, and
/// those of them in the sample of the rest.
fn walk_radius(
    hash: &SpatialHash,
    perception: &Perception,
    slot: usize,
    block: &Block,
    sample: &Sample,
    mut f: impl FnMut(HashHit, bool),
) -> (u64, u64) {
    let (p, v) = (hash.position(slot), hash.velocity(slot));
    let r2 = perception.radius * perception.radius;
    let (mut checked, mut rest) = (0, 0);
    sample.visit(block.runs(), |slots, offset, sampled| {
        checked += slots.len() as u64;
        if sampled {
            rest += slots.len() as u64;
        }
        for j in slots {
            let delta = block.delta(hash, p, j, offset);
            let distance_squared = delta.length_squared();
            if distance_squared < r2 && j != slot && in_view(delta, v, perception.view_cos) {
                let hit = HashHit {
                    slot: j,
                    delta,
                    distance_squared,
                };
                f(hit, sampled);
            }
        }
    });
    (checked, rest)
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
