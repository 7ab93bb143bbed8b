//! Crowds of threats, cell by cell in lanes: each hunter's prey where many hunters are boids
//! too (every boid a hunter), and each boid's flee direction where many predators are about.
//! With a few of either, the flee and hunting systems check them one by one.
//!
//! The boids come in hash order, so that those of one cell follow each other and share their
//! block of cells (3x3, 3x3x3 in 3D): of the flock's hash for the prey, of the predators' own
//! hash for the flee (a few blocks kept at once, as a cell of the one overlaps several of the
//! other). The block is copied once into columns ([`Nearby`]), and each boid runs its rule over
//! the copy in [`Lanes`]: the squared distance for the prey, [`rules::flee`] for the flee. A
//! block on the grid's edge holds the rows there are, one across the seam of a wrapping world
//! the images beyond it, as the hash's walk visits them. A boid whose block folds onto itself (a
//! world under three cells across) or is too crowded for the copy takes the walk of the hash
//! instead: the same prey, hit for hit, and the same predators.

use core::ops::Range;

use bevy::prelude::Entity;

use crate::block::Block;
use crate::hash::{HashHit, SpatialHash};
use crate::lanes::{Coords, Lanes, Real};
use crate::math::{DIM, IVector, Vector};
use crate::rules;
use crate::sample::Sample;
use crate::simd::out_of_line;
use crate::steering::{flee_direction, tie_break};

/// Boids a chunk of lanes holds.
const LANES: usize = 8;

/// With more predators than this, boids flee them through a hash of their own, each heeding
/// at most about [`FLEE_SAMPLE`] of those around it.
pub(crate) const FEW_PREDATORS: usize = 32;

/// The most predators a fleeing boid heeds, about, where more crowd the cells around it: the
/// cap of their [`Sample`] (the own cell in full where it holds at most 18, then groups of 8 of
/// the rest). The flee steers along a direction only, so a few predators around tell it.
const FLEE_SAMPLE: usize = 24;

/// The most boids a hunter's [`Nearby`] holds (a whole chunk of padding included): a crowded
/// block takes the hash's walk.
const PREY_ROOM: usize = 512;

/// The most predators a fleeing boid's [`Nearby`] holds: a sample of [`FLEE_SAMPLE`] and a
/// chunk of padding, rounded up.
const FLEE_ROOM: usize = 48;

/// How many predators' blocks a pass keeps copied at once: where the predators' cells are at
/// least as wide as the flock's (a flee radius at least the perception radius), the boids of
/// one cell of the flock's hash fall in up to four cells of the predators' (in 2D), and the
/// next cell of the row shares two of them.
const FLEE_BLOCKS: usize = 4;

/// Where padding sits: so far away that it is never the nearest nor within reach, yet finite.
const FAR: f32 = 1e30;

/// The boids of one cell's block of cells (or its [`Sample`]), copied into columns, each
/// at its image nearest the cell: what the boids of that cell look at.
pub(crate) struct Nearby<const ROOM: usize> {
    position: [[f32; ROOM]; DIM],
    slot: [u32; ROOM],
    len: usize,
    /// The cell whose block this is, if any yet.
    cell: Option<IVector>,
    /// Whether the block was copied (one that does not fold onto itself, within [`ROOM`]);
    /// else the boids of the cell take the hash's walk.
    copied: bool,
    /// Where the run of the block that holds the own cell starts: its first slot and its first
    /// index in the copy (where every boid is copied and the own cell holds one).
    middle: (usize, usize),
}

impl<const ROOM: usize> Default for Nearby<ROOM> {
    fn default() -> Self {
        Self {
            position: [[FAR; ROOM]; DIM],
            slot: [u32::MAX; ROOM],
            len: 0,
            cell: None,
            copied: false,
            middle: (0, 0),
        }
    }
}

