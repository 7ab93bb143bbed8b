//! [`PartedBuild`]: the plugin's rebuild of the [`SpatialHash`], the same counting sort as
//! [`HashBuilder`](super::HashBuilder) cut into parts that count and scatter on the compute task
//! pool at once.
//!
//! Each part is a run of consecutive boids of one table and has its own count of every cell.
//! The scan lays the parts' slots of a cell one after the other, part by part, so the boids of a
//! cell end up in the order the query gave them, exactly as one serial pass would put them:
//! the hash, and so the flock, is the same whatever the number of parts or threads.

use core::ops::Range;

use bevy::ecs::change_detection::Tick;
use bevy::prelude::*;
use bevy::tasks::{ComputeTaskPool, TaskPool};

use super::{Motion, SpatialHash, UNIT_KEY, key};
use crate::bounds::SimulationBounds;
use crate::components::FlockId;
use crate::components::{HashSlot, MaxSpeed, Position, Species, Velocity};
use crate::math::Region;
use crate::math::Vector;
use crate::parallel::{pool, run_each, workers};

/// The fewest boids in a part: every part has its own count of every cell, which the scan
/// walks, so a small flock is cut in fewer parts than there are threads.
const MIN_PART: usize = 2048;

/// A rebuild in progress: [`count`](Self::count) every table's boids, then
/// [`place`](Self::place) the same tables in the same order, then [`finish`](Self::finish).
pub(crate) struct PartedBuild<'a> {
    hash: &'a mut SpatialHash,
    cells: usize,
    /// Boids a part takes (the last part of a table takes the rest).
    part_len: usize,
    /// Parts and boids counted, then placed, so far.
    parts: usize,
    boids: usize,
    counting: bool,
}

impl SpatialHash {
    /// Starts a rebuild of the boids of tables as long as `table_lens` says (in the order the
    /// tables will be counted and placed), with cells at least `cell_size` wide.
    /// `occupied` is as for [`Self::begin`].
    pub(crate) fn begin_parted(
        &mut self,
        bounds: &SimulationBounds,
        cell_size: f32,
        occupied: Region,
        table_lens: impl Iterator<Item = usize>,
    ) -> PartedBuild<'_> {
        let pool = ComputeTaskPool::get_or_init(TaskPool::default);
        let lens: (usize, usize) = table_lens.fold((0, 0), |(n, big), len| (n + len, big.max(len)));
        let count = lens.0;
        // One part a worker of the largest table, whole tables on one thread.
        let threads = workers(pool);
        let part_len = if threads < 2 {
            usize::MAX
        } else {
            lens.1.div_ceil(threads).max(MIN_PART)
        };
        self.layout(bounds, cell_size, occupied, count);
        let cells = self.cell_count();
        // Only sized, not cleared (a million boids have a quarter of a million cells, and
        // clearing is serial): the scan writes every cell's start, the counts every boid's
        // cell, and each part clears its own counts.
        self.cell_start.resize(cells + 1, 0);
        self.cell_of.resize(count, 0);
        self.size_arrays(count);
        // Nearly every boid flies at its flock's speed (NaN): set them all so, in one sequential
        // pass, and let the scatter write only the few with a speed of their own.
        self.speeds.fill(f32::NAN);
        PartedBuild {
            hash: self,
            cells,
            part_len,
            parts: 0,
            boids: 0,
            counting: true,
        }
    }
}

