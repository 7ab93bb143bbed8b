//! Which candidates a boid in a crowd checks: the cap ([`CANDIDATE_CAP`], one rule for both
//! dimensions) and the [`Sample`] of a crowded block of cells (its own cell in full, an even
//! sample of the rest), shared by the kernel, the coincident boids' pass, the neighbour walk and
//! the flee's copy of the predators, so that all of them see the same boids.

use core::ops::Range;

use crate::lanes::LANES;
use crate::math::{DIM, Vector};

/// Candidates a boid checks for each cell of its block, about, where the block is crowded.
pub const CANDIDATES_PER_CELL: usize = 24;

/// The most candidates one boid checks in a step, about: [`CANDIDATES_PER_CELL`] for each cell
/// of the block (3x3 cells in 2D, 216 candidates; 3x3x3 in 3D, 648), so that the same spacing
/// reaches the cap at the same crowding in both dimensions.
///
/// Where the block of cells around a boid holds more (a flock crushed into a few cells, as a
/// predator herds it), the boid reads its own cell in full, where its nearest neighbours are,
/// and an even sample of the rest of the block's groups of 8 candidates, each neighbour found
/// there weighed by the rest's boids over those checked. Alignment and cohesion, which use
/// means, are unbiased; the separation push and the neighbour count are estimates, exact for
/// the own cell. A crush then costs at most about this many checks per boid instead of growing
/// with the square of the crowd. The groups taken move along by one with every step, so that
/// no boid of a crowd is out of another's sample for more than about `block / cap` steps in a
/// row. Where the own cell alone holds more than three quarters of the cap (every boid on one
/// point or in one cell), the whole block is sampled alike.
pub const CANDIDATE_CAP: usize = CANDIDATES_PER_CELL * 3usize.pow(DIM as u32);

/// A crowded block's sample: the own cell's slots in full (where they are at most three quarters
/// of the cap), then, of the rest of the block's groups of [`LANES`] candidates (each run of
/// slots, less the own cell, cut from its start, the last group of a piece maybe shorter),
/// `keep` of every `groups`, spread evenly over the block, the first at a point that moves one
/// group along with every rebuild of the hash. Within the cap, every group, in the block's
/// order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sample {
    keep: usize,
    groups: usize,
    start: usize,
    /// The own cell's slots, read in full before the rest; empty where none are.
    own: Range<usize>,
}

impl Sample {
    /// Every group of the block.
    pub(crate) const ALL: Self = Self {
        keep: 1,
        groups: 1,
        start: 0,
        own: 0..0,
    };

    /// The sample, with at most about `cap` candidates, of a block whose runs of slots are
    /// `runs` and whose own cell (the cell of the boids that look) holds the slots `own`, in the
    /// hash's rebuild `turn`.
    #[inline]
    pub(crate) fn new(
        runs: impl Iterator<Item = Range<usize>> + Clone,
        own: Range<usize>,
        cap: usize,
        turn: u32,
    ) -> Self {
        let boids: usize = runs.clone().map(|r| r.len()).sum();
        if boids <= cap {
            return Self::ALL;
        }
        let own = if own.len() * 4 <= cap * 3 { own } else { 0..0 };
        let mut groups = 0;
        for run in runs {
            for piece in pieces(run, &own) {
                groups += piece.len().div_ceil(LANES);
            }
        }
        let keep =
            (cap.saturating_sub(own.len().next_multiple_of(LANES)) / LANES).clamp(1, groups.max(1));
        // Starting `keep` further on each turn takes the groups one along.
        let start = (turn as usize % groups.max(1)) * keep % groups.max(1);
        Self {
            keep,
            groups,
            start,
            own,
        }
    }

    /// Whether the sample is the whole block, in the block's order.
    #[inline(always)]
    pub(crate) fn is_all(&self) -> bool {
        self.keep >= self.groups && self.own.is_empty()
    }

