//! The flocking inner loop: every boid's [`NeighbourSums`], cell by cell. The hottest code in
//! the crate, and no rule of its own: it runs [`rules::sees`] and [`rules::accumulate`] on
//! [`Lanes`] of candidates.
//!
//! The boids of one cell share their 3x3 block of cells (3x3x3 in 3D), which is copied once
//! into a contiguous, padded buffer ([`Gathered`]): each coordinate in a column of its own,
//! every run's positions already moved to their images nearest the cell, padded with far-away
//! boids to whole chunks of [`LANES`]. Each boid of the cell then runs the same whole chunks,
//! with no per-run setup and a loop count the branch predictor learns after the first boid.
//! Each candidate lands in a fixed lane (its place in the buffer modulo [`LANES`]) and the lanes
//! are added up in a fixed order, so the result depends only on the hash, never on threads or
//! on the CPU. Where the build has 512-bit vectors (AVX-512), two boids of a cell run side by
//! side in 2D, one in each half of [`Lanes<16>`], with the same bits each.
//!
//! An observer's lanes are not added up on their own: they wait until eight observers (eight
//! slots in a row) have theirs, and the eight are added up at once ([`Lanes::totals`]), which
//! leaves lane `k` of each sum with observer `k`'s total: the [`NeighbourSums`] of eight boids
//! in lanes, as the forces take them.
//!
//! The lane loops ([`lane_sums`], one per field-of-view kind and for blocks that fold onto
//! themselves or not, alone or in pairs) and the totals are functions of their own, built per
//! target and called through pointers ([`LaneLoops`]): see [`simd`](crate::simd) for why. In a
//! wrapped world under three cells across, a block holds each folded axis once and the loops
//! move each candidate to its image nearest the observer ([`Gathered::fold`]).

use core::ops::Range;

use crate::block::{self, Block, MAX_RUNS, Wrap};
use crate::hash::{Arrays, KNearest, SpatialHash};
use crate::lanes::{Coords, KeyLanes, Lanes, Real, fill};
use crate::math::{DIM, Vector};
use crate::neighbours::{observer_of, walk_sums};
use crate::params::NeighbourMode;
use crate::rules::{
    self, Candidate, NeighbourSums, Observer, SUM_FIELDS, VIEW_ALL, VIEW_NARROW, VIEW_WIDE,
    accumulate_coincident,
};
use crate::sample::CANDIDATE_CAP;
use crate::simd::{dispatch, portable, simd_targets, totals_avx};
use crate::steering::tie_break;
use crate::table::FlockTable;

pub(crate) use crate::lanes::LANES;

/// What a pass over the flock counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PassCounts {
    /// Candidates checked (distance tests).
    pub candidates: u64,
    /// Neighbours found.
    pub neighbours: u64,
}

impl PassCounts {
    /// Both counts added.
    pub fn plus(self, other: Self) -> Self {
        Self {
            candidates: self.candidates + other.candidates,
            neighbours: self.neighbours + other.neighbours,
        }
    }
}

/// The most candidates one observer checks: at most [`CANDIDATE_CAP`] in whole chunks, plus
/// one partial chunk at the end of each of the block's runs.
const MAX_CANDIDATES: usize = CANDIDATE_CAP + MAX_RUNS * LANES;

/// Where padding candidates sit: so far away that they are never neighbours, yet finite.
const FAR: f32 = 1e30;

/// Room in [`Gathered`]: every candidate, plus one chunk that copies (and the padding) may
/// write past the last one.
const GATHERED: usize = MAX_CANDIDATES.div_ceil(LANES) * LANES + LANES;

/// One cell's block copied out of the hash, as columns (see the module docs).
struct Gathered {
    position: [[f32; GATHERED]; DIM],
    velocity: [[f32; GATHERED]; DIM],
    key: [u32; GATHERED],
    /// Candidates copied (before padding).
    len: usize,
    /// Chunks of the own cell copied in full ahead of a crowded block's sample (0 where the
    /// block is copied whole): each candidate there stands for itself.
    own: usize,
    /// What each candidate copied after the own cell stands for: 1, or more where the block was
    /// crowded and only its [`Sample`](crate::sample::Sample) was copied
    /// ([`Sample::weight`](crate::sample::Sample::weight)).
    weight: f32,
    /// Where the block folds onto itself: each axis's world size and half of it (infinite on
    /// an axis that does not fold), for [`Gathered::fold`].
    wrap: Option<Wrap>,
}

impl Gathered {
    fn new() -> Self {
        Self {
            position: [[FAR; GATHERED]; DIM],
            velocity: [[0.0; GATHERED]; DIM],
            key: [0; GATHERED],
            len: 0,
            own: 0,
            weight: 1.0,
            wrap: None,
        }
    }

    /// Copies `block` out of `arrays`. Crowded (more than [`CANDIDATE_CAP`] boids in the block),
    /// it copies only the block's [`Sample`](crate::sample::Sample) in the hash's rebuild `turn`:
    /// the own cell in full first, padded to whole chunks ([`Gathered::own`] of them, weight 1),
    /// then the sample of the rest.
    #[inline(always)]
    fn fill(&mut self, arrays: &Arrays, block: &Block, turn: u32) {
        let sample = block.sample(CANDIDATE_CAP, turn);
        self.wrap = block.wrap();
        self.len = 0;
        self.own = 0;
        self.weight = 1.0;
        if sample.is_all() {
            for (run, offset) in block.runs() {
                self.append(arrays, run, offset);
            }
        } else {
            let own = sample.own();
            if !own.is_empty() {
                self.append(arrays, own, Vector::ZERO);
                let whole = self.len.next_multiple_of(LANES);
                self.pad(self.len..whole);
                self.len = whole;
                self.own = self.chunks();
            }
            let first = self.len;
            // NOTE: the groups found first, then copied: copied as the walk finds them, the
            // kernel took 1.3x as long at two threads (100,000 boids in one folded cell).
            let mut walk = sample.walk();
            let mut taken = [(0usize, 0usize, Vector::ZERO); CANDIDATE_CAP / LANES + MAX_RUNS];
            let mut n = 0;
            for (run, offset) in block.runs() {
                walk.run(run, |slots| {
                    taken[n] = (slots.start, slots.end, offset);
                    n += 1;
                });
            }
            for &(a, b, offset) in &taken[..n] {
                self.append(arrays, a..b, offset);
            }
            self.weight = sample.weight(block.boids(), self.len - first);
        }
        // Pad to a whole chunk; lanes beyond that are never read this time.
        self.pad(self.len..self.len + LANES);
    }

