//! The flocking inner loop for metric neighbours: the hottest code in the crate.
//!
//! It computes the same sums as [`for_each_neighbour`](crate::for_each_neighbour) feeding
//! [`FlockSums::add`], but branch-free over each contiguous run of the hash, in [`LANES`]
//! independent accumulators that the compiler can keep in SIMD registers. Each candidate lands in
//! a fixed lane (its position in the run modulo [`LANES`]) and the lanes are summed in a fixed
//! order, so the result depends only on the hash, never on threads.

use bevy::prelude::*;

use crate::behaviours::{FlockSums, tie_break};
use crate::hash::SpatialHash;
use crate::neighbours::Perception;

/// Candidates processed side by side: one AVX2 register, or two SSE registers. Fixed whatever
/// the CPU, so that every CPU adds the same candidates in the same order and gets the same bits.
pub(crate) const LANES: usize = 8;

/// What the kernel needs to know about the boid whose neighbours it sums.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Observer {
    pub slot: usize,
    pub position: Vec2,
    pub velocity: Vec2,
    pub species: u16,
    /// Squared perception radius.
    pub perception2: f32,
    /// Squared separation distance.
    pub separation2: f32,
    /// `cos(fov / 2)`.
    pub view_cos: f32,
}

impl Observer {
    /// The boid in `slot` of `hash`, seeing as `perception` says.
    pub fn new(hash: &SpatialHash, slot: usize, perception: &Perception, separation2: f32) -> Self {
        Self {
            slot,
            position: hash.position(slot),
            velocity: hash.velocity(slot),
            species: hash.species_of(slot),
            perception2: perception.radius * perception.radius,
            separation2,
            view_cos: perception.view_cos,
        }
    }
}

/// Per-lane partial sums.
#[derive(Default)]
struct Lanes {
    sep_x: [f32; LANES],
    sep_y: [f32; LANES],
    ali_x: [f32; LANES],
    ali_y: [f32; LANES],
    coh_x: [f32; LANES],
    coh_y: [f32; LANES],
    same: [f32; LANES],
    seen: [f32; LANES],
    /// Candidates on exactly the observer's spot (the observer itself among them).
    coincident: [f32; LANES],
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
    species: &'a [u16; LANES],
}

/// The observer, seen from one run: its position shifted by minus the run's image offset.
#[derive(Clone, Copy)]
struct Local {
    px: f32,
    py: f32,
    vx: f32,
    vy: f32,
    species: u16,
    perception2: f32,
    separation2: f32,
    /// `cos(fov / 2)^2 |v|^2`.
    cos2_v2: f32,
}

impl Lanes {
    /// Adds one chunk of candidates, lane by lane, with no branches (so it vectorises). Only
    /// the first `valid` lanes hold candidates.
    #[inline(always)]
    fn add<const VIEW: u8>(&mut self, o: &Local, c: Chunk, valid: usize) {
        for l in 0..LANES {
            let real = l < valid;
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
            let near = (d2 < o.perception2) & (d2 > 0.0) & visible & real;
            let close = near & (d2 < o.separation2);
            let same = near & (c.species[l] == o.species);
            // NOTE: a true division, not an approximate reciprocal: the result must be the same
            // on every CPU for the flock to replay bit for bit.
            let push = if close { 1.0 / d2 } else { 0.0 };
            let same_f = if same { 1.0 } else { 0.0 };
            self.sep_x[l] -= dx * push;
            self.sep_y[l] -= dy * push;
            self.ali_x[l] += c.vx[l] * same_f;
            self.ali_y[l] += c.vy[l] * same_f;
            self.coh_x[l] += dx * same_f;
            self.coh_y[l] += dy * same_f;
            self.same[l] += same_f;
            self.seen[l] += if near { 1.0 } else { 0.0 };
            self.coincident[l] += if (d2 == 0.0) & real { 1.0 } else { 0.0 };
        }
    }

    fn total(&self) -> (FlockSums, u32) {
        let sum = |a: &[f32; LANES]| a.iter().sum::<f32>();
        (
            FlockSums {
                separation: Vec2::new(sum(&self.sep_x), sum(&self.sep_y)),
                alignment: Vec2::new(sum(&self.ali_x), sum(&self.ali_y)),
                cohesion: Vec2::new(sum(&self.coh_x), sum(&self.coh_y)),
                same_species: sum(&self.same) as u32,
                neighbours: sum(&self.seen) as u32,
            },
            sum(&self.coincident) as u32,
        )
    }
}