impl PartedBuild<'_> {
    /// Counts the next table's boids, at `positions`.
    pub fn count(&mut self, positions: &[Position]) {
        assert!(self.counting, "count every table before placing any");
        let (n, cells, part_len) = (positions.len(), self.cells, self.part_len);
        let parts = n.div_ceil(part_len);
        let h = &mut *self.hash;
        h.part_cursor.resize((self.parts + parts) * cells, 0);
        let mut cell_of = core::mem::take(&mut h.cell_of);
        let mut counts = core::mem::take(&mut h.part_cursor);
        {
            let h: &SpatialHash = h;
            let work = positions
                .chunks(part_len)
                .zip(cell_of[self.boids..self.boids + n].chunks_mut(part_len))
                .zip(counts[self.parts * cells..].chunks_mut(cells));
            run_each(work, |((positions, cell_of), counts)| {
                counts.fill(0);
                h.cell_indices(positions, cell_of);
                for &cell in cell_of.iter() {
                    counts[cell as usize] += 1;
                }
            });
        }
        h.cell_of = cell_of;
        h.part_cursor = counts;
        self.parts += parts;
        self.boids += n;
    }

    /// Turns the counts into each part's first slot in each cell, and its end: the slots of a
    /// cell go to its parts one after the other, part by part, cell after cell.
    ///
    /// In runs of at least [`SCAN_RUN`] cells, a few a thread, on the compute task pool (at a
    /// million boids a serial
    /// scan over a quarter of a million cells and two parts took 0.7 ms): each run adds up its
    /// boids, the runs' first slots follow from those totals, then each run lays out its own
    /// cells. The same slots as one serial pass.
    fn scan(&mut self) {
        let (cells, parts) = (self.cells, self.parts);
        let h = &mut *self.hash;
        // Only sized: the layout writes every part's end in every cell.
        h.part_end.resize(parts * cells, 0);
        h.run_start.clear();
        let run = cells
            .div_ceil(workers(pool()) * SCAN_RUNS_PER_THREAD)
            .max(SCAN_RUN);
        h.run_start.resize(cells.div_ceil(run), 0);
        let run_cells = |i: usize| i * run..((i + 1) * run).min(cells);
        let counts = &h.part_cursor;
        run_each(h.run_start.iter_mut().enumerate(), |(run, total)| {
            let cells_of_run = run_cells(run);
            *total = (0..parts)
                .map(|part| {
                    let row = part * cells;
                    let counts = &counts[row + cells_of_run.start..row + cells_of_run.end];
                    counts.iter().sum::<u32>()
                })
                .sum();
        });
        let mut slot = 0u32;
        for start in &mut h.run_start {
            (*start, slot) = (slot, slot + *start);
        }
        h.cell_start[cells] = slot;
        let layout = Layout::new(h, parts);
        run_each(h.run_start.iter().enumerate(), |(run, &first_slot)| {
            // SAFETY: the runs are disjoint ranges of cells.
            unsafe { layout.run(run_cells(run), first_slot) };
        });
        self.counting = false;
        self.parts = 0;
        self.boids = 0;
    }

    /// Places the next table's boids (the tables in the order they were counted), and tells
    /// each its slot ([`Placed::placed`]).
    ///
    /// # Panics
    /// If the table holds other boids than were counted for it.
    pub fn place<T: Placed>(&mut self, table: T) {
        if self.counting {
            self.scan();
        }
        let (n, cells, part_len) = (table.len(), self.cells, self.part_len);
        let parts = n.div_ceil(part_len);
        let h = &mut *self.hash;
        let mut cursors = core::mem::take(&mut h.part_cursor);
        let arrays = Scatter::new(h);
        {
            let hash: &SpatialHash = h;
            let (first, boids) = (self.parts * cells, self.boids..self.boids + n);
            let work = table
                .parts(part_len)
                .zip(hash.cell_of[boids].chunks(part_len))
                .zip(cursors[first..].chunks_mut(cells))
                .zip(hash.part_end[first..].chunks(cells));
            run_each(work, |(((mut part, cell_of), cursor), end)| {
                let arrays = &arrays;
                for (i, &cell) in cell_of.iter().enumerate() {
                    let cell = cell as usize;
                    let slot = cursor[cell];
                    // What keeps parts from ever writing the same slot: each writes only inside
                    // its own range of each cell.
                    assert!(
                        slot < end[cell],
                        "a table changed between counting and placing"
                    );
                    cursor[cell] += 1;
                    let Boid {
                        entity,
                        position,
                        velocity,
                        key,
                        speed,
                    } = part.boid(i);
                    let position = hash.local(position);
                    // SAFETY: `slot` lies in this part's own range of `cell` (checked above),
                    // and the ranges of all parts and cells are disjoint.
                    unsafe {
                        arrays.write(slot as usize, (position, velocity), entity, (key, speed));
                    }
                    part.placed(i, slot);
                }
            });
        }
        h.part_cursor = cursors;
        self.parts += parts;
        self.boids += n;
    }

    /// Ends the rebuild.
    ///
    /// # Panics
    /// If fewer boids were placed than counted.
    pub fn finish(mut self) {
        if self.counting {
            self.scan();
        }
        let h = &mut *self.hash;
        assert_eq!(
            self.boids,
            h.motions.len(),
            "every counted boid must be placed"
        );
    }
}

