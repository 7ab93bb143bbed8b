//! Numbers that describe a flock's shape, computed from the [`SpatialHash`] snapshot: how
//! ordered it is, how tight, in how many groups, how crowded, whether it mills. [`FlockMetrics`]
//! holds them for the default flock, and [`FlockShape`] for each [`Flock`],
//! refreshed every [`MetricsSettings::every`] steps.
//!
//! Every measure takes the boids it describes as [`Members`]: the whole hash, or one flock.
//!
//! # What the presets measure like
//!
//! Each preset from seed 1 for 60 simulated seconds, at 1,000, 10,000 and 100,000 boids in a world
//! of 1,080 square units a boid, flying freely and pulled to an attractor at the centre (as the
//! starlings' roost), mean of the last fifth (12 s); `nn / sep` is the mean nearest-neighbour
//! distance over the separation distance (commit 67f973b; the fish rows since the fish's
//! `max_force` went from 180 to 120). The `report` example prints two lines a preset, one free
//! and one pulled:
//!
//! ```sh
//! cargo run --release --example report -- --seed 1 --boids 1000 --seconds 60
//! cargo run --release --example report -- --seed 1 --boids 100000 --seconds 60   # minutes a preset
//! ```
//!
//! | preset | boids | case | polarization | nn distance | nn / sep | groups | largest share | milling | mean speed |
//! |--------|------:|------|-------------:|------------:|---------:|-------:|--------------:|--------:|-----------:|
//! | starlings | 1,000 | free | 0.95 | 18.4 | 0.84 | 1 | 1.00 | 0.03 | 92.2 |
//! | starlings | 1,000 | pulled | 0.13 | 14.6 | 0.66 | 1 | 1.00 | 0.83 | 91.4 |
//! | starlings | 10,000 | free | 0.53 | 17.0 | 0.77 | 1 | 1.00 | 0.28 | 92.6 |
//! | starlings | 10,000 | pulled | 0.18 | 12.9 | 0.59 | 1 | 1.00 | 0.77 | 91.1 |
//! | starlings | 100,000 | free | 0.27 | 17.5 | 0.80 | 5 | 1.00 | 0.34 | 92.6 |
//! | starlings | 100,000 | pulled | 0.06 | 11.6 | 0.53 | 5 | 0.99 | 0.75 | 91.1 |
//! | fish | 1,000 | free | 0.82 | 14.9 | 0.83 | 1 | 1.00 | 0.19 | 54.6 |
//! | fish | 1,000 | pulled | 0.91 | 11.9 | 0.66 | 1 | 1.00 | 0.17 | 51.1 |
//! | fish | 10,000 | free | 0.65 | 13.8 | 0.77 | 3 | 0.89 | 0.23 | 53.4 |
//! | fish | 10,000 | pulled | 0.46 | 11.6 | 0.65 | 1 | 1.00 | 0.21 | 52.1 |
//! | fish | 100,000 | free | 0.08 | 13.9 | 0.77 | 15 | 0.34 | 0.07 | 53.7 |
//! | fish | 100,000 | pulled | 0.48 | 10.2 | 0.57 | 2 | 1.00 | 0.05 | 51.7 |
//! | sheep | 1,000 | free | 0.03 | 24.8 | 0.96 | 1 | 1.00 | 0.02 | 5.5 |
//! | sheep | 1,000 | pulled | 0.04 | 21.1 | 0.81 | 1 | 1.00 | 0.01 | 5.0 |
//! | sheep | 10,000 | free | 0.01 | 23.4 | 0.90 | 1 | 1.00 | 0.01 | 5.3 |
//! | sheep | 10,000 | pulled | 0.01 | 20.4 | 0.78 | 1 | 1.00 | 0.01 | 5.0 |
//! | sheep | 100,000 | free | 0.00 | 22.3 | 0.86 | 1 | 1.00 | 0.00 | 5.1 |
//! | sheep | 100,000 | pulled | 0.00 | 20.8 | 0.80 | 1 | 1.00 | 0.00 | 5.0 |
//! | tutorial (defaults) | 1,000 | free | 0.81 | 11.3 | 0.45 | 2 | 0.95 | 0.16 | 40.6 |
//! | tutorial (defaults) | 1,000 | pulled | 0.95 | 0.8 | 0.03 | 1 | 1.00 | 0.02 | 40.0 |
//! | tutorial (defaults) | 10,000 | free | 0.73 | 7.1 | 0.29 | 6 | 0.82 | 0.41 | 40.3 |
//! | tutorial (defaults) | 10,000 | pulled | 0.95 | 0.2 | 0.01 | 1 | 1.00 | 0.02 | 40.0 |
//! | tutorial (defaults) | 100,000 | free | 0.09 | 7.9 | 0.31 | 65 | 0.15 | 0.11 | 40.4 |
//! | tutorial (defaults) | 100,000 | pulled | 0.28 | 7.2 | 0.29 | 1 | 1.00 | 0.13 | 40.3 |
//!
//! The presets give way to crowding and keep their spacing at every size flying freely (0.77-0.96
//! separation distances), and pulled at 1,000 and 10,000; the tutorial's exact rule
//! (`crowding_comfort` 0, kept for the tests of the seeds' claims) crushes when pulled, the more the
//! bigger the flock, and clumps into knots even flying freely at 10,000. Big free schools of fish
//! break into polarized groups that wheel against each other (polarization of the whole drops),
//! where 1,000 fish turn as one. A minute is not a steady state at 100,000 (below), so the
//! spacing claim is measured after the flock has settled: flown until its mean nearest-neighbour
//! distance moves less than 2% over 30 s (`MeasuredRun::measure_settled`, 180 s at most; 60-120 s
//! here), on three seeds (`cargo bench -p murmuration_sim --bench spacing -- --preset fish
//! --boids 100000 --seed 1 --pulled`). Nearest neighbours over the separation distance, seeds
//! 1 / 2 / 3:
//!
//! | preset | case | 1,000 | 100,000 | 1,000 over 100,000 |
//! |--------|------|------:|--------:|-------------------:|
//! | fish | pulled | 0.691 / 0.685 / 0.674 | 0.542 / 0.548 / 0.540 | 1.27 / 1.25 / 1.25x |
//! | fish | free | 0.820 / 0.808 / 0.799 | 0.768 / 0.765 / 0.753 | 1.07 / 1.06 / 1.06x |
//! | starlings | pulled | 0.664 / 0.661 / 0.668 | 0.537 / 0.536 / 0.524 | 1.24 / 1.23 / 1.27x |
//! | starlings | free | 0.844 / 0.837 / 0.814 | 0.775 / 0.781 / 0.773 | 1.09 / 1.07 / 1.05x |
//!
//! Pulled to one point, 100,000 boids sit within 1.3x of 1,000 on every seed, and flying freely
//! within 1.1x; the pulled core of a flock that big is still tighter than at 1,000 (0.52-0.55).
//!
//! Two things make up the gap:
//! - **The rim.** A flock's rim is looser than its core, and the rim is a far bigger share of 1,000
//!   boids than of 100,000. At 1,000, fish from seed 3 have a core at 0.62-0.67 and a rim at
//!   0.72-0.81.
//! - **The squeeze of the arrival.** 100,000 fish from seed 3 stream in until their core is
//!   squeezed to 0.44-0.47 at 30 s. At 60 s the core is back at 0.51-0.53, and the school is
//!   still swelling. The whole school measures 0.55 over 96-120 s and 0.54 over 144-180 s.
//!
//! A minute is also short at that size: from the far corner of the release, the centre is 57 s
//! away at the starlings' speed, 103 s at the fish's and 131 s at the tutorial's (whose pulled
//! flock is still gathering, hence its 0.29). Sheep never get there within the minute, at any
//! size.
//!
//! (Flocks are chaotic: a change in float rounding, such as the order in which the neighbour
//! kernel adds its lanes, or in the order the boids are spawned in, moves these numbers a little;
//! the tests assert bands, not values.)
//!
//! # Why the presets give way to crowding
//!
//! Under the tutorial's rules every separation push is steered to the same capped force
//! however crowded a boid is, so nothing builds up against a pull on the whole flock (a roost, a
//! herding predator, strong cohesion): the flock crushes, and the bigger it is the harder (pulled to
//! a roost for a minute, the starlings' nearest neighbours sat at 0.20 separation distances with
//! 1,000 birds and 0.04 with 8,000). Real flocks keep their spacing at any size (Ballerini et al.
//! 2008). So the presets give way to crowding, as Reynolds' prioritised acceleration allocation
//! (1987) puts keeping apart first: from `crowding_comfort` on, a boid stops heeding what pulls it
//! toward the others and pushes harder, each boid on its own, so the pull no longer crushes the
//! flock (the table above: 0.59-0.96 separation distances at 1,000 and 10,000 boids, free and
//! pulled; pulled at 100,000 a flock still tightens toward its middle, to 0.51-0.57).
//! `crowding_comfort: 0.0`, the default, keeps the tutorial's rule exactly. The crowding is one more
//! sum of the neighbour pass (`NeighbourSums::crowding`), beside the separation push it reuses.
//!
//! What the presets promise, and the tests hold them to (`murmuration_tests`: `fidelity`, `rules`, `spacing`):
//! fish polarize more than sheep; sheep are a slow herd that hardly aligns and stays together;
//! starlings are the fastest, in one cloud; every preset but the tutorial keeps its nearest
//! neighbours at least half its separation distance apart at 1,000 and 8,000 boids, free and
//! pulled, within 1.25x between the sizes; separation alone disperses, alignment alone polarizes
//! above 0.9, cohesion alone clumps, and without separation boids pile onto each other (nearest neighbour
//! under a third of the distance with it). `violations` is near 1 for every preset, as the
//! tutorial's formulas make it: the separation distance is the reach of a soft push that fades
//! with distance, not a hard minimum, so the flock settles where that push balances cohesion,
//! inside it.
//!