/// The most candidates one boid checks in a step, about. Where the 3x3 block around a boid holds
/// more (a flock crushed into a few cells, as a predator herds it), the boid checks every
/// `k`-th group of 8 candidates, `k = ceil(block / CANDIDATE_CAP)`, and counts each
/// neighbour it finds `k` times. Alignment and cohesion, which use means, are unbiased; the
/// separation push and the neighbour count are estimates. A crush then costs at most about
/// this many checks per boid instead of growing with the square of the crowd.
pub const CANDIDATE_CAP: usize = 1024;

/// Where padding candidates sit: so far away that they are never neighbours, yet finite, so a
/// zero weight times their offset is still zero.
const FAR: f32 = 1e30;

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
    /// The block around the cell holding `p`. Only for a grid that does not fold onto itself.
    #[inline]
    pub fn around(hash: &SpatialHash, p: Vec2) -> Self {
        let mut block = Self::default();
        hash.visit_block(p, 1, |run, offset, _fold| {
            // At most three rows of at most two runs each (two where the row crosses the seam).
            block.boids += run.len();
            block.runs[block.len] = (run.start, run.end, offset);
            block.len += 1;
        });
        block
    }

    fn runs(&self) -> impl Iterator<Item = (core::ops::Range<usize>, Vec2)> + '_ {
        self.runs[..self.len].iter().map(|&(a, b, o)| (a..b, o))
    }
}

/// The flocking sums of `o` over its metric neighbours in `block` (the 3x3 block of cells around
/// it), and the number of candidates checked. Only for a grid that does not fold onto itself.
#[inline]
pub(crate) fn radius_sums(hash: &SpatialHash, o: &Observer, block: &Block) -> (FlockSums, u64) {
    if o.view_cos <= -1.0 {
        dispatch::<VIEW_ALL>(hash, o, block)
    } else if o.view_cos >= 0.0 {
        dispatch::<VIEW_NARROW>(hash, o, block)
    } else {
        dispatch::<VIEW_WIDE>(hash, o, block)
    }
}

/// Runs the kernel compiled for AVX2 where the CPU has it (the same operations in the same
/// order, so the same bits), else the baseline build.
#[inline(always)]
fn dispatch<const VIEW: u8>(hash: &SpatialHash, o: &Observer, block: &Block) -> (FlockSums, u64) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU was just checked to have AVX2.
        return unsafe { radius_sums_avx2::<VIEW>(hash, o, block) };
    }
    radius_sums_in::<VIEW>(hash, o, block)
}

/// [`radius_sums_in`] compiled with AVX2: each lane block is one 256-bit register.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn radius_sums_avx2<const VIEW: u8>(
    hash: &SpatialHash,
    o: &Observer,
    block: &Block,
) -> (FlockSums, u64) {
    radius_sums_in::<VIEW>(hash, o, block)
}

