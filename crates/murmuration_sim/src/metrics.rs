//! Numbers that describe a flock's shape, computed from the [`SpatialHash`] snapshot: how
//! ordered it is, how tight, in how many groups, how crowded, whether it mills. [`FlockMetrics`]
//! holds them, refreshed every [`MetricsSettings::every`] steps.

use core::ops::Range;
use core::sync::atomic::AtomicU32;
use core::sync::atomic::Ordering::Relaxed;

use bevy::prelude::*;
use bevy::tasks::{ComputeTaskPool, TaskPool};

use crate::bounds::SimulationBounds;
use crate::hash::SpatialHash;
use crate::parallel::{Parts, for_each_part, run_each, workers};
use crate::params::FlockParams;

/// Polarization, the Vicsek order parameter `|sum(v / |v|)| / n`: 1 when every boid flies the
/// same way, near 0 when headings are random. Boids that do not move are left out; `None` if
/// none moves.
pub fn polarization(velocities: impl IntoIterator<Item = Vec2>) -> Option<f32> {
    let (mut sum, mut n) = (Vec2::ZERO, 0u32);
    for v in velocities {
        if let Some(u) = v.try_normalize() {
            sum += u;
            n += 1;
        }
    }
    (n > 0).then(|| sum.length() / n as f32)
}

/// Mean distance from each boid to its nearest other boid (nearest image when the edges wrap),
/// world units; `None` with fewer than two boids. A flock of more than [`SAMPLED_BOIDS`] is
/// measured on that many boids spread over it.
pub fn mean_nearest_neighbour_distance(hash: &SpatialHash) -> Option<f32> {
    if hash.len() < 2 {
        return None;
    }
    let slots = sample(hash.len());
    let n = slots.len();
    let total: f64 = slots
        .filter_map(|i| hash.nearest(hash.position(i), f32::INFINITY, |hit| hit.slot != i))
        .map(|hit| f64::from(hit.distance_squared.sqrt()))
        .sum();
    Some((total / n as f64) as f32)
}

/// The most boids the nearest-neighbour metrics look at: a larger flock is measured on every
/// `k`-th boid in slot order (cell by cell, so spread over the whole flock), which keeps a
/// refresh of a 100,000-boid flock to a few milliseconds instead of tens. Below it the metrics
/// are exact.
pub const SAMPLED_BOIDS: usize = 8192;

/// The slots the nearest-neighbour metrics look at, out of `n`.
fn sample(n: usize) -> core::iter::StepBy<core::ops::Range<usize>> {
    (0..n).step_by(n.div_ceil(SAMPLED_BOIDS).max(1))
}

/// Share of boids with another boid closer than `distance` (a separation violation), 0 to 1;
/// over [`SAMPLED_BOIDS`] of them in a larger flock.
pub fn share_closer_than(hash: &SpatialHash, distance: f32) -> f32 {
    if hash.is_empty() {
        return 0.0;
    }
    let slots = sample(hash.len());
    let n = slots.len();
    let crowded = slots
        .filter(|&i| {
            hash.nearest(hash.position(i), distance, |hit| hit.slot != i)
                .is_some()
        })
        .count();
    crowded as f32 / n as f32
}

/// Groups of boids linked by chains of neighbours closer than `radius` (union-find over the
/// hash's [pairs within `radius`](SpatialHash::for_each_pair_within)): how many groups, and how
/// many boids the largest holds. The pairs are found and joined in parts on Bevy's compute task
/// pool (started with its defaults if no app has started it); the result does not depend on the
/// number of threads.
pub fn groups(hash: &SpatialHash, radius: f32) -> (usize, usize) {
    groups_in(hash, radius, &mut MetricsScratch::default())
}

/// What a metrics refresh keeps from one refresh to the next, so that once its buffers have
/// grown to the flock it allocates nothing.
#[derive(Debug, Default)]
pub(crate) struct MetricsScratch {
    /// [`groups`]' union-find: each boid's parent.
    parent: Vec<AtomicU32>,
    /// [`groups`]' boids under each root.
    sizes: Vec<AtomicU32>,
    /// The runs of one cell's block, for each part of [`groups`]' pass over the pairs.
    runs: Vec<Vec<(Range<usize>, Vec2, BVec2)>>,
}

