//! [`SpatialHash`]: a uniform grid rebuilt by counting sort once a step, and the frozen snapshot
//! every steering system reads its neighbours from.
//!
//! The build is O(n) and allocates nothing once its arrays have grown to the flock's size:
//! 1. pick the grid: cells at least the perception radius wide, so a boid's neighbours are always
//!    in its own cell or the 8 around it;
//! 2. count the boids per cell;
//! 3. prefix-sum the counts into `cell_start`;
//! 4. scatter each boid to its slot in cell order, straight into contiguous arrays: its position
//!    and velocity side by side in one `Motion` (one cache line written per boid, not one per
//!    coordinate), its entity and its key (flock and species). Cells are numbered row by row
//!    (`x` fastest), so the three cells of one row of a 3x3 block are one contiguous slice.
//!
//! [`HashBuilder`] does it one boid at a time; the plugin's build (the private `parted` module)
//! counts and scatters parts of the flock on several threads at once, with the same result.

use core::ops::Range;

use bevy::prelude::*;

use crate::bounds::SimulationBounds;
use crate::components::FlockId;
use crate::components::Position;
use crate::lanes::fill;
use crate::math::Region;
use crate::math::{DIM, IVector, UVector, Vector};
use crate::motion::nearest_image;
use crate::simd::dispatch;

mod parted;

pub(crate) use parted::{Points, Table};

/// The grid never has more cells than this, whatever the bounds: larger cells are slower for a
/// huge, sparse world, but memory and the prefix sum stay bounded.
const MAX_CELLS: usize = 1 << 22;
/// Nor more than this many cells per boid (with a floor of [`MIN_CELL_BUDGET`]).
const CELLS_PER_BOID: usize = 4;
/// The cell budget of a small flock.
const MIN_CELL_BUDGET: usize = 4096;
/// Smallest cell edge, in world units.
const MIN_CELL_SIZE: f32 = 1e-2;

/// On which axes a block of cells folds onto itself (see [`SpatialHash::visit_block`]).
pub(crate) type Fold = [bool; DIM];

/// Rows of cells in a 3x3 block (9 in a 3x3x3 block).
pub(crate) const BLOCK_ROWS: usize = 3usize.pow(DIM as u32 - 1);

/// A boid's key in the hash: its flock's [`FlockId`] in bits 16 to 30, its species in the low
/// 16 bits, and [`UNIT_KEY`] for a strategy-game unit. Boids with the same key align and cohere
/// (units do neither).
#[inline]
pub fn key(flock: FlockId, species: u16) -> u32 {
    u32::from(flock.0) << 16 | u32::from(species)
}

/// The bit of a [`key`] that marks a strategy-game unit (a boid with
/// [`Arrive`](crate::Arrive)): its flocking force is the units' own (separation only).
pub const UNIT_KEY: u32 = 1 << 31;

/// One boid found by a [`SpatialHash`] query.
#[derive(Reflect, Debug, Clone, Copy, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct HashHit {
    /// Its index into the hash arrays (see [`SpatialHash::entity`]).
    pub slot: usize,
    /// From the query point to the boid (to its nearest image when the edges wrap).
    pub delta: Vector,
    /// `delta.length_squared()`.
    pub distance_squared: f32,
}

/// The boids of one step, sorted by grid cell: the flock's frozen snapshot.
///
/// Rebuilt once a step by [`BoidsSystems::BuildHash`](crate::BoidsSystems::BuildHash). Steering
/// systems read neighbours only from here, never from other entities' components, so no boid sees
/// a neighbour that already moved this step. Under [`Edges::Wrap`](crate::bounds::Edges::Wrap) the grid
/// covers the bounds and queries measure to the nearest image across the seam; otherwise it
/// covers the box the flock occupies this step, so boids outside the bounds are found too.
#[derive(Resource, Reflect, Debug, Clone, Default)]
#[reflect(Resource, Default, Debug)]
pub struct SpatialHash {
    origin: Vector,
    cell: Vector,
    inv_cell: Vector,
    /// Cells along each axis.
    dims: [u32; DIM],
    wrap: bool,
    world: Vector,
    /// `cell_start[c]..cell_start[c + 1]` are the slots of cell `c`; one entry more than cells.
    cell_start: Vec<u32>,
    entities: Vec<Entity>,
    motions: Vec<Motion>,
    /// Each boid's [`key`] (flock and species).
    keys: Vec<u32>,
    /// Each boid's own top speed ([`MaxSpeed`](crate::MaxSpeed)); NaN where it flies at its
    /// flock's.
    speeds: Vec<f32>,
    /// Scratch: each boid's cell, in the order the boids were counted.
    #[reflect(ignore)]
    cell_of: Vec<u32>,
    /// Scratch: the next free slot of each cell while scattering.
    #[reflect(ignore)]
    cursor: Vec<u32>,
    /// Scratch of a [`PartedBuild`](parted::PartedBuild): for every part, the next free slot
    /// of each cell.
    #[reflect(ignore)]
    part_cursor: Vec<u32>,
    /// Scratch of a [`PartedBuild`](parted::PartedBuild): for every part, the end of its
    /// slots in each cell.
    #[reflect(ignore)]
    part_end: Vec<u32>,
    /// Scratch of a [`PartedBuild`](parted::PartedBuild)'s scan: the boids of each run of
    /// cells, then the first slot of each.
    #[reflect(ignore)]
    run_start: Vec<u32>,
    /// Rebuilds so far (wrapping): see [`Self::turn`].
    rebuilds: u32,
}