impl<const ROOM: usize> Nearby<ROOM> {
    /// Makes this the block of `cell` of `hash`, the cell holding `p`, unless it already is:
    /// every boid of it, or, with `cap`, its [`Sample`] of about `cap` where more crowd it (as
    /// [`flee_among`] takes them). Returns whether it is copied.
    fn show(&mut self, hash: &SpatialHash, p: Vector, cell: IVector, cap: Option<usize>) -> bool {
        if self.cell == Some(cell) {
            return self.copied;
        }
        self.copy(hash, p, cell, cap)
    }

    /// [`Self::show`] once it is known to be another block.
    #[inline(never)]
    fn copy(&mut self, hash: &SpatialHash, p: Vector, cell: IVector, cap: Option<usize>) -> bool {
        self.cell = Some(cell);
        self.copied = false;
        self.len = 0;
        // The block's runs of slots, each with the offset to its images nearest the cell, as
        // the hash's walk visits them; a block that folds onto itself (a world under three
        // cells across) takes the walk.
        let mut block = Block::default();
        block.find(hash, hash.local(p), cell);
        if block.folds() {
            return false;
        }
        let sample = match cap {
            Some(cap) => block.sample(cap, hash.turn()),
            None => Sample::ALL,
        };
        let room = if sample.is_all() {
            block.boids()
        } else {
            let mut room = 0;
            sample.visit(block.runs(), |slots, _, _| room += slots.len());
            room
        };
        if room + LANES > ROOM {
            return false;
        }
        let motions = hash.arrays().motions;
        // NOTE: the length in a local: kept in `self`, it was read back from memory after every
        // coordinate stored (the copy's hottest instructions at 100,000 boids).
        let mut len = 0;
        // The own cell's first slot: the run at offset zero that holds it holds the cell.
        let own = block.own();
        let mut copy = |slots: Range<usize>, offset: Vector| {
            if offset == Vector::ZERO && slots.contains(&own.start) {
                self.middle = (slots.start, len);
            }
            for (k, m) in motions[slots.clone()].iter().enumerate() {
                for axis in 0..DIM {
                    self.position[axis][len] = m.position[axis] + offset[axis];
                }
                self.slot[len] = (slots.start + k) as u32;
                len += 1;
            }
        };
        // The whole block run by run; a sample group by group.
        if sample.is_all() {
            for (run, offset) in block.runs() {
                copy(run, offset);
            }
        } else {
            sample.visit(block.runs(), |slots, offset, _| copy(slots, offset));
        }
        // Pad to a whole chunk.
        for i in len..len.next_multiple_of(LANES) {
            for axis in 0..DIM {
                self.position[axis][i] = FAR;
            }
            self.slot[i] = u32::MAX;
        }
        self.len = len;
        self.copied = true;
        true
    }

    /// How many chunks of [`LANES`] the copy fills.
    #[inline(always)]
    fn chunks(&self) -> usize {
        self.len.div_ceil(LANES)
    }

    /// Chunk `i`'s positions.
    #[inline(always)]
    fn chunk(&self, i: usize) -> Coords<Lanes<LANES>> {
        Coords(core::array::from_fn(|axis| {
            let lanes: &[f32; LANES] = self.position[axis][i * LANES..(i + 1) * LANES]
                .try_into()
                .unwrap();
            Lanes(*lanes)
        }))
    }

    /// Where `slot`, a boid of the block's own cell, is in a copy of every boid of the block.
    fn index_of(&self, slot: usize) -> usize {
        let (first_slot, first_index) = self.middle;
        first_index + (slot - first_slot)
    }
}