/// [`groups`] with the buffers of `scratch`: the pairs found and joined in parts on the compute
/// task pool, into one union-find that every part links into at once. Which part links what
/// first changes the trees, never the groups, so the result is the same on any thread count.
fn groups_in(hash: &SpatialHash, radius: f32, scratch: &mut MetricsScratch) -> (usize, usize) {
    let n = hash.len();
    if n == 0 {
        return (0, 0);
    }
    let MetricsScratch {
        parent,
        sizes,
        runs,
    } = scratch;
    parent.clear();
    parent.extend((0..n as u32).map(AtomicU32::new));
    sizes.clear();
    sizes.resize_with(n, || AtomicU32::new(0));
    let pool = ComputeTaskPool::get_or_init(TaskPool::default);
    let parts = workers(pool) * PARTS_PER_THREAD;
    runs.resize_with(parts.max(runs.len()), Vec::new);
    let parent = &parent[..];
    run_each(
        hash.cell_parts(parts).zip(runs.iter_mut()),
        |(cells, runs)| {
            hash.for_each_pair_within_cells(radius, cells, runs, |a, b| {
                join(parent, a as u32, b as u32);
            });
        },
    );
    for_each_part(0..n, Parts::EVEN, |slots| {
        for i in slots {
            sizes[root(parent, i as u32) as usize].fetch_add(1, Relaxed);
        }
    });
    let sizes = sizes.iter().map(|s| s.load(Relaxed));
    let count = sizes.clone().filter(|&s| s > 0).count();
    let largest = sizes.max().unwrap_or(0) as usize;
    (count, largest)
}

/// Parts a thread of [`groups`]' pass over the pairs, whose cost varies from cell to cell.
const PARTS_PER_THREAD: usize = 8;

/// The root of `i`'s tree, pointing each boid on the way at its grandparent (path halving).
///
/// Every boid's parent is a boid with a lower index, or itself for a root: a boid is only ever
/// pointed at an ancestor, and a root only ever hung under a lower root (see [`join`]), so the
/// trees have no cycles whatever threads do at once.
fn root(parent: &[AtomicU32], mut i: u32) -> u32 {
    loop {
        let up = parent[i as usize].load(Relaxed);
        if up == i {
            return i;
        }
        let above = parent[up as usize].load(Relaxed);
        // A plain store: `i` is no root, so no link can be lost, and whatever another thread
        // stores here at the same time is an ancestor of `i` too (trees only ever merge).
        parent[i as usize].store(above, Relaxed);
        i = above;
    }
}

/// Puts `a` and `b` in one tree: the larger of their roots hung under the smaller, if it is
/// still a root when the link is made (else another thread linked it first, and the roots are
/// looked up again).
fn join(parent: &[AtomicU32], a: u32, b: u32) {
    let (mut a, mut b) = (a, b);
    loop {
        (a, b) = (root(parent, a), root(parent, b));
        if a == b {
            return;
        }
        let (lo, hi) = (a.min(b), a.max(b));
        if parent[hi as usize]
            .compare_exchange(hi, lo, Relaxed, Relaxed)
            .is_ok()
        {
            return;
        }
    }
}

/// Milling, the rotation order parameter `|sum((r_i x v_i) / (|r_i| |v_i|))| / n`, with `r_i`
/// from the flock's centre: 1 when every boid circles the centre the same way (a fish mill),
/// near 0 for a flock that flies straight or at random. Under wrapping edges the centre is the
/// circular mean of the positions, so a flock across the seam still has one. `None` with fewer
/// than two boids.
pub fn milling(hash: &SpatialHash, bounds: &SimulationBounds) -> Option<f32> {
    if hash.len() < 2 {
        return None;
    }
    let centre = flock_centre(hash, bounds);
    let (mut sum, mut n) = (0.0f64, 0u32);
    for (p, v) in hash.positions().zip(hash.velocities()) {
        let r = bounds.delta(centre, p);
        let (lr, lv) = (r.length(), v.length());
        if lr > 0.0 && lv > 0.0 {
            sum += f64::from(r.perp_dot(v) / (lr * lv));
            n += 1;
        }
    }
    (n > 0).then(|| (sum.abs() / f64::from(n)) as f32)
}