impl SpatialHash {
    /// Starts a rebuild for `count` boids with cells at least `cell_size` wide.
    ///
    /// `occupied` is a box holding every finite position of this step; it sizes the grid when the
    /// edges do not wrap (pass the bounds' rectangle if unknown: boids outside it still work,
    /// only slower). Call [`HashBuilder::count`] once per boid, then [`HashBuilder::place`] once
    /// per boid in the same order.
    pub fn begin(
        &mut self,
        bounds: &SimulationBounds,
        cell_size: f32,
        occupied: Region,
        count: usize,
    ) -> HashBuilder<'_> {
        self.layout(bounds, cell_size, occupied, count);
        let cells = self.cell_count();
        self.cell_start.clear();
        self.cell_start.resize(cells + 1, 0);
        self.cell_of.clear();
        self.cell_of.reserve(count);
        HashBuilder {
            hash: self,
            placed: 0,
        }
    }

    /// Rebuilds the hash from `(entity, position, velocity, species)` tuples, all in the default
    /// flock, for tests, tools and benchmarks, on this thread; the plugin's system builds
    /// straight from the ECS's component slices, in parts on every thread, with the same
    /// result.
    pub fn rebuild(
        &mut self,
        bounds: &SimulationBounds,
        cell_size: f32,
        boids: &[(Entity, Vector, Vector, u16)],
    ) {
        let occupied = occupied_box(boids.iter().map(|b| b.1)).unwrap_or(bounds.rect);
        let mut builder = self.begin(bounds, cell_size, occupied, boids.len());
        for b in boids {
            builder.count(b.1);
        }
        for &(entity, position, velocity, species) in boids {
            builder.place(entity, position, velocity, key(FlockId::DEFAULT, species));
        }
    }

    fn layout(&mut self, bounds: &SimulationBounds, cell_size: f32, occupied: Region, n: usize) {
        self.rebuilds = self.rebuilds.wrapping_add(1);
        let budget = (n.saturating_mul(CELLS_PER_BOID)).clamp(MIN_CELL_BUDGET, MAX_CELLS) as f32;
        let mut cell = if cell_size.is_finite() {
            cell_size.max(MIN_CELL_SIZE)
        } else {
            MIN_CELL_SIZE
        };
        self.wrap = bounds.wraps();
        self.world = bounds.rect.size();
        let dims = |cell: f32, size: Vector, wrap: bool| -> Vector {
            if wrap {
                (size / cell).floor().max(Vector::ONE)
            } else {
                (size / cell).floor() + Vector::ONE
            }
        };
        let (origin, size) = if self.wrap {
            (bounds.rect.min, bounds.rect.size())
        } else if occupied.min.is_finite() && occupied.max.is_finite() && !occupied.is_empty() {
            (occupied.min, occupied.size())
        } else {
            (bounds.rect.min, bounds.rect.size())
        };
        let mut d = dims(cell, size, self.wrap);
        // Grow the cells until the grid fits the budget (a few rounds at most).
        while d.element_product() > budget {
            let grow = (d.element_product() / budget).powf(1.0 / DIM as f32);
            cell *= grow.max(1.01);
            d = dims(cell, size, self.wrap);
        }
        self.origin = origin;
        self.dims = d.to_array().map(|n| n as u32);
        self.cell = if self.wrap {
            size / d
        } else {
            Vector::splat(cell)
        };
        self.inv_cell = self.cell.recip();
    }

    /// How many cells the grid has.
    #[inline]
    fn cell_count(&self) -> usize {
        self.dims.iter().map(|&n| n as usize).product()
    }

    /// The index of cell `c`: `x` fastest, then `y` (then `z`).
    #[inline(always)]
    fn index_of(&self, c: IVector) -> usize {
        let c = c.to_array();
        let mut index = c[DIM - 1] as usize;
        for axis in (0..DIM - 1).rev() {
            index = index * self.dims[axis] as usize + c[axis] as usize;
        }
        index
    }

    /// `p` in the coordinates the hash stores: wrapped into the bounds when the edges wrap.
    #[inline]
    pub(crate) fn local(&self, p: Vector) -> Vector {
        // Nearly always inside: no remainder (a slow library call) then.
        if self.wrap && !self.in_world(p) {
            let q = self.origin + (p - self.origin).rem_euclid(self.world);
            q.min(self.origin + self.world - self.cell * 1e-6)
        } else {
            p
        }
    }

    /// Whether `p` lies in the world's rectangle (its far edges excluded). Branch-free.
    #[inline(always)]
    fn in_world(&self, p: Vector) -> bool {
        let max = self.origin + self.world;
        (0..DIM).fold(true, |ok, axis| {
            ok & (p[axis] >= self.origin[axis]) & (p[axis] < max[axis])
        })
    }

    /// The index of the cell holding `p` (any position: it is made [`Self::local`] first).
    #[inline]
    fn cell_index(&self, p: Vector) -> u32 {
        self.index_of(self.cell_xy(self.local(p))) as u32
    }

    /// [`Self::cell_index`] of every position, into `out` (as long as `positions`).
    ///
    /// Eight at a time and branch-free where all eight are inside the world (where
    /// [`Self::local`] changes nothing), which the compiler turns into vector instructions; a
    /// group with one outside goes one by one. The same cells either way.
    pub(crate) fn cell_indices(&self, positions: &[Position], out: &mut [u32]) {
        cell_indices(self, positions, out);
    }

    /// The (clamped) cell holding `p`, a position anywhere.
    #[inline]
    pub(crate) fn cell_of(&self, p: Vector) -> IVector {
        self.cell_xy(self.local(p))
    }

    /// The (clamped) cell holding `p`, which must already be [`Self::local`].
    #[inline]
    pub(crate) fn cell_xy(&self, p: Vector) -> IVector {
        // No `floor` (a library call without SSE4.1): `as` truncates toward zero, which differs
        // from flooring only below zero, where the clamp makes both cell 0. `as` also saturates
        // and maps NaN to 0, so any input lands in a real cell.
        let c = (p - self.origin) * self.inv_cell;
        IVector::from_array(fill(0, |axis| {
            (c[axis] as i32).clamp(0, self.dims[axis] as i32 - 1)
        }))
    }

    /// Calls `f(slots, offset, fold)` for every non-empty row run of cells within `span` cells of
    /// `p`'s cell (`p` already [`Self::local`]).
    ///
    /// Add `offset` to a stored position to get its image nearest to `p`. Where the block would
    /// wrap onto itself (a world fewer than `2 * span + 1` cells across), each cell is visited once
    /// and `fold` says on which axes the caller must fold deltas to the nearest image.
    ///
    // NOTE: runs are visited row by row (the outer axes as an odometer, the last slowest), left
    // to right, in a fixed order that does not depend on threads; the order of the neighbour
    // sums, and so the flock, is the same on any thread count.
    #[inline]
    pub(crate) fn visit_block(
        &self,
        p: Vector,
        span: u32,
        mut f: impl FnMut(Range<usize>, Vector, Fold),
    ) {
        let c = self.cell_xy(p).to_array();
        let s = span.min(i32::MAX as u32 / 4) as i32;
        let dims = self.dims.map(|n| n as i32);
        let fold: Fold = core::array::from_fn(|axis| self.wrap && 2 * s + 1 >= dims[axis]);
        // The cells of each axis: `(first, last)` virtual coordinates (outside the grid where
        // they wrap); the whole axis once where it folds.
        let range = |axis: usize| -> (i32, i32) {
            if fold[axis] {
                (0, dims[axis] - 1)
            } else if self.wrap {
                (c[axis] - s, c[axis] + s)
            } else {
                ((c[axis] - s).max(0), (c[axis] + s).min(dims[axis] - 1))
            }
        };
        // A virtual coordinate's cell on its axis, and the offset to its image.
        let wrap = |axis: usize, v: i32| -> (i32, f32) {
            if v < 0 {
                (v + dims[axis], -self.world[axis])
            } else if v >= dims[axis] {
                (v - dims[axis], self.world[axis])
            } else {
                (v, 0.0)
            }
        };
        // Runs along `x`: one, or two where the block crosses the seam.
        let (lo, hi) = range(0);
        let mut runs = [(0i32, 0i32, 0.0f32); 2];
        let nruns = if lo < 0 {
            runs[0] = (lo + dims[0], dims[0] - 1, -self.world[0]);
            runs[1] = (0, hi, 0.0);
            2
        } else if hi >= dims[0] {
            runs[0] = (lo, dims[0] - 1, 0.0);
            runs[1] = (0, hi - dims[0], self.world[0]);
            2
        } else {
            runs[0] = (lo, hi, 0.0);
            1
        };
        let outer: [(i32, i32); DIM] = core::array::from_fn(range);
        let mut at: [i32; DIM] = outer.map(|r| r.0);
        loop {
            let mut row_cell = [0i32; DIM];
            let mut offset = Vector::ZERO;
            for axis in 1..DIM {
                (row_cell[axis], offset[axis]) = wrap(axis, at[axis]);
            }
            for &(a, b, ox) in &runs[..nruns] {
                row_cell[0] = a;
                let start = self.cell_start[self.index_of(IVector::from_array(row_cell))] as usize;
                row_cell[0] = b;
                let end =
                    self.cell_start[self.index_of(IVector::from_array(row_cell)) + 1] as usize;
                if start < end {
                    offset[0] = ox;
                    f(start..end, offset, fold);
                }
            }
            // The next row: the odometer over the outer axes, `y` fastest.
            let mut axis = 1;
            loop {
                if axis == DIM {
                    return;
                }
                if at[axis] < outer[axis].1 {
                    at[axis] += 1;
                    break;
                }
                at[axis] = outer[axis].0;
                axis += 1;
            }
        }
    }

    /// The slots of the rows of the 3x3 block of cells around cell `c` (3x3x3 in 3D), in the
    /// order [`Self::visit_block`] visits them, where the block lies wholly inside the grid: the
    /// runs it visits for a position in `c` with a span of one, all at offset zero (empty ones
    /// included). `None` for a cell on the grid's edge.
    #[inline]
    pub(crate) fn inner_block(&self, c: IVector) -> Option<[Range<usize>; BLOCK_ROWS]> {
        let c = c.to_array();
        if c.iter()
            .zip(self.dims)
            .any(|(&x, n)| x < 1 || x + 1 >= n as i32)
        {
            return None;
        }
        Some(core::array::from_fn(|row| {
            // Row `row` of the block: its outer coordinates, `y` fastest.
            let mut cell = c;
            let mut rest = row;
            for x in &mut cell[1..] {
                *x += (rest % 3) as i32 - 1;
                rest /= 3;
            }
            let centre = self.index_of(IVector::from_array(cell));
            self.cell_start[centre - 1] as usize..self.cell_start[centre + 2] as usize
        }))
    }

    /// The size of the world the hash covers, per axis.
    pub(crate) fn world_size(&self) -> Vector {
        self.world
    }

    /// The delta from `p` to the boid in `slot`, given a run's `offset` and `fold`.
    #[inline]
    pub(crate) fn delta(&self, p: Vector, slot: usize, offset: Vector, fold: Fold) -> Vector {
        let mut d = self.position(slot) + offset - p;
        for axis in 0..DIM {
            if fold[axis] {
                let size = self.world[axis];
                d[axis] = nearest_image(d[axis], size, size * 0.5);
            }
        }
        d
    }

    /// How many cells out from its own a query must look to cover `radius`.
    #[inline]
    fn span_for(&self, radius: f32) -> u32 {
        let s = (radius / self.cell.min_element()).ceil();
        if s.is_finite() {
            (s as u32).max(1)
        } else {
            u32::MAX / 8
        }
    }

    /// Whether a block of `span` around `p`'s cell already holds every cell.
    fn covers_all(&self, p: Vector, span: u32) -> bool {
        let c = self.cell_xy(p).to_array();
        let s = i64::from(span);
        (0..DIM).all(|axis| {
            let n = i64::from(self.dims[axis]);
            if self.wrap {
                2 * s + 1 >= n
            } else {
                let x = i64::from(c[axis]);
                x - s <= 0 && x + s >= n - 1
            }
        })
    }

    /// Calls `f` for every boid of the block of cells around `p` (a point in the hash's world)
    /// that lies strictly within `radius` of it ([`Self::visit_each`]).
    fn within(&self, p: Vector, radius: f32, mut f: impl FnMut(HashHit)) {
        let r2 = radius * radius;
        self.visit_each(p, self.span_for(radius), |slot, delta| {
            let distance_squared = delta.length_squared();
            if distance_squared < r2 {
                f(HashHit {
                    slot,
                    delta,
                    distance_squared,
                });
            }
        });
    }

    /// How many boids the block of cells `span` around the cell of `p` holds.
    pub(crate) fn block_len(&self, p: Vector, span: u32) -> usize {
        let mut boids = 0;
        self.visit_block(self.local(p), span, |run, _, _| boids += run.len());
        boids
    }

    /// Calls `f(slot, delta)` for every boid of the block of cells `span` around the cell of `p`
    /// (a point in the hash's world); `delta` is from `p` to the boid's image nearest the block.
    fn visit_each(&self, p: Vector, span: u32, mut f: impl FnMut(usize, Vector)) {
        self.visit_block(p, span, |run, offset, fold| {
            for j in run {
                f(j, self.delta(p, j, offset, fold));
            }
        });
    }

    /// Calls `f` for every boid strictly within `radius` of `p` (measured to the nearest image
    /// when the edges wrap), in hash order.
    pub fn for_each_within(&self, p: Vector, radius: f32, f: impl FnMut(HashHit)) {
        if self.entities.is_empty() {
            return;
        }
        self.within(self.local(p), radius, f);
    }

    /// Calls `f(a, b)` once for every pair of boids strictly within `radius` of each other
    /// (measured to the nearest image when the edges wrap), with slot `a` before slot `b`: in
    /// slot order of `a`, all of one `a`'s pairs together.
    ///
    /// The same pairs as [`Self::for_each_within`] at every boid would find, for less than half
    /// the cost: a cell's block is looked up once for all of its boids, each boid checks only
    /// the slots after its own, and eight at a time without a branch.
    pub fn for_each_pair_within(&self, radius: f32, f: impl FnMut(usize, usize)) {
        let slots = 0..self.len();
        self.for_each_pair_within_slots(radius, slots, usize::MAX, &mut Vec::new(), f);
    }

    /// [`Self::for_each_pair_within`] for the pairs whose first boid's slot lies in `slots`
    /// (any range: a crowded cell can be cut between parts), keeping each cell's block in `runs`
    /// (cleared first), so that a caller that keeps `runs` allocates nothing once it has grown.
    /// Each boid's pairs with the slots after it stop at about `links` of them (at the end of the
    /// group of eight that reaches it): a bounded walk in a crowd, for a caller that only joins
    /// pairs and for whom that many partners of a boid are enough (`usize::MAX`: every pair).
    pub(crate) fn for_each_pair_within_slots(
        &self,
        radius: f32,
        slots: Range<usize>,
        links: usize,
        runs: &mut Vec<(Range<usize>, Vector, Fold)>,
        mut f: impl FnMut(usize, usize),
    ) {
        let slots = slots.start..slots.end.min(self.len());
        if self.entities.len() < 2 || slots.is_empty() {
            return;
        }
        let r2 = radius * radius;
        let span = self.span_for(radius);
        // The cell of the first slot: the last whose start is at or before it (cells before it
        // that start there too are empty).
        let cells = self.cell_start.len() - 1;
        let start = self.cell_start[..cells].partition_point(|&s| s as usize <= slots.start) - 1;
        for cell in self.cell_start[start..].windows(2) {
            let (first, end) = (cell[0] as usize, cell[1] as usize);
            if first >= slots.end {
                break;
            }
            let mine = first.max(slots.start)..end.min(slots.end);
            if mine.is_empty() {
                continue;
            }
            // Stored positions are already local, and every boid of a cell has the same block.
            runs.clear();
            self.visit_block(self.position(first), span, |run, offset, fold| {
                runs.push((run, offset, fold));
            });
            for a in mine {
                let p = self.position(a);
                let mut found = 0;
                for &(ref run, offset, fold) in runs.iter() {
                    let after = run.start.max(a + 1)..run.end;
                    if after.is_empty() {
                        continue;
                    }
                    if found >= links {
                        break;
                    }
                    if fold.contains(&true) {
                        for b in after {
                            if found >= links {
                                break;
                            }
                            if self.delta(p, b, offset, fold).length_squared() < r2 {
                                f(a, b);
                                found += 1;
                            }
                        }
                        continue;
                    }
                    // Eight at a time into a bit mask, without a branch per candidate (whether
                    // one is near is a coin toss that a branch would guess wrong half the time).
                    for (k, motions) in self.motions[after.clone()].chunks(8).enumerate() {
                        if found >= links {
                            break;
                        }
                        let mut near = 0u32;
                        for (i, m) in motions.iter().enumerate() {
                            let d = m.position + offset - p;
                            near |= u32::from(d.length_squared() < r2) << i;
                        }
                        found += near.count_ones() as usize;
                        while near != 0 {
                            f(a, after.start + 8 * k + near.trailing_zeros() as usize);
                            near &= near - 1;
                        }
                    }
                }
            }
        }
    }

    /// The boid nearest to `p` within `max_radius` for which `accept(&hit)` holds, searching
    /// outward ring by ring; ties go to the first in hash order.
    pub fn nearest(
        &self,
        p: Vector,
        max_radius: f32,
        accept: impl FnMut(&HashHit) -> bool,
    ) -> Option<HashHit> {
        // NOTE: one best hit, not `KNearest` with `k = 1`: the same walk and the same answer,
        // but nothing to sort in; every boid a hunter (100,000 boids) stepped 7-9% faster.
        let mut best = Best::new();
        if !self.entities.is_empty() {
            self.search(self.local(p), max_radius, accept, &mut best);
        }
        best.found.then_some(best.hit)
    }

    /// The `k` boids nearest to `p` within `max_radius` for which `accept(&hit)` holds, nearest
    /// first, written into `out` (its `k` is at most [`KNearest::CAPACITY`]). `accept` may be
    /// asked more than once about the same boid.
    pub fn k_nearest_into(
        &self,
        p: Vector,
        max_radius: f32,
        accept: impl FnMut(&HashHit) -> bool,
        out: &mut KNearest,
    ) {
        out.clear();
        if self.entities.is_empty() || out.k == 0 {
            return;
        }
        self.search(self.local(p), max_radius, accept, out);
    }

    /// The walk of [`Self::nearest`] and [`Self::k_nearest_into`]: the block of cells around
    /// `p` (a point in the hash's world), offering `keep` every boid within `max_radius` that is
    /// nearer than it asks and passes `accept`, in hash order; then twice as wide, and so on,
    /// until everything nearer than what `keep` holds has been seen.
    fn search(
        &self,
        p: Vector,
        max_radius: f32,
        mut accept: impl FnMut(&HashHit) -> bool,
        keep: &mut impl Keep,
    ) {
        let r2 = max_radius * max_radius;
        let cell = self.cell.min_element();
        let mut span = 1u32;
        loop {
            keep.clear();
            self.visit_block(p, span, |run, offset, fold| {
                for slot in run {
                    let delta = self.delta(p, slot, offset, fold);
                    let distance_squared = delta.length_squared();
                    if distance_squared < r2 && distance_squared < keep.bound() {
                        let hit = HashHit {
                            slot,
                            delta,
                            distance_squared,
                        };
                        if accept(&hit) {
                            keep.keep(hit);
                        }
                    }
                }
            });
            // Everything within `covered` of `p` has been seen.
            let covered = span as f32 * cell;
            if keep.settled(covered * covered) || covered >= max_radius || self.covers_all(p, span)
            {
                return;
            }
            span = span.saturating_mul(2);
        }
    }

    /// How many boids the hash holds.
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Whether the hash holds no boids.
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }

    /// The entity in `slot`.
    pub fn entity(&self, slot: usize) -> Entity {
        self.entities[slot]
    }

    /// The position of the boid in `slot` (wrapped into the bounds when the edges wrap).
    #[inline]
    pub fn position(&self, slot: usize) -> Vector {
        self.motions[slot].position
    }

    /// The velocity of the boid in `slot`.
    #[inline]
    pub fn velocity(&self, slot: usize) -> Vector {
        self.motions[slot].velocity
    }

    /// The species of the boid in `slot`.
    #[inline]
    pub fn species_of(&self, slot: usize) -> u16 {
        (self.keys[slot] & 0xffff) as u16
    }

    /// The flock of the boid in `slot`.
    #[inline]
    pub fn flock_of(&self, slot: usize) -> FlockId {
        FlockId(((self.keys[slot] & !UNIT_KEY) >> 16) as u16)
    }

    /// Whether the boid in `slot` is a strategy-game unit (it has [`Arrive`](crate::Arrive)).
    #[inline]
    pub fn is_unit(&self, slot: usize) -> bool {
        self.keys[slot] & UNIT_KEY != 0
    }

    /// The own top speed ([`MaxSpeed`](crate::MaxSpeed)) of the boid in `slot`, if it has one.
    #[inline]
    pub fn own_speed(&self, slot: usize) -> Option<f32> {
        let s = self.speeds[slot];
        (!s.is_nan()).then_some(s)
    }

    /// The [`key`] (flock and species) of the boid in `slot`.
    #[inline]
    pub fn key_of(&self, slot: usize) -> u32 {
        self.keys[slot]
    }

    /// Positions in slot order.
    pub fn positions(&self) -> impl ExactSizeIterator<Item = Vector> + '_ {
        self.motions.iter().map(|m| m.position)
    }

    /// Velocities in slot order.
    pub fn velocities(&self) -> impl ExactSizeIterator<Item = Vector> + '_ {
        self.motions.iter().map(|m| m.velocity)
    }

    /// Species in slot order.
    pub fn species(&self) -> impl ExactSizeIterator<Item = u16> + '_ {
        self.keys.iter().map(|&k| (k & 0xffff) as u16)
    }

    /// Keys (flock and species, see [`key`]) in slot order.
    pub fn keys(&self) -> &[u32] {
        &self.keys
    }

    /// Entities in slot order.
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    /// How many times the hash was rebuilt (wrapping): what turns a crowded block's
    /// [`Sample`](crate::sample::Sample) from step to step.
    #[inline]
    pub(crate) fn turn(&self) -> u32 {
        self.rebuilds
    }

    /// The raw arrays, for the neighbour kernel.
    #[inline]
    pub(crate) fn arrays(&self) -> Arrays<'_> {
        Arrays {
            motions: &self.motions,
            keys: &self.keys,
            speeds: &self.speeds,
        }
    }

    /// Width and height of one cell, world units.
    pub fn cell_size(&self) -> Vector {
        self.cell
    }

    /// Cells along each axis of the grid.
    pub fn dims(&self) -> UVector {
        UVector::from_array(self.dims)
    }

    /// The world position of the grid's lower-left corner.
    pub fn origin(&self) -> Vector {
        self.origin
    }

    /// The first and one past the last slot of the cell `c` (as [`Self::cell_xy`] gives it).
    #[inline]
    pub(crate) fn cell_range(&self, c: IVector) -> (usize, usize) {
        let i = self.index_of(c);
        (self.cell_start[i] as usize, self.cell_start[i + 1] as usize)
    }

    /// One past the last slot of the cell `c` (as [`Self::cell_xy`] gives it).
    #[inline]
    pub(crate) fn cell_end(&self, c: IVector) -> usize {
        self.cell_range(c).1
    }

    /// The slots of `cell` (its column, row and, in 3D, layer; each under [`Self::dims`]).
    pub fn cell_slots(&self, cell: UVector) -> Range<usize> {
        let (a, b) = self.cell_range(IVector::from_array(cell.to_array().map(|x| x as i32)));
        a..b
    }
}