    /// The own cell's slots, read in full before the rest (at offset zero); empty where the
    /// sample is the whole block, or the own cell is too crowded to be read in full.
    #[inline(always)]
    pub(crate) fn own(&self) -> Range<usize> {
        self.own.clone()
    }

    /// What each boid found in the rest of a block of `boids` boids stands for, where `checked`
    /// of the rest were checked: the rest's boids over those (1 where nothing was left out).
    #[inline]
    pub(crate) fn weight(&self, boids: usize, checked: usize) -> f32 {
        weight(boids - self.own.len(), checked)
    }

    /// A walk over the rest of the block, run by run in the block's order.
    #[inline(always)]
    pub(crate) fn walk(&self) -> SampleWalk<'_> {
        SampleWalk {
            sample: self,
            taken: 0,
            next: self.group(0),
            first: 0,
        }
    }

    /// Calls `f(slots, offset, sampled)` for the own cell's slots (at offset zero), then for each
    /// group taken from `runs`, the block's runs with their offsets; `sampled` where what is
    /// found there is weighed by [`Self::weight`].
    #[inline(always)]
    pub(crate) fn visit(
        &self,
        runs: impl Iterator<Item = (Range<usize>, Vector)>,
        mut f: impl FnMut(Range<usize>, Vector, bool),
    ) {
        if !self.own.is_empty() {
            f(self.own(), Vector::ZERO, false);
        }
        let sampled = !self.is_all();
        let mut walk = self.walk();
        for (run, offset) in runs {
            walk.run(run, |slots| f(slots, offset, sampled));
        }
    }

    /// The block's `m`-th group taken (counting from 0). Group `c` is taken where
    /// `start + (c + 1) keep` reaches the next multiple of `groups` (Bresenham's line: `keep` of
    /// every `groups`, evenly).
    #[inline(always)]
    fn group(&self, m: usize) -> usize {
        ((m + 1) * self.groups - self.start).div_ceil(self.keep) - 1
    }
}

/// `run` less the slots of `own`, where it holds them: one or two pieces (maybe empty).
#[inline(always)]
fn pieces(run: Range<usize>, own: &Range<usize>) -> [Range<usize>; 2] {
    if !own.is_empty() && run.start <= own.start && own.end <= run.end {
        [run.start..own.start, own.end..run.end]
    } else {
        [run, 0..0]
    }
}

/// [`Sample::walk`]: the groups taken from each run in turn, less the own cell, found without
/// visiting those left out.
pub(crate) struct SampleWalk<'a> {
    sample: &'a Sample,
    /// Groups taken so far.
    taken: usize,
    /// The next group to take, counted across the block.
    next: usize,
    /// The block's group at which the next piece starts.
    first: usize,
}

impl SampleWalk<'_> {
    /// Calls `f` with the slots taken from `run`, the next of the block's runs, less the own
    /// cell: whole groups of [`LANES`] (shorter at a piece's end).
    #[inline(always)]
    pub(crate) fn run(&mut self, run: Range<usize>, mut f: impl FnMut(Range<usize>)) {
        for piece in pieces(run, &self.sample.own) {
            let first = self.first;
            self.first += piece.len().div_ceil(LANES);
            while self.next < self.first {
                let at = piece.start + (self.next - first) * LANES;
                f(at..(at + LANES).min(piece.end));
                self.taken += 1;
                self.next = self.sample.group(self.taken);
            }
        }
    }
}