    /// Fills `slots` of the copy with candidates that are never anyone's neighbours.
    #[inline(always)]
    fn pad(&mut self, slots: Range<usize>) {
        for axis in 0..DIM {
            self.position[axis][slots.clone()].fill(FAR);
            self.velocity[axis][slots.clone()].fill(0.0);
        }
        self.key[slots].fill(0);
    }

    /// Appends the slots `from` of `arrays`, moved by `offset`, each coordinate of the hash's
    /// [`Motion`](crate::hash::Motion)s to its own column.
    ///
    /// Copies whole chunks (fixed-size copies, no library call for a run of a dozen boids), so it
    /// may write up to a chunk past the new end, which the next append or the padding covers.
    #[inline(always)]
    fn append(&mut self, arrays: &Arrays, from: Range<usize>, offset: Vector) {
        let (at, n) = (self.len, from.len());
        let whole = n.div_ceil(LANES) * LANES;
        let src = from.start..from.start + whole;
        if src.end <= arrays.motions.len() {
            let motions = arrays.motions[src.clone()].chunks_exact(LANES);
            let keys = arrays.keys[src].chunks_exact(LANES);
            for (k, (motions, keys)) in motions.zip(keys).enumerate() {
                let to = at + k * LANES..at + (k + 1) * LANES;
                // NOTE: every coordinate of each motion read in one loop, so that the compiler
                // sees whole motions and shuffles them into columns; read a column at a time,
                // it loaded each column with a masked load of its own.
                let (mut p, mut v) = ([[0.0; LANES]; DIM], [[0.0; LANES]; DIM]);
                for (l, m) in motions.iter().enumerate() {
                    for axis in 0..DIM {
                        p[axis][l] = m.position[axis];
                        v[axis][l] = m.velocity[axis];
                    }
                }
                for axis in 0..DIM {
                    for x in &mut p[axis] {
                        *x += offset[axis];
                    }
                    self.position[axis][to.clone()].copy_from_slice(&p[axis]);
                    self.velocity[axis][to.clone()].copy_from_slice(&v[axis]);
                }
                self.key[to].copy_from_slice(keys);
            }
        } else {
            // The end of the hash's arrays: one by one.
            for (i, o) in from.zip(at..) {
                let m = arrays.motions[i];
                for axis in 0..DIM {
                    self.position[axis][o] = m.position[axis] + offset[axis];
                    self.velocity[axis][o] = m.velocity[axis];
                }
                self.key[o] = arrays.keys[i];
            }
        }
        self.len += n;
    }

    /// `d` moved to its nearest image on each axis where the block folds onto itself
    /// ([`block::fold`]); as it is elsewhere.
    #[inline(always)]
    fn fold<R: Real>(&self, d: Coords<R>) -> Coords<R> {
        match &self.wrap {
            Some(wrap) => block::fold(wrap, d),
            None => d,
        }
    }

    /// How many chunks the copied candidates fill.
    #[inline(always)]
    fn chunks(&self) -> usize {
        self.len.div_ceil(LANES)
    }

    /// Chunk `i` as `N` lanes: the chunk's [`LANES`] candidates, repeated to fill them (for two
    /// observers side by side, each half gets the whole chunk).
    #[inline(always)]
    fn chunk<const N: usize>(&self, i: usize) -> Candidate<Lanes<N>> {
        let first = i * LANES;
        let mut c = Candidate {
            position: Coords([Lanes([0.0; N]); DIM]),
            velocity: Coords([Lanes([0.0; N]); DIM]),
            key: KeyLanes([0; N]),
        };
        for axis in 0..DIM {
            let p: &[f32; LANES] = self.position[axis][first..first + LANES]
                .try_into()
                .unwrap();
            let v: &[f32; LANES] = self.velocity[axis][first..first + LANES]
                .try_into()
                .unwrap();
            for l in 0..N {
                c.position.0[axis].0[l] = p[l % LANES];
                c.velocity.0[axis].0[l] = v[l % LANES];
            }
        }
        let keys: &[u32; LANES] = self.key[first..first + LANES].try_into().unwrap();
        for l in 0..N {
            c.key.0[l] = keys[l % LANES];
        }
        c
    }

    /// Candidate `j` alone (for the scalar reference).
    #[cfg(test)]
    fn candidate(&self, j: usize) -> Candidate<f32> {
        Candidate {
            position: Coords(fill(0.0, |axis| self.position[axis][j])),
            velocity: Coords(fill(0.0, |axis| self.velocity[axis][j])),
            key: self.key[j],
        }
    }
}

/// One observer's sums still in lanes, as its lane loop leaves them: the fields of its
/// [`NeighbourSums`], then how many candidates stood on its very spot (itself among them), each
/// a [`Lanes`] of [`LANES`].
pub(crate) type Raw = [Lanes<LANES>; RAW_FIELDS];

/// The fields of a [`Raw`]: every sum, and the count of candidates on the observer's spot.
const RAW_FIELDS: usize = SUM_FIELDS + 1;