dispatch! {
    /// [`SpatialHash::cell_indices`], in the build for this CPU.
    fn cell_indices(hash: &SpatialHash, positions: &[Position], out: &mut [u32]) = cell_indices_in;
}

/// [`SpatialHash::cell_indices`] as each build compiles it.
#[inline(always)]
fn cell_indices_in(hash: &SpatialHash, positions: &[Position], out: &mut [u32]) {
    const GROUP: usize = 8;
    /// Cell coordinates below this convert to `i32` exactly, by truncation.
    const LIMIT: f32 = (1 << 30) as f32;
    let (origin, inv) = (hash.origin, hash.inv_cell);
    let last = hash.dims.map(|n| n as i32 - 1);
    let mut groups = positions.chunks_exact(GROUP);
    let mut outs = out.chunks_exact_mut(GROUP);
    for (group, out) in groups.by_ref().zip(outs.by_ref()) {
        // `cell_xy`'s products, lane by lane.
        let f: [[f32; GROUP]; DIM] = fill([0.0; GROUP], |axis| {
            fill(0.0, |l| (group[l].0[axis] - origin[axis]) * inv[axis])
        });
        let plain = (0..GROUP).fold(true, |all, l| {
            // Where the edges wrap, a point outside the world is wrapped first.
            let local = !hash.wrap | hash.in_world(group[l].0);
            let in_range = (0..DIM).fold(true, |ok, axis| {
                ok & (f[axis][l] >= 0.0) & (f[axis][l] < LIMIT)
            });
            all & local & in_range
        });
        if !plain {
            for (p, cell) in group.iter().zip(out) {
                *cell = hash.cell_index(p.0);
            }
            continue;
        }
        for l in 0..GROUP {
            let mut index = 0u32;
            for axis in (0..DIM).rev() {
                // SAFETY: `plain`: finite and in `0..LIMIT`, so it fits an `i32`. Truncated, as
                // `as i32` would; no lower clamp needed, as it is at least 0.
                let c = unsafe { f[axis][l].to_int_unchecked::<i32>() }.min(last[axis]);
                index = index * hash.dims[axis] + c as u32;
            }
            out[l] = index;
        }
    }
    for (p, cell) in groups.remainder().iter().zip(outs.into_remainder()) {
        *cell = hash.cell_index(p.0);
    }
}