/// The centre of the flock: the mean position, or under wrapping edges the circular mean on each
/// axis (so a flock straddling the seam is centred on the seam, not in the middle of the world).
pub fn flock_centre(hash: &SpatialHash, bounds: &SimulationBounds) -> Vec2 {
    let n = hash.len().max(1) as f32;
    if !bounds.wraps() {
        return hash.positions().fold(Vec2::ZERO, |a, p| a + p) / n;
    }
    let (min, size) = (bounds.rect.min, bounds.rect.size());
    let (mut cx, mut sx, mut cy, mut sy) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
    for p in hash.positions() {
        let a = (p - min) / size * core::f32::consts::TAU;
        cx += a.x.cos();
        sx += a.x.sin();
        cy += a.y.cos();
        sy += a.y.sin();
    }
    let angle = |c: f32, s: f32| s.atan2(c).rem_euclid(core::f32::consts::TAU);
    min + Vec2::new(angle(cx, sx), angle(cy, sy)) / core::f32::consts::TAU * size
}

/// Mean speed, world units per second; 0 for no boids.
pub fn mean_speed(hash: &SpatialHash) -> f32 {
    let n = hash.len().max(1) as f32;
    hash.velocities().map(Vec2::length).sum::<f32>() / n
}

/// The flock's shape, refreshed every [`MetricsSettings::every`] steps from the step's snapshot.
/// All zero until the first refresh.
#[derive(Resource, Reflect, Debug, Clone, Default, PartialEq)]
#[reflect(Resource, Debug, Clone, Default)]
pub struct FlockMetrics {
    /// The step these numbers are from.
    pub step: u64,
    /// Boids measured.
    pub boids: usize,
    /// [`polarization`], 0 to 1.
    pub polarization: f32,
    /// [`mean_nearest_neighbour_distance`], world units.
    pub nn_distance: f32,
    /// Groups of boids linked through neighbours within the perception radius ([`groups`]).
    pub groups: usize,
    /// The largest group's share of the flock, 0 to 1.
    pub largest_share: f32,
    /// Share of boids with a neighbour closer than the separation distance
    /// ([`share_closer_than`]), 0 to 1.
    pub violations: f32,
    /// [`milling`], 0 to 1.
    pub milling: f32,
    /// [`mean_speed`], world units per second.
    pub mean_speed: f32,
}

impl FlockMetrics {
    /// The mean of `samples`, field by field (groups rounded); the step and boid count of the
    /// last. Zero for no samples.
    pub fn mean(samples: &[FlockMetrics]) -> Self {
        let n = samples.len().max(1) as f32;
        let avg = |f: fn(&FlockMetrics) -> f32| samples.iter().map(f).sum::<f32>() / n;
        Self {
            step: samples.last().map_or(0, |m| m.step),
            boids: samples.last().map_or(0, |m| m.boids),
            polarization: avg(|m| m.polarization),
            nn_distance: avg(|m| m.nn_distance),
            groups: avg(|m| m.groups as f32).round() as usize,
            largest_share: avg(|m| m.largest_share),
            violations: avg(|m| m.violations),
            milling: avg(|m| m.milling),
            mean_speed: avg(|m| m.mean_speed),
        }
    }

    /// Measures the flock in `hash` under `params` and `bounds`.
    pub fn measure(hash: &SpatialHash, params: &FlockParams, bounds: &SimulationBounds) -> Self {
        Self::measure_in(hash, params, bounds, &mut MetricsScratch::default())
    }