/// The nearest of `nearby`'s boids to `p` other than the one at `own` (its index): its squared
/// distance and its index (of equally near ones, the first). Infinite where there is none.
///
/// Lane by lane first, each lane's least squared distance and its index, then the lanes' least
/// and, of lanes that hold it, the least index: in vector registers, with no branch to mispredict
/// (picked lane by lane with branches, it took longer than the search).
#[inline(always)]
fn nearest_in(nearby: &Nearby<PREY_ROOM>, p: Vector, own: usize) -> (f32, usize) {
    let o = Coords::<Lanes<LANES>>::from_vector(p);
    let own = Lanes::splat(own as f32);
    let mut best = Lanes::<LANES>::splat(f32::INFINITY);
    let mut at = Lanes::<LANES>::splat(0.0);
    // Each lane's index in the copy (exact in an `f32`: under `ROOM`).
    let mut index = Lanes::<LANES>::from_fn(|l| l as f32);
    for i in 0..nearby.chunks() {
        let d2 = (nearby.chunk(i) - o).length_squared();
        let d2 = Lanes::select(index.eq(own), Lanes::splat(f32::INFINITY), d2);
        let nearer = d2.lt(best);
        best = Lanes::select(nearer, d2, best);
        at = Lanes::select(nearer, index, at);
        index = index + Lanes::splat(LANES as f32);
    }
    // NOTE: apart from the loop: LLVM otherwise shuffled the loop's lanes about for the pick in
    // every chunk (this function's samples went from 3% to 11% of the step's at 100,000 boids).
    let [best, at] = core::hint::black_box([best, at]);
    let least = best.least();
    let first = Lanes::select(
        best.eq(Lanes::splat(least)),
        at,
        Lanes::splat(f32::INFINITY),
    );
    (least, first.least() as usize)
}

out_of_line! {
    /// [`nearest_in`], in the build for this CPU, out of line.
    fn nearest_lanes(nearby: &Nearby<PREY_ROOM>, p: Vector, own: usize) -> (f32, usize) =
        nearest_in(nearby, p, own);
}

/// What [`flee_in`] finds: the sum of the flee from each boid, how many sit on the fleeing
/// boid's very spot (which the sum leaves out) and the index of the last of them.
type Fled = (Vector, f32, usize);

/// The sum of [`rules::flee`] from each of `nearby`'s boids, for a boid at `p` with the squared
/// flee radius `flee2`, and those on `p`'s very spot (the caller adds them: one may be the boid
/// itself): lane by lane, then the lanes added up.
#[inline(always)]
fn flee_in(nearby: &Nearby<FLEE_ROOM>, p: Vector, flee2: f32) -> Fled {
    let o = Coords::<Lanes<LANES>>::from_vector(p);
    let mut sum = Coords::<Lanes<LANES>>::zero();
    let (mut spots, mut last) = (Lanes::<LANES>::splat(0.0), Lanes::<LANES>::splat(-1.0));
    let mut index = Lanes::<LANES>::from_fn(|l| l as f32);
    for i in 0..nearby.chunks() {
        let (away, on_the_spot) = rules::flee(nearby.chunk(i) - o, Lanes::splat(flee2));
        sum = sum + away;
        spots = spots.add_where(on_the_spot, Lanes::splat(1.0));
        last = Lanes::select(on_the_spot, index, last);
        index = index + Lanes::splat(LANES as f32);
    }
    // NOTE: apart from the loop, as in `nearest_in`.
    let (sum, spots, last) = core::hint::black_box((sum, spots, last));
    let sum = Vector::from_array(core::array::from_fn(|axis| sum.0[axis].total()));
    // The greatest lane (those that found none hold -1): the least negated.
    let last = -(-last).least();
    (sum, spots.total(), last as usize)
}

out_of_line! {
    /// [`flee_in`], in the build for this CPU, out of line.
    fn flee_lanes(nearby: &Nearby<FLEE_ROOM>, p: Vector, flee2: f32) -> Fled =
        flee_in(nearby, p, flee2);
}

