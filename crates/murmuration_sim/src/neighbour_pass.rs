//! The flocking pass: every boid's [`NeighbourSums`] ([`neighbour_sums`]) and, from them, its
//! flocking force ([`flocking_forces`]), in slot (cell) order and in parallel. This is the
//! flocking rules' whole work, and what the steering benchmark times.
//!
//! The forces are worked out in slot order, eight boids at a time, from what the hash keeps of
//! each boid: its flock (for its row of the [`FlockTable`]), whether it is a unit, and its own
//! top speed. So each boid's force is computed once, in the pass that has its sums at hand.

use core::ops::Range;

use bevy::prelude::Resource;

use crate::bounds::SimulationBounds;
use crate::components::FlockId;
use crate::hash::{Motion, SpatialHash, UNIT_KEY};
use crate::kernel::{LANES, PassCounts, SLOT_RUN, Scratch, slot_sums};
use crate::lanes::{Coords, Lanes, MaskLanes, Real, fill};
use crate::math::Vector;
use crate::neighbours::{NeighbourSearch, walk_sums};
use crate::parallel::{Parts, fold_parts};
use crate::rules::{NeighbourSums, Weights, flocking_force, give_way, unit_force};
use crate::simd::out_of_line;
use crate::table::{FlockRow, FlockTable};

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
/// so it is the same on any number of threads. In a world so small that the block of cells
/// around a boid folds onto itself, the kernel moves each candidate to its image nearest the
/// boid. With [`NeighbourSearch::BruteForce`] every boid walks its neighbours one at a time
/// instead.
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
    let sums = Sums::new(hash, table, bounds, search);
    let part = |(slots, out): (Range<usize>, &mut [NeighbourSums<f32>])| {
        let mut lanes = [NeighbourSums::zero(); SLOT_RUN / LANES];
        Scratch::with(|scratch| {
            let mut counts = PassCounts::default();
            for (first, out) in slots.step_by(SLOT_RUN).zip(out.chunks_mut(SLOT_RUN)) {
                let lanes = &mut lanes[..out.len().div_ceil(LANES)];
                counts = counts.plus(sums.of(first..first + out.len(), lanes, scratch));
                for (i, out) in out.iter_mut().enumerate() {
                    *out = lanes[i / LANES].lane(i % LANES);
                }
            }
            counts
        })
    };
    fold_parts((0..n, &mut out[..]), PARTS, part, PassCounts::plus)
}

/// What the flocking pass gave each boid this step, by its hash slot: kept
/// as a resource for the steering systems after it (an [`Attractor`](crate::Attractor)'s pull
/// gives way as cohesion does).
#[derive(Resource, Debug, Clone, Default)]
pub struct FlockForces {
    /// Its flocking force.
    pub force: Vec<Vector>,
    /// How far its other pulls give way to its crowding, 0 to 1 (`give_way`; always 0 for
    /// units).
    pub give_way: Vec<f32>,
}

/// Fills `out` with the flocking force of every boid in `hash` (by slot): its
/// [`NeighbourSums`] as [`neighbour_sums`] finds them, turned into `flocking_force` (or
/// `unit_force` for a unit) at its own top speed or its flock's, with its flock's limits and
/// weights, and how far it gives way to its crowding. Returns what the pass counted.
pub fn flocking_forces(
    hash: &SpatialHash,
    table: &FlockTable,
    bounds: &SimulationBounds,
    search: NeighbourSearch,
    out: &mut FlockForces,
) -> PassCounts {
    let n = hash.len();
    out.force.resize(n, Vector::ZERO);
    out.give_way.resize(n, 0.0);
    let sums = Sums::new(hash, table, bounds, search);
    let part = |(slots, (out, yields)): (Range<usize>, (&mut [Vector], &mut [f32]))| {
        let lanes = (flocking_lanes(), unit_lanes());
        let mut buffer = [NeighbourSums::zero(); SLOT_RUN / LANES];
        Scratch::with(|scratch| {
            let mut counts = PassCounts::default();
            let runs = out.chunks_mut(SLOT_RUN).zip(yields.chunks_mut(SLOT_RUN));
            for (first, (out, yields)) in slots.step_by(SLOT_RUN).zip(runs) {
                let sums_of = &mut buffer[..out.len().div_ceil(LANES)];
                counts = counts.plus(sums.of(first..first + out.len(), sums_of, scratch));
                let blocks = out.chunks_mut(LANES).zip(yields.chunks_mut(LANES));
                for (b, (sums, out)) in sums_of.iter().zip(blocks).enumerate() {
                    // SAFETY: `flocking_lanes` and `unit_lanes` gave the build for this CPU.
                    let lanes = (
                        |f: &ForceIn<'_>| unsafe { lanes.0(f) },
                        |f: &ForceIn<'_>| unsafe { lanes.1(f) },
                    );
                    block(hash, table, first + b * LANES, sums, out, lanes);
                }
            }
            counts
        })
    };
    let outs = (&mut out.force[..], &mut out.give_way[..]);
    fold_parts((0..n, outs), PARTS, part, PassCounts::plus)
}