/// Cells a run of the scan lays out.
const SCAN_RUN: usize = 8192;
/// Runs of the scan a thread, at most.
const SCAN_RUNS_PER_THREAD: usize = 4;

/// The arrays the scan lays out, shared by its runs, each writing only its own cells.
struct Layout {
    cell_start: *mut u32,
    /// The parts' counts of each cell, turned into their first slots.
    cursor: *mut u32,
    end: *mut u32,
    cells: usize,
    parts: usize,
}

// SAFETY: the runs write disjoint cells (see `PartedBuild::scan`), and nothing reads the
// arrays until every run is done.
unsafe impl Send for Layout {}
// SAFETY: as above.
unsafe impl Sync for Layout {}

impl Layout {
    /// The arrays of `hash`, for `parts` parts of a build over every cell.
    fn new(hash: &mut SpatialHash, parts: usize) -> Self {
        let cells = hash.cell_start.len() - 1;
        assert!(
            hash.part_cursor.len() >= parts * cells && hash.part_end.len() >= parts * cells,
            "a count and an end for every part of every cell"
        );
        Self {
            cell_start: hash.cell_start.as_mut_ptr(),
            cursor: hash.part_cursor.as_mut_ptr(),
            end: hash.part_end.as_mut_ptr(),
            cells,
            parts,
        }
    }

    /// Lays out `cells`, whose first slot is `slot`.
    ///
    /// # Safety
    /// No other thread may lay out any of `cells` at the same time.
    unsafe fn run(&self, cells: Range<usize>, mut slot: u32) {
        assert!(cells.end <= self.cells, "cells {cells:?} outside the grid");
        for cell in cells {
            // SAFETY: in bounds (`cell` below `cells`, each part's row `cells` long, checked in
            // `new`); this cell's entries are this call's alone, as the caller promises.
            unsafe {
                *self.cell_start.add(cell) = slot;
                for part in 0..self.parts {
                    let i = part * self.cells + cell;
                    let n = *self.cursor.add(i);
                    *self.cursor.add(i) = slot;
                    slot += n;
                    *self.end.add(i) = slot;
                }
            }
        }
    }
}

/// What a [`PartedBuild`] places: boids side by side, cut into parts that scatter at once.
pub(crate) trait Placed: Send + Sized {
    /// How many boids.
    fn len(&self) -> usize;
    /// Cut into parts of `len` boids (the last takes the rest).
    fn parts(self, len: usize) -> impl Iterator<Item = Self>;
    /// What the hash keeps of boid `i`.
    fn boid(&self, i: usize) -> Boid;
    /// Boid `i` went to `slot`.
    fn placed(&mut self, i: usize, slot: u32);
}

/// What the hash keeps of one boid ([`Placed::boid`]).
pub(crate) struct Boid {
    pub entity: Entity,
    /// Where it is, as it was given (the scatter wraps it in).
    pub position: Vector,
    pub velocity: Vector,
    /// Its [`key`].
    pub key: u32,
    /// Its own top speed, if it has one.
    pub speed: Option<f32>,
}

/// Points with nothing else to them (a hash of the predators, say): each boid at rest, with
/// key 0 and no speed of its own, told nothing of its slot.
pub(crate) struct Points<'a> {
    pub entities: &'a [Entity],
    pub positions: &'a [Position],
}

