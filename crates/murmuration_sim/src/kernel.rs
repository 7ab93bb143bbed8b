//! The flocking inner loop for metric neighbours: the hottest code in the crate.
//!
//! It computes the same sums as [`for_each_neighbour`](crate::for_each_neighbour) feeding
//! [`FlockSums::add`], but branch-free, [`LANES`] candidates at a time in independent
//! accumulators (one AVX2 register each where the CPU has AVX2; where it has AVX-512, two boids
//! of a cell side by side, one in each half of a 512-bit register). The boids of one cell share
//! their 3x3 block of cells, which is copied once into a contiguous, padded buffer; each boid of
//! the cell then runs the same whole chunks of it. Each candidate lands in a fixed lane (its
//! place in that buffer modulo [`LANES`]) and the lanes are summed in a fixed order, so the
//! result depends only on the hash, never on threads or on the CPU.

use core::ops::Range;

use bevy::prelude::*;

use crate::behaviours::{FlockSums, tie_break};
use crate::flock_sums::PassCounts;
use crate::hash::{Arrays, Motion, SpatialHash};
use crate::neighbours::Perception;

/// Candidates processed side by side: one AVX2 register, or two SSE registers. Fixed whatever
/// the CPU, so that every CPU adds the same candidates in the same order and gets the same bits.
pub(crate) const LANES: usize = 8;

/// The boid whose neighbours the kernel sums, as the lane loop reads it.
#[derive(Clone, Copy)]
struct Observer {
    slot: usize,
    px: f32,
    py: f32,
    vx: f32,
    vy: f32,
    species: u16,
    /// Squared perception radius.
    perception2: f32,
    /// Squared separation distance.
    separation2: f32,
    /// `cos(fov / 2)^2 |v|^2`.
    cos2_v2: f32,
}

impl Observer {
    /// The boid in `slot` of `hash`, seeing as `perception` says.
    #[inline(always)]
    fn new(hash: &SpatialHash, slot: usize, perception: &Perception, separation2: f32) -> Self {
        let (p, v) = (hash.position(slot), hash.velocity(slot));
        let view_cos = perception.view_cos;
        Self {
            slot,
            px: p.x,
            py: p.y,
            vx: v.x,
            vy: v.y,
            species: hash.species_of(slot),
            perception2: perception.radius * perception.radius,
            separation2,
            cos2_v2: view_cos * view_cos * v.length_squared(),
        }
    }
}

/// Field-of-view kinds, as const generic parameters so the lane loop has no branch on them.
const VIEW_ALL: u8 = 0;
/// Under 180 degrees: in front and within the cone.
const VIEW_NARROW: u8 = 1;
/// 180 degrees or more: in front, or outside the blind cone behind.
const VIEW_WIDE: u8 = 2;

/// One block of [`LANES`] candidates, as the columns of the hash.
struct Chunk<'a> {
    x: &'a [f32; LANES],
    y: &'a [f32; LANES],
    vx: &'a [f32; LANES],
    vy: &'a [f32; LANES],
    /// Widened to 32 bits, a lane's width, so the builds compare them as loaded.
    species: &'a [u32; LANES],
}

/// The neighbour counts of one observer: exact integers, so the same on every CPU.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counts {
    /// Neighbours at a distance above zero.
    seen: u32,
    /// Of those, the ones of the observer's species.
    same: u32,
    /// Candidates on exactly the observer's spot (the observer itself among them).
    coincident: u32,
}

/// The sums of one observer over some chunks: separation, alignment, cohesion (x and y each),
/// and the counts.
type Totals = ([f32; 6], Counts);

/// Per-lane partial sums, kept by the portable build and, as registers, by the AVX2 build.
///
/// Both builds do the same IEEE operations in the same order in every lane (a multiply and an
/// add are never fused, a division is a true division) and add the lanes in the same tree order
/// ([`tree_sum`]), so they give the same bits.
trait Accumulator: Default {
    /// Adds one chunk of candidates.
    fn add<const VIEW: u8>(&mut self, o: &Observer, c: &Chunk);
    /// Eight stored boids as columns: their positions' x and y moved by `offset`, and their
    /// velocities' x and y. (Exact copies and one addition each, so the same in every build.)
    #[inline(always)]
    fn columns(m: &[Motion; LANES], offset: Vec2) -> [[f32; LANES]; 4] {
        [
            m.map(|m| m.position.x + offset.x),
            m.map(|m| m.position.y + offset.y),
            m.map(|m| m.velocity.x),
            m.map(|m| m.velocity.y),
        ]
    }
    /// The lanes added up.
    fn total(&self) -> Totals;
}

/// Two observers of one cell over the same chunks: one after the other, or side by side where a
/// build can (the AVX-512 one holds one chunk for both in each register). Either way each gets
/// exactly what [`lane_totals`] gives it.
trait Pairs {
    /// Whether the build pairs observers at all (where one after the other is all it can do,
    /// the kernel keeps to single observers, which it compiles tighter).
    const SIDE_BY_SIDE: bool;
    /// The lanes of `a` and of `b` over `gathered`, added up.
    fn totals<const VIEW: u8>(a: &Observer, b: &Observer, gathered: &Gathered) -> (Totals, Totals);
}

/// [`Pairs`] as two passes of the one-observer accumulator `A`. The kernel never pairs with
/// it (`SIDE_BY_SIDE` is false): written as a loop over pairs, the AVX2 build ran 9% more
/// instructions in the kernel than as a loop over single observers (cachegrind, 258.8M against
/// 237.6M).
struct OneByOne<A>(core::marker::PhantomData<A>);

impl<A: Accumulator> Pairs for OneByOne<A> {
    const SIDE_BY_SIDE: bool = false;

    #[inline(always)]
    fn totals<const VIEW: u8>(a: &Observer, b: &Observer, gathered: &Gathered) -> (Totals, Totals) {
        (
            lane_totals::<VIEW, A>(a, gathered),
            lane_totals::<VIEW, A>(b, gathered),
        )
    }
}

/// `((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7))`: the order in which both builds add up
/// their lanes (the order three register halvings give).
#[inline(always)]
fn tree_sum(a: &[f32; LANES]) -> f32 {
    let s = [a[0] + a[4], a[1] + a[5], a[2] + a[6], a[3] + a[7]];
    (s[0] + s[2]) + (s[1] + s[3])
}

/// The portable accumulator: plain arrays and branch-free lane loops.
#[derive(Default)]
struct Lanes {
    sums: [[f32; LANES]; 6],
    counts: Counts,
}