/// The prey of each hunter of `slots` (boids of `hash`, in slot order): the nearest other boid,
/// into `out`; what [`SpatialHash::nearest`] finds, hit for hit.
pub(crate) fn prey_of(hash: &SpatialHash, slots: &[u32], out: &mut [Option<HashHit>]) {
    let nearest = nearest_lanes();
    let mut nearby = Nearby::<PREY_ROOM>::default();
    let cell = hash.cell_size().min_element();
    for (&slot, out) in slots.iter().zip(out) {
        let slot = slot as usize;
        let p = hash.position(slot);
        let walk = || hash.nearest(p, f32::INFINITY, |h| h.slot != slot);
        if !nearby.show(hash, p, hash.cell_of(p), None) {
            *out = walk();
            continue;
        }
        let own = nearby.index_of(slot);
        debug_assert_eq!(nearby.slot[own] as usize, slot);
        // SAFETY: `nearest_lanes` gives the build for this CPU.
        let (d2, i) = unsafe { nearest(&nearby, p, own) };
        // Settled where nearer than the block's edge is sure to be (a cell's width); else the
        // prey may be farther out, and the walk goes wider.
        *out = if d2 < cell * cell {
            let at = Vector::from_array(core::array::from_fn(|axis| nearby.position[axis][i]));
            Some(HashHit {
                slot: nearby.slot[i] as usize,
                delta: at - p,
                distance_squared: d2,
            })
        } else {
            walk()
        };
    }
}

/// The flee direction of the boid `me` at `p` from the predators of `predators` (a hash of
/// their own, cells a flee radius across) within `radius`: where more than [`FLEE_SAMPLE`]
/// crowd the block of cells around it, those of its [`Sample`] (its own cell in full, about
/// that many in all). The flee steers along the sum's direction only, so a sample needs no
/// weight.
pub(crate) fn flee_among(predators: &SpatialHash, me: Entity, p: Vector, radius: f32) -> Vector {
    let mut dir = Vector::ZERO;
    if predators.is_empty() {
        return dir;
    }
    let p = predators.local(p);
    let mut block = Block::default();
    block.find(predators, p, predators.cell_xy(p));
    let sample = block.sample(FLEE_SAMPLE, predators.turn());
    let r2 = radius * radius;
    sample.visit(block.runs(), |slots, offset, _| {
        for j in slots {
            let delta = block.delta(predators, p, j, offset);
            if delta.length_squared() < r2 && predators.entity(j) != me {
                dir += flee_direction(delta, radius, || tie_break(j, usize::MAX));
            }
        }
    });
    dir
}

