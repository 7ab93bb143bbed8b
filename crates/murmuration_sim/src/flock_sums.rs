//! [`flock_sums`]: the neighbour sums of every boid in the hash at once, in slot (cell) order and
//! in parallel. This is the flocking rules' whole neighbour search, and what the steering
//! benchmark times.

use core::ops::Range;

use bevy::prelude::*;

use crate::behaviours::{FlockSums, RuleWeights, flocking_force, tie_break};
use crate::bounds::SimulationBounds;
use crate::hash::{HashHit, KNearest, Motion, SpatialHash};
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
    min: 256,
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
    // Only sized, not cleared: the pass writes every slot (clearing 100,000 slots costs a
    // serial pass over 3 MB).
    out.sums.resize(n, FlockSums::default());
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
        let motions = &self.hash.arrays().motions[first..];
        plain_forces(sums, motions, self.params, forces);
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

/// Boids whose flocking forces [`plain_forces`] computes side by side.
const FORCE_LANES: usize = 8;

/// [`flocking_force`] of plain boids (at the params' `max_speed`, not units) for every slot of
/// `sums`, with `motions` the slots' positions and velocities, [`FORCE_LANES`] boids at a time: the
/// same operations in the same order lane by lane, so the same bits. Where the CPU has AVX2 a
/// block is written with its intrinsics ([`avx2::forces`]: a compiler left to vectorise the
/// portable lanes, [`forces_lanes`], does them one boid at a time), else it is the portable one.
fn plain_forces(sums: &[FlockSums], motions: &[Motion], params: &FlockParams, out: &mut [Vec2]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        #[target_feature(enable = "avx2")]
        fn avx2(s: &[FlockSums], m: &[Motion], p: &FlockParams, out: &mut [Vec2]) {
            // SAFETY: this function is only called on a CPU with AVX2.
            plain_forces_in(s, m, p, out, |block| unsafe { avx2::forces(block) });
        }
        // SAFETY: the CPU was just checked to have AVX2.
        return unsafe { avx2(sums, motions, params, out) };
    }
    plain_forces_in(sums, motions, params, out, forces_lanes);
}

/// One block of [`FORCE_LANES`] boids for [`plain_forces`]: their sums and velocities, and the
/// params they share.
struct ForceBlock<'a> {
    sums: &'a [FlockSums; FORCE_LANES],
    vx: [f32; FORCE_LANES],
    vy: [f32; FORCE_LANES],
    speed: f32,
    max_force: f32,
    weights: RuleWeights,
}

/// The forces of one block, as `x` and `y` lanes.
type ForceLanes = ([f32; FORCE_LANES], [f32; FORCE_LANES]);

#[inline(always)]
fn plain_forces_in(
    sums: &[FlockSums],
    motions: &[Motion],
    params: &FlockParams,
    out: &mut [Vec2],
    forces: impl Fn(&ForceBlock) -> ForceLanes,
) {
    const N: usize = FORCE_LANES;
    let weights = RuleWeights::of(params);
    let (speed, max_force) = (params.max_speed, params.max_force);
    let whole = sums.len() / N * N;
    for i in (0..whole).step_by(N) {
        let block = ForceBlock {
            sums: sums[i..i + N].try_into().unwrap(),
            vx: core::array::from_fn(|l| motions[i + l].velocity.x),
            vy: core::array::from_fn(|l| motions[i + l].velocity.y),
            speed,
            max_force,
            weights,
        };
        let (fx, fy) = forces(&block);
        for (l, out) in out[i..i + N].iter_mut().enumerate() {
            *out = Vec2::new(fx[l], fy[l]);
        }
    }
    for i in whole..sums.len() {
        let v = motions[i].velocity;
        let separation = params.separation_distance;
        out[i] = flocking_force(&sums[i], v, speed, max_force, weights, false, separation);
    }
}

/// The portable block of [`plain_forces`]: [`flocking_force`] lane by lane, with `&`/`|` and
/// selects for its branches.
#[inline(always)]
fn forces_lanes(b: &ForceBlock) -> ForceLanes {
    const N: usize = FORCE_LANES;
    let (s, weights) = (b.sums, b.weights);
    let lanes = |f: fn(&FlockSums) -> f32| -> [f32; N] { core::array::from_fn(|l| f(&s[l])) };
    let steer = |x, y| steer_lanes(x, y, &b.vx, &b.vy, b.speed, b.max_force);
    let (ax, ay) = steer(lanes(|s| s.separation.x), lanes(|s| s.separation.y));
    let (bx, by) = steer(lanes(|s| s.alignment.x), lanes(|s| s.alignment.y));
    let same = lanes(|s| s.same_species as f32);
    let cx: [f32; N] = core::array::from_fn(|l| s[l].cohesion.x / same[l]);
    let cy: [f32; N] = core::array::from_fn(|l| s[l].cohesion.y / same[l]);
    let (cx, cy) = steer(cx, cy);
    let (mut fx, mut fy) = ([0.0; N], [0.0; N]);
    for l in 0..N {
        fx[l] = ax[l] * weights.separation;
        fy[l] = ay[l] * weights.separation;
        if s[l].same_species > 0 {
            fx[l] = fx[l] + bx[l] * weights.alignment + cx[l] * weights.cohesion;
            fy[l] = fy[l] + by[l] * weights.alignment + cy[l] * weights.cohesion;
        }
    }
    (fx, fy)
}