impl Accumulator for Lanes {
    #[inline(always)]
    fn add<const VIEW: u8>(&mut self, o: &Observer, c: &Chunk) {
        for l in 0..LANES {
            let dx = c.x[l] - o.px;
            let dy = c.y[l] - o.py;
            let d2 = dx * dx + dy * dy;
            let dot = dx * o.vx + dy * o.vy;
            let bound = o.cos2_v2 * d2;
            // The field of view of `behaviours::in_view`, with `&`/`|` instead of `&&`/`||`.
            let visible = match VIEW {
                VIEW_ALL => true,
                VIEW_NARROW => (dot >= 0.0) & (dot * dot >= bound),
                _ => (dot >= 0.0) | (dot * dot <= bound),
            };
            let near = (d2 < o.perception2) & (d2 > 0.0) & visible;
            let close = near & (d2 < o.separation2);
            let same = near & (c.species[l] == u32::from(o.species));
            // NOTE: a true division, not an approximate reciprocal: the result must be the same
            // on every CPU for the flock to replay bit for bit.
            let push = if close { 1.0 / d2 } else { 0.0 };
            let pick = |x: f32| if same { x } else { 0.0 };
            let s = &mut self.sums;
            s[0][l] -= dx * push;
            s[1][l] -= dy * push;
            s[2][l] += pick(c.vx[l]);
            s[3][l] += pick(c.vy[l]);
            s[4][l] += pick(dx);
            s[5][l] += pick(dy);
            self.counts.seen += u32::from(near);
            self.counts.same += u32::from(same);
            self.counts.coincident += u32::from(d2 == 0.0);
        }
    }

    fn total(&self) -> Totals {
        let s = &self.sums;
        let sums = [0, 1, 2, 3, 4, 5].map(|i| tree_sum(&s[i]));
        (sums, self.counts)
    }
}

/// The most candidates one boid checks in a step, about. Where the 3x3 block around a boid holds
/// more (a flock crushed into a few cells, as a predator herds it), the boid checks every
/// `k`-th group of 8 candidates, `k = ceil(block / CANDIDATE_CAP)`, and counts each
/// neighbour it finds `k` times. Alignment and cohesion, which use means, are unbiased; the
/// separation push and the neighbour count are estimates. A crush then costs at most about
/// this many checks per boid instead of growing with the square of the crowd.
pub const CANDIDATE_CAP: usize = 1024;

/// The most candidates one observer checks: at most [`CANDIDATE_CAP`] in whole chunks, plus
/// one partial chunk at the end of each of the block's (at most six) runs.
const MAX_CANDIDATES: usize = CANDIDATE_CAP + 6 * LANES;

/// The most chunks one observer checks (candidates padded to a whole chunk). It bounds every
/// per-lane count.
const MAX_CHUNKS: usize = MAX_CANDIDATES.div_ceil(LANES);

/// Where padding candidates sit: so far away that they are never neighbours, yet finite, so a
/// zero weight times their offset is still zero.
const FAR: f32 = 1e30;

/// Room in [`Gathered`]: every candidate, plus one chunk that copies (and the padding) may
/// write past the last one.
const GATHERED: usize = MAX_CHUNKS * LANES + LANES;

/// One cell's block copied out of the hash: its candidates side by side (every run one after
/// the other, each position already moved to its image nearest the cell), padded with far-away
/// boids to whole chunks. Every boid of the cell then loops over the same number of whole
/// chunks, with no per-run setup, no partial chunk per run, and a loop count the branch
/// predictor learns after the first boid.
struct Gathered {
    x: [f32; GATHERED],
    y: [f32; GATHERED],
    vx: [f32; GATHERED],
    vy: [f32; GATHERED],
    species: [u32; GATHERED],
    /// Candidates copied (before padding).
    len: usize,
    /// Only every `stride`-th chunk of each run was copied, in a crowded block.
    stride: usize,
}

impl Gathered {
    fn new() -> Self {
        Self {
            x: [FAR; GATHERED],
            y: [FAR; GATHERED],
            vx: [0.0; GATHERED],
            vy: [0.0; GATHERED],
            species: [0; GATHERED],
            len: 0,
            stride: 1,
        }
    }

    /// Copies `block` out of `arrays`. Crowded (more than [`CANDIDATE_CAP`] boids in the block),
    /// it copies only every `stride`-th chunk of each run, `stride = ceil(boids / cap)`.
    #[inline(always)]
    fn fill<A: Accumulator>(&mut self, arrays: &Arrays, block: &Block) {
        self.stride = block.boids.div_ceil(CANDIDATE_CAP).max(1);
        self.len = 0;
        for (run, offset) in block.runs() {
            if self.stride == 1 {
                self.append::<A>(arrays, run, offset);
            } else {
                for i in run.clone().step_by(LANES * self.stride) {
                    self.append::<A>(arrays, i..(i + LANES).min(run.end), offset);
                }
            }
        }
        // Pad to a whole chunk; lanes beyond that are never read this time.
        let pad = self.len..self.len + LANES;
        self.x[pad.clone()].copy_from_slice(&[FAR; LANES]);
        self.y[pad.clone()].copy_from_slice(&[FAR; LANES]);
        self.vx[pad.clone()].copy_from_slice(&[0.0; LANES]);
        self.vy[pad.clone()].copy_from_slice(&[0.0; LANES]);
        self.species[pad].copy_from_slice(&[0; LANES]);
    }