/// [`flee_among`] for each boid of `slots` of `hash`, in slot order, into `out`, with each
/// boid's flee radius from `radius(slot)`: the same predators, added up in lanes.
pub(crate) fn flee_each(
    predators: &SpatialHash,
    hash: &SpatialHash,
    slots: Range<usize>,
    radius: impl Fn(usize) -> f32,
    out: &mut [Vector],
) {
    let flee = flee_lanes();
    let mut blocks: [Nearby<FLEE_ROOM>; FLEE_BLOCKS] = Default::default();
    // The block copied longest ago: the next to be replaced.
    let mut oldest = 0;
    for (slot, out) in slots.zip(out) {
        let (me, p, radius) = (hash.entity(slot), hash.position(slot), radius(slot));
        let cell = predators.cell_of(p);
        let nearby = match blocks.iter().position(|b| b.cell == Some(cell)) {
            Some(k) => &blocks[k],
            None => {
                let k = oldest;
                oldest = (oldest + 1) % FLEE_BLOCKS;
                blocks[k].copy(predators, p, cell, Some(FLEE_SAMPLE));
                &blocks[k]
            }
        };
        if !nearby.copied {
            *out = flee_among(predators, me, p, radius);
            continue;
        }
        let flee2 = radius * radius;
        // SAFETY: `flee_lanes` gives the build for this CPU.
        let (mut dir, spots, last) = unsafe { flee(nearby, p, flee2) };
        let slot_at = |i: usize| nearby.slot[i] as usize;
        if spots == 1.0 {
            // One predator on the boid's very spot: itself, where it is a predator too.
            if predators.entity(slot_at(last)) != me {
                dir += tie_break(slot_at(last), usize::MAX);
            }
        } else if spots > 1.0 {
            for i in 0..nearby.len {
                let at = Vector::from_array(core::array::from_fn(|axis| nearby.position[axis][i]));
                if rules::flee(Coords::of(at - p), flee2).1 && predators.entity(slot_at(i)) != me {
                    dir += tie_break(slot_at(i), usize::MAX);
                }
            }
        }
        *out = dir;
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::*;
    use crate::bounds::{Edges, SimulationBounds};
    use crate::math::{per_axis, region};

    /// Boids as [`SpatialHash::rebuild`] takes them.
    type Boids = Vec<(Entity, Vector, Vector, u16)>;

    /// A flock over `bounds`: spread out, plus a crowd on one spot (more than a copy holds
    /// unsampled), a few pairs on each other's spots, and some outside the bounds.
    fn flock(bounds: &SimulationBounds) -> Boids {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let (min, size) = (bounds.rect.min, bounds.rect.size());
        let mut points: Vec<Vector> = (0..3000)
            .map(|_| min + per_axis(|_| rng.random::<f32>()) * size)
            .collect();
        points.extend((0..600).map(|_| min + size * 0.5));
        for i in 0..20 {
            points.push(points[i * 7]);
        }
        points.extend((0..20).map(|i| min - per_axis(|_| i as f32 * 3.0)));
        points
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                (
                    Entity::from_raw_u32(i as u32 + 1).unwrap(),
                    p,
                    Vector::ZERO,
                    0,
                )
            })
            .collect()
    }

    /// The test flock in a wrapped world and in a walled one: its bounds, its boids and their
    /// hash.
    fn worlds() -> impl Iterator<Item = (SimulationBounds, Boids, SpatialHash)> {
        let rect = region([0.0, 0.0, 0.0], [900.0, 700.0, 500.0]);
        let walled = SimulationBounds {
            rect,
            edges: Edges::TURN_BACK,
        };
        [SimulationBounds::wrap(rect), walled]
            .into_iter()
            .map(|bounds| {
                let boids = flock(&bounds);
                let mut hash = SpatialHash::default();
                hash.rebuild(&bounds, 40.0, &boids);
                (bounds, boids, hash)
            })
    }

    /// Every hunter's prey in lanes is the hash's nearest other boid, hit for hit, in wrapped
    /// and walled worlds, in the crowd, on shared spots and on the grid's edge.
    #[test]
    fn prey_in_lanes_is_the_nearest() {
        for (_, _, hash) in worlds() {
            let slots: Vec<u32> = (0..hash.len() as u32).collect();
            let mut found = vec![None; slots.len()];
            prey_of(&hash, &slots, &mut found);
            for (slot, got) in found.into_iter().enumerate() {
                let p = hash.position(slot);
                let want = hash.nearest(p, f32::INFINITY, |h| h.slot != slot);
                assert_eq!(got, want, "slot {slot} at {p}");
            }
        }
    }

    /// Every boid's flee in lanes adds up what the walk of the predators' hash adds up (the
    /// same predators, in another order): equal up to rounding. With every boid a predator (a
    /// sample of each crowded block), and with every ninth (every predator of each block).
    #[test]
    fn flee_in_lanes_is_the_walk() {
        for (bounds, boids, hash) in worlds() {
            for every in [1, 9] {
                let some: Vec<_> = boids.iter().copied().step_by(every).collect();
                let mut predators = SpatialHash::default();
                predators.rebuild(&bounds, 60.0, &some);
                // Flocks with smaller flee radii too.
                let radius = |slot: usize| [60.0, 35.0, 0.0][slot % 3];
                let mut out = vec![Vector::ZERO; hash.len()];
                flee_each(&predators, &hash, 0..hash.len(), radius, &mut out);
                for (slot, got) in out.into_iter().enumerate() {
                    let (me, p) = (hash.entity(slot), hash.position(slot));
                    let want = flee_among(&predators, me, p, radius(slot));
                    assert!(
                        (got - want).length() <= 1e-4 * (1.0 + want.length()),
                        "slot {slot} at {p}, every {every}: {got} against {want}"
                    );
                }
            }
        }
    }
}