/// The hash's arrays that the neighbour kernel reads, in slot order.
#[derive(Clone, Copy)]
pub(crate) struct Arrays<'a> {
    pub motions: &'a [Motion],
    pub keys: &'a [u32],
    pub speeds: &'a [f32],
}

/// A boid's position and velocity as the hash stores them: side by side in 16 bytes (aligned,
/// so never across two cache lines), so that scattering a boid to its slot writes one cache
/// line for all four coordinates.
// NOTE: not one array per coordinate, which cost the scatter a cache line each: at 1,000,000
// boids on two threads the rebuild took 8.1 ms with four position and velocity columns and 7.0
// ms with these (best of three). The neighbour kernel copies each cell's block into columns
// anyway, and turns eight of these into columns with a few shuffles.
#[derive(Reflect, Debug, Clone, Copy, Default, PartialEq)]
#[reflect(Debug, Clone, Default, PartialEq)]
#[repr(C, align(16))]
pub(crate) struct Motion {
    /// Wrapped into the bounds when the edges wrap.
    pub position: Vector,
    /// As the boid's [`Velocity`](crate::Velocity) was when the hash was built.
    pub velocity: Vector,
}

/// The smallest box holding every finite point of `points`, or `None` if there are none.
pub fn occupied_box(points: impl IntoIterator<Item = Vector>) -> Option<Region> {
    let (mut min, mut max) = (
        Vector::splat(f32::INFINITY),
        Vector::splat(f32::NEG_INFINITY),
    );
    for p in points {
        if p.is_finite() {
            min = min.min(p);
            max = max.max(p);
        }
    }
    (min.x <= max.x).then(|| Region::from_corners(min, max))
}