use core::ops::Range;
use core::sync::atomic::AtomicU32;
use core::sync::atomic::Ordering::Relaxed;

use bevy::prelude::*;

use crate::bounds::SimulationBounds;
use crate::components::FlockId;
use crate::dim;
use crate::flock::Flock;
use crate::hash::SpatialHash;
use crate::math::{Vector, per_axis};
use crate::parallel::{Parts, for_each_part, pool, run_each, workers};
use crate::schedule::{AfterMove, schedule_of};
use crate::stats::FlockStats;
use crate::table::{FlockRow, FlockTable};

/// Measures the flocks' shapes every [`MetricsSettings::every`] steps: [`FlockMetrics`] for the
/// default flock, [`FlockShape`] on each [`Flock`].
#[derive(Debug, Clone, Default)]
pub struct MetricsPlugin;

impl Plugin for MetricsPlugin {
    fn is_unique(&self) -> bool {
        // Added twice, the second does nothing (see `StepPlugin`).
        false
    }

    fn build(&self, app: &mut App) {
        if app.is_plugin_added::<Self>() {
            return;
        }
        let schedule = schedule_of(app, "MetricsPlugin");
        if app
            .try_register_required_components::<Flock, FlockShape>()
            .is_err()
        {
            // A `Flock` spawned before the plugin: Bevy no longer lets `FlockShape` become
            // required, so the flocks there get it now and those to come from an observer.
            let world = app.world_mut();
            let flocks: Vec<Entity> = world
                .query_filtered::<Entity, (With<Flock>, Without<FlockShape>)>()
                .iter(world)
                .collect();
            for flock in flocks {
                world.entity_mut(flock).insert(FlockShape::default());
            }
            app.add_observer(|add: On<Add, Flock>, mut commands: Commands| {
                commands
                    .entity(add.entity)
                    .insert_if_new(FlockShape::default());
            });
        }
        app.register_type::<FlockMetrics>()
            .register_type::<FlockShape>()
            .register_type::<MetricsSettings>()
            .init_resource::<FlockMetrics>()
            .init_resource::<MetricsSettings>()
            .add_systems(schedule, refresh_metrics.in_set(AfterMove::Measure));
    }
}
/// The boids a measure describes: every boid of a hash, or the boids of one flock.
#[derive(Debug, Clone, Copy)]
pub struct Members<'a> {
    hash: &'a SpatialHash,
    flock: Option<FlockId>,
}