/// [`steer`](crate::behaviours::steer) of `FORCE_LANES` directions `(x, y)` from the velocities
/// `(vx, vy)`, lane by lane with glam's operations: normalize by `1 / sqrt(x^2 + y^2)` (zero when
/// that is not finite and positive), scale to `speed`, subtract the velocity, cap the length at
/// `max_force`.
#[inline(always)]
fn steer_lanes(
    x: [f32; FORCE_LANES],
    y: [f32; FORCE_LANES],
    vx: &[f32; FORCE_LANES],
    vy: &[f32; FORCE_LANES],
    speed: f32,
    max_force: f32,
) -> ([f32; FORCE_LANES], [f32; FORCE_LANES]) {
    let max = max_force.max(0.0);
    let (mut ox, mut oy) = ([0.0; FORCE_LANES], [0.0; FORCE_LANES]);
    for l in 0..FORCE_LANES {
        let rcp = 1.0 / (x[l] * x[l] + y[l] * y[l]).sqrt();
        let some = rcp.is_finite() & (rcp > 0.0);
        let ex = x[l] * rcp * speed - vx[l];
        let ey = y[l] * rcp * speed - vy[l];
        let length2 = ex * ex + ey * ey;
        let length = length2.sqrt();
        let over = length2 > max * max;
        let cx = if over { max * (ex / length) } else { ex };
        let cy = if over { max * (ey / length) } else { ey };
        ox[l] = if some { cx } else { 0.0 };
        oy[l] = if some { cy } else { 0.0 };
    }
    (ox, oy)
}

