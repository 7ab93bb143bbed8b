//! [`Block`]: the runs of the spatial hash that hold the cells around one cell, each with the
//! offset that brings it next to that cell, found once and shared by everything that reads a
//! boid's metric neighbours: the kernel (which copies the block, or its [`Sample`] where it is
//! crowded), the boids on one spot, the neighbour walk and the flee's copy of the predators.

use core::ops::Range;

use crate::hash::{BLOCK_ROWS, SpatialHash};
use crate::lanes::{Coords, Real, fill};
use crate::math::{DIM, IVector, Vector};
use crate::motion::nearest_image;
use crate::sample::Sample;

/// The most runs of slots a block has: every row of cells, twice where it crosses the seam.
pub(crate) const MAX_RUNS: usize = 2 * BLOCK_ROWS;

/// Per axis, the world's size and half of it where a block folds onto itself (a wrapped world
/// under three cells across), infinite where it does not: what [`nearest_image`] needs.
pub(crate) type Wrap = [(f32, f32); DIM];

/// The runs of the hash that hold the block of cells around one cell, with the offset that
/// brings each run's positions to their images nearest that cell. Every boid of a cell has the
/// same block, so it is found once per cell.
#[derive(Clone)]
pub(crate) struct Block {
    runs: [(usize, usize, Vector); MAX_RUNS],
    len: usize,
    /// Boids in all the runs together.
    boids: usize,
    /// The slots of the own cell, the cell the block is around.
    own: (usize, usize),
    /// Where the block folds onto itself (see [`fold`]).
    wrap: Option<Wrap>,
}

impl Default for Block {
    fn default() -> Self {
        Self {
            runs: [(0, 0, Vector::ZERO); MAX_RUNS],
            len: 0,
            boids: 0,
            own: (0, 0),
            wrap: None,
        }
    }
}

impl Block {
    /// Makes this the block around `cell`, the cell holding `p`. Where the world is under three
    /// cells across and wraps, the block folds onto itself: it holds the whole axis once, and
    /// each delta must be moved to its nearest image ([`Block::fold`]).
    // NOTE: filled in place, not returned: a block returned by value was copied out of the
    // closure's frame with wide moves that waited on its narrow stores (about 8% of the
    // kernel's samples at 100,000 boids).
    #[inline]
    pub fn find(&mut self, hash: &SpatialHash, p: Vector, cell: IVector) {
        self.len = 0;
        self.boids = 0;
        self.wrap = None;
        self.own = hash.cell_range(cell);
        // NOTE: the shortcut here, not inside `visit_block`: there (still a call, and the
        // closure per run) it kept almost none of the gain.
        if let Some(rows) = hash.inner_block(cell) {
            // Nearly every cell: one run a row in place, without the seam's cases.
            for (run, slot) in rows.into_iter().zip(&mut self.runs) {
                self.boids += run.len();
                *slot = (run.start, run.end, Vector::ZERO);
            }
            self.len = BLOCK_ROWS;
            return;
        }
        let mut folds = [false; DIM];
        hash.visit_block(p, 1, |run, offset, fold| {
            self.boids += run.len();
            self.runs[self.len] = (run.start, run.end, offset);
            self.len += 1;
            folds = fold;
        });
        if folds.contains(&true) {
            let world = hash.world_size();
            self.wrap = Some(fill((0.0, 0.0), |axis| {
                if folds[axis] {
                    (world[axis], world[axis] * 0.5)
                } else {
                    (f32::INFINITY, f32::INFINITY)
                }
            }));
        }
    }

    /// The block around the boid in `slot` of `hash`.
    pub(crate) fn around(hash: &SpatialHash, slot: usize) -> Self {
        let p = hash.position(slot);
        let mut block = Self::default();
        block.find(hash, p, hash.cell_xy(p));
        block
    }

    /// The runs, in the order the hash's walk visits them, each with its offset.
    pub(crate) fn runs(&self) -> impl Iterator<Item = (Range<usize>, Vector)> + '_ {
        self.runs[..self.len].iter().map(|&(a, b, o)| (a..b, o))
    }

    /// The slots of the own cell, the cell the block is around.
    pub(crate) fn own(&self) -> Range<usize> {
        self.own.0..self.own.1
    }

    /// The boids of all the runs together.
    pub(crate) fn boids(&self) -> usize {
        self.boids
    }

    /// The block's [`Sample`] of at most about `cap` candidates in the hash's rebuild `turn`.
    #[inline]
    pub(crate) fn sample(&self, cap: usize, turn: u32) -> Sample {
        let runs = self.runs[..self.len].iter().map(|&(a, b, _)| a..b);
        Sample::new(runs, self.own(), cap, turn)
    }

    /// Whether the block folds onto itself (see [`Self::find`]).
    pub(crate) fn folds(&self) -> bool {
        self.wrap.is_some()
    }

    /// Where the block folds onto itself: each axis's world size and half of it (infinite on an
    /// axis that does not fold); `None` where it does not fold at all.
    pub(crate) fn wrap(&self) -> Option<Wrap> {
        self.wrap
    }

    /// The delta from `p` (in the block's own cell) to the boid in `slot` of `hash`, which lies
    /// in a run with `offset`: to its image nearest `p` where the block folds.
    #[inline]
    pub(crate) fn delta(
        &self,
        hash: &SpatialHash,
        p: Vector,
        slot: usize,
        offset: Vector,
    ) -> Vector {
        let d = hash.position(slot) + offset - p;
        match &self.wrap {
            Some(wrap) => fold(wrap, Coords::of(d)).to_vector(),
            None => d,
        }
    }
}

/// `d` moved to its nearest image on each axis where `wrap` folds; as it is elsewhere. (In a
/// folded block the nearest image depends on the observer, not on the cell, so the copies cannot
/// be moved there beforehand.)
#[inline(always)]
pub(crate) fn fold<R: Real>(wrap: &Wrap, mut d: Coords<R>) -> Coords<R> {
    for (x, &(size, half)) in d.0.iter_mut().zip(wrap) {
        *x = nearest_image(*x, R::splat(size), R::splat(half));
    }
    d
}
