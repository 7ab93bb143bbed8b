//! Which candidates a boid in a crowd checks: [`CANDIDATE_CAP`] and the [`Sample`] of a
//! crowded block of cells, shared by the kernel, the coincident boids' pass and the neighbour
//! walk, so that all three see the same boids.

use core::ops::Range;

use crate::lanes::LANES;
use crate::math::DIM;

/// The most candidates one boid checks in a step, about. Where the block of cells around a boid
/// holds more (a flock crushed into a few cells, as a predator herds it), the boid checks an
/// even sample of the block's groups of 8 candidates, about this many, and weighs each
/// neighbour it finds by the block's boids over the boids checked. Alignment and cohesion, which
/// use means, are unbiased; the separation push and the neighbour count are estimates. A crush
/// then costs at most about this many checks per boid instead of growing with the square of the
/// crowd. The groups taken move along by one with every step, so that no boid of a crowd is
/// out of another's sample for more than about `block / CANDIDATE_CAP` steps in a row.
///
/// 256 in 2D, 640 in 3D: a block of 3x3x3 cells holds about four times the boids of a block of
/// 3x3 at the same spacing, and a flock that keeps its spacing must mostly stay under the cap,
/// since a sampled boid misses some of its nearest neighbours in a step and the flock crushes
/// further. Measured (the spacing tests, fish pulled to a point in 3D, nearest neighbours over
/// the separation distance at 8,000 boids, and 1,000 boids' over it): 0.82 and 1.13x with a
/// cap of 1,024, 0.78 and 1.18x with 640, 0.72 and 1.26x with 512 (over the tests' 1.25x).
/// A sample that does not turn crushes further: 8,000 sheep pulled, with a cap of 512 and the
/// same every-`k`-th groups each step, 1.36x; turning, 1.14x.
pub const CANDIDATE_CAP: usize = if DIM == 2 { 256 } else { 640 };

/// A crowded block's sample: of the block's groups of [`LANES`] candidates (each run of slots
/// cut from its start, the last group of a run maybe shorter), `keep` of every `groups`, spread
/// evenly over the block, the first at a point that moves one group along with every rebuild of
/// the hash. Within the cap, every group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sample {
    keep: usize,
    groups: usize,
    start: usize,
}

impl Sample {
    /// Every group of the block.
    pub(crate) const ALL: Self = Self {
        keep: 1,
        groups: 1,
        start: 0,
    };

    /// The sample of a block whose runs are `runs` long, in the hash's rebuild `turn`.
    #[inline]
    pub(crate) fn new(runs: impl Iterator<Item = usize>, turn: u32) -> Self {
        let groups = runs.map(|n| n.div_ceil(LANES)).sum();
        let keep = CANDIDATE_CAP / LANES;
        if groups <= keep {
            return Self::ALL;
        }
        // Starting `keep` further on each turn takes the groups one along.
        let start = (turn as usize % groups) * keep % groups;
        Self {
            keep,
            groups,
            start,
        }
    }

    /// Whether the sample is the whole block.
    #[inline(always)]
    pub(crate) fn is_all(&self) -> bool {
        self.keep >= self.groups
    }

    /// A walk over the block's runs, in the order the sample was made from.
    #[inline(always)]
    pub(crate) fn walk(&self) -> SampleWalk {
        SampleWalk {
            sample: *self,
            taken: 0,
            next: self.group(0),
            first: 0,
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

/// [`Sample::walk`]: the groups taken from each run in turn, found without visiting those
/// left out.
pub(crate) struct SampleWalk {
    sample: Sample,
    /// Groups taken so far.
    taken: usize,
    /// The next group to take, counted across the block.
    next: usize,
    /// The block's group at which the next run starts.
    first: usize,
}

impl SampleWalk {
    /// The slots taken from `run`, the next of the block's runs: whole groups of [`LANES`]
    /// (shorter at the run's end).
    #[inline(always)]
    pub(crate) fn run(&mut self, run: Range<usize>) -> impl Iterator<Item = Range<usize>> + '_ {
        let first = self.first;
        self.first += run.len().div_ceil(LANES);
        core::iter::from_fn(move || {
            if self.next >= self.first {
                return None;
            }
            let at = run.start + (self.next - first) * LANES;
            self.taken += 1;
            self.next = self.sample.group(self.taken);
            Some(at..(at + LANES).min(run.end))
        })
    }
}

/// What each boid found in a sample stands for: the block's boids over those checked (1 where
/// nothing was left out).
#[inline]
pub(crate) fn weight(boids: usize, checked: usize) -> f32 {
    if checked >= boids || checked == 0 {
        1.0
    } else {
        boids as f32 / checked as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taken(sample: Sample, runs: &[Range<usize>]) -> Vec<Range<usize>> {
        let mut walk = sample.walk();
        runs.iter()
            .flat_map(|run| walk.run(run.clone()).collect::<Vec<_>>())
            .collect()
    }

    /// Within the cap every group is taken; over it, `keep` groups of the block, evenly spread,
    /// and each group equally often over `groups` turns.
    #[test]
    fn a_sample_takes_keep_groups_evenly_and_turns() {
        let runs = [0..20, 40..40, 100..130];
        let small = Sample::new(runs.iter().map(|r| r.len()), 7);
        assert!(small.is_all());
        assert_eq!(
            taken(small, &runs),
            [0..8, 8..16, 16..20, 100..108, 108..116, 116..124, 124..130]
        );

        let crowd = [0..4000, 5000..9000];
        let groups = 2 * 4000 / LANES;
        let keep = CANDIDATE_CAP / LANES;
        let mut times = vec![0; 9000];
        for turn in 0..groups as u32 {
            let sample = Sample::new(crowd.iter().map(|r| r.len()), turn);
            assert!(!sample.is_all());
            let slots = taken(sample, &crowd);
            assert_eq!(slots.len(), keep, "turn {turn}");
            // Evenly: no gap between two groups taken longer than the block over `keep`, and
            // about half from each run.
            let group = |s: &Range<usize>| {
                if s.start < 4000 {
                    s.start / LANES
                } else {
                    groups / 2 + (s.start - 5000) / LANES
                }
            };
            for pair in slots.windows(2) {
                let gap = group(&pair[1]) - group(&pair[0]);
                assert!(gap <= groups.div_ceil(keep), "turn {turn}: a gap of {gap}");
            }
            let first = slots.iter().filter(|s| s.start < 4000).count();
            assert!(
                first.abs_diff(keep / 2) <= 1,
                "turn {turn}: {first} of {keep}"
            );
            for s in slots {
                assert_eq!(s.len(), LANES);
                for j in s {
                    times[j] += 1;
                }
            }
        }
        // Over `groups` turns, every slot taken `keep` times.
        for run in crowd {
            assert!(times[run].iter().all(|&t| t == keep));
        }
    }

    #[test]
    fn a_weight_is_what_a_checked_boid_stands_for() {
        assert_eq!(weight(100, 100), 1.0);
        assert_eq!(weight(0, 0), 1.0);
        assert_eq!(weight(1000, 250), 4.0);
    }
}