/// Fills a [`SpatialHash`]: first [`count`](Self::count) every boid, then
/// [`place`](Self::place) every boid in the same order.
pub struct HashBuilder<'a> {
    hash: &'a mut SpatialHash,
    placed: usize,
}

impl HashBuilder<'_> {
    /// Counts one boid at `position` (first pass).
    #[inline]
    pub fn count(&mut self, position: Vector) {
        let h = &mut *self.hash;
        let cell = h.cell_index(position);
        h.cell_of.push(cell);
        h.cell_start[cell as usize + 1] += 1;
    }

    /// Stores one boid with its [`key`] and returns its slot (second pass, same order as the
    /// counts).
    ///
    /// # Panics
    /// If called more often than [`Self::count`].
    #[inline]
    pub fn place(&mut self, entity: Entity, position: Vector, velocity: Vector, key: u32) -> u32 {
        if self.placed == 0 {
            self.scan();
        }
        let h = &mut *self.hash;
        let cell = h.cell_of[self.placed] as usize;
        self.placed += 1;
        let slot = h.cursor[cell];
        h.cursor[cell] += 1;
        let local = h.local(position);
        let i = slot as usize;
        h.motions[i] = Motion {
            position: local,
            velocity,
        };
        (h.entities[i], h.keys[i], h.speeds[i]) = (entity, key, f32::NAN);
        slot
    }

    /// Prefix-sums the counts and sizes the arrays, between the two passes.
    fn scan(&mut self) {
        let h = &mut *self.hash;
        let mut sum = 0u32;
        for start in h.cell_start.iter_mut() {
            sum += *start;
            *start = sum;
        }
        // cell_start[c + 1] now holds the end of cell c; shift to get the starts.
        let cells = h.cell_start.len() - 1;
        h.cursor.clear();
        h.cursor.extend_from_slice(&h.cell_start[..cells]);
        let n = h.cell_of.len();
        h.size_arrays(n);
    }
}