    /// Appends the slots `from` of `arrays`, moved by `offset`: each coordinate of the hash's
    /// [`Motion`]s to its own column, as the build `A` turns them into columns.
    ///
    /// Copies whole chunks (fixed-size copies, no library call for a run of a dozen boids), so it
    /// may write up to a chunk past the new end, which the next append or the padding covers.
    /// Every array is sliced once per run, so the chunk loop itself has no bounds checks.
    #[inline(always)]
    fn append<A: Accumulator>(&mut self, arrays: &Arrays, from: Range<usize>, offset: Vec2) {
        let (at, n) = (self.len, from.len());
        let whole = n.div_ceil(LANES) * LANES;
        let src = from.start..from.start + whole;
        if src.end <= arrays.motions.len() {
            let dst = at..at + whole;
            fn to<T>(a: &mut [T], r: Range<usize>) -> core::slice::ChunksExactMut<'_, T> {
                a[r].chunks_exact_mut(LANES)
            }
            let sources = arrays.motions[src.clone()]
                .chunks_exact(LANES)
                .zip(arrays.species[src].chunks_exact(LANES));
            let targets = to(&mut self.x, dst.clone())
                .zip(to(&mut self.y, dst.clone()))
                .zip(to(&mut self.vx, dst.clone()).zip(to(&mut self.vy, dst.clone())))
                .zip(to(&mut self.species, dst.clone()));
            // A chunk at a time as fixed-size arrays, a register each, where a loop per column
            // would be a library call (`memcpy`) per run.
            for ((motions, species), (((tx, ty), (tvx, tvy)), tspecies)) in sources.zip(targets) {
                let [x, y, vx, vy] = A::columns(motions.try_into().unwrap(), offset);
                tx.copy_from_slice(&x);
                ty.copy_from_slice(&y);
                tvx.copy_from_slice(&vx);
                tvy.copy_from_slice(&vy);
                let species: [u16; LANES] = species.try_into().unwrap();
                tspecies.copy_from_slice(&species.map(u32::from));
            }
        } else {
            // The end of the hash's arrays: one by one.
            for (i, o) in from.zip(at..) {
                let m = arrays.motions[i];
                self.x[o] = m.position.x + offset.x;
                self.y[o] = m.position.y + offset.y;
                self.vx[o] = m.velocity.x;
                self.vy[o] = m.velocity.y;
                self.species[o] = u32::from(arrays.species[i]);
            }
        }
        self.len += n;
    }

    /// The copied candidates, chunk by chunk.
    #[inline(always)]
    fn chunks(&self) -> impl Iterator<Item = Chunk<'_>> {
        fn lanes(a: &[f32], i: usize) -> &[f32; LANES] {
            a[i * LANES..(i + 1) * LANES].try_into().unwrap()
        }
        (0..self.len.div_ceil(LANES)).map(move |i| Chunk {
            x: lanes(&self.x, i),
            y: lanes(&self.y, i),
            vx: lanes(&self.vx, i),
            vy: lanes(&self.vy, i),
            species: self.species[i * LANES..(i + 1) * LANES].try_into().unwrap(),
        })
    }
}

/// The runs of the hash that hold the 3x3 block of cells around one cell, with the offset that
/// brings each run's positions to their images nearest that cell. Every boid of a cell has the
/// same block, so it is found once per cell.
#[derive(Clone, Default)]
pub(crate) struct Block {
    runs: [(usize, usize, Vec2); 6],
    len: usize,
    /// Boids in all the runs together.
    boids: usize,
}

impl Block {
    /// Makes this the block around `cell`, the cell holding `p`. Only for a grid that does not
    /// fold onto itself.
    // NOTE: filled in place, not returned: a block returned by value was copied out of the
    // closure's frame with wide moves that waited on its narrow stores (about 8% of the
    // kernel's samples at 100,000 boids).
    #[inline]
    pub fn find(&mut self, hash: &SpatialHash, p: Vec2, cell: IVec2) {
        self.len = 0;
        self.boids = 0;
        // NOTE: the shortcut here, not inside `visit_block`: there (still a call, and the
        // closure per run) it kept almost none of the gain; steering min 4.05 ms this way, 4.22
        // inside `visit_block`, 4.27 without (100,000 boids, one thread, sixteen runs each).
        if let Some(rows) = hash.inner_block(cell) {
            // Nearly every cell: three runs in place, without the seam's cases.
            for (run, slot) in rows.into_iter().zip(&mut self.runs) {
                self.boids += run.len();
                *slot = (run.start, run.end, Vec2::ZERO);
            }
            self.len = 3;
            return;
        }
        hash.visit_block(p, 1, |run, offset, _fold| {
            // At most three rows of at most two runs each (two where the row crosses the seam).
            self.boids += run.len();
            self.runs[self.len] = (run.start, run.end, offset);
            self.len += 1;
        });
    }

    fn runs(&self) -> impl Iterator<Item = (Range<usize>, Vec2)> + '_ {
        self.runs[..self.len].iter().map(|&(a, b, o)| (a..b, o))
    }
}

/// `$f::<VIEW>(args)` with the field-of-view kind that `$view` (the cosine of half the field
/// of view) calls for.
macro_rules! by_view {
    ($view:expr, $($f:ident)::+ ($($arg:expr),* $(,)?)) => {
        if $view <= -1.0 {
            $($f)::+::<VIEW_ALL>($($arg),*)
        } else if $view >= 0.0 {
            $($f)::+::<VIEW_NARROW>($($arg),*)
        } else {
            $($f)::+::<VIEW_WIDE>($($arg),*)
        }
    };
}

/// The metric-neighbour sums of the slots `first..first + out.len()` of `hash`, in slot order,
/// and what they counted. Boids of one cell share their block, found once. Only for a grid that
/// does not fold onto itself.
///
/// The CPU is asked once per call whether it has AVX-512 (two observers side by side) or AVX2
/// (the same operations in the same order, in registers, so the same bits); without either,
/// the portable build runs.
pub(crate) fn slot_sums(
    hash: &SpatialHash,
    perception: &Perception,
    separation2: f32,
    first: usize,
    out: &mut [FlockSums],
) -> PassCounts {
    let view = perception.view_cos;
    #[cfg(target_arch = "x86_64")]
    if avx512::available() {
        // SAFETY: the CPU was just checked to have what the AVX-512 build needs.
        return unsafe {
            by_view!(
                view,
                avx512::slot_sums(hash, perception, separation2, first, out)
            )
        };
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU was just checked to have AVX2.
        return unsafe {
            by_view!(
                view,
                avx2::slot_sums(hash, perception, separation2, first, out)
            )
        };
    }
    by_view!(
        view,
        portable_slot_sums(hash, perception, separation2, first, out)
    )
}

/// [`slot_sums`] as the portable build computes it.
fn portable_slot_sums<const VIEW: u8>(
    hash: &SpatialHash,
    perception: &Perception,
    separation2: f32,
    first: usize,
    out: &mut [FlockSums],
) -> PassCounts {
    slot_sums_with::<VIEW, Lanes, OneByOne<Lanes>>(hash, perception, separation2, first, out)
}