impl Placed for Points<'_> {
    fn len(&self) -> usize {
        self.entities.len()
    }

    fn parts(self, len: usize) -> impl Iterator<Item = Self> {
        let chunks = self.entities.chunks(len).zip(self.positions.chunks(len));
        chunks.map(|(entities, positions)| Points {
            entities,
            positions,
        })
    }

    #[inline(always)]
    fn boid(&self, i: usize) -> Boid {
        Boid {
            entity: self.entities[i],
            position: self.positions[i].0,
            velocity: Vector::ZERO,
            key: 0,
            speed: None,
        }
    }

    #[inline(always)]
    fn placed(&mut self, _: usize, _: u32) {}
}

/// One table's boids as the plugin's query hands them over: one slice per component. Each is
/// told its [`HashSlot`], marked changed at `now` (in `changed`) only if it moved.
pub(crate) struct Table<'a> {
    pub entities: &'a [Entity],
    pub positions: &'a [Position],
    pub velocities: &'a [Velocity],
    pub species: &'a [Species],
    pub flocks: &'a [FlockId],
    /// Each boid's own top speed, where the table has them.
    pub max_speed: Option<&'a [MaxSpeed]>,
    /// Whether the table's boids are strategy-game units.
    pub unit: bool,
    pub slots: &'a mut [HashSlot],
    /// The change ticks of `slots`.
    pub changed: &'a mut [Tick],
    /// This run of the system, for `changed`.
    pub now: Tick,
}

impl Placed for Table<'_> {
    fn len(&self) -> usize {
        self.entities.len()
    }

    fn parts(self, len: usize) -> impl Iterator<Item = Self> {
        let Table {
            entities,
            positions,
            velocities,
            species,
            flocks,
            max_speed,
            unit,
            slots,
            changed,
            now,
        } = self;
        let max_speed = max_speed.into_iter().flat_map(move |m| m.chunks(len));
        entities
            .chunks(len)
            .zip(positions.chunks(len))
            .zip(velocities.chunks(len))
            .zip(species.chunks(len))
            .zip(flocks.chunks(len))
            .zip(max_speed.map(Some).chain(core::iter::repeat(None)))
            .zip(slots.chunks_mut(len))
            .zip(changed.chunks_mut(len))
            .map(
                move |(
                    ((((((entities, positions), velocities), species), flocks), max_speed), slots),
                    changed,
                )| {
                    Table {
                        entities,
                        positions,
                        velocities,
                        species,
                        flocks,
                        max_speed,
                        unit,
                        slots,
                        changed,
                        now,
                    }
                },
            )
    }

    #[inline(always)]
    fn boid(&self, i: usize) -> Boid {
        let unit = if self.unit { UNIT_KEY } else { 0 };
        Boid {
            entity: self.entities[i],
            position: self.positions[i].0,
            velocity: self.velocities[i].0,
            key: key(self.flocks[i], self.species[i].0) | unit,
            speed: self.max_speed.map(|m| m[i].0),
        }
    }

    #[inline(always)]
    fn placed(&mut self, i: usize, slot: u32) {
        if self.slots[i].0 != slot {
            self.slots[i].0 = slot;
            self.changed[i] = self.now;
        }
    }
}

/// The hash's arrays, shared by the parts of a scatter, each writing only its own slots.
///
/// Written straight at each boid's slot: its [`Motion`], entity and key, three cache lines (and
/// its own top speed where it has one; the others' were set to NaN in one sequential pass).
/// (It was one 32-byte record per boid, one cache line, split into the arrays by a second pass;
/// the second pass was the cost: at 100,000 boids on two threads the rebuild went from 0.92 to
/// 0.82 ms without it, level on one thread, and level on a flock mixed by 3,000 steps.)
// NOTE: a write prefetch of the slot 16 boids ahead (`_mm_prefetch`) made the rebuild about 17%
// faster at 1,000,000 boids on two threads, but the whole step only 3.6% (median 56.1 -> 54.1
// ms), and the step at 100,000 slightly slower: under the 10% that hand-written intrinsics must
// earn, so it is gone.
struct Scatter {
    motions: *mut Motion,
    entities: *mut Entity,
    keys: *mut u32,
    speeds: *mut f32,
    len: usize,
}