/// The sums of `o` over every chunk of `gathered`, still in lanes, and how many candidates
/// stood on its very spot (itself among them). Where the own cell was copied ahead of a crowded
/// block's sample, its sums are divided by the sample's weight before the rest is added, so
/// that the weight the totals are scaled by leaves the own cell's as they were.
#[inline(always)]
fn lane_sums<const N: usize, const VIEW: u8, const FOLD: bool>(
    o: &Observer<Lanes<N>>,
    gathered: &Gathered,
) -> (NeighbourSums<Lanes<N>>, Lanes<N>) {
    let start = (NeighbourSums::zero(), Lanes::splat(0.0));
    if gathered.own == 0 {
        return chunk_sums::<N, VIEW, FOLD>(o, gathered, 0..gathered.chunks(), start);
    }
    let (sums, coincident) = chunk_sums::<N, VIEW, FOLD>(o, gathered, 0..gathered.own, start);
    let sums = sums.scaled_lanes(Lanes::splat(1.0 / gathered.weight));
    let rest = gathered.own..gathered.chunks();
    chunk_sums::<N, VIEW, FOLD>(o, gathered, rest, (sums, coincident))
}

/// [`lane_sums`] over the chunks `chunks` of `gathered`, added to `(sums, coincident)`.
#[inline(always)]
fn chunk_sums<const N: usize, const VIEW: u8, const FOLD: bool>(
    o: &Observer<Lanes<N>>,
    gathered: &Gathered,
    chunks: Range<usize>,
    (mut sums, mut coincident): (NeighbourSums<Lanes<N>>, Lanes<N>),
) -> (NeighbourSums<Lanes<N>>, Lanes<N>) {
    for i in chunks {
        let c = gathered.chunk::<N>(i);
        let mut d = c.position - o.position;
        if FOLD {
            d = gathered.fold(d);
        }
        let d2 = d.length_squared();
        let near = rules::sees::<_, VIEW>(o, d, d2);
        rules::accumulate(&mut sums, o, near, d, d2, &c);
        coincident = coincident.add_where(d2.eq(Lanes::splat(0.0)), Lanes::splat(1.0));
    }
    (sums, coincident)
}

/// One observer's [`lane_sums`], into `out`.
#[inline(always)]
fn observer_lanes<const VIEW: u8, const FOLD: bool>(
    o: &Observer<f32>,
    gathered: &Gathered,
    out: &mut Raw,
) {
    let o = splat_observer::<LANES>(&field_by_field(o));
    let (sums, coincident) = lane_sums::<LANES, VIEW, FOLD>(&o, gathered);
    let fields = sums.fields();
    *out = fill(coincident, |f| {
        if f < SUM_FIELDS {
            fields[f]
        } else {
            coincident
        }
    });
}

/// Two observers' [`lane_sums`] side by side (in lanes 0-7 and 8-15), each into its own `out`.
#[inline(always)]
fn pair_lanes<const VIEW: u8, const FOLD: bool>(
    a: &Observer<f32>,
    b: &Observer<f32>,
    gathered: &Gathered,
    out: &mut [Raw; 2],
) {
    let o = pair_observer(a, b);
    let (sums, coincident) = lane_sums::<16, VIEW, FOLD>(&o, gathered);
    let fields = sums.fields();
    for (h, out) in out.iter_mut().enumerate() {
        *out = fill(coincident.halves()[h], |f| {
            if f < SUM_FIELDS {
                fields[f].halves()[h]
            } else {
                coincident.halves()[h]
            }
        });
    }
}

/// Eight observers' [`Raw`] lanes added up: lane `k` of each sum is observer `k`'s total, in
/// [`Lanes::total`]'s order, times lane `k` of `weights` (see [`Gathered::weight`]),
/// into `out`. Returns the candidates on each observer's spot.
/// With AVX's shuffles ([`totals_avx`]) where `AVX`, which the caller's build must have.
// NOTE: LLVM builds `Lanes::totals`' shuffles from about four times the instructions the
// hand-written AVX version needs (111 against 28 for one field), and worse from ten fields on.
#[inline(always)]
fn raw_totals<const AVX: bool>(
    raw: &[Raw; LANES],
    weights: &Lanes<LANES>,
    out: &mut NeighbourSums<Lanes<LANES>>,
) -> Lanes<LANES> {
    // NOTE: a loop, not `fill`: see `Lanes::totals`.
    let mut totals = [Lanes([0.0; LANES]); RAW_FIELDS];
    for (f, total) in totals.iter_mut().enumerate() {
        let [a, b, c, d, e, g, h, i] = raw;
        let rows = [a[f], b[f], c[f], d[f], e[f], g[f], h[f], i[f]];
        *total = if AVX {
            // SAFETY: the caller's build has AVX.
            unsafe { totals_avx(&rows) }
        } else {
            Lanes::totals(&rows)
        };
    }
    // Times 1 where the block was not sampled: the same bits.
    let sums = NeighbourSums::from_fields(fill(totals[0], |f| totals[f]));
    *out = sums.scaled_lanes(*weights);
    totals[SUM_FIELDS]
}

/// The type of [`raw_totals`] in one build.
type TotalsFn =
    unsafe fn(&[Raw; LANES], &Lanes<LANES>, &mut NeighbourSums<Lanes<LANES>>) -> Lanes<LANES>;

/// A lane loop for one observer: [`observer_lanes`] for one field-of-view kind, in one build.
type SingleLoop = unsafe fn(&Observer<f32>, &Gathered, &mut Raw);

/// A lane loop for two observers: [`pair_lanes`] for one field-of-view kind, in one build.
// NOTE: the observers by reference each, not as an array: built in place from two of them,
// the array was read back with wide loads that waited on its narrow stores (2% of the step).
type PairLoop = unsafe fn(&Observer<f32>, &Observer<f32>, &Gathered, &mut [Raw; 2]);

