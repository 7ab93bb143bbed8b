//! Who a boid reacts to: [`Perception`] (radius, field of view, metric or topological) and
//! [`for_each_neighbour`], the neighbour walk every flocking rule and debug overlay shares.

use bevy::prelude::*;

use crate::behaviours::{in_view, view_cos};
use crate::bounds::SimulationBounds;
use crate::hash::{HashHit, KNearest, SpatialHash};
use crate::params::{FlockParams, NeighbourMode};

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

/// How far and how wide a boid sees, derived from [`FlockParams`].
#[derive(Reflect, Debug, Clone, Copy, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct Perception {
    /// Metric or topological neighbours.
    pub mode: NeighbourMode,
    /// Perception radius, world units.
    pub radius: f32,
    /// [`view_cos`] of the field of view.
    pub view_cos: f32,
}

impl Perception {
    /// The perception of boids flying under `params`.
    pub fn new(params: &FlockParams) -> Self {
        Self {
            mode: params.neighbour_mode,
            radius: params.perception_radius,
            view_cos: view_cos(params.field_of_view),
        }
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
    mut f: impl FnMut(HashHit),
) -> u64 {
    let p = hash.position(slot);
    let v = hash.velocity(slot);
    let view = perception.view_cos;
    let mut candidates = 0u64;
    match perception.mode {
        NeighbourMode::Radius => {
            let r2 = perception.radius * perception.radius;
            hash.visit_block(p, 1, |run, offset, fold| {
                candidates += run.len() as u64;
                for j in run {
                    let delta = hash.delta(p, j, offset, fold);
                    let distance_squared = delta.length_squared();
                    if distance_squared < r2 && j != slot && in_view(delta, v, view) {
                        f(HashHit {
                            slot: j,
                            delta,
                            distance_squared,
                        });
                    }
                }
            });
        }
        NeighbourMode::Topological { k } => {
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
        }
    }
    candidates
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

/// The neighbours of the boid in `slot`, collected, for tools and debug overlays (the simulation
/// itself never allocates per boid).
pub fn neighbours_of(hash: &SpatialHash, perception: &Perception, slot: usize) -> Vec<HashHit> {
    let mut out = Vec::new();
    let mut nearest = KNearest::new(0);
    for_each_neighbour(hash, perception, slot, &mut nearest, |hit| out.push(hit));
    out
}

/// The slot of the boid nearest to `point` (for picking one with the mouse), if any.
pub fn slot_nearest(hash: &SpatialHash, point: Vec2) -> Option<usize> {
    hash.nearest(point, f32::INFINITY, |_| true)
        .map(|hit| hit.slot)
}