impl<'a> Members<'a> {
    /// Every boid in `hash`.
    pub fn all(hash: &'a SpatialHash) -> Self {
        Self { hash, flock: None }
    }

    /// The boids of `flock` in `hash`.
    pub fn of(hash: &'a SpatialHash, flock: FlockId) -> Self {
        Self {
            hash,
            flock: Some(flock),
        }
    }

    /// Whether the boid in `slot` is one of them.
    #[inline]
    pub fn contains(&self, slot: usize) -> bool {
        self.flock.is_none_or(|f| self.hash.flock_of(slot) == f)
    }

    /// Their slots, in slot order.
    pub fn slots(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.hash.len()).filter(|&i| self.contains(i))
    }

    /// How many.
    pub fn count(&self) -> usize {
        match self.flock {
            None => self.hash.len(),
            Some(_) => self.slots().count(),
        }
    }

    /// At most [`SAMPLED_BOIDS`] of their slots, spread over them: every `k`-th in slot order
    /// (cell by cell, so spread over the whole flock).
    fn sample(&self) -> impl Iterator<Item = usize> + '_ {
        let step = self.count().div_ceil(SAMPLED_BOIDS).max(1);
        self.slots().step_by(step)
    }

    /// The boids the nearest-neighbour metrics measure: [`Self::sample`], thinned further where
    /// their blocks of cells are crowded, so that finding the exact nearest of each checks
    /// about [`NEAREST_CHECKS`] boids in all (a search checks the block around its boid).
    fn nearest_sample(&self) -> impl Iterator<Item = usize> + '_ {
        let (mut blocks, mut n) = (0usize, 0usize);
        for i in self.sample() {
            blocks += self.hash.block_len(self.hash.position(i), 1);
            n += 1;
        }
        let searches = NEAREST_CHECKS / (blocks / n.max(1)).max(1);
        self.sample().step_by(n.div_ceil(searches.max(1)).max(1))
    }
}