/// The [`LaneLoops`] of the build this expands in: [`observer_lanes`], [`pair_lanes`] (where
/// `$pairs`) and [`raw_totals`] (with AVX's shuffles where `$avx`) as functions of their own
/// with `$attr`s on each, written once
/// for the portable build and the dispatched ones.
macro_rules! lane_loops {
    ($pairs:expr, $avx:expr $(, #[$attr:meta])*) => {{
        /// [`observer_lanes`] in this build.
        ///
        /// # Safety
        /// The CPU must have the build's features (the baseline needs none; the dispatcher
        /// checked the others).
        $(#[$attr])*
        unsafe fn single<const VIEW: u8, const FOLD: bool>(
            o: &Observer<f32>,
            g: &Gathered,
            out: &mut Raw,
        ) {
            observer_lanes::<VIEW, FOLD>(o, g, out);
        }
        /// [`pair_lanes`] in this build.
        ///
        /// # Safety
        /// As for `single`.
        $(#[$attr])*
        unsafe fn pair<const VIEW: u8, const FOLD: bool>(
            a: &Observer<f32>,
            b: &Observer<f32>,
            g: &Gathered,
            out: &mut [Raw; 2],
        ) {
            pair_lanes::<VIEW, FOLD>(a, b, g, out);
        }
        /// [`raw_totals`] in this build.
        ///
        /// # Safety
        /// As for `single`.
        $(#[$attr])*
        unsafe fn totals<const AVX: bool>(
            raw: &[Raw; LANES],
            weights: &Lanes<LANES>,
            out: &mut NeighbourSums<Lanes<LANES>>,
        ) -> Lanes<LANES> {
            raw_totals::<AVX>(raw, weights, out)
        }
        LaneLoops {
            single: [
                [single::<VIEW_ALL, false>, single::<VIEW_NARROW, false>, single::<VIEW_WIDE, false>],
                [single::<VIEW_ALL, true>, single::<VIEW_NARROW, true>, single::<VIEW_WIDE, true>],
            ],
            pairs: $pairs.then_some([
                [pair::<VIEW_ALL, false>, pair::<VIEW_NARROW, false>, pair::<VIEW_WIDE, false>],
                [pair::<VIEW_ALL, true>, pair::<VIEW_NARROW, true>, pair::<VIEW_WIDE, true>],
            ]),
            totals: if $avx { totals::<true> } else { totals::<false> },
        }
    }};
}

/// The lane code of one build: the loops for each field-of-view kind ([`VIEW_ALL`],
/// [`VIEW_NARROW`], [`VIEW_WIDE`]), one observer at a time, and two side by side where the build
/// has 512-bit vectors; and [`raw_totals`].
// NOTE: each a function of its own, called once per observer, not inlined into the cell walk:
// inlined there (one function with every kind, the block copy and the walk), LLVM's vectoriser
// gave up on the lanes and did them one by one, 2.5x slower than out of line.
#[derive(Clone, Copy)]
struct LaneLoops {
    /// By whether the block folds, then by field-of-view kind.
    single: [[SingleLoop; 3]; 2],
    /// As `single`.
    pairs: Option<[[PairLoop; 3]; 2]>,
    totals: TotalsFn,
}

impl LaneLoops {
    /// The loops of this CPU's best build, or of the portable one where [`portable`] says so.
    fn get() -> Self {
        if portable() {
            Self::portable(false)
        } else {
            dispatched_lane_loops()
        }
    }

    /// The portable build's loops, pairing observers if `pairs` (which the portable build never
    /// does on its own, but a test can ask for, to check the pairing on any CPU).
    fn portable(pairs: bool) -> Self {
        lane_loops!(pairs, false)
    }

    /// The sums of `o` over `gathered`, with its field of view `view`, into `out`.
    #[inline(always)]
    fn single(&self, view: u8, o: &Observer<f32>, g: &Gathered, out: &mut Raw) {
        let fold = usize::from(g.wrap.is_some());
        // SAFETY: the loops are this build's, which `get` picked for this CPU (or the portable
        // ones, which need nothing).
        unsafe { self.single[fold][usize::from(view.min(VIEW_WIDE))](o, g, out) }
    }

    /// The sums of two observers side by side over `gathered`, into `out`, if this build pairs
    /// them.
    #[inline(always)]
    fn pair(&self, view: u8, [a, b]: [&Observer<f32>; 2], g: &Gathered, out: &mut [Raw; 2]) {
        let pairs = self.pairs.expect("a build that pairs observers");
        let fold = usize::from(g.wrap.is_some());
        // SAFETY: as in `single`.
        unsafe { pairs[fold][usize::from(view.min(VIEW_WIDE))](a, b, g, out) }
    }

    /// [`raw_totals`] of eight observers.
    #[inline(always)]
    fn totals(
        &self,
        raw: &[Raw; LANES],
        weights: &Lanes<LANES>,
        out: &mut NeighbourSums<Lanes<LANES>>,
    ) -> Lanes<LANES> {
        // SAFETY: as in `single`.
        unsafe { (self.totals)(raw, weights, out) }
    }
}

simd_targets! {
    /// The lane loops built for this CPU's SIMD (see [`LaneLoops`]).
    fn dispatched_lane_loops() -> LaneLoops {
        // NOTE: pairs in 2D only: in 3D (14 sums, three coordinates) LLVM did the pair loop's
        // lanes one by one, and a 3D step at 100,000 boids took 35 ms against 14.6 ms with one
        // observer at a time.
        let wide = multiversion::target::target_cfg_f!(target_feature = "avx512f") && DIM == 2;
        // NOTE: "avx2", which the targets name; "avx", which it implies, reads as false here.
        let avx = multiversion::target::target_cfg_f!(target_feature = "avx2");
        lane_loops!(wide, avx, #[multiversion::inherit_target], #[inline(never)])
    }
}

/// An observer in every lane of `N`.
#[inline(always)]
fn splat_observer<const N: usize>(o: &Observer<f32>) -> Observer<Lanes<N>> {
    let coords = |c: Coords<f32>| Coords(fill(Lanes([0.0; N]), |axis| Lanes::splat(c.0[axis])));
    Observer {
        position: coords(o.position),
        velocity: coords(o.velocity),
        key: Lanes::<N>::splat_key(o.key),
        perception2: Lanes::splat(o.perception2),
        separation2: Lanes::splat(o.separation2),
        cos2_v2: Lanes::splat(o.cos2_v2),
    }
}

/// `o` read one field at a time, each with a load of its own size.
///
/// The observers come from [`slot_sums_with`], which has just written them field by field; the
/// lane loops' builds, left alone, joined neighbouring fields into one wide load, which has to
/// wait until those narrow stores have reached the cache (a failed store forward, about 13% of
/// the pair loop's samples at 100,000 boids, on its first instructions).
#[inline(always)]
fn field_by_field(o: &Observer<f32>) -> Observer<f32> {
    // NOTE: volatile reads, which the compiler never joins into one.
    // SAFETY: every pointer here is a field of `o`, a valid reference.
    let f = |x: &f32| unsafe { core::ptr::read_volatile(x) };
    Observer {
        position: Coords(fill(0.0, |axis| f(&o.position.0[axis]))),
        velocity: Coords(fill(0.0, |axis| f(&o.velocity.0[axis]))),
        // SAFETY: as above.
        key: unsafe { core::ptr::read_volatile(&o.key) },
        perception2: f(&o.perception2),
        separation2: f(&o.separation2),
        cos2_v2: f(&o.cos2_v2),
    }
}

/// Two observers side by side: the first in lanes 0-7, the second in lanes 8-15.
#[inline(always)]
fn pair_observer(a: &Observer<f32>, b: &Observer<f32>) -> Observer<Lanes<16>> {
    let (a, b) = (&field_by_field(a), &field_by_field(b));
    let join = |x: f32, y: f32| Lanes(fill(0.0, |l| if l < LANES { x } else { y }));
    let coords = |x: Coords<f32>, y: Coords<f32>| {
        Coords(fill(Lanes([0.0; 16]), |axis| join(x.0[axis], y.0[axis])))
    };
    Observer {
        position: coords(a.position, b.position),
        velocity: coords(a.velocity, b.velocity),
        key: KeyLanes(fill(0, |l| if l < LANES { a.key } else { b.key })),
        perception2: join(a.perception2, b.perception2),
        separation2: join(a.separation2, b.separation2),
        cos2_v2: join(a.cos2_v2, b.cos2_v2),
    }
}

/// The most slots one call of [`slot_sums`] takes: its observers' lanes wait in [`Scratch`]
/// (about 18 kB) until each eight are added up together.
pub(crate) const SLOT_RUN: usize = 64;

/// What the kernel reuses from one run of slots to the next, one per thread ([`Self::with`]):
/// the gathered block, the block's runs, the neighbour walk's list, and the observers' lanes
/// (27 kB in 2D, 60 kB in 3D).
pub(crate) struct Scratch {
    gathered: Gathered,
    block: Block,
    nearest: KNearest,
    /// The lanes of each slot of the run.
    raw: [Raw; SLOT_RUN],
    /// The slots that walked their neighbours instead, with their sums (only topological
    /// flocks: empty, and so never allocated, for the rest).
    walked: Vec<(usize, NeighbourSums<f32>)>,
}

impl Scratch {
    /// A scratch for a part of a pass.
    pub fn new() -> Self {
        Self {
            gathered: Gathered::new(),
            block: Block::default(),
            nearest: KNearest::new(0),
            raw: [[Lanes([0.0; LANES]); RAW_FIELDS]; SLOT_RUN],
            walked: Vec::new(),
        }
    }

    /// Runs `f` with this thread's scratch, made once per thread and reused by every part of
    /// every pass the thread works on.
    // NOTE: not one per part: made per part (27 kB in 2D, copied from a constant), it cost a copy
    // of 1.7 MB a step at 100,000 boids (`memmove` 1.4% of the step's samples).
    pub fn with<R>(f: impl FnOnce(&mut Self) -> R) -> R {
        std::thread_local! {
            static SCRATCH: core::cell::RefCell<Scratch> =
                core::cell::RefCell::new(Scratch::new());
        }
        SCRATCH.with_borrow_mut(f)
    }

    /// The list a neighbour walk keeps its nearest in.
    pub fn nearest(&mut self) -> &mut KNearest {
        &mut self.nearest
    }
}

dispatch! {
    /// The neighbour sums of `slots` of `hash` (at most [`SLOT_RUN`]), eight at a time: lane
    /// `l` of `out[b]` is slot `slots.start + 8 b + l`'s (lanes past the end are zero). Returns
    /// what they counted. In the build for this CPU. Boids of one cell share their block, found
    /// once.
    pub(crate) fn slot_sums(
        hash: &SpatialHash,
        table: &FlockTable,
        slots: Range<usize>,
        out: &mut [NeighbourSums<Lanes<LANES>>],
        scratch: &mut Scratch,
    ) -> PassCounts = slot_sums_in;
}

/// [`slot_sums`] as each build compiles it.
#[inline(always)]
pub(crate) fn slot_sums_in(
    hash: &SpatialHash,
    table: &FlockTable,
    slots: Range<usize>,
    out: &mut [NeighbourSums<Lanes<LANES>>],
    scratch: &mut Scratch,
) -> PassCounts {
    slot_sums_with(&LaneLoops::get(), hash, table, slots, out, scratch)
}

/// [`slot_sums`] with the lane code `loops`: first each observer's lanes (cell by cell, two
/// observers of a cell side by side where the build pairs them), then each eight observers'
/// totals at once, scaled where a block was sampled, with the boids on an observer's very spot
/// added (which the lanes skip, as `d2 = 0` is also the observer itself).
#[inline(always)]
fn slot_sums_with(
    loops: &LaneLoops,
    hash: &SpatialHash,
    table: &FlockTable,
    slots: Range<usize>,
    out: &mut [NeighbourSums<Lanes<LANES>>],
    scratch: &mut Scratch,
) -> PassCounts {
    let (first, n) = (slots.start, slots.len());
    assert!(n <= SLOT_RUN && out.len() == n.div_ceil(LANES));
    let mut counts = PassCounts::default();
    let Scratch {
        gathered,
        block,
        nearest,
        raw,
        walked,
    } = scratch;
    walked.clear();
    let mut weights = [1.0; SLOT_RUN];
    let end = slots.end;
    let mut slot = first;
    // Cell by cell: a cell's slots are contiguous, so its block is found and gathered once.
    while slot < end {
        let p = hash.position(slot);
        let cell = hash.cell_xy(p);
        let cell_end = hash.cell_end(cell).min(end);
        // Every stored position is in the cell it was placed in (both use `cell_xy`).
        debug_assert!(cell_end > slot, "slot {slot} is not in its cell {cell}");
        let cell_end = cell_end.max(slot + 1);
        block.find(hash, p, cell);
        gathered.fill(&hash.arrays(), block, hash.turn());
        let mut next = slot;
        while next < cell_end {
            let i = next - first;
            weights[i] = gathered.weight;
            let row = table.row(hash.flock_of(next));
            if row.neighbour_mode != NeighbourMode::Radius {
                let (sums, candidates) = walk_sums(hash, table, None, next, nearest);
                counts.candidates += candidates;
                walked.push((next, sums));
                raw[i] = [Lanes([0.0; LANES]); RAW_FIELDS];
                weights[i] = 1.0;
                next += 1;
                continue;
            }
            let a = observer_of(hash, table, next);
            let b_row = (next + 1 < cell_end).then(|| table.row(hash.flock_of(next + 1)));
            // NOTE: two at a time only where a register holds both: where it does not (AVX2),
            // a pair is two passes' work in one loop, with more registers than the CPU has.
            let paired = loops.pairs.is_some()
                && b_row.is_some_and(|b| {
                    b.neighbour_mode == NeighbourMode::Radius && b.view == row.view
                });
            if paired {
                let b = observer_of(hash, table, next + 1);
                let pair: &mut [Raw; 2] = (&mut raw[i..i + 2]).try_into().expect("two slots");
                loops.pair(row.view, [&a, &b], gathered, pair);
                weights[i + 1] = weights[i];
                counts.candidates += 2 * gathered.len as u64;
                next += 2;
            } else {
                loops.single(row.view, &a, gathered, &mut raw[i]);
                counts.candidates += gathered.len as u64;
                next += 1;
            }
        }
        slot = cell_end;
    }
    // The lanes past the end add up to zero.
    raw[n..n.div_ceil(LANES) * LANES].fill([Lanes([0.0; LANES]); RAW_FIELDS]);
    for (b, out) in out.iter_mut().enumerate() {
        let group: &[Raw; LANES] = (&raw[b * LANES..(b + 1) * LANES]).try_into().unwrap();
        let weights = Lanes(fill(1.0, |l| {
            weights.get(b * LANES + l).copied().unwrap_or(1.0)
        }));
        let coincident = loops.totals(group, &weights, out);
        for l in 0..LANES {
            if coincident.0[l] > 1.0 {
                // Rare: other boids on exactly this spot. Push apart along a per-pair direction.
                let slot = first + b * LANES + l;
                let mut s = out.lane(l);
                add_coincident(hash, table, slot, block, &mut s);
                out.set_lane(l, &s);
            }
        }
    }
    for (slot, sums) in walked.iter() {
        let i = slot - first;
        out[i / LANES].set_lane(i % LANES, sums);
    }
    for (b, out) in out.iter().enumerate() {
        let valid = (n - b * LANES).min(LANES);
        for l in 0..valid {
            counts.neighbours += out.neighbours.0[l] as u64;
        }
    }
    counts
}

/// Adds to `sums` the boids that stand on exactly the spot of the boid in `slot` (not counting
/// itself): a separation push along a per-pair direction, and their velocities where they share
/// its key. Where the block is crowded, only those of its [`Sample`](crate::sample::Sample), weighed as the lanes
/// weighed theirs ([`Gathered::fill`]), so that no crowd on one spot makes this quadratic.
/// `block` is any block of runs, found here again.
fn add_coincident(
    hash: &SpatialHash,
    table: &FlockTable,
    slot: usize,
    block: &mut Block,
    sums: &mut NeighbourSums<f32>,
) {
    let o = observer_of(hash, table, slot);
    let p = hash.position(slot);
    block.find(hash, p, hash.cell_xy(p));
    let sample = block.sample(CANDIDATE_CAP, hash.turn());
    // The same sample as the lanes saw, weighed as they were: the own cell and, in a crowded
    // block, the rest.
    let mut parts = [NeighbourSums::zero(); 2];
    let mut checked = 0;
    sample.visit(block.runs(), |slots, offset, sampled| {
        if sampled {
            checked += slots.len();
        }
        for j in slots {
            if j != slot && hash.position(j) + offset == p {
                let c = Candidate {
                    position: Coords::of(p),
                    velocity: Coords::of(hash.velocity(j)),
                    key: hash.key_of(j),
                };
                let into = &mut parts[usize::from(sampled)];
                accumulate_coincident(into, &o, &c, Coords::of(tie_break(slot, j)));
            }
        }
    });
    let rest = parts[1].scaled(sample.weight(block.boids(), checked));
    let (a, b, c) = (sums.fields(), parts[0].fields(), rest.fields());
    *sums = NeighbourSums::from_fields(fill(0.0, |f| a[f] + b[f] + c[f]));
}

#[cfg(test)]
mod tests {
    use bevy::prelude::*;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::*;
    use crate::bounds::{Edges, SimulationBounds};
    use crate::dim;
    use crate::hash::key;
    use crate::math::{region, xyz};
    use crate::neighbours::for_each_neighbour;
    use crate::params::FlockParams;
    use crate::rules::accumulate;

    /// The sums of the slots from `from` to the end, one per slot, through `loops` (runs of
    /// [`SLOT_RUN`] slots, as the pass takes them), and what they counted.
    fn sums_from(
        loops: &LaneLoops,
        hash: &SpatialHash,
        table: &FlockTable,
        from: usize,
    ) -> (Vec<NeighbourSums<f32>>, PassCounts) {
        let mut scratch = Scratch::new();
        let mut counts = PassCounts::default();
        let mut out = Vec::new();
        let mut lanes = [NeighbourSums::zero(); SLOT_RUN / LANES];
        for start in (from..hash.len()).step_by(SLOT_RUN) {
            let slots = start..(start + SLOT_RUN).min(hash.len());
            let lanes = &mut lanes[..slots.len().div_ceil(LANES)];
            let n = slots.len();
            counts = counts.plus(slot_sums_with(
                loops,
                hash,
                table,
                slots,
                lanes,
                &mut scratch,
            ));
            out.extend((0..n).map(|i| lanes[i / LANES].lane(i % LANES)));
        }
        (out, counts)
    }

    /// 400 random boids in a 500 x 300 world with cells of 50, three on one spot, over
    /// `flocks` flocks: about 60 in a block of cells, under [`CANDIDATE_CAP`], so that nothing is
    /// sampled and the kernel and the neighbour walk see the same candidates.
    fn hash(edges: Edges, flocks: u16) -> SpatialHash {
        hash_in(edges, flocks, 50.0, 400)
    }

    /// [`hash`] with cells `cell` across and `n` boids: from 100 on the 300-unit-high world is
    /// under three cells high, and from 167 under three wide, so that the blocks fold onto
    /// themselves.
    fn hash_in(edges: Edges, flocks: u16, cell: f32, n: u32) -> SpatialHash {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(77);
        let bounds = SimulationBounds {
            rect: region([0.0; 3], [500.0, 300.0, 300.0]),
            edges,
        };
        let mut boids: Vec<(Entity, Vector, Vector, u32)> = (0..n)
            .map(|i| {
                let p = xyz([500.0, 300.0, 300.0].map(|s| rng.random::<f32>() * s));
                let v = dim::random_direction(&mut rng) * 100.0;
                let k = key(FlockId((i % u32::from(flocks)) as u16), (i % 3) as u16);
                (Entity::from_raw_u32(i + 1).unwrap(), p, v, k)
            })
            .collect();
        for k in 0..3u32 {
            let e = Entity::from_raw_u32(900 + k).unwrap();
            boids.push((e, xyz([250.0, 150.0, 150.0]), Vector::X * 50.0, 0));
        }
        build(&bounds, cell, &boids)
    }

    fn build(
        bounds: &SimulationBounds,
        cell: f32,
        boids: &[(Entity, Vector, Vector, u32)],
    ) -> SpatialHash {
        let mut hash = SpatialHash::default();
        build_into(&mut hash, bounds, cell, boids);
        hash
    }

    /// [`build`] into `hash`, which counts it as one more rebuild.
    fn build_into(
        hash: &mut SpatialHash,
        bounds: &SimulationBounds,
        cell: f32,
        boids: &[(Entity, Vector, Vector, u32)],
    ) {
        let mut builder = hash.begin(bounds, cell, bounds.rect, boids.len());
        for b in boids {
            builder.count(b.1);
        }
        for &(e, p, v, k) in boids {
            builder.place(e, p, v, k);
        }
    }

    use crate::components::FlockId;

    /// A table whose flocks see with fields of view of 360, 120 and 270 degrees in turn (all
    /// within the tests' cell of 50), so neighbouring observers differ.
    fn table(flocks: u16) -> FlockTable {
        let mut table = FlockTable::new(&FlockParams::default());
        let mut world = World::new();
        for f in 1..flocks {
            let e = world.spawn_empty().id();
            let params = FlockParams {
                field_of_view: [360.0, 120.0, 270.0][usize::from(f) % 3],
                perception_radius: 40.0 + f32::from(f),
                separation_distance: 20.0,
                ..FlockParams::default()
            };
            assert_eq!(table.set(e, &params), Some(FlockId(f)));
        }
        table
    }

    /// Every world and field of view the tests cover: with and without wrap, one flock of each
    /// field of view, and three flocks mixed.
    fn for_each_case(mut f: impl FnMut(&SpatialHash, &FlockTable)) {
        for edges in [Edges::Wrap, Edges::TURN_BACK] {
            for fov in [360.0, 120.0, 270.0] {
                let params = FlockParams {
                    field_of_view: fov,
                    ..FlockParams::default()
                };
                f(&hash(edges, 1), &FlockTable::new(&params));
            }
            f(&hash(edges, 3), &table(3));
        }
        // Worlds under three cells across that wrap: high only, and high and wide.
        for (cell, fov) in [
            (120.0, 360.0),
            (120.0, 270.0),
            (250.0, 360.0),
            (250.0, 120.0),
        ] {
            let params = FlockParams {
                perception_radius: cell,
                field_of_view: fov,
                ..FlockParams::default()
            };
            f(
                &hash_in(Edges::Wrap, 1, cell, 200),
                &FlockTable::new(&params),
            );
        }
        // A crowd: 3,000 boids within 100, 200 and 400 units across, so that blocks hold more
        // than `CANDIDATE_CAP` and are sampled, the own cell read in full in one of them (in
        // 2D the widest, in 3D the middle one); built twice, so that the sample has turned.
        let bounds = SimulationBounds::wrap(region([0.0; 3], [800.0, 600.0, 600.0]));
        for side in [100.0, 200.0, 400.0] {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
            let boids: Vec<(Entity, Vector, Vector, u32)> = (0..3000u32)
                .map(|i| {
                    let p = xyz([200.0, 25.0, 25.0]) + xyz([0.0; 3].map(|_| rng.random())) * side;
                    let v = dim::random_direction(&mut rng) * 80.0;
                    (Entity::from_raw_u32(i + 1).unwrap(), p, v, i % 2)
                })
                .collect();
            let params = FlockParams::starlings();
            let mut crowd = SpatialHash::default();
            for _ in 0..2 {
                build_into(&mut crowd, &bounds, params.perception_radius, &boids);
                f(&crowd, &FlockTable::new(&params));
            }
        }
    }

    /// The kernel agrees with the neighbour walk of each boid's flock: the same neighbours, the
    /// same sums up to float rounding, for every kind of field of view, with and without wrap,
    /// flocks mixed, boids on the same spot, and a crowd, where both take the same sample.
    #[test]
    fn the_kernel_matches_the_neighbour_walk() {
        for_each_case(|hash, table| {
            let (got, counts) = sums_from(&LaneLoops::get(), hash, table, 0);
            let mut nearest = KNearest::new(0);
            let mut neighbours = 0;
            let mut block = Block::default();
            // Sampled boids: the neighbours estimated and those there are.
            let (mut estimated, mut there, mut sampled) = (0.0, 0.0, 0);
            for (slot, got) in got.iter().enumerate() {
                let (want, _) = walk_sums(hash, table, None, slot, &mut nearest);
                let perception = table.row(hash.flock_of(slot)).perception();
                let mut found = 0;
                for_each_neighbour(hash, &perception, slot, &mut nearest, |_| found += 1);
                let p = hash.position(slot);
                block.find(hash, p, hash.cell_xy(p));
                if block.sample(CANDIDATE_CAP, hash.turn()).is_all() {
                    assert_eq!(want.neighbour_count(), found);
                } else {
                    sampled += 1;
                    estimated += want.neighbours;
                    there += found as f32;
                }
                neighbours += u64::from(want.neighbour_count());
                // Exact where the own cell is not weighed apart; where it is, the kernel divides
                // the own cell's sums by the weight and multiplies all back, up to rounding.
                let count = |a: f32, b: f32| (a - b).abs() <= 1e-5 * b.max(1.0);
                assert!(
                    count(got.neighbours, want.neighbours),
                    "slot {slot}: {got:?} vs {want:?}"
                );
                assert!(
                    count(got.same, want.same),
                    "slot {slot}: {got:?} vs {want:?}"
                );
                let close = |a: Coords<f32>, b: Coords<f32>| {
                    let (a, b) = (a.to_vector(), b.to_vector());
                    (a - b).length() <= 1e-3 * b.length().max(1.0)
                };
                assert!(
                    close(got.separation, want.separation),
                    "{got:?} vs {want:?}"
                );
                assert!(close(got.alignment, want.alignment), "{got:?} vs {want:?}");
                assert!(close(got.cohesion, want.cohesion), "{got:?} vs {want:?}");
            }
            // Each count truncated: one apart at most for a sampled boid (rounding, above).
            assert!(counts.neighbours.abs_diff(neighbours) <= sampled);
            // A sample's estimate of how many neighbours there are is unbiased.
            assert!(
                (estimated - there).abs() <= 0.05 * there,
                "{estimated} neighbours estimated, {there} there"
            );
        });
    }

    /// The rules run on one candidate at a time, each into the lane it lands in (its place in
    /// the gathered block modulo [`LANES`]), lanes added in the kernel's order: the scalar
    /// reference every build must match bit for bit.
    fn reference(hash: &SpatialHash, table: &FlockTable, out: &mut [NeighbourSums<f32>]) {
        let mut gathered = Gathered::new();
        let mut block = Block::default();
        let mut nearest = KNearest::new(0);
        for (slot, out) in out.iter_mut().enumerate() {
            let p = hash.position(slot);
            block.find(hash, p, hash.cell_xy(p));
            gathered.fill(&hash.arrays(), &block, hash.turn());
            let row = table.row(hash.flock_of(slot));
            if row.neighbour_mode != NeighbourMode::Radius {
                *out = walk_sums(hash, table, None, slot, &mut nearest).0;
                continue;
            }
            let o = observer_of(hash, table, slot);
            let mut lanes = [NeighbourSums::<f32>::zero(); LANES];
            let mut coincident = [0.0f32; LANES];
            for j in 0..gathered.chunks() * LANES {
                if j == gathered.own * LANES && j > 0 {
                    for lane in &mut lanes {
                        *lane = lane.scaled(1.0 / gathered.weight);
                    }
                }
                let c = gathered.candidate(j);
                let d = gathered.fold(c.position - o.position);
                let d2 = d.length_squared();
                let near = match row.view {
                    VIEW_ALL => rules::sees::<f32, VIEW_ALL>(&o, d, d2),
                    VIEW_NARROW => rules::sees::<f32, VIEW_NARROW>(&o, d, d2),
                    _ => rules::sees::<f32, VIEW_WIDE>(&o, d, d2),
                };
                accumulate(&mut lanes[j % LANES], &o, near, d, d2, &c);
                coincident[j % LANES] += f32::from(u8::from(d2 == 0.0));
            }
            let totals = NeighbourSums::<Lanes<LANES>>::gather(|l| lanes[l]).total();
            let coincident = Lanes(coincident).total();
            *out = totals.scaled(gathered.weight);
            if coincident > 1.0 {
                add_coincident(hash, table, slot, &mut block, out);
            }
        }
    }

    /// Every build gives the scalar reference's bits: the build this CPU dispatches to, the
    /// portable one, and the pairing of two observers in sixteen lanes (run here in portable
    /// code, whatever the CPU), in every case of [`for_each_case`] and in a crowded block that
    /// is sampled.
    #[test]
    fn every_build_gives_the_reference_bits() {
        let check = |hash: &SpatialHash, table: &FlockTable| {
            let n = hash.len();
            let mut want = vec![NeighbourSums::zero(); n];
            reference(hash, table, &mut want);
            let mut from_1 = sums_from(&LaneLoops::get(), hash, table, 1);
            from_1.0.insert(0, want[0]);
            let builds = [
                ("dispatched", sums_from(&LaneLoops::get(), hash, table, 0)),
                (
                    "portable",
                    sums_from(&LaneLoops::portable(false), hash, table, 0),
                ),
                (
                    "portable pairs",
                    sums_from(&LaneLoops::portable(true), hash, table, 0),
                ),
                // Starting in the middle of a cell, as a part of the pass may.
                ("from slot 1", from_1),
            ];
            let bits = |s: &NeighbourSums<f32>| s.fields().map(f32::to_bits);
            for (name, (got, _)) in &builds {
                assert_eq!(got.len(), n);
                for (slot, (g, w)) in got.iter().zip(&want).enumerate() {
                    assert_eq!(bits(g), bits(w), "{name}, slot {slot}: {g:?} vs {w:?}");
                }
            }
            assert_eq!(builds[0].1.1, builds[1].1.1, "the counts too");
            assert_eq!(builds[0].1.1, builds[2].1.1);
        };
        for_each_case(check);
    }
}