/// One pass's way to the sums of a run of slots.
struct Sums<'a> {
    hash: &'a SpatialHash,
    table: &'a FlockTable,
    /// The world's bounds, for brute force: every boid walks its neighbours one at a time.
    brute_force: Option<&'a SimulationBounds>,
}

impl<'a> Sums<'a> {
    fn new(
        hash: &'a SpatialHash,
        table: &'a FlockTable,
        bounds: &'a SimulationBounds,
        search: NeighbourSearch,
    ) -> Self {
        let brute = search == NeighbourSearch::BruteForce;
        Self {
            hash,
            table,
            brute_force: brute.then_some(bounds),
        }
    }

    /// The sums of `slots` (at most [`SLOT_RUN`]) into `out`, eight to an element (lane `l` of
    /// `out[b]` is slot `slots.start + 8 b + l`'s), and what they counted, with the part's
    /// `scratch`.
    fn of(
        &self,
        slots: Range<usize>,
        out: &mut [NeighbourSums<Lanes<LANES>>],
        scratch: &mut Scratch,
    ) -> PassCounts {
        if self.brute_force.is_none() {
            return slot_sums(self.hash, self.table, slots, out, scratch);
        }
        let mut counts = PassCounts::default();
        let nearest = scratch.nearest();
        out.fill(NeighbourSums::zero());
        for (i, slot) in slots.enumerate() {
            let (s, candidates) = walk_sums(self.hash, self.table, self.brute_force, slot, nearest);
            counts.candidates += candidates;
            counts.neighbours += u64::from(s.neighbour_count());
            out[i / LANES].set_lane(i % LANES, &s);
        }
        counts
    }
}

/// What the forces of eight boids are made from: their sums, their motions and own top speeds
/// as the hash holds them, and their flocks' rows.
// NOTE: references to what is already in memory, not lanes filled here: lanes stored lane by
// lane and read back whole by the out-of-line force code waited on their narrow stores (30% of
// the force code's samples at 100,000 boids).
#[derive(Clone, Copy)]
struct ForceIn<'a> {
    sums: &'a NeighbourSums<Lanes<LANES>>,
    motions: &'a [Motion; LANES],
    /// Each boid's own top speed, NaN where it has none.
    speeds: &'a [f32; LANES],
    rows: Rows<'a>,
}

/// The flock rows of eight boids: one for all (nearly always), or each its own.
#[derive(Clone, Copy)]
enum Rows<'a> {
    One(&'a FlockRow),
    Each(&'a [&'a FlockRow; LANES]),
}

impl ForceIn<'_> {
    /// A number of each boid's row, in lanes.
    #[inline(always)]
    fn param(&self, f: impl Fn(&FlockRow) -> f32) -> Lanes<LANES> {
        match self.rows {
            Rows::One(row) => Lanes::splat(f(row)),
            Rows::Each(rows) => Lanes::from_fn(|l| f(rows[l])),
        }
    }

    /// Their velocities.
    #[inline(always)]
    fn velocity(&self) -> Coords<Lanes<LANES>> {
        Coords::from_fn(|l| self.motions[l].velocity)
    }

    /// Each one's own top speed where it has one (not NaN), else its flock's.
    #[inline(always)]
    fn speed(&self) -> Lanes<LANES> {
        let own = Lanes(*self.speeds);
        Lanes::select(own.eq(own), own, self.param(|r| r.max_speed))
    }

    /// Their flocks' weights.
    #[inline(always)]
    fn weights(&self) -> Weights<Lanes<LANES>> {
        Weights {
            separation: self.param(|r| r.weights.separation),
            alignment: self.param(|r| r.weights.alignment),
            cohesion: self.param(|r| r.weights.cohesion),
            give_way: self.param(|r| r.weights.give_way),
        }
    }
}