/// A [`Flock`]'s [`FlockMetrics`] (every `Flock` has one while
/// [`MetricsPlugin`] is added), refreshed with the default flock's
/// ([`MetricsSettings::every`] steps).
#[derive(Component, Reflect, Debug, Clone, Default, PartialEq, Deref)]
#[reflect(Component, Debug, Clone, Default)]
pub struct FlockShape(pub FlockMetrics);

/// Polarization, the Vicsek order parameter `|sum(v / |v|)| / n`: 1 when every boid flies the
/// same way, near 0 when headings are random. Boids that do not move are left out; `None` if
/// none moves.
pub fn polarization(velocities: impl IntoIterator<Item = Vector>) -> Option<f32> {
    let (mut sum, mut n) = (Vector::ZERO, 0u32);
    for v in velocities {
        if let Some(u) = v.try_normalize() {
            sum += u;
            n += 1;
        }
    }
    (n > 0).then(|| sum.length() / n as f32)
}

/// Mean distance from each boid to its nearest other boid of the same members (nearest image
/// when the edges wrap), world units; `None` with fewer than two. More than [`SAMPLED_BOIDS`]
/// are measured on that many spread over them, and fewer where they crowd (see
/// [`NEAREST_CHECKS`]), each exactly.
pub fn mean_nearest_neighbour_distance(members: Members) -> Option<f32> {
    let hash = members.hash;
    let (mut total, mut n) = (0.0f64, 0u32);
    for i in members.nearest_sample() {
        let nearest = hash.nearest(hash.position(i), f32::INFINITY, |hit| {
            hit.slot != i && members.contains(hit.slot)
        });
        if let Some(hit) = nearest {
            total += f64::from(hit.distance_squared.sqrt());
            n += 1;
        }
    }
    (n > 0).then(|| (total / f64::from(n)) as f32)
}