/// [`slot_sums`] with one accumulator `A` for a single observer, `P` for two, and one
/// field-of-view kind, all inlined.
#[inline(always)]
fn slot_sums_with<const VIEW: u8, A: Accumulator, P: Pairs>(
    hash: &SpatialHash,
    perception: &Perception,
    separation2: f32,
    first: usize,
    out: &mut [FlockSums],
) -> PassCounts {
    let mut counts = PassCounts::default();
    let mut gathered = Gathered::new();
    let mut block = Block::default();
    let end = first + out.len();
    let mut slot = first;
    // Cell by cell: a cell's slots are contiguous, so its block is found and gathered once and
    // the cell is worked out once, not per boid.
    while slot < end {
        let p = hash.position(slot);
        let cell = hash.cell_xy(p);
        let cell_end = hash.cell_end(cell).min(end);
        // Every stored position is in the cell it was placed in (both use `cell_xy`).
        debug_assert!(cell_end > slot, "slot {slot} is not in its cell {cell}");
        let cell_end = cell_end.max(slot + 1);
        block.find(hash, p, cell);
        gathered.fill::<A>(&hash.arrays(), &block);
        // The cell's observers two at a time where the build pairs them, the rest (the last one
        // of an odd count) alone. (No closures here: one that is not inlined falls out of the
        // build's target features.)
        let mut next = slot;
        while P::SIDE_BY_SIDE && next + 1 < cell_end {
            let a = Observer::new(hash, next, perception, separation2);
            let b = Observer::new(hash, next + 1, perception, separation2);
            let (ta, tb) = P::totals::<VIEW>(&a, &b, &gathered);
            out[next - first] = observer_sums(hash, &a, &block, &gathered, ta, &mut counts);
            out[next + 1 - first] = observer_sums(hash, &b, &block, &gathered, tb, &mut counts);
            next += 2;
        }
        while next < cell_end {
            let a = Observer::new(hash, next, perception, separation2);
            // NOTE: alone in the single-observer loop, even where the build pairs: on a CPU
            // that runs a 512-bit operation as two 256-bit halves (Zen 4), a lone observer
            // beside itself costs a pair; measured at 100,000 boids, steering 4.75 -> 4.60 ms
            // on one thread. The same bits either way.
            let ta = lane_totals::<VIEW, A>(&a, &gathered);
            out[next - first] = observer_sums(hash, &a, &block, &gathered, ta, &mut counts);
            next += 1;
        }
        slot = cell_end;
    }
    counts
}

/// One observer's lanes over the chunks of `gathered`, added up.
#[inline(always)]
fn lane_totals<const VIEW: u8, A: Accumulator>(o: &Observer, gathered: &Gathered) -> Totals {
    let mut lanes = A::default();
    for chunk in gathered.chunks() {
        lanes.add::<VIEW>(o, &chunk);
    }
    lanes.total()
}

/// The sums of one observer over its block, copied out in `gathered`, from its lanes' `totals`;
/// adds what it checked and found to `counts`.
#[inline(always)]
fn observer_sums(
    hash: &SpatialHash,
    o: &Observer,
    block: &Block,
    gathered: &Gathered,
    totals: Totals,
    counts: &mut PassCounts,
) -> FlockSums {
    let ([sep_x, sep_y, ali_x, ali_y, coh_x, coh_y], n) = totals;
    let mut sums = FlockSums {
        separation: Vec2::new(sep_x, sep_y),
        alignment: Vec2::new(ali_x, ali_y),
        cohesion: Vec2::new(coh_x, coh_y),
        same_species: n.same,
        neighbours: n.seen,
    };
    let stride = gathered.stride;
    if stride > 1 {
        let k = stride as f32;
        sums.separation *= k;
        sums.alignment *= k;
        sums.cohesion *= k;
        sums.same_species *= stride as u32;
        sums.neighbours *= stride as u32;
    }
    if n.coincident > 1 {
        // Rare: other boids on exactly this spot, which the lanes skipped (d2 = 0 is also the
        // observer itself). Push apart along a per-pair direction instead.
        for (run, offset) in block.runs() {
            for j in run {
                if j != o.slot && hash.position(j) + offset == Vec2::new(o.px, o.py) {
                    let same = hash.species_of(j) == o.species;
                    sums.add(
                        Vec2::ZERO,
                        0.0,
                        hash.velocity(j),
                        same,
                        o.separation2,
                        || tie_break(o.slot, j),
                    );
                }
            }
        }
    }
    counts.candidates += gathered.len as u64;
    counts.neighbours += u64::from(sums.neighbours);
    sums
}