/// What each boid found in a sample stands for: the boids over those checked (1 where nothing
/// was left out).
#[inline]
fn weight(boids: usize, checked: usize) -> f32 {
    if checked >= boids || checked == 0 {
        1.0
    } else {
        boids as f32 / checked as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slots `sample` takes of `runs`, in the order it visits them, each with whether it is
    /// weighed.
    fn taken(sample: &Sample, runs: &[Range<usize>]) -> Vec<(Range<usize>, bool)> {
        let mut out = Vec::new();
        let runs = runs.iter().map(|r| (r.clone(), Vector::ZERO));
        sample.visit(runs, |slots, _, sampled| out.push((slots, sampled)));
        out
    }

    /// Within the cap every group is taken, in the block's order, none weighed.
    #[test]
    fn within_the_cap_a_sample_is_the_block() {
        let runs = [0..20, 40..40, 100..130];
        let small = Sample::new(runs.iter().cloned(), 100..110, CANDIDATE_CAP, 7);
        assert!(small.is_all());
        assert_eq!(small.own(), 0..0);
        let slots: Vec<_> = taken(&small, &runs)
            .into_iter()
            .map(|(s, w)| {
                assert!(!w);
                s
            })
            .collect();
        assert_eq!(
            slots,
            [0..8, 8..16, 16..20, 100..108, 108..116, 116..124, 124..130]
        );
    }

    /// Over the cap: the own cell in full first (where it fits in three quarters of the cap),
    /// then `keep` groups of the rest, evenly spread and never the own cell's, and each group
    /// equally often over `groups` turns. Where the own cell is too crowded, the whole block is
    /// sampled alike.
    #[test]
    fn a_crowded_sample_reads_its_own_cell_and_turns_over_the_rest() {
        let crowd = [0..4000, 5000..9000];
        for own in [6000..6100, 6000..6000 + CANDIDATE_CAP] {
            let read_in_full = own.len() * 4 <= CANDIDATE_CAP * 3;
            let own_len = if read_in_full { own.len() } else { 0 };
            let groups = (8000 - own_len) / LANES + usize::from(own_len % LANES != 0);
            let keep = (CANDIDATE_CAP - own_len.next_multiple_of(LANES)) / LANES;
            let mut times = vec![0; 9000];
            for turn in 0..groups as u32 {
                let sample = Sample::new(crowd.iter().cloned(), own.clone(), CANDIDATE_CAP, turn);
                assert!(!sample.is_all());
                let slots = taken(&sample, &crowd);
                let rest: Vec<_> = if read_in_full {
                    assert_eq!(slots[0], (own.clone(), false), "turn {turn}");
                    slots[1..]
                        .iter()
                        .map(|(s, w)| {
                            assert!(w);
                            s.clone()
                        })
                        .collect()
                } else {
                    slots.iter().map(|(s, _)| s.clone()).collect()
                };
                assert_eq!(rest.len(), keep, "turn {turn}");
                let checked: usize = rest.iter().map(|s| s.len()).sum();
                assert!(checked + own_len <= CANDIDATE_CAP);
                for s in &rest {
                    assert!(s.end <= own.start || s.start >= own.end || !read_in_full);
                    // Evenly: about half from each run.
                }
                let first = rest.iter().filter(|s| s.start < 4000).count();
                let share = 4000.0 / (8000 - own_len) as f32;
                assert!(
                    (first as f32 - keep as f32 * share).abs() <= 1.5,
                    "turn {turn}: {first} of {keep}"
                );
                for s in rest {
                    for j in s {
                        times[j] += 1;
                    }
                }
            }
            // Over `groups` turns, every slot of the rest taken `keep` times, the own cell's never
            // (it is read in full every turn).
            for j in crowd.iter().flat_map(|r| r.clone()) {
                let want = if read_in_full && own.contains(&j) {
                    0
                } else {
                    keep
                };
                assert_eq!(times[j], want, "slot {j}");
            }
        }
    }

    #[test]
    fn a_weight_is_what_a_checked_boid_of_the_rest_stands_for() {
        let sample = Sample::new(core::iter::once(0..1000), 0..100, CANDIDATE_CAP, 0);
        assert_eq!(sample.weight(1000, 900), 1.0);
        assert_eq!(sample.weight(1000, 225), 4.0);
        assert_eq!(Sample::ALL.weight(100, 100), 1.0);
        assert_eq!(Sample::ALL.weight(0, 0), 1.0);
    }
}