#[inline(always)]
fn radius_sums_in<const VIEW: u8>(
    hash: &SpatialHash,
    o: &Observer,
    block: &Block,
) -> (FlockSums, u64) {
    let cols = hash.columns();
    let mut lanes = Lanes::default();
    let mut candidates = 0u64;
    let base = Local {
        px: o.position.x,
        py: o.position.y,
        vx: o.velocity.x,
        vy: o.velocity.y,
        species: o.species,
        perception2: o.perception2,
        separation2: o.separation2,
        cos2_v2: o.view_cos * o.view_cos * o.velocity.length_squared(),
    };
    // Crowded (more than the cap in the block): check every `stride`-th chunk only, and count
    // each one found for `stride`.
    let stride = block.boids.div_ceil(CANDIDATE_CAP).max(1);
    for (run, offset) in block.runs() {
        let local = Local {
            px: base.px - offset.x,
            py: base.py - offset.y,
            ..base
        };
        let total = cols.x.len();
        // NOTE: chunks start at the run and may read past its end into the next cells (masked
        // off by `valid`); only the very last chunk of the arrays is copied and padded.
        for i in run.clone().step_by(LANES * stride) {
            let valid = (run.end - i).min(LANES);
            candidates += valid as u64;
            if i + LANES <= total {
                fn lanes_at(a: &[f32], i: usize) -> &[f32; LANES] {
                    a[i..i + LANES].try_into().unwrap()
                }
                let species: &[u16; LANES] = cols.species[i..i + LANES].try_into().unwrap();
                let chunk = Chunk {
                    x: lanes_at(cols.x, i),
                    y: lanes_at(cols.y, i),
                    vx: lanes_at(cols.vx, i),
                    vy: lanes_at(cols.vy, i),
                    species,
                };
                lanes.add::<VIEW>(&local, chunk, valid);
            } else {
                let pad = |a: &[f32], fill: f32| {
                    let mut out = [fill; LANES];
                    for (o, v) in out.iter_mut().zip(&a[i..]) {
                        *o = *v;
                    }
                    out
                };
                let mut species = [0u16; LANES];
                for (o, v) in species.iter_mut().zip(&cols.species[i..]) {
                    *o = *v;
                }
                let chunk = Chunk {
                    x: &pad(cols.x, FAR),
                    y: &pad(cols.y, FAR),
                    vx: &pad(cols.vx, 0.0),
                    vy: &pad(cols.vy, 0.0),
                    species: &species,
                };
                lanes.add::<VIEW>(&local, chunk, valid);
            }
        }
    }
    let (mut sums, coincident) = lanes.total();
    if stride > 1 {
        let k = stride as f32;
        sums.separation *= k;
        sums.alignment *= k;
        sums.cohesion *= k;
        sums.same_species *= stride as u32;
        sums.neighbours *= stride as u32;
    }
    if coincident > 1 {
        // Rare: other boids on exactly this spot, which the lanes skipped (d2 = 0 is also the
        // observer itself). Push apart along a per-pair direction instead.
        for (run, offset) in block.runs() {
            for j in run {
                if j != o.slot && hash.position(j) + offset == o.position {
                    let same = cols.species[j] == o.species;
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
    (sums, candidates)
}

#[cfg(test)]
mod tests {
    use bevy::prelude::*;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::{Block, Observer, radius_sums};
    use crate::behaviours::{FlockSums, tie_break};
    use crate::hash::{KNearest, SpatialHash};
    use crate::neighbours::{Perception, for_each_neighbour};
    use crate::params::FlockParams;
    use crate::{Edges, SimulationBounds};

    /// The kernel agrees with the plain neighbour walk: the same neighbours, the same sums up to
    /// float rounding, for every kind of field of view, with and without wrap, and with boids on
    /// the same spot.
    #[test]
    fn the_kernel_matches_the_neighbour_walk() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(77);
        for edges in [Edges::Wrap, Edges::TURN_BACK] {
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
            // Three boids on one spot.
            for k in 0..3u32 {
                let e = Entity::from_raw_u32(900 + k).unwrap();
                boids.push((e, Vec2::new(250.0, 150.0), Vec2::X * 50.0, 0));
            }
            let mut hash = SpatialHash::default();
            hash.rebuild(&bounds, 50.0, &boids);
            for fov in [360.0, 120.0, 270.0] {
                let params = FlockParams {
                    field_of_view: fov,
                    ..FlockParams::default()
                };
                let perception = Perception::new(&params);
                let sep2 = params.separation_distance * params.separation_distance;
                let mut nearest = KNearest::new(0);
                for slot in 0..hash.len() {
                    let mut want = FlockSums::default();
                    let own = hash.species_of(slot);
                    for_each_neighbour(&hash, &perception, slot, &mut nearest, |hit| {
                        let j = hit.slot;
                        let same = hash.species_of(j) == own;
                        let v = hash.velocity(j);
                        let (d, d2) = (hit.delta, hit.distance_squared);
                        want.add(d, d2, v, same, sep2, || tie_break(slot, j));
                    });
                    let observer = Observer::new(&hash, slot, &perception, sep2);
                    let block = Block::around(&hash, observer.position);
                    let (got, _) = radius_sums(&hash, &observer, &block);
                    assert_eq!(got.neighbours, want.neighbours, "slot {slot} fov {fov}");
                    assert_eq!(got.same_species, want.same_species);
                    let close = |a: Vec2, b: Vec2| (a - b).length() <= 1e-3 * b.length().max(1.0);
                    assert!(
                        close(got.separation, want.separation),
                        "{got:?} vs {want:?}"
                    );
                    assert!(close(got.alignment, want.alignment), "{got:?} vs {want:?}");
                    assert!(close(got.cohesion, want.cohesion), "{got:?} vs {want:?}");
                }
            }
        }
    }
}