/// The AVX2 build: the portable lane loop written with 256-bit intrinsics, one register per
/// accumulator and every mask a register instead of bools.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use core::arch::x86_64::*;

    use bevy::math::Vec2;

    use super::{
        Accumulator, Chunk, Counts, LANES, MAX_CHUNKS, Motion, Observer, OneByOne, PassCounts,
        Totals, VIEW_ALL, VIEW_NARROW,
    };
    use crate::behaviours::FlockSums;
    use crate::hash::SpatialHash;
    use crate::neighbours::Perception;

    /// [`super::slot_sums`] compiled for AVX2.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn slot_sums<const VIEW: u8>(
        hash: &SpatialHash,
        perception: &Perception,
        separation2: f32,
        first: usize,
        out: &mut [FlockSums],
    ) -> PassCounts {
        super::slot_sums_with::<VIEW, Registers, OneByOne<Registers>>(
            hash,
            perception,
            separation2,
            first,
            out,
        )
    }

    /// Bits of one lane of [`Registers::counts`] per count: three counts in one 32-bit lane.
    pub(super) const FIELD: i32 = 10;
    // Each count grows by at most one per chunk, so it fits its field.
    const _: () = assert!(MAX_CHUNKS < 1 << FIELD);

    /// The six sums, one register each, and the three counts packed in one integer register
    /// (`seen | same << 10 | coincident << 20` in every lane).
    pub(super) struct Registers {
        sums: [__m256; 6],
        counts: __m256i,
    }

    impl Default for Registers {
        #[inline(always)]
        fn default() -> Self {
            // SAFETY: only reached from `slot_sums`, which runs on a CPU with AVX2.
            unsafe {
                Self {
                    sums: [_mm256_setzero_ps(); 6],
                    counts: _mm256_setzero_si256(),
                }
            }
        }
    }

    impl Accumulator for Registers {
        #[inline(always)]
        fn add<const VIEW: u8>(&mut self, o: &Observer, c: &Chunk) {
            // SAFETY: only reached from `slot_sums`, which runs on a CPU with AVX2; every load
            // reads one whole `[_; LANES]`.
            unsafe {
                let x = _mm256_loadu_ps(c.x.as_ptr());
                let y = _mm256_loadu_ps(c.y.as_ptr());
                let dx = _mm256_sub_ps(x, _mm256_set1_ps(o.px));
                let dy = _mm256_sub_ps(y, _mm256_set1_ps(o.py));
                let d2 = _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy));
                let zero = _mm256_setzero_ps();
                let mut near = _mm256_and_ps(
                    _mm256_cmp_ps::<_CMP_LT_OQ>(d2, _mm256_set1_ps(o.perception2)),
                    _mm256_cmp_ps::<_CMP_GT_OQ>(d2, zero),
                );
                if VIEW != VIEW_ALL {
                    let dot = _mm256_add_ps(
                        _mm256_mul_ps(dx, _mm256_set1_ps(o.vx)),
                        _mm256_mul_ps(dy, _mm256_set1_ps(o.vy)),
                    );
                    let bound = _mm256_mul_ps(_mm256_set1_ps(o.cos2_v2), d2);
                    let ahead = _mm256_cmp_ps::<_CMP_GE_OQ>(dot, zero);
                    let dot2 = _mm256_mul_ps(dot, dot);
                    let visible = if VIEW == VIEW_NARROW {
                        _mm256_and_ps(ahead, _mm256_cmp_ps::<_CMP_GE_OQ>(dot2, bound))
                    } else {
                        _mm256_or_ps(ahead, _mm256_cmp_ps::<_CMP_LE_OQ>(dot2, bound))
                    };
                    near = _mm256_and_ps(near, visible);
                }
                let close = _mm256_and_ps(
                    near,
                    _mm256_cmp_ps::<_CMP_LT_OQ>(d2, _mm256_set1_ps(o.separation2)),
                );
                let species = _mm256_loadu_si256(c.species.as_ptr().cast());
                let same = _mm256_and_ps(
                    near,
                    _mm256_castsi256_ps(_mm256_cmpeq_epi32(
                        species,
                        _mm256_set1_epi32(i32::from(o.species)),
                    )),
                );
                // NOTE: a true division, as in the portable build.
                let push = _mm256_and_ps(_mm256_div_ps(_mm256_set1_ps(1.0), d2), close);
                let vx = _mm256_loadu_ps(c.vx.as_ptr());
                let vy = _mm256_loadu_ps(c.vy.as_ptr());
                let s = &mut self.sums;
                s[0] = _mm256_sub_ps(s[0], _mm256_mul_ps(dx, push));
                s[1] = _mm256_sub_ps(s[1], _mm256_mul_ps(dy, push));
                s[2] = _mm256_add_ps(s[2], _mm256_and_ps(vx, same));
                s[3] = _mm256_add_ps(s[3], _mm256_and_ps(vy, same));
                s[4] = _mm256_add_ps(s[4], _mm256_and_ps(dx, same));
                s[5] = _mm256_add_ps(s[5], _mm256_and_ps(dy, same));
                // A true mask is -1 in every bit: `-near` counts one, `same & 1 << 10` one same.
                let coincident = _mm256_cmp_ps::<_CMP_EQ_OQ>(d2, zero);
                let n = _mm256_sub_epi32(self.counts, _mm256_castps_si256(near));
                let n = _mm256_add_epi32(
                    n,
                    _mm256_and_si256(_mm256_castps_si256(same), _mm256_set1_epi32(1 << FIELD)),
                );
                self.counts = _mm256_add_epi32(
                    n,
                    _mm256_and_si256(
                        _mm256_castps_si256(coincident),
                        _mm256_set1_epi32(1 << (2 * FIELD)),
                    ),
                );
            }
        }

        #[inline(always)]
        fn total(&self) -> Totals {
            // SAFETY: only reached from `slot_sums`, which runs on a CPU with AVX2.
            unsafe { totals(&self.sums, self.counts) }
        }

        /// A transpose in registers: the boids `i` and `i + 4` in the two halves of one
        /// register, then interleaved twice (left to itself, the compiler gathered each
        /// column with a slow gather instruction).
        #[inline(always)]
        fn columns(m: &[Motion; LANES], offset: Vec2) -> [[f32; LANES]; 4] {
            // SAFETY: only reached from `slot_sums`, which runs on a CPU with AVX2; every load
            // reads one whole `Motion` (16 bytes).
            unsafe {
                let both = |i: usize| {
                    let at = |k: usize| m[k..].as_ptr().cast::<f32>();
                    _mm256_loadu2_m128(at(i + 4), at(i))
                };
                // [x0 y0 u0 v0 | x4 y4 u4 v4] for boids 0 and 4, and so on.
                let (r0, r1, r2, r3) = (both(0), both(1), both(2), both(3));
                // [x0 x1 y0 y1 | x4 x5 y4 y5], [u0 u1 v0 v1 | u4 u5 v4 v5], ...
                let (p01, v01) = (_mm256_unpacklo_ps(r0, r1), _mm256_unpackhi_ps(r0, r1));
                let (p23, v23) = (_mm256_unpacklo_ps(r2, r3), _mm256_unpackhi_ps(r2, r3));
                let pick = |lo: bool, a: __m256, b: __m256| {
                    let (a, b) = (_mm256_castps_pd(a), _mm256_castps_pd(b));
                    _mm256_castpd_ps(if lo {
                        _mm256_unpacklo_pd(a, b)
                    } else {
                        _mm256_unpackhi_pd(a, b)
                    })
                };
                let x = _mm256_add_ps(pick(true, p01, p23), _mm256_set1_ps(offset.x));
                let y = _mm256_add_ps(pick(false, p01, p23), _mm256_set1_ps(offset.y));
                let (vx, vy) = (pick(true, v01, v23), pick(false, v01, v23));
                let mut out = [[0.0; LANES]; 4];
                for (o, v) in out.iter_mut().zip([x, y, vx, vy]) {
                    _mm256_storeu_ps(o.as_mut_ptr(), v);
                }
                out
            }
        }
    }

    /// The six sums' lanes and the packed counts' lanes of one observer, added up.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    pub(super) unsafe fn totals(s: &[__m256; 6], packed: __m256i) -> Totals {
        // SAFETY: the caller runs on a CPU with AVX2.
        unsafe {
            let sums = [0, 1, 2, 3, 4, 5].map(|i| tree_sum(s[i]));
            let mask = _mm256_set1_epi32((1 << FIELD) - 1);
            let seen = _mm256_and_si256(packed, mask);
            let same = _mm256_and_si256(_mm256_srli_epi32::<FIELD>(packed), mask);
            // Summed over the lanes each count still fits 16 bits: two in one lane.
            let seen_same = sum_lanes(_mm256_or_si256(seen, _mm256_slli_epi32::<16>(same)));
            let coincident = sum_lanes(_mm256_srli_epi32::<{ 2 * FIELD }>(packed));
            let counts = Counts {
                seen: seen_same & 0xffff,
                same: seen_same >> 16,
                coincident,
            };
            (sums, counts)
        }
    }

    /// [`super::tree_sum`] in registers: the same additions in the same order.
    #[inline(always)]
    unsafe fn tree_sum(v: __m256) -> f32 {
        // SAFETY: only reached from `slot_sums`, which runs on a CPU with AVX2.
        unsafe {
            // [a0 + a4, a1 + a5, a2 + a6, a3 + a7]
            let s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v));
            // [s0 + s2, s1 + s3, ..]
            let t = _mm_add_ps(s, _mm_movehl_ps(s, s));
            // t0 + t1
            _mm_cvtss_f32(_mm_add_ss(t, _mm_movehdup_ps(t)))
        }
    }

    /// The sum of the eight 32-bit lanes of `v`, wrapping (the callers' sums fit).
    #[inline(always)]
    unsafe fn sum_lanes(v: __m256i) -> u32 {
        // SAFETY: only reached from `slot_sums`, which runs on a CPU with AVX2.
        unsafe {
            let s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
            let t = _mm_add_epi32(s, _mm_shuffle_epi32::<0b00_00_11_10>(s));
            let u = _mm_add_epi32(t, _mm_shuffle_epi32::<0b00_00_00_01>(t));
            _mm_cvtsi128_si32(u) as u32
        }
    }
}