/// The most boids the nearest-neighbour metrics look at: a larger flock is measured on every
/// `k`-th boid in slot order (cell by cell, so spread over the whole flock), which keeps a
/// refresh of a 100,000-boid flock to a few milliseconds instead of tens. Below it the metrics
/// are exact.
pub const SAMPLED_BOIDS: usize = 8192;

/// About how many boids the nearest-neighbour metrics check in one refresh: a search for a
/// boid's nearest checks the boids of the block of cells around it, so where blocks crowd they
/// search fewer boids, spread over the flock, each still exactly (a flock crushed onto one spot
/// is measured on a few dozen), and a refresh costs about what a spread flock's does (whose
/// [`SAMPLED_BOIDS`] searches check about a hundred boids each) instead of growing with the
/// square of the crowd.
pub const NEAREST_CHECKS: usize = 1 << 20;

/// Share of the members with another member closer than `distance` (a separation violation),
/// 0 to 1; over the boids [`mean_nearest_neighbour_distance`] measures.
pub fn share_closer_than(members: Members, distance: f32) -> f32 {
    let hash = members.hash;
    let (mut crowded, mut n) = (0u32, 0u32);
    for i in members.nearest_sample() {
        n += 1;
        let near = hash.nearest(hash.position(i), distance, |hit| {
            hit.slot != i && members.contains(hit.slot)
        });
        crowded += u32::from(near.is_some());
    }
    if n == 0 {
        0.0
    } else {
        crowded as f32 / n as f32
    }
}

/// How many partners [`groups`] joins a boid to at most: of the boids after it in the hash (in
/// its cell and the cells around) that are within the radius, the first this many, then it
/// stops looking. A boid with more partners is in a crowd, which they already join into one
/// group; so a flock crushed onto one spot costs a refresh about what a spread flock does
/// instead of the square of its size. (A boid all of whose partners stopped before reaching it
/// and that has none after it would count as a group of its own: only in such a crowd.)
pub const CROWD_LINKS: usize = 64;

/// Groups of members linked by chains of members closer than `radius` to each other
/// (union-find over the hash's [pairs within `radius`](SpatialHash::for_each_pair_within)):
/// how many groups, and how many boids the largest holds. In a crowd, a boid is joined to about
/// [`CROWD_LINKS`] of the boids after it in the hash that are within `radius`, not to every one
/// (see there). The pairs are found and joined in
/// parts on Bevy's compute task pool (started with its defaults if no app has started it); the
/// result does not depend on the number of threads.
pub fn groups(members: Members, radius: f32) -> (usize, usize) {
    groups_in(members, radius, &mut MetricsScratch::default())
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
    runs: Vec<Vec<(Range<usize>, Vector, crate::hash::Fold)>>,
}