// SAFETY: the parts write disjoint slots (see `PartedBuild::place`), and nothing reads the
// arrays until every part is done.
unsafe impl Send for Scatter {}
// SAFETY: as above.
unsafe impl Sync for Scatter {}

impl Scatter {
    /// The arrays of `hash`, sized for the build (all as long as the motions).
    fn new(hash: &mut SpatialHash) -> Self {
        let len = hash.motions.len();
        assert!(
            hash.entities.len() == len && hash.keys.len() == len && hash.speeds.len() == len,
            "the arrays are sized together"
        );
        Self {
            motions: hash.motions.as_mut_ptr(),
            entities: hash.entities.as_mut_ptr(),
            keys: hash.keys.as_mut_ptr(),
            speeds: hash.speeds.as_mut_ptr(),
            len,
        }
    }

    /// Writes one boid into `slot` of every array.
    ///
    /// # Safety
    /// No other thread may write or read `slot` at the same time.
    #[inline(always)]
    unsafe fn write(
        &self,
        slot: usize,
        (p, v): (Vector, Vector),
        entity: Entity,
        (key, speed): (u32, Option<f32>),
    ) {
        assert!(slot < self.len, "slot {slot} outside the arrays");
        // SAFETY: in bounds (checked); exclusive by the caller's guarantee.
        unsafe {
            *self.motions.add(slot) = Motion {
                position: p,
                velocity: v,
            };
            *self.entities.add(slot) = entity;
            *self.keys.add(slot) = key;
            if let Some(speed) = speed {
                *self.speeds.add(slot) = speed;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use bevy::ecs::change_detection::Tick;
    use bevy::prelude::*;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::{Points, Table};
    use crate::bounds::SimulationBounds;
    use crate::components::FlockId;
    use crate::components::{HashSlot, Position, Species, Velocity};
    use crate::hash::SpatialHash;
    use crate::lanes::fill;
    use crate::math::{DIM, UVector, Vector, per_axis, region, xyz};

    /// Builds `hash` in parts from two tables (the boids' first 7,000 and the rest), each told
    /// its slot at tick `now`.
    fn parted_build(
        hash: &mut SpatialHash,
        bounds: &SimulationBounds,
        now: Tick,
        (entities, positions, velocities, species, flocks): (
            &[Entity],
            &[Position],
            &[Velocity],
            &[Species],
            &[FlockId],
        ),
        (slots, changed): (&mut [HashSlot], &mut [Tick]),
    ) {
        let (n, cut) = (entities.len(), 7_000);
        let mut build = hash.begin_parted(bounds, 1.0, bounds.rect, [cut, n - cut].into_iter());
        build.count(&positions[..cut]);
        build.count(&positions[cut..]);
        let (first_slots, last_slots) = slots.split_at_mut(cut);
        let (first_changed, last_changed) = changed.split_at_mut(cut);
        for (range, slots, changed) in [
            (0..cut, first_slots, first_changed),
            (cut..n, last_slots, last_changed),
        ] {
            let table = Table {
                entities: &entities[range.clone()],
                positions: &positions[range.clone()],
                velocities: &velocities[range.clone()],
                species: &species[range.clone()],
                flocks: &flocks[range],
                max_speed: None,
                unit: false,
                slots,
                changed,
                now,
            };
            build.place(table);
        }
        build.finish();
    }

    /// `parted` holds what `serial` holds: the same boids in the same slots, cell for cell.
    fn assert_same_hash(parted: &SpatialHash, serial: &SpatialHash) {
        assert_eq!(parted.entities(), serial.entities());
        assert!(parted.positions().eq(serial.positions()));
        assert!(parted.velocities().eq(serial.velocities()));
        assert_eq!(parted.keys(), serial.keys());
        assert_eq!(parted.dims(), serial.dims());
        let dims = serial.dims();
        for index in 0..dims.element_product() {
            // Cell `index`, column first.
            let mut rest = index;
            let cell = UVector::from_array(fill(0, |axis| {
                let at = rest % dims[axis];
                rest /= dims[axis];
                at
            }));
            assert_eq!(parted.cell_slots(cell), serial.cell_slots(cell));
        }
    }

    /// `n` entities at random positions in the tests' world and a little beyond it (some
    /// outside, to be wrapped in).
    fn scattered(rng: &mut Xoshiro256PlusPlus, n: u32) -> (Vec<Entity>, Vec<Position>) {
        let entities = (1..=n).map(|i| Entity::from_raw_u32(i).unwrap()).collect();
        let positions = (0..n)
            .map(|_| Position(xyz([220.0, 110.0, 66.0].map(|s| rng.random::<f32>() * s))))
            .collect();
        (entities, positions)
    }

    /// Two tables, cut into parts and placed on the compute task pool, over more cells than
    /// one run of the scan: the same hash as the serial build, and every boid told its slot.
    #[test]
    fn a_parted_build_is_the_serial_build() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let bounds = SimulationBounds::wrap(region([0.0; 3], [200.0, 100.0, 60.0]));
        let n = 12_000u32;
        let (entities, positions) = scattered(&mut rng, n);
        let velocities: Vec<Velocity> = (0..n)
            .map(|_| Velocity(xyz([0.0; 3].map(|_| rng.random()))))
            .collect();
        let species: Vec<Species> = (0..n).map(|i| Species((i % 3) as u16)).collect();
        let flocks = vec![FlockId::DEFAULT; n as usize];
        let list: Vec<(Entity, Vector, Vector, u16)> = (0..n as usize)
            .map(|i| (entities[i], positions[i].0, velocities[i].0, species[i].0))
            .collect();
        let mut serial = SpatialHash::default();
        serial.rebuild(&bounds, 1.0, &list);
        assert!(serial.dims().element_product() > 2 * super::SCAN_RUN as u32);

        // Built twice: first from other positions (the arrays keep their contents between
        // builds, and must not leak into the next).
        let mut parted = SpatialHash::default();
        let elsewhere: Vec<Position> = positions
            .iter()
            .map(|p| Position(per_axis(|axis| p.0[(axis + 1) % DIM])))
            .collect();
        let (mut slots, mut changed) = (Vec::new(), Vec::new());
        let now = Tick::new(9);
        for placed in [&elsewhere, &positions] {
            // Each build starts from boids with no slot and no change marked.
            slots = vec![HashSlot::NONE; n as usize];
            changed = vec![Tick::new(0); n as usize];
            parted_build(
                &mut parted,
                &bounds,
                now,
                (&entities, placed, &velocities, &species, &flocks),
                (&mut slots, &mut changed),
            );
        }
        assert_same_hash(&parted, &serial);
        for (i, slot) in slots.iter().enumerate() {
            assert_eq!(parted.entity(slot.0 as usize), entities[i], "boid {i}");
            assert_eq!(changed[i], now, "boid {i} moved from no slot");
        }
    }

    /// Points (a hash of the predators) built in parts: the hash the serial build makes of the
    /// same points at rest with key 0, cell for cell.
    #[test]
    fn parted_points_are_the_serial_build() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let bounds = SimulationBounds::wrap(region([0.0; 3], [200.0, 100.0, 60.0]));
        let n = 9_000u32;
        let (entities, positions) = scattered(&mut rng, n);
        let mut serial = SpatialHash::default();
        {
            let mut build = serial.begin(&bounds, 2.0, bounds.rect, positions.len());
            for p in &positions {
                build.count(p.0);
            }
            for (&e, p) in entities.iter().zip(&positions) {
                build.place(e, p.0, Vector::ZERO, 0);
            }
        }
        let mut parted = SpatialHash::default();
        let mut build =
            parted.begin_parted(&bounds, 2.0, bounds.rect, [positions.len()].into_iter());
        build.count(&positions);
        build.place(Points {
            entities: &entities,
            positions: &positions,
        });
        build.finish();
        assert_same_hash(&parted, &serial);
    }
}