/// The AVX-512 build: two observers side by side, each 512-bit register holding one chunk of
/// [`LANES`] candidates for the first observer in its low half and for the second in its high
/// half, and the tests as mask registers. Every lane does what the AVX2 build's lane does
/// (the same operations, in the same order; where a masked operation stands in for a `0.0`
/// added, the sum it keeps could only differ from `sum + 0.0` if it were `-0.0`, which a sum
/// that starts at `+0.0` never is), and each half is added up as the AVX2 build adds up its
/// register, so both give the same bits.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use core::arch::x86_64::*;

    use bevy::math::Vec2;

    use super::avx2::Registers;
    use super::{
        Accumulator, Chunk, Counts, Gathered, LANES, Motion, Observer, Pairs, PassCounts, Totals,
        VIEW_ALL, VIEW_NARROW,
    };
    use crate::behaviours::FlockSums;
    use crate::hash::SpatialHash;
    use crate::neighbours::Perception;

    /// Whether this CPU can run this build (AVX-512 F and DQ, AVX2 for a lone observer, and
    /// POPCNT for the counts).
    #[inline]
    pub(super) fn available() -> bool {
        std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512dq")
            && std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("popcnt")
    }

    /// [`super::slot_sums`] compiled for AVX-512.
    ///
    /// # Safety
    /// The CPU must pass [`available`].
    #[target_feature(enable = "avx2,avx512f,avx512dq,popcnt")]
    pub(super) unsafe fn slot_sums<const VIEW: u8>(
        hash: &SpatialHash,
        perception: &Perception,
        separation2: f32,
        first: usize,
        out: &mut [FlockSums],
    ) -> PassCounts {
        super::slot_sums_with::<VIEW, Wide, SideBySide>(hash, perception, separation2, first, out)
    }

    /// The AVX2 accumulator for a lone observer, with the block's columns made in 512-bit
    /// registers.
    #[derive(Default)]
    struct Wide(Registers);

    impl Accumulator for Wide {
        #[inline(always)]
        fn add<const VIEW: u8>(&mut self, o: &Observer, c: &Chunk) {
            self.0.add::<VIEW>(o, c);
        }

        #[inline(always)]
        fn total(&self) -> Totals {
            self.0.total()
        }

        /// Two loads of four boids each and two permutes, each picking one coordinate of all
        /// eight into each half of a register.
        #[inline(always)]
        fn columns(m: &[Motion; LANES], offset: Vec2) -> [[f32; LANES]; 4] {
            // SAFETY: only reached from `slot_sums`, which runs on a CPU that passes
            // `available`; each load reads four whole `Motion`s (the array holds eight).
            unsafe {
                let at = m.as_ptr().cast::<f32>();
                let (low, high) = (_mm512_loadu_ps(at), _mm512_loadu_ps(at.add(16)));
                // Lane `l` of a pick takes float `4 l + k` of the sixteen of `low` then `high`
                // (indices from 16 on are `high`'s): the low half coordinate `k`, the high half
                // coordinate `k + 1`.
                let pick = |k: i32| {
                    let index: [i32; 16] = core::array::from_fn(|l| {
                        let (lane, half) = ((l % LANES) as i32, (l / LANES) as i32);
                        4 * lane + k + half
                    });
                    _mm512_permutex2var_ps(low, _mm512_loadu_epi32(index.as_ptr()), high)
                };
                let moved = _mm512_add_ps(pick(0), pair(offset.x, offset.y));
                let velocity = pick(2);
                let mut out = [[0.0; LANES]; 4];
                for (o, (v, high)) in out.iter_mut().zip([
                    (moved, false),
                    (moved, true),
                    (velocity, false),
                    (velocity, true),
                ]) {
                    let half = if high {
                        _mm512_extractf32x8_ps::<1>(v)
                    } else {
                        _mm512_castps512_ps256(v)
                    };
                    _mm256_storeu_ps(o.as_mut_ptr(), half);
                }
                out
            }
        }
    }

    /// `a` in the low half of a register, `b` in the high half.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F and DQ.
    #[inline(always)]
    unsafe fn pair(a: f32, b: f32) -> __m512 {
        // SAFETY: as the caller promises.
        unsafe { _mm512_insertf32x8::<1>(_mm512_set1_ps(a), _mm256_set1_ps(b)) }
    }

    /// One chunk's column in both halves of a register.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F and DQ.
    #[inline(always)]
    unsafe fn both(column: &[f32; LANES]) -> __m512 {
        // SAFETY: as the caller promises; the load reads the whole array.
        unsafe { _mm512_broadcast_f32x8(_mm256_loadu_ps(column.as_ptr())) }
    }

    /// [`Pairs`] in 512-bit registers.
    struct SideBySide;

    impl Pairs for SideBySide {
        const SIDE_BY_SIDE: bool = true;

        #[inline(always)]
        fn totals<const VIEW: u8>(
            a: &Observer,
            b: &Observer,
            gathered: &Gathered,
        ) -> (Totals, Totals) {
            // SAFETY: only reached from `slot_sums`, which runs on a CPU that passes
            // `available`; every load reads one whole `[_; LANES]`.
            unsafe {
                let (px, py) = (pair(a.px, b.px), pair(a.py, b.py));
                let (ovx, ovy) = (pair(a.vx, b.vx), pair(a.vy, b.vy));
                let perception2 = pair(a.perception2, b.perception2);
                let separation2 = pair(a.separation2, b.separation2);
                let cos2_v2 = pair(a.cos2_v2, b.cos2_v2);
                let species = _mm512_inserti32x8::<1>(
                    _mm512_set1_epi32(i32::from(a.species)),
                    _mm256_set1_epi32(i32::from(b.species)),
                );
                let zero = _mm512_setzero_ps();
                let one = _mm512_set1_ps(1.0);
                let mut s = [zero; 6];
                // Each count of `a` from the low eight bits of its mask, of `b` from the high
                // eight: popcounts on the integer units, beside the vector work.
                let (mut seen, mut same_count, mut coincident_count) =
                    ([0u32; 2], [0u32; 2], [0u32; 2]);
                let count = |into: &mut [u32; 2], mask: __mmask16| {
                    into[0] += (mask & 0xff).count_ones();
                    into[1] += (mask >> 8).count_ones();
                };
                for c in gathered.chunks() {
                    let Chunk {
                        x,
                        y,
                        vx,
                        vy,
                        species: cs,
                    } = c;
                    let dx = _mm512_sub_ps(both(x), px);
                    let dy = _mm512_sub_ps(both(y), py);
                    let d2 = _mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy));
                    let mut near = _mm512_mask_cmp_ps_mask::<_CMP_GT_OQ>(
                        _mm512_cmp_ps_mask::<_CMP_LT_OQ>(d2, perception2),
                        d2,
                        zero,
                    );
                    if VIEW != VIEW_ALL {
                        let dot = _mm512_add_ps(_mm512_mul_ps(dx, ovx), _mm512_mul_ps(dy, ovy));
                        let bound = _mm512_mul_ps(cos2_v2, d2);
                        // The field-of-view tests masked by `near` (near and in view), so that
                        // no mask instruction has to combine them with it.
                        let ahead = _mm512_mask_cmp_ps_mask::<_CMP_GE_OQ>(near, dot, zero);
                        let dot2 = _mm512_mul_ps(dot, dot);
                        near = if VIEW == VIEW_NARROW {
                            _mm512_mask_cmp_ps_mask::<_CMP_GE_OQ>(ahead, dot2, bound)
                        } else {
                            ahead | _mm512_mask_cmp_ps_mask::<_CMP_LE_OQ>(near, dot2, bound)
                        };
                    }
                    let close = _mm512_mask_cmp_ps_mask::<_CMP_LT_OQ>(near, d2, separation2);
                    let cs = _mm512_broadcast_i32x8(_mm256_loadu_si256(cs.as_ptr().cast()));
                    let same = _mm512_mask_cmpeq_epi32_mask(near, cs, species);
                    // NOTE: a true division, as in the other builds; zero where not close.
                    let push = _mm512_maskz_div_ps(close, one, d2);
                    s[0] = _mm512_sub_ps(s[0], _mm512_mul_ps(dx, push));
                    s[1] = _mm512_sub_ps(s[1], _mm512_mul_ps(dy, push));
                    s[2] = _mm512_mask_add_ps(s[2], same, s[2], both(vx));
                    s[3] = _mm512_mask_add_ps(s[3], same, s[3], both(vy));
                    s[4] = _mm512_mask_add_ps(s[4], same, s[4], dx);
                    s[5] = _mm512_mask_add_ps(s[5], same, s[5], dy);
                    let coincident = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(d2, zero);
                    count(&mut seen, near);
                    count(&mut same_count, same);
                    count(&mut coincident_count, coincident);
                }
                let counts = |i: usize| Counts {
                    seen: seen[i],
                    same: same_count[i],
                    coincident: coincident_count[i],
                };
                let (a, b) = pair_totals(s);
                ((a, counts(0)), (b, counts(1)))
            }
        }
    }

    /// Lane i plus lane i + 4 of every half of `u` and of `v`: the quads (lanes 0-3 and 4-7 of
    /// a half) added, as [u's low half, u's high half, v's low, v's high].
    ///
    /// # Safety
    /// The CPU must have AVX-512 F.
    #[inline(always)]
    unsafe fn halve(u: __m512, v: __m512) -> __m512 {
        // SAFETY: as the caller promises.
        unsafe {
            _mm512_add_ps(
                _mm512_shuffle_f32x4::<0b10_00_10_00>(u, v),
                _mm512_shuffle_f32x4::<0b11_01_11_01>(u, v),
            )
        }
    }

    /// `_mm512_shuffle_ps::<A>(u, v) + _mm512_shuffle_ps::<B>(u, v)`: in every quad, two lanes
    /// of `u` and two of `v` picked by `A`, added to the two and two picked by `B`.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F.
    #[inline(always)]
    unsafe fn add_picks<const A: i32, const B: i32>(u: __m512, v: __m512) -> __m512 {
        // SAFETY: as the caller promises.
        unsafe { _mm512_add_ps(_mm512_shuffle_ps::<A>(u, v), _mm512_shuffle_ps::<B>(u, v)) }
    }

    /// The six sums of two observers, one in each half of every register, added up: each
    /// half's lanes in [`tree_sum`](super::tree_sum)'s order, but the twelve sums' halvings
    /// done together, two or three registers to a shuffle.
    ///
    /// # Safety
    /// The CPU must have AVX-512 F.
    #[inline(always)]
    unsafe fn pair_totals(s: [__m512; 6]) -> ([f32; 6], [f32; 6]) {
        // SAFETY: as the caller promises.
        unsafe {
            let [s0, s1, s2, s3, s4, s5] = s;
            let (w01, w23, w45) = (halve(s0, s1), halve(s2, s3), halve(s4, s5));
            // In every quad, [q0 + q2, q1 + q3] of two registers side by side.
            let z0123 = add_picks::<0b01_00_01_00, 0b11_10_11_10>(w01, w23);
            let z45 = add_picks::<0b01_00_01_00, 0b11_10_11_10>(w45, w45);
            // In every quad, [t0 + t1] of each of the two pairs folded above: a quad then holds
            // one half's totals of [s0 or s1, s2 or s3, s4 or s5, s4 or s5 again].
            let last = add_picks::<0b10_00_10_00, 0b11_01_11_01>(z0123, z45);
            let mut f = [0.0f32; 16];
            _mm512_storeu_ps(f.as_mut_ptr(), last);
            // Quads: 0 = s0, s2, s4 of `a`; 1 = of `b`; 2 = s1, s3, s5 of `a`; 3 = of `b`.
            let sums = |q: usize| [f[q], f[q + 8], f[q + 1], f[q + 9], f[q + 2], f[q + 10]];
            (sums(0), sums(4))
        }
    }
}