/// The AVX2 block of [`plain_forces`]: [`forces_lanes`] with 256-bit intrinsics, one register
/// per lane array and masks and blends for its branches.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use core::arch::x86_64::*;

    use super::{FORCE_LANES, ForceBlock, ForceLanes};
    use crate::behaviours::FlockSums;

    /// [`super::forces_lanes`], the same operations in the same order in every lane.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    pub(super) unsafe fn forces(b: &ForceBlock) -> ForceLanes {
        // SAFETY: the caller runs on a CPU with AVX2; every load reads one whole array.
        unsafe {
            let s = b.sums;
            let lanes = |f: fn(&FlockSums) -> f32| {
                let a: [f32; FORCE_LANES] = core::array::from_fn(|l| f(&s[l]));
                _mm256_loadu_ps(a.as_ptr())
            };
            let (vx, vy) = (
                _mm256_loadu_ps(b.vx.as_ptr()),
                _mm256_loadu_ps(b.vy.as_ptr()),
            );
            let steer = |x, y| steer(x, y, vx, vy, b.speed, b.max_force);
            let (ax, ay) = steer(lanes(|s| s.separation.x), lanes(|s| s.separation.y));
            let (bx, by) = steer(lanes(|s| s.alignment.x), lanes(|s| s.alignment.y));
            let same = lanes(|s| s.same_species as f32);
            let cx = _mm256_div_ps(lanes(|s| s.cohesion.x), same);
            let cy = _mm256_div_ps(lanes(|s| s.cohesion.y), same);
            let (cx, cy) = steer(cx, cy);
            let w = |x: f32| _mm256_set1_ps(x);
            let (ws, wa, wc) = (
                w(b.weights.separation),
                w(b.weights.alignment),
                w(b.weights.cohesion),
            );
            // `same_species > 0`: the lanes with alignment and cohesion.
            let flocking = _mm256_cmp_ps::<_CMP_GT_OQ>(same, _mm256_setzero_ps());
            let rules = |a, b, c| {
                let separated = _mm256_mul_ps(a, ws);
                let all = _mm256_add_ps(
                    _mm256_add_ps(separated, _mm256_mul_ps(b, wa)),
                    _mm256_mul_ps(c, wc),
                );
                _mm256_blendv_ps(separated, all, flocking)
            };
            let (mut fx, mut fy) = ([0.0; FORCE_LANES], [0.0; FORCE_LANES]);
            _mm256_storeu_ps(fx.as_mut_ptr(), rules(ax, bx, cx));
            _mm256_storeu_ps(fy.as_mut_ptr(), rules(ay, by, cy));
            (fx, fy)
        }
    }

    /// [`super::steer_lanes`] in registers.
    #[inline(always)]
    unsafe fn steer(
        x: __m256,
        y: __m256,
        vx: __m256,
        vy: __m256,
        speed: f32,
        max_force: f32,
    ) -> (__m256, __m256) {
        // SAFETY: only reached from `forces`, which runs on a CPU with AVX2.
        unsafe {
            let max = max_force.max(0.0);
            let length = _mm256_sqrt_ps(_mm256_add_ps(_mm256_mul_ps(x, x), _mm256_mul_ps(y, y)));
            let rcp = _mm256_div_ps(_mm256_set1_ps(1.0), length);
            // `rcp.is_finite() & (rcp > 0)`: `|rcp| < inf` is false for NaN and infinities.
            let abs = _mm256_andnot_ps(_mm256_set1_ps(-0.0), rcp);
            let some = _mm256_and_ps(
                _mm256_cmp_ps::<_CMP_LT_OQ>(abs, _mm256_set1_ps(f32::INFINITY)),
                _mm256_cmp_ps::<_CMP_GT_OQ>(rcp, _mm256_setzero_ps()),
            );
            let speed = _mm256_set1_ps(speed);
            let ex = _mm256_sub_ps(_mm256_mul_ps(_mm256_mul_ps(x, rcp), speed), vx);
            let ey = _mm256_sub_ps(_mm256_mul_ps(_mm256_mul_ps(y, rcp), speed), vy);
            let length2 = _mm256_add_ps(_mm256_mul_ps(ex, ex), _mm256_mul_ps(ey, ey));
            let length = _mm256_sqrt_ps(length2);
            let over = _mm256_cmp_ps::<_CMP_GT_OQ>(length2, _mm256_set1_ps(max * max));
            let max = _mm256_set1_ps(max);
            let cx = _mm256_blendv_ps(ex, _mm256_mul_ps(max, _mm256_div_ps(ex, length)), over);
            let cy = _mm256_blendv_ps(ey, _mm256_mul_ps(max, _mm256_div_ps(ey, length)), over);
            (_mm256_and_ps(cx, some), _mm256_and_ps(cy, some))
        }
    }
}

#[cfg(test)]
mod tests {
    use bevy::prelude::*;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::{forces_lanes, plain_forces, plain_forces_in};
    use crate::behaviours::{FlockSums, RuleWeights, flocking_force};
    use crate::hash::Motion;
    use crate::params::FlockParams;

    /// The side-by-side forces are [`flocking_force`]'s, bit for bit, zero sums and lone boids
    /// included.
    #[test]
    fn plain_forces_are_flocking_force() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let mut v = || Vec2::new(rng.random::<f32>() - 0.5, rng.random::<f32>() - 0.5) * 200.0;
        let n = 1003;
        let sums: Vec<FlockSums> = (0..n)
            .map(|i| FlockSums {
                separation: if i % 7 == 0 { Vec2::ZERO } else { v() * 0.01 },
                alignment: if i % 5 == 0 { Vec2::ZERO } else { v() * 4.0 },
                cohesion: v() * 3.0,
                same_species: (i % 4) as u32,
                neighbours: (i % 6) as u32,
            })
            .collect();
        let velocities: Vec<Vec2> = (0..n).map(|_| v()).collect();
        let motions: Vec<Motion> = velocities
            .iter()
            .map(|&velocity| Motion {
                position: Vec2::ZERO,
                velocity,
            })
            .collect();
        for params in [FlockParams::starlings(), FlockParams::default()] {
            // The build this CPU runs (AVX2 where it has it), and the portable one.
            let mut out = vec![Vec2::ZERO; n];
            plain_forces(&sums, &motions, &params, &mut out);
            let mut portable = vec![Vec2::ZERO; n];
            plain_forces_in(&sums, &motions, &params, &mut portable, forces_lanes);
            let weights = RuleWeights::of(&params);
            for i in 0..n {
                let bits = |v: Vec2| v.to_array().map(f32::to_bits);
                assert_eq!(bits(portable[i]), bits(out[i]), "slot {i}");
                let want = flocking_force(
                    &sums[i],
                    velocities[i],
                    params.max_speed,
                    params.max_force,
                    weights,
                    false,
                    params.separation_distance,
                );
                assert_eq!(
                    out[i].to_array().map(f32::to_bits),
                    want.to_array().map(f32::to_bits)
                );
            }
        }
    }
}