/// [`groups`] with the buffers of `scratch`: the pairs found and joined in parts on the compute
/// task pool, into one union-find that every part links into at once. Which part links what
/// first changes the trees, never the groups, so the result is the same on any thread count.
fn groups_in(members: Members, radius: f32, scratch: &mut MetricsScratch) -> (usize, usize) {
    let hash = members.hash;
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
    let parts = workers(pool()) * PARTS_PER_THREAD;
    runs.resize_with(parts.max(runs.len()), Vec::new);
    let parent = &parent[..];
    // Cut by slots, not cells: with a perception radius as large as the world every boid is in
    // one cell, and a part of whole cells would be the whole flock on one thread.
    let slots = |p: usize| n * p / parts..n * (p + 1) / parts;
    run_each(
        (0..parts).map(slots).zip(runs.iter_mut()),
        |(slots, runs)| {
            hash.for_each_pair_within_slots(radius, slots, CROWD_LINKS, runs, |a, b| {
                if members.contains(a) && members.contains(b) {
                    join(parent, a as u32, b as u32);
                }
            });
        },
    );
    for_each_part(0..n, Parts::EVEN, |slots| {
        for i in slots {
            if members.contains(i) {
                sizes[root(parent, i as u32) as usize].fetch_add(1, Relaxed);
            }
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
/// from the members' centre: 1 when every boid circles the centre the same way (a fish mill),
/// near 0 for a flock that flies straight or at random. Under wrapping edges the centre is the
/// circular mean of the positions, so a flock across the seam still has one. `None` with fewer
/// than two.
pub fn milling(members: Members, bounds: &SimulationBounds) -> Option<f32> {
    if members.count() < 2 {
        return None;
    }
    let hash = members.hash;
    let centre = flock_centre(members, bounds)?;
    let (mut sum, mut n) = (0.0f64, 0u32);
    for i in members.slots() {
        let (p, v) = (hash.position(i), hash.velocity(i));
        if let Some(turn) = dim::turn_about_vertical(bounds.delta(centre, p), v) {
            sum += f64::from(turn);
            n += 1;
        }
    }
    (n > 0).then(|| (sum.abs() / f64::from(n)) as f32)
}

/// The centre of the members: the mean position, or under wrapping edges the circular mean on
/// each axis (so a flock straddling the seam is centred on the seam, not in the middle of the
/// world). `None` for no members.
pub fn flock_centre(members: Members, bounds: &SimulationBounds) -> Option<Vector> {
    let hash = members.hash;
    let positions = members.slots().map(|i| hash.position(i));
    if !bounds.wraps() {
        let (sum, n) = positions.fold((Vector::ZERO, 0u32), |(s, n), p| (s + p, n + 1));
        return (n > 0).then(|| sum / n as f32);
    }
    let (min, size) = (bounds.rect.min, bounds.rect.size());
    let (mut cos, mut sin, mut n) = (Vector::ZERO, Vector::ZERO, 0u32);
    for p in positions {
        let a = (p - min) / size * core::f32::consts::TAU;
        cos += per_axis(|i| a[i].cos());
        sin += per_axis(|i| a[i].sin());
        n += 1;
    }
    let angle = |c: f32, s: f32| s.atan2(c).rem_euclid(core::f32::consts::TAU);
    let angles = per_axis(|i| angle(cos[i], sin[i]));
    (n > 0).then(|| min + angles / core::f32::consts::TAU * size)
}

/// Mean speed of the members, world units per second; 0 for none.
pub fn mean_speed(members: Members) -> f32 {
    let hash = members.hash;
    let (sum, n) = members.slots().fold((0.0f32, 0u32), |(s, n), i| {
        (s + hash.velocity(i).length(), n + 1)
    });
    sum / n.max(1) as f32
}

/// A flock's shape, refreshed every [`MetricsSettings::every`] steps from the step's snapshot:
/// the resource describes the default flock, a [`FlockShape`] its [`Flock`]. All
/// zero until the first refresh.
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
    /// Share of boids with a neighbour of their flock closer than the separation distance
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

    /// Measures `members`, a flock flying by `row`, in a world with `bounds`.
    pub fn measure(members: Members, row: &FlockRow, bounds: &SimulationBounds) -> Self {
        Self::measure_in(members, row, bounds, &mut MetricsScratch::default())
    }

    /// [`Self::measure`] with the buffers of `scratch`.
    fn measure_in(
        members: Members,
        row: &FlockRow,
        bounds: &SimulationBounds,
        scratch: &mut MetricsScratch,
    ) -> Self {
        let hash = members.hash;
        let boids = members.count();
        let (groups, largest) = groups_in(members, row.perception_radius, scratch);
        let velocities = members.slots().map(|i| hash.velocity(i));
        Self {
            step: 0,
            boids,
            polarization: polarization(velocities).unwrap_or(0.0),
            nn_distance: mean_nearest_neighbour_distance(members).unwrap_or(0.0),
            groups,
            largest_share: largest as f32 / boids.max(1) as f32,
            violations: share_closer_than(members, row.separation_distance),
            milling: milling(members, bounds).unwrap_or(0.0),
            mean_speed: mean_speed(members),
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

/// Refreshes [`FlockMetrics`] and every [`FlockShape`] every [`MetricsSettings::every`] steps.
pub(crate) fn refresh_metrics(
    settings: Res<MetricsSettings>,
    stats: Res<FlockStats>,
    hash: Res<SpatialHash>,
    table: Res<FlockTable>,
    bounds: Res<crate::bounds::StepBounds>,
    mut metrics: ResMut<FlockMetrics>,
    mut flocks: Query<(Entity, &mut FlockShape), With<Flock>>,
    mut scratch: Local<MetricsScratch>,
) {
    if settings.every == 0 || !stats.steps.is_multiple_of(u64::from(settings.every)) {
        return;
    }
    let mut measure = |id: FlockId| FlockMetrics {
        step: stats.steps,
        ..FlockMetrics::measure_in(Members::of(&hash, id), table.row(id), &bounds, &mut scratch)
    };
    *metrics = measure(FlockId::DEFAULT);
    for (entity, mut shape) in &mut flocks {
        if let Some(id) = table.id_of(entity) {
            shape.0 = measure(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use bevy::prelude::*;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::{
        CROWD_LINKS, Members, NEAREST_CHECKS, SAMPLED_BOIDS, groups,
        mean_nearest_neighbour_distance, share_closer_than,
    };
    use crate::math::{Vector, region, xyz};
    use crate::{bounds::SimulationBounds, hash::SpatialHash};

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
        let bounds = SimulationBounds::wrap(region([0.0; 3], [4000.0; 3]));
        for (n, clumps) in [(20_000u32, 60), (6_000, 900), (30_000, 4)] {
            let clumps: Vec<(Vector, f32)> = (0..clumps)
                .map(|_| {
                    let centre = xyz([0.0; 3].map(|_| rng.random::<f32>())) * 4000.0;
                    (centre, 5.0 + 300.0 * rng.random::<f32>())
                })
                .collect();
            let boids: Vec<(Entity, Vector, Vector, u16)> = (0..n)
                .map(|i| {
                    let (centre, spread) = clumps[i as usize % clumps.len()];
                    let offset = xyz([0.0; 3].map(|_| rng.random::<f32>())) - 0.5;
                    let p = (centre + offset * spread).rem_euclid(Vector::splat(4000.0));
                    (Entity::from_raw_u32(i + 1).unwrap(), p, Vector::X, 0)
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
                assert_eq!(
                    groups(Members::all(&hash), radius),
                    want,
                    "{n} boids, radius {radius}"
                );
            }
        }
    }

    /// On a flock larger than the sample, the sampled nearest-neighbour metrics stay within a
    /// few percent of the exact ones over every boid.
    #[test]
    fn sampled_metrics_match_the_exact_ones() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let n = 3 * SAMPLED_BOIDS;
        let bounds = SimulationBounds::wrap(region([0.0; 3], [3000.0; 3]));
        let boids: Vec<(Entity, Vector, Vector, u16)> = (0..n as u32)
            .map(|i| {
                let p = xyz([0.0; 3].map(|_| rng.random::<f32>())) * 3000.0;
                (Entity::from_raw_u32(i + 1).unwrap(), p, Vector::X, 0)
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
        let nn = f64::from(mean_nearest_neighbour_distance(Members::all(&hash)).unwrap());
        let close = share_closer_than(Members::all(&hash), 10.0);
        assert!(
            (nn - exact_nn).abs() < 0.03 * exact_nn,
            "{nn} vs {exact_nn}"
        );
        assert!(
            (close - exact_close).abs() < 0.03,
            "{close} vs {exact_close}"
        );
    }

    /// The pairs of a walk cut into ranges of slots, anywhere (in the middle of a crowded cell
    /// too), are the pairs of the whole walk, in the same order, with or without a cap on links.
    #[test]
    fn pairs_cut_by_slots_are_the_whole_walks() {
        let bounds = SimulationBounds::wrap(region([0.0; 3], [400.0; 3]));
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(12);
        let n = 3_000u32;
        let boids: Vec<(Entity, Vector, Vector, u16)> = (0..n)
            .map(|i| {
                // Half crowded onto one spot, half spread.
                let p = if i % 2 == 0 {
                    xyz([100.0; 3]) + xyz([0.0; 3].map(|_| rng.random::<f32>()))
                } else {
                    xyz([0.0; 3].map(|_| rng.random::<f32>() * 400.0))
                };
                (Entity::from_raw_u32(i + 1).unwrap(), p, Vector::X, 0)
            })
            .collect();
        let mut hash = SpatialHash::default();
        hash.rebuild(&bounds, 40.0, &boids);
        for links in [usize::MAX, CROWD_LINKS] {
            let mut whole = Vec::new();
            let all = 0..hash.len();
            hash.for_each_pair_within_slots(40.0, all, links, &mut Vec::new(), |a, b| {
                whole.push((a, b));
            });
            for parts in [2, 7, 64] {
                let mut cut = Vec::new();
                for p in 0..parts {
                    let slots = hash.len() * p / parts..hash.len() * (p + 1) / parts;
                    hash.for_each_pair_within_slots(40.0, slots, links, &mut Vec::new(), |a, b| {
                        cut.push((a, b));
                    });
                }
                assert_eq!(cut, whole, "{parts} parts, {links} links");
            }
        }
    }

    /// A flock crushed onto a few spots costs a refresh a bounded walk: `groups` joins each boid
    /// to about `CROWD_LINKS` partners, the nearest-neighbour metrics search few enough boids
    /// to check about `NEAREST_CHECKS` in all; and the crowds still come out as what they are.
    #[test]
    fn a_crowd_costs_a_refresh_a_bounded_walk() {
        let bounds = SimulationBounds::wrap(region([0.0; 3], [2000.0; 3]));
        let spots = [xyz([500.0; 3]), xyz([1500.0, 1200.0, 900.0])];
        let n = 20_000u32;
        let boids: Vec<(Entity, Vector, Vector, u16)> = (0..n)
            .map(|i| {
                let jitter = xyz([(i % 7) as f32, (i % 11) as f32, (i % 13) as f32]) * 0.1;
                let p = spots[i as usize % 2] + jitter;
                (Entity::from_raw_u32(i + 1).unwrap(), p, Vector::X, 0)
            })
            .collect();
        let mut hash = SpatialHash::default();
        hash.rebuild(&bounds, 70.0, &boids);
        let mut pairs = 0usize;
        let slots = 0..hash.len();
        hash.for_each_pair_within_slots(70.0, slots, CROWD_LINKS, &mut Vec::new(), |_, _| {
            pairs += 1;
        });
        assert!(
            pairs <= n as usize * (CROWD_LINKS + 8),
            "{pairs} pairs for {n} boids"
        );
        assert_eq!(groups(Members::all(&hash), 70.0), (2, n as usize / 2));
        let members = Members::all(&hash);
        let searched = members.nearest_sample().count();
        let checks = searched * hash.block_len(spots[0], 1);
        assert!(checks <= NEAREST_CHECKS + n as usize, "{searched} searches");
        assert!(searched >= 100, "{searched} searches");
        let nn = mean_nearest_neighbour_distance(Members::all(&hash)).unwrap();
        assert!(nn < 1.0, "{nn}");
        assert_eq!(share_closer_than(Members::all(&hash), 5.0), 1.0);
    }
}