#[cfg(test)]
mod tests {
    use bevy::prelude::*;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::{PassCounts, VIEW_ALL, VIEW_NARROW, VIEW_WIDE, portable_slot_sums, slot_sums};
    use crate::behaviours::{FlockSums, tie_break};
    use crate::hash::{KNearest, SpatialHash};
    use crate::neighbours::{Perception, for_each_neighbour};
    use crate::params::FlockParams;
    use crate::{Edges, SimulationBounds};

    /// 800 random boids in a 500 x 300 world with cells of 50, and three on one spot.
    fn hash(edges: Edges) -> SpatialHash {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(77);
        let bounds = SimulationBounds {
            rect: Rect::new(0.0, 0.0, 500.0, 300.0),
            edges,
        };
        let mut boids: Vec<(Entity, Vec2, Vec2, u16)> = (0..800u32)
            .map(|i| {
                let p = Vec2::new(rng.random::<f32>() * 500.0, rng.random::<f32>() * 300.0);
                let v = Vec2::from_angle(rng.random::<f32>() * 6.3) * 100.0;
                (Entity::from_raw_u32(i + 1).unwrap(), p, v, (i % 3) as u16)
            })
            .collect();
        for k in 0..3u32 {
            let e = Entity::from_raw_u32(900 + k).unwrap();
            boids.push((e, Vec2::new(250.0, 150.0), Vec2::X * 50.0, 0));
        }
        let mut hash = SpatialHash::default();
        hash.rebuild(&bounds, 50.0, &boids);
        hash
    }