    /// [`Self::measure`] with the buffers of `scratch`.
    fn measure_in(
        hash: &SpatialHash,
        params: &FlockParams,
        bounds: &SimulationBounds,
        scratch: &mut MetricsScratch,
    ) -> Self {
        let (groups, largest) = groups_in(hash, params.perception_radius, scratch);
        Self {
            step: 0,
            boids: hash.len(),
            polarization: polarization(hash.velocities()).unwrap_or(0.0),
            nn_distance: mean_nearest_neighbour_distance(hash).unwrap_or(0.0),
            groups,
            largest_share: largest as f32 / hash.len().max(1) as f32,
            violations: share_closer_than(hash, params.separation_distance),
            milling: milling(hash, bounds).unwrap_or(0.0),
            mean_speed: mean_speed(hash),
        }
    }
}

/// How often [`FlockMetrics`] is refreshed.
#[derive(Resource, Reflect, Debug, Clone, PartialEq, Eq)]
#[reflect(Resource, Debug, Clone)]
pub struct MetricsSettings {
    /// Refresh every this many steps; 0 never. Default 30 (twice a second at 60 steps a second).
    /// A refresh is not cheap at scale: measured on a 2-core machine with both cores, about
    /// 2.4 ms for 10,000 boids and 10 ms for 100,000 (13 ms on one core). Most of it is
    /// [`groups`], a union-find over every pair of neighbours, cut into parts on the compute
    /// task pool; the rest runs on one thread (the nearest-neighbour metrics look at
    /// [`SAMPLED_BOIDS`] at most). A refresh keeps its buffers, so after the first it allocates
    /// nothing. For a very large flock set it higher, or to 0 if nothing reads
    /// [`FlockMetrics`].
    pub every: u32,
}

impl Default for MetricsSettings {
    fn default() -> Self {
        Self { every: 30 }
    }
}

/// Refreshes [`FlockMetrics`] every [`MetricsSettings::every`] steps.
pub(crate) fn refresh_metrics(
    settings: Res<MetricsSettings>,
    stats: Res<crate::stats::FlockStats>,
    hash: Res<SpatialHash>,
    params: Res<FlockParams>,
    bounds: Res<SimulationBounds>,
    mut metrics: ResMut<FlockMetrics>,
    mut scratch: Local<MetricsScratch>,
) {
    if settings.every == 0 || !stats.steps.is_multiple_of(u64::from(settings.every)) {
        return;
    }
    *metrics = FlockMetrics {
        step: stats.steps,
        ..FlockMetrics::measure_in(&hash, &params, &bounds, &mut scratch)
    };
}

/// A headless run to measure: a flock flown from its seed in its own app for `seconds` of
/// simulated time at `steps_per_second`.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredRun {
    /// The flock's parameters.
    pub params: FlockParams,
    /// Its world.
    pub bounds: SimulationBounds,
    /// Its boids.
    pub population: crate::population::FlockPopulation,
    /// Simulated seconds.
    pub seconds: f32,
    /// Fixed steps per simulated second.
    pub steps_per_second: f64,
}

impl MeasuredRun {
    /// Flies the run and returns the mean [`FlockMetrics`] over its last fifth (sampled at every
    /// refresh, every 30 steps).
    pub fn measure(&self) -> FlockMetrics {
        use bevy::time::TimeUpdateStrategy;
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .add_plugins(
                crate::plugin::BoidsPlugin::new(FixedUpdate)
                    .with_params(self.params.clone())
                    .with_bounds(self.bounds),
            )
            .insert_resource(Time::<Fixed>::from_hz(self.steps_per_second))
            .insert_resource(TimeUpdateStrategy::FixedTimesteps(1))
            .insert_resource(self.population.clone());
        let steps = (f64::from(self.seconds) * self.steps_per_second).round() as u64;
        let mut samples = Vec::new();
        let mut last = 0;
        // The first update only starts the clock.
        while app.world().resource::<crate::stats::FlockStats>().steps < steps {
            app.update();
            let metrics = app.world().resource::<FlockMetrics>();
            if metrics.step != last && metrics.step * 5 >= steps * 4 {
                samples.push(metrics.clone());
            }
            last = metrics.step;
        }
        FlockMetrics::mean(&samples)
    }
}

#[cfg(test)]
mod tests {
    use bevy::prelude::*;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::{SAMPLED_BOIDS, groups, mean_nearest_neighbour_distance, share_closer_than};
    use crate::{SimulationBounds, SpatialHash};