impl SpatialHash {
    /// Sizes the arrays for `n` boids.
    fn size_arrays(&mut self, n: usize) {
        self.entities.resize(n, Entity::PLACEHOLDER);
        self.motions.resize(n, Motion::default());
        self.keys.resize(n, 0);
        self.speeds.resize(n, f32::NAN);
    }
}

impl Drop for HashBuilder<'_> {
    fn drop(&mut self) {
        if self.placed == 0 {
            // Counted but never placed (or nothing at all): keep the hash consistent and empty.
            self.scan();
        }
        let keep = if self.placed == self.hash.cell_of.len() {
            self.placed
        } else {
            // An incomplete build: drop everything rather than leave slots pointing nowhere.
            0
        };
        let h = &mut *self.hash;
        h.entities.truncate(keep);
        h.motions.truncate(keep);
        h.keys.truncate(keep);
        h.speeds.truncate(keep);
        if keep == 0 {
            h.cell_start.iter_mut().for_each(|s| *s = 0);
        }
    }
}

/// A fixed-capacity list of the `k` nearest hits, nearest first, for
/// [`SpatialHash::k_nearest_into`].
#[derive(Reflect, Debug, Clone)]
#[reflect(Debug, Clone)]
pub struct KNearest {
    k: usize,
    len: usize,
    hits: [HashHit; Self::CAPACITY],
}