    /// Calls `f(hash, perception, separation2)` for every world and field of view the tests
    /// cover: with and without wrap, all-round, narrow (under 180 degrees) and wide.
    fn for_each_case(mut f: impl FnMut(&SpatialHash, &Perception, f32)) {
        for edges in [Edges::Wrap, Edges::TURN_BACK] {
            let hash = hash(edges);
            for fov in [360.0, 120.0, 270.0] {
                let params = FlockParams {
                    field_of_view: fov,
                    ..FlockParams::default()
                };
                let sep2 = params.separation_distance * params.separation_distance;
                f(&hash, &Perception::new(&params), sep2);
            }
        }
    }

    /// The kernel agrees with the plain neighbour walk: the same neighbours, the same sums up to
    /// float rounding, for every kind of field of view, with and without wrap, and with boids on
    /// the same spot.
    #[test]
    fn the_kernel_matches_the_neighbour_walk() {
        for_each_case(|hash, perception, sep2| {
            let view = perception.view_cos;
            let mut got = vec![FlockSums::default(); hash.len()];
            let counts = slot_sums(hash, perception, sep2, 0, &mut got);
            let mut nearest = KNearest::new(0);
            let mut neighbours = 0;
            for (slot, got) in got.iter().enumerate() {
                let mut want = FlockSums::default();
                let own = hash.species_of(slot);
                for_each_neighbour(hash, perception, slot, &mut nearest, |hit| {
                    let j = hit.slot;
                    let same = hash.species_of(j) == own;
                    let v = hash.velocity(j);
                    let (d, d2) = (hit.delta, hit.distance_squared);
                    want.add(d, d2, v, same, sep2, || tie_break(slot, j));
                });
                neighbours += u64::from(want.neighbours);
                assert_eq!(got.neighbours, want.neighbours, "slot {slot} view {view}");
                assert_eq!(got.same_species, want.same_species);
                let close = |a: Vec2, b: Vec2| (a - b).length() <= 1e-3 * b.length().max(1.0);
                assert!(
                    close(got.separation, want.separation),
                    "{got:?} vs {want:?}"
                );
                assert!(close(got.alignment, want.alignment), "{got:?} vs {want:?}");
                assert!(close(got.cohesion, want.cohesion), "{got:?} vs {want:?}");
            }
            assert_eq!(counts.neighbours, neighbours);
        });
    }

    /// Every build this CPU can run (portable; AVX2; AVX-512, two observers side by side) gives
    /// the same bits and counts, so a flock replays the same on every machine: in every world
    /// and field of view of [`for_each_case`], and in a crowded block that is sampled.
    #[test]
    fn every_build_gives_the_same_bits() {
        let mut check = |hash: &SpatialHash, perception: &Perception, sep2: f32| {
            let view = perception.view_cos;
            let run = |build: &dyn Fn(&mut [FlockSums]) -> PassCounts| {
                let mut out = vec![FlockSums::default(); hash.len()];
                let counts = build(&mut out);
                (out, counts)
            };
            let want =
                run(&|out| by_view!(view, portable_slot_sums(hash, perception, sep2, 0, out)));
            let mut builds: Vec<(&str, (Vec<FlockSums>, PassCounts))> = Vec::new();
            builds.push((
                "dispatched",
                run(&|out| slot_sums(hash, perception, sep2, 0, out)),
            ));
            #[cfg(target_arch = "x86_64")]
            {
                use super::{avx2, avx512};
                if std::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2.
                    let f = |out: &mut [FlockSums]| unsafe {
                        by_view!(view, avx2::slot_sums(hash, perception, sep2, 0, out))
                    };
                    builds.push(("avx2", run(&f)));
                }
                if avx512::available() {
                    // SAFETY: the CPU passes `available`.
                    let f = |out: &mut [FlockSums]| unsafe {
                        by_view!(view, avx512::slot_sums(hash, perception, sep2, 0, out))
                    };
                    builds.push(("avx512", run(&f)));
                }
            }
            let bits = |s: &FlockSums| {
                let v =
                    [s.separation, s.alignment, s.cohesion].map(|v| (v.x.to_bits(), v.y.to_bits()));
                (v, s.neighbours, s.same_species)
            };
            for (name, (got, counts)) in &builds {
                assert_eq!(*counts, want.1, "{name}, view {view}");
                for (slot, (g, w)) in got.iter().zip(&want.0).enumerate() {
                    assert_eq!(bits(g), bits(w), "{name}, view {view}, slot {slot}");
                }
            }
        };
        for_each_case(&mut check);
        // A crowd: 3,000 boids within 100 x 100, so every block holds far more than
        // `CANDIDATE_CAP` and is sampled (`stride` > 1).
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let bounds = SimulationBounds::wrap(Rect::new(0.0, 0.0, 500.0, 300.0));
        let boids: Vec<(Entity, Vec2, Vec2, u16)> = (0..3000u32)
            .map(|i| {
                let p = Vec2::new(200.0, 100.0) + Vec2::new(rng.random(), rng.random()) * 100.0;
                let v = Vec2::from_angle(rng.random::<f32>() * 6.3) * 80.0;
                (Entity::from_raw_u32(i + 1).unwrap(), p, v, (i % 2) as u16)
            })
            .collect();
        let params = FlockParams::starlings();
        let mut crowd = SpatialHash::default();
        crowd.rebuild(&bounds, params.perception_radius, &boids);
        let sep2 = params.separation_distance * params.separation_distance;
        check(&crowd, &Perception::new(&params), sep2);
    }
}