    /// The groups [`groups`] finds in parts on every thread, linking into one union-find at
    /// once, are those of a plain union-find over the same pairs on one thread: on flocks of
    /// many clumps of different sizes and spreads (some touching, some apart), at radii within
    /// one cell and across two.
    #[test]
    fn groups_match_a_serial_union_find() {
        fn serial(hash: &SpatialHash, radius: f32) -> (usize, usize) {
            fn find(parent: &mut [usize], mut i: usize) -> usize {
                while parent[i] != i {
                    i = parent[i];
                }
                i
            }
            let mut parent: Vec<usize> = (0..hash.len()).collect();
            hash.for_each_pair_within(radius, |a, b| {
                let (a, b) = (find(&mut parent, a), find(&mut parent, b));
                parent[a.max(b)] = a.min(b);
            });
            let mut sizes = vec![0; hash.len()];
            for i in 0..hash.len() {
                sizes[find(&mut parent, i)] += 1;
            }
            let count = sizes.iter().filter(|&&s| s > 0).count();
            (count, sizes.into_iter().max().unwrap_or(0))
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let bounds = SimulationBounds::wrap(Rect::new(0.0, 0.0, 4000.0, 4000.0));
        for (n, clumps) in [(20_000u32, 60), (6_000, 900), (30_000, 4)] {
            let clumps: Vec<(Vec2, f32)> = (0..clumps)
                .map(|_| {
                    let centre = Vec2::new(rng.random::<f32>(), rng.random::<f32>()) * 4000.0;
                    (centre, 5.0 + 300.0 * rng.random::<f32>())
                })
                .collect();
            let boids: Vec<(Entity, Vec2, Vec2, u16)> = (0..n)
                .map(|i| {
                    let (centre, spread) = clumps[i as usize % clumps.len()];
                    let offset = Vec2::new(rng.random::<f32>(), rng.random::<f32>()) - 0.5;
                    let p = (centre + offset * spread).rem_euclid(Vec2::splat(4000.0));
                    (Entity::from_raw_u32(i + 1).unwrap(), p, Vec2::X, 0)
                })
                .collect();
            let mut hash = SpatialHash::default();
            hash.rebuild(&bounds, 30.0, &boids);
            for radius in [8.0, 30.0, 45.0] {
                let want = serial(&hash, radius);
                assert!(
                    want.0 > 1,
                    "the flock falls in several groups ({n}, {radius})"
                );
                assert_eq!(groups(&hash, radius), want, "{n} boids, radius {radius}");
            }
        }
    }

    /// On a flock larger than the sample, the sampled nearest-neighbour metrics stay within a
    /// few percent of the exact ones over every boid.
    #[test]
    fn sampled_metrics_match_the_exact_ones() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let n = 3 * SAMPLED_BOIDS;
        let bounds = SimulationBounds::wrap(Rect::new(0.0, 0.0, 3000.0, 3000.0));
        let boids: Vec<(Entity, Vec2, Vec2, u16)> = (0..n as u32)
            .map(|i| {
                let p = Vec2::new(rng.random::<f32>(), rng.random::<f32>()) * 3000.0;
                (Entity::from_raw_u32(i + 1).unwrap(), p, Vec2::X, 0)
            })
            .collect();
        let mut hash = SpatialHash::default();
        hash.rebuild(&bounds, 60.0, &boids);
        let nearest = |i: usize| {
            hash.nearest(hash.position(i), f32::INFINITY, |hit| hit.slot != i)
                .unwrap()
                .distance_squared
                .sqrt()
        };
        let exact_nn = (0..n).map(|i| f64::from(nearest(i))).sum::<f64>() / n as f64;
        let exact_close = (0..n).filter(|&i| nearest(i) < 10.0).count() as f32 / n as f32;
        let nn = f64::from(mean_nearest_neighbour_distance(&hash).unwrap());
        let close = share_closer_than(&hash, 10.0);
        assert!(
            (nn - exact_nn).abs() < 0.03 * exact_nn,
            "{nn} vs {exact_nn}"
        );
        assert!(
            (close - exact_close).abs() < 0.03,
            "{close} vs {exact_close}"
        );
    }
}