impl KNearest {
    /// The largest `k`.
    pub const CAPACITY: usize = 32;

    /// An empty list keeping the `k` nearest (clamped to [`Self::CAPACITY`]).
    pub fn new(k: usize) -> Self {
        Self {
            k: k.min(Self::CAPACITY),
            len: 0,
            hits: [HashHit {
                slot: 0,
                delta: Vector::ZERO,
                distance_squared: 0.0,
            }; Self::CAPACITY],
        }
    }

    /// Changes `k` (clamped to [`Self::CAPACITY`]) and empties the list.
    pub fn set_k(&mut self, k: usize) {
        self.k = k.min(Self::CAPACITY);
        self.len = 0;
    }

    fn clear(&mut self) {
        self.len = 0;
    }

    fn is_full(&self) -> bool {
        self.len == self.k
    }

    fn worst(&self) -> f32 {
        self.hits[self.len - 1].distance_squared
    }

    /// Keeps `hit` if it is among the `k` nearest so far; on a tie the earlier one stays.
    pub(crate) fn offer(&mut self, hit: HashHit) {
        if self.is_full() {
            if hit.distance_squared >= self.worst() {
                return;
            }
            self.len -= 1;
        }
        let mut i = self.len;
        while i > 0 && self.hits[i - 1].distance_squared > hit.distance_squared {
            self.hits[i] = self.hits[i - 1];
            i -= 1;
        }
        self.hits[i] = hit;
        self.len += 1;
    }

    /// The hits, nearest first.
    pub fn as_slice(&self) -> &[HashHit] {
        &self.hits[..self.len]
    }
}

/// What [`SpatialHash::search`] keeps as it walks: the hits so far, and how near a new one must
/// be to count. [`KNearest`] keeps `k` of them, [`Best`] one.
trait Keep {
    /// Forgets every hit (the search starts over on a wider block).
    fn clear(&mut self);
    /// A hit counts only if its squared distance is strictly below this.
    fn bound(&self) -> f32;
    /// Keeps `hit`, which is nearer than [`Keep::bound`]; on a tie the earlier one stays.
    fn keep(&mut self, hit: HashHit);
    /// Whether nothing farther than `covered2` (squared) could change what is kept.
    fn settled(&self, covered2: f32) -> bool;
}

impl Keep for KNearest {
    fn clear(&mut self) {
        self.len = 0;
    }
    fn bound(&self) -> f32 {
        if self.is_full() {
            self.worst()
        } else {
            f32::INFINITY
        }
    }
    fn keep(&mut self, hit: HashHit) {
        self.offer(hit);
    }
    fn settled(&self, covered2: f32) -> bool {
        self.is_full() && self.worst() <= covered2
    }
}

/// The one nearest hit so far ([`SpatialHash::nearest`]): `hit`, where `found`.
struct Best {
    hit: HashHit,
    found: bool,
}