/// Eight boids' forces and how far each gives way to its crowding.
type ForceOut = ([Vector; LANES], Lanes<LANES>);

/// [`flocking_force`] and [`give_way`] in lanes (the forces turned back into vectors here,
/// where the build's vector instructions can shuffle them).
#[inline(always)]
fn flocking_force_in(f: &ForceIn<'_>) -> ForceOut {
    let (weights, max_force) = (f.weights(), f.param(|r| r.max_force));
    let force = flocking_force(f.sums, f.velocity(), f.speed(), max_force, &weights);
    let yields = give_way(f.sums, weights.give_way);
    (fill(Vector::ZERO, |l| force.lane(l)), yields)
}

/// [`unit_force`] in lanes (as [`flocking_force_in`]); units never give way.
#[inline(always)]
fn unit_force_in(f: &ForceIn<'_>) -> ForceOut {
    let distance = f.param(|r| r.separation_distance);
    let (weight, max_force) = (f.param(|r| r.weights.separation), f.param(|r| r.max_force));
    let force = unit_force(f.sums, f.speed(), max_force, distance, weight);
    (fill(Vector::ZERO, |l| force.lane(l)), Lanes::splat(0.0))
}

out_of_line! {
    /// [`flocking_force_in`] for eight boids, in the build for this CPU, out of line.
    fn flocking_lanes(f: &ForceIn<'_>) -> ForceOut = flocking_force_in(f);
}

out_of_line! {
    /// [`unit_force_in`] for eight boids, in the build for this CPU, out of line.
    fn unit_lanes(f: &ForceIn<'_>) -> ForceOut = unit_force_in(f);
}

/// The forces of the boids in the slots from `first` (as many as `out` holds, at most eight),
/// from their `sums` in lanes, into `out`, with `(flocking, unit)` working out the lanes.
#[inline(always)]
fn block(
    hash: &SpatialHash,
    table: &FlockTable,
    first: usize,
    sums: &NeighbourSums<Lanes<LANES>>,
    (out, yields): (&mut [Vector], &mut [f32]),
    (flocking, unit): (
        impl Fn(&ForceIn<'_>) -> ForceOut,
        impl Fn(&ForceIn<'_>) -> ForceOut,
    ),
) {
    let arrays = hash.arrays();
    let n = out.len();
    // A block short of eight (the end of a part) repeats its first boid in the lanes past the
    // end, whose forces are not written.
    let at = |l: usize| first + if l < n { l } else { 0 };
    let (short_motions, short_speeds);
    let (motions, speeds): (&[Motion; LANES], &[f32; LANES]) = if n == LANES {
        let whole = first..first + LANES;
        let motions = arrays.motions[whole.clone()].try_into().expect("eight");
        (motions, arrays.speeds[whole].try_into().expect("eight"))
    } else {
        short_motions = fill(Motion::default(), |l| arrays.motions[at(l)]);
        short_speeds = fill(0.0, |l| arrays.speeds[at(l)]);
        (&short_motions, &short_speeds)
    };
    let keys: &[u32] = &arrays.keys[first..first + n];
    let is_unit = |l: usize| arrays.keys[at(l)] & UNIT_KEY != 0;
    let units = MaskLanes::<LANES>(fill(0, |l| if is_unit(l) { !0 } else { 0 }));
    let flock = |k: u32| FlockId(((k & !UNIT_KEY) >> 16) as u16);
    let uniform = keys.iter().all(|&k| (k ^ keys[0]) & !0xffff == 0);
    let first_row = table.row(flock(keys[0]));
    // Each lane's row only where the block mixes flocks.
    let each: [&FlockRow; LANES];
    let rows = if uniform {
        Rows::One(first_row)
    } else {
        each = fill(first_row, |l| table.row(flock(arrays.keys[at(l)])));
        Rows::Each(&each)
    };
    let input = ForceIn {
        sums,
        motions,
        speeds,
        rows,
    };
    let (force, yielding) = if !Lanes::any(units) {
        flocking(&input)
    } else if !Lanes::any(!units) {
        unit(&input)
    } else {
        let (unit, flocking) = (unit(&input), flocking(&input));
        let force = fill(Vector::ZERO, |l| {
            if units.lane(l) {
                unit.0[l]
            } else {
                flocking.0[l]
            }
        });
        (force, Lanes::select(units, unit.1, flocking.1))
    };
    out.copy_from_slice(&force[..n]);
    yields.copy_from_slice(&yielding.0[..n]);
}

#[cfg(test)]
mod tests {
    use bevy::ecs::change_detection::Tick;
    use bevy::prelude::*;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::*;
    use crate::components::{HashSlot, MaxSpeed, Position, Species, Velocity};
    use crate::hash::Table;
    use crate::math::{region, xyz};
    use crate::params::FlockParams;

    /// The forces of the pass, eight at a time in slot order, are each boid's own force worked
    /// out alone from its sums, bit for bit: plain boids, boids with their own top speed, and
    /// units (mixed into the same blocks of eight), in two flocks.
    #[test]
    fn the_pass_gives_each_boid_its_own_force() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(21);
        let bounds = SimulationBounds::wrap(region([0.0; 3], [600.0, 400.0, 400.0]));
        let mut table = FlockTable::new(&FlockParams::default());
        let other = table
            .set(
                Entity::from_raw_u32(9999).unwrap(),
                &FlockParams::swallows(),
            )
            .unwrap();
        // Three tables: plain boids, boids with their own top speed, units.
        let n = [700usize, 300, 200];
        let mut hash = SpatialHash::default();
        let mut build = hash.begin_parted(&bounds, table.cell_size(), bounds.rect, n.into_iter());
        let tables: Vec<_> = n
            .iter()
            .enumerate()
            .map(|(t, &len)| {
                let entities: Vec<Entity> = (0..len)
                    .map(|i| Entity::from_raw_u32((t * 1000 + i + 1) as u32).unwrap())
                    .collect();
                let positions: Vec<Position> = (0..len)
                    .map(|_| Position(xyz([600.0, 400.0, 400.0].map(|s| rng.random::<f32>() * s))))
                    .collect();
                let velocities: Vec<Velocity> = (0..len)
                    .map(|_| Velocity(crate::dim::random_direction(&mut rng) * 90.0))
                    .collect();
                let species: Vec<Species> = (0..len).map(|i| Species((i % 2) as u16)).collect();
                let flocks: Vec<FlockId> = (0..len)
                    .map(|i| if i % 3 == 0 { other } else { FlockId::DEFAULT })
                    .collect();
                let speeds: Vec<MaxSpeed> = (0..len).map(|i| MaxSpeed(50.0 + i as f32)).collect();
                (entities, positions, velocities, species, flocks, speeds)
            })
            .collect();
        for t in &tables {
            build.count(&t.1);
        }
        let mut slots: Vec<Vec<HashSlot>> = n.iter().map(|&l| vec![HashSlot::NONE; l]).collect();
        let mut ticks: Vec<Vec<Tick>> = n.iter().map(|&l| vec![Tick::new(0); l]).collect();
        for (k, ((t, slots), ticks)) in tables.iter().zip(&mut slots).zip(&mut ticks).enumerate() {
            build.place(Table {
                entities: &t.0,
                positions: &t.1,
                velocities: &t.2,
                species: &t.3,
                flocks: &t.4,
                max_speed: (k == 1).then_some(&t.5[..]),
                unit: k == 2,
                slots,
                changed: ticks,
                now: Tick::new(1),
            });
        }
        build.finish();
        let search = NeighbourSearch::Grid;
        let mut forces = FlockForces::default();
        flocking_forces(&hash, &table, &bounds, search, &mut forces);
        let mut sums = Vec::new();
        neighbour_sums(&hash, &table, &bounds, search, &mut sums);
        let (mut units, mut own) = (0, 0);
        for slot in 0..hash.len() {
            let row = table.row(hash.flock_of(slot));
            let speed = hash.own_speed(slot).unwrap_or(row.max_speed);
            own += usize::from(hash.own_speed(slot).is_some());
            let s = &sums[slot];
            let want = if hash.is_unit(slot) {
                units += 1;
                let w = row.weights.separation;
                unit_force(s, speed, row.max_force, row.separation_distance, w)
            } else {
                let v = Coords::of(hash.velocity(slot));
                flocking_force(s, v, speed, row.max_force, &row.weights)
            };
            let bits = |v: Vector| v.to_array().map(f32::to_bits);
            assert_eq!(
                bits(forces.force[slot]),
                bits(want.to_vector()),
                "slot {slot}"
            );
            let yields = if hash.is_unit(slot) {
                0.0
            } else {
                give_way(s, row.weights.give_way)
            };
            assert_eq!(
                forces.give_way[slot].to_bits(),
                yields.to_bits(),
                "slot {slot}"
            );
        }
        assert_eq!((units, own), (200, 300));
    }
}