impl Best {
    fn new() -> Self {
        let mut best = Self {
            hit: HashHit {
                slot: 0,
                delta: Vector::ZERO,
                distance_squared: 0.0,
            },
            found: false,
        };
        best.clear();
        best
    }
}

impl Keep for Best {
    fn clear(&mut self) {
        self.found = false;
        self.hit.distance_squared = f32::INFINITY;
    }
    fn bound(&self) -> f32 {
        self.hit.distance_squared
    }
    fn keep(&mut self, hit: HashHit) {
        self.hit = hit;
        self.found = true;
    }
    fn settled(&self, covered2: f32) -> bool {
        self.found && self.hit.distance_squared <= covered2
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{per_axis, region, xyz};

    /// The tests' world, with wrapping edges and with walls.
    fn wrapping_and_walled() -> [SimulationBounds; 2] {
        let rect = region([-100.0, 50.0, -20.0], [700.0, 450.0, 330.0]);
        [
            SimulationBounds::wrap(rect),
            SimulationBounds {
                rect,
                edges: crate::bounds::Edges::TURN_BACK,
            },
        ]
    }

    /// `cell_indices`, eight at a time, against `cell_index` one by one, for points inside,
    /// on the edges of and far outside the world, and non-finite ones, in wrapping and walled
    /// worlds, in groups that are all inside (the vector path), mixed, and a remainder.
    #[test]
    fn cell_indices_match_cell_index() {
        for bounds in wrapping_and_walled() {
            let boids: Vec<_> = (0..50)
                .map(|i| {
                    let t = i as f32;
                    let p = xyz([
                        -90.0 + t * 15.7,
                        60.0 + (t * 37.0) % 380.0,
                        (t * 23.0) % 340.0 - 15.0,
                    ]);
                    (Entity::from_raw_u32(i + 1).unwrap(), p, Vector::X, 0)
                })
                .collect();
            let mut hash = SpatialHash::default();
            hash.rebuild(&bounds, 70.0, &boids);
            let inside: Vec<Vector> = (0..64)
                .map(|i| {
                    let t = i as f32;
                    xyz([
                        -100.0 + t * 12.4,
                        50.0 + (t * 53.0) % 400.0,
                        (t * 31.0) % 350.0 - 20.0,
                    ])
                })
                .collect();
            let odd = [
                xyz([-100.0, 50.0, -20.0]),
                xyz([700.0, 450.0, 330.0]),
                xyz([699.99, 449.99, 329.99]),
                xyz([-100.01, 49.99, -20.01]),
                xyz([-5000.0, 9000.0, 0.0]),
                xyz([1e30, -1e30, 1e30]),
                xyz([f32::NAN, 100.0, 0.0]),
                xyz([0.0, f32::INFINITY, 0.0]),
                xyz([f32::NEG_INFINITY, f32::NAN, 0.0]),
                xyz([0.0, 100.0, f32::NAN]),
                xyz([0.0, 100.0, 5000.0]),
            ];
            let mut points = inside.clone();
            points.extend(odd);
            points.extend(inside.iter().take(16));
            points.extend(odd.iter().rev());
            let positions: Vec<Position> = points.iter().map(|&p| Position(p)).collect();
            let mut cells = vec![u32::MAX; positions.len()];
            hash.cell_indices(&positions, &mut cells);
            for (p, &cell) in points.iter().zip(&cells) {
                assert_eq!(cell, hash.cell_index(*p), "{p} in {:?}", bounds.edges);
            }
        }
    }

    /// `inner_block` gives, for every cell off the grid's edge, the runs `visit_block` visits
    /// (leaving out the empty ones it skips), all at offset zero; and nothing on the edge.
    #[test]
    fn inner_blocks_are_visited_blocks() {
        for bounds in wrapping_and_walled() {
            // Some cells empty, some crowded.
            let boids: Vec<_> = (0..400u32)
                .map(|i| {
                    let t = i as f32;
                    let p = xyz([
                        -100.0 + (t * t * 0.37) % 800.0,
                        50.0 + (t * 61.0) % 400.0,
                        (t * 29.0) % 350.0 - 20.0,
                    ]);
                    (Entity::from_raw_u32(i + 1).unwrap(), p, Vector::X, 0)
                })
                .collect();
            let mut hash = SpatialHash::default();
            hash.rebuild(&bounds, 70.0, &boids);
            let (mut inner, mut edge) = (0, 0);
            let cells = hash.dims.iter().product::<u32>();
            for index in 0..cells {
                // Cell `index`, column first.
                let mut rest = index;
                let c = IVector::from_array(fill(0, |axis| {
                    let at = rest % hash.dims[axis];
                    rest /= hash.dims[axis];
                    at as i32
                }));
                // The cell's centre, as the kernel passes a position in the cell.
                let p = hash.origin + (per_axis(|axis| c[axis] as f32) + 0.5) / hash.inv_cell;
                assert_eq!(hash.cell_xy(p), c);
                let mut visited = Vec::new();
                hash.visit_block(p, 1, |run, offset, _| visited.push((run, offset)));
                let on_edge =
                    (0..DIM).any(|axis| c[axis] == 0 || c[axis] + 1 == hash.dims[axis] as i32);
                match hash.inner_block(c) {
                    Some(rows) => {
                        inner += 1;
                        assert!(!on_edge, "{c}");
                        let runs: Vec<_> = rows
                            .into_iter()
                            .filter(|run| !run.is_empty())
                            .map(|run| (run, Vector::ZERO))
                            .collect();
                        assert_eq!(runs, visited, "{c} in {:?}", bounds.edges);
                    }
                    None => {
                        edge += 1;
                        assert!(on_edge, "{c}");
                    }
                }
            }
            assert!(inner > 10 && edge > 10, "{inner} inner, {edge} on the edge");
        }
    }
}
