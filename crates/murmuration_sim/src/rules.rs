//! The flocking rules, each written once over [`Real`]: the neighbour test ([`sees`]), what one
//! neighbour adds to a boid's [`NeighbourSums`] ([`accumulate`]), and the force a boid steers with
//! from its sums ([`flocking_force`], [`unit_force`], both through [`steer`]).
//!
//! The same functions run on one boid and one candidate (`R = f32`: the neighbour walk, units,
//! tools, the scalar reference of the tests) and on [`Lanes`] of them (the
//! neighbour kernel, eight or sixteen candidates at a time; the flocking pass, eight boids at a
//! time), so there is no second copy to keep in step: a lane does exactly what one `f32` does.
//!
//! # Adding a rule
//! A rule is one field of [`NeighbourSums`], the lines that fill and use it, and its weight,
//! which goes from [`FlockParams`](crate::FlockParams) to the lanes through the flock's row. Say
//! boids should also steer away from the mean heading of *other* species (a made-up "contrast"
//! rule):
//!
//! ```ignore
//! pub struct NeighbourSums<R: Real> {
//!     // ...the fields there are...
//!     /// Sum of the velocities of neighbours of another species.
//!     pub contrast: Coords<R>,
//! }
//!
//! // In `accumulate`, beside alignment:
//! let other = near & !R::key_eq(c.key, o.key);
//! sums.contrast = sums.contrast.add_where(other, c.velocity);
//!
//! // In `flocking_force`:
//! let contrast = steer(-s.contrast, v, speed, max_force).scale(w.contrast);
//! ```
//!
//! Every place, in order:
//! 1. here, [`NeighbourSums`]: the field;
//! 2. here, [`accumulate`]: what one neighbour adds to it;
//! 3. here, [`NeighbourSums::total`]: the line that adds up its lanes by name (through the array
//!    view, [`NeighbourSums::fields`], LLVM made them gathers from memory), where the compiler
//!    asks for it;
//! 4. here, [`Weights`] and [`flocking_force`]: the weight's field, and the line that steers by
//!    the sum;
//! 5. `params.rs`, `FlockParams`: the weight, its default, and its line in `validate`'s list of
//!    weights;
//! 6. `table.rs`, `FlockRow::new`, and `neighbour_pass.rs`, `ForceIn::weights`: the weight into
//!    the flock's row and from there into lanes;
//! 7. if it should have a slider, the settings panel (`murmuration_egui`'s `panel.rs`).
//!
//! The kernel's lanes, their totals eight boids at a time and the crowd sampling pick the new
//! field up from the struct; the tests that compare the builds bit for bit cover it as they
//! stand.

use crate::lanes::{Coords, Lanes, Real, fill};

/// The field-of-view kinds, as const generic parameters so that the lane loop has no branch on
/// them: all around (360 degrees and above) skips the test.
pub const VIEW_ALL: u8 = 0;
/// Under 180 degrees: in front, and within the cone.
pub const VIEW_NARROW: u8 = 1;
/// 180 degrees or more: in front, or outside the blind cone behind.
pub const VIEW_WIDE: u8 = 2;

/// The [`VIEW_ALL`], [`VIEW_NARROW`] or [`VIEW_WIDE`] kind of a field of view whose half-angle
/// has cosine `view_cos`.
#[inline]
pub fn view_kind(view_cos: f32) -> u8 {
    if view_cos <= -1.0 {
        VIEW_ALL
    } else if view_cos >= 0.0 {
        VIEW_NARROW
    } else {
        VIEW_WIDE
    }
}

/// The cosine threshold of a field of view of `fov_degrees`: a neighbour is visible when the
/// cosine of the angle between the heading and the direction to it is at least this. `-1` (all
/// around) at 360 degrees and above.
#[inline]
pub fn view_cos(fov_degrees: f32) -> f32 {
    if fov_degrees >= 360.0 {
        -1.0
    } else {
        (fov_degrees.max(0.0) * 0.5).to_radians().cos()
    }
}

/// The boid whose neighbours are being summed, as the rules see it, with its flock's
/// perception.
#[derive(Debug, Clone, Copy)]
pub struct Observer<R: Real> {
    /// Its position.
    pub position: Coords<R>,
    /// Its velocity.
    pub velocity: Coords<R>,
    /// Its flock and species ([`SpatialHash`](crate::hash::SpatialHash) keys): neighbours with the
    /// same key align and cohere with it.
    pub key: R::Key,
    /// Squared perception radius.
    pub perception2: R,
    /// Squared separation distance.
    pub separation2: R,
    /// `cos(fov / 2)^2 |v|^2`, the field of view's bound without a square root.
    pub cos2_v2: R,
}

impl<R: Real> Observer<R> {
    /// A boid at `position` flying at `velocity`, with `key`, seeing as its flock does
    /// (`perception2`, `separation2` and `view_cos2 = cos(fov / 2)^2` from its
    /// [`FlockRow`](crate::table::FlockRow)).
    #[inline(always)]
    pub fn new(
        position: Coords<R>,
        velocity: Coords<R>,
        key: R::Key,
        perception2: R,
        separation2: R,
        view_cos2: R,
    ) -> Self {
        Self {
            position,
            velocity,
            key,
            perception2,
            separation2,
            cos2_v2: view_cos2 * velocity.length_squared(),
        }
    }
}

/// A candidate neighbour: another boid from the hash's frozen snapshot.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<R: Real> {
    /// Its position, moved to its image nearest the observer when the edges wrap.
    pub position: Coords<R>,
    /// Its velocity.
    pub velocity: Coords<R>,
    /// Its flock and species.
    pub key: R::Key,
}

/// The neighbour test: `near` where the candidate at delta `d` (`|d|^2 = d2`) is another boid
/// (`d2 > 0`), within the perception radius, and [`in_view`].
#[inline(always)]
pub fn sees<R: Real, const VIEW: u8>(o: &Observer<R>, d: Coords<R>, d2: R) -> R::Mask {
    let near = d2.lt(o.perception2) & d2.gt(R::splat(0.0));
    if VIEW == VIEW_ALL {
        near
    } else {
        near & in_view::<R, VIEW>(o, d, d2)
    }
}

/// The field of view: `dot(d, v) >= cos(fov / 2) |d| |v|`, written without a root as
/// `dot >= 0` and `dot^2 >= cos^2 |d|^2 |v|^2` under 180 degrees, and `dot >= 0` or
/// `dot^2 <= cos^2 |d|^2 |v|^2` from 180 on. A boid that does not move sees all round.
#[inline(always)]
pub fn in_view<R: Real, const VIEW: u8>(o: &Observer<R>, d: Coords<R>, d2: R) -> R::Mask {
    if VIEW == VIEW_ALL {
        return R::mask(true);
    }
    let zero = R::splat(0.0);
    let dot = d.dot(o.velocity);
    let bound = o.cos2_v2 * d2;
    let ahead = dot.ge(zero);
    let dot2 = dot * dot;
    if VIEW == VIEW_NARROW {
        ahead & dot2.ge(bound)
    } else {
        ahead | dot2.le(bound)
    }
}

/// How many `Real`s a [`NeighbourSums`] holds.
pub const SUM_FIELDS: usize = size_of::<NeighbourSums<f32>>() / size_of::<f32>();

/// Sums over a boid's neighbours for the flocking rules, one per rule.
///
/// Every field is a `Real` (counts too: they stay far below 2^24, where an `f32` counts exactly),
/// and the struct is nothing but `Real`s, so that [`Self::fields`] can see it as an array of
/// them: that is how the gather of eight boids, the crowd sampling and the tests treat every
/// field alike without naming each.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)]
pub struct NeighbourSums<R: Real> {
    /// Separation: the sum of `(p - q) / |p - q|^2` over neighbours closer than the separation
    /// distance, of any flock and species.
    pub separation: Coords<R>,
    /// Alignment: the sum of the velocities of neighbours of the boid's flock and species.
    pub alignment: Coords<R>,
    /// Cohesion: the sum of the deltas to neighbours of the boid's flock and species.
    pub cohesion: Coords<R>,
    /// Neighbours of the boid's flock and species.
    pub same: R,
    /// Neighbours of any flock and species.
    pub neighbours: R,
    /// Crowding: the sum of `1 / |p - q|^2` over the same neighbours as separation (closer than
    /// the separation distance, any flock and species). Unlike the separation vector it does
    /// not cancel out in a crowd that surrounds the boid evenly (`give_way`).
    pub crowding: R,
}

impl<R: Real> NeighbourSums<R> {
    /// Nothing summed yet.
    #[inline(always)]
    pub fn zero() -> Self {
        Self::from_fields([R::splat(0.0); SUM_FIELDS])
    }

    /// The sums as an array of `Real`s, in field order.
    #[inline(always)]
    pub fn fields(&self) -> &[R; SUM_FIELDS] {
        const { assert!(size_of::<Self>() == SUM_FIELDS * size_of::<R>()) };
        // SAFETY: `NeighbourSums` is `repr(C)` and holds only `R`s (a `Coords<R>` is `[R; DIM]`),
        // so it has no padding and the layout of `[R; FIELDS]` (size checked above; the
        // alignment is `R`'s either way).
        unsafe { &*(self as *const Self).cast::<[R; SUM_FIELDS]>() }
    }

    /// Sums from an array of `Real`s in field order.
    #[inline(always)]
    pub fn from_fields(fields: [R; SUM_FIELDS]) -> Self {
        const { assert!(size_of::<Self>() == SUM_FIELDS * size_of::<R>()) };
        // SAFETY: as in `fields`; any bits are valid for `f32` lanes.
        unsafe { core::mem::transmute_copy(&fields) }
    }

    /// Every sum times `k` (a crowded block's sampling, see
    /// [`CANDIDATE_CAP`](crate::CANDIDATE_CAP)).
    #[inline(always)]
    pub fn scaled(&self, k: f32) -> Self {
        let fields = self.fields();
        Self::from_fields(fill(fields[0], |i| fields[i] * R::splat(k)))
    }
}

impl<const N: usize> NeighbourSums<Lanes<N>> {
    /// The lanes of every sum added up, each in [`Lanes::total`]'s fixed order.
    #[inline(always)]
    pub fn total(&self) -> NeighbourSums<f32> {
        let c = |v: Coords<Lanes<N>>| {
            let mut out = [0.0; crate::math::DIM];
            for axis in 0..crate::math::DIM {
                out[axis] = v.0[axis].total();
            }
            Coords(out)
        };
        NeighbourSums {
            separation: c(self.separation),
            alignment: c(self.alignment),
            cohesion: c(self.cohesion),
            same: self.same.total(),
            neighbours: self.neighbours.total(),
            crowding: self.crowding.total(),
        }
    }

    /// Every sum times `k`, lane by lane (each lane as [`NeighbourSums::scaled`]).
    #[inline(always)]
    pub fn scaled_lanes(&self, k: Lanes<N>) -> Self {
        let fields = self.fields();
        Self::from_fields(fill(fields[0], |i| fields[i] * k))
    }

    /// Lane `l` of every sum.
    #[inline(always)]
    pub fn lane(&self, l: usize) -> NeighbourSums<f32> {
        let fields = self.fields();
        NeighbourSums::from_fields(fill(0.0, |f| fields[f].0[l]))
    }

    /// Sets lane `l` of every sum to `sums`.
    #[inline(always)]
    pub fn set_lane(&mut self, l: usize, sums: &NeighbourSums<f32>) {
        let mut fields = *self.fields();
        for (field, value) in fields.iter_mut().zip(sums.fields()) {
            field.0[l] = *value;
        }
        *self = Self::from_fields(fields);
    }

    /// Lane `l` of every sum is `f(l)`'s.
    #[inline(always)]
    pub fn gather(f: impl FnMut(usize) -> NeighbourSums<f32>) -> Self {
        let sums: [NeighbourSums<f32>; N] = fill(NeighbourSums::zero(), f);
        Self::from_fields(fill(Lanes([0.0; N]), |field| {
            Lanes::from_fn(|l| sums[l].fields()[field])
        }))
    }
}

impl NeighbourSums<f32> {
    /// How many neighbours, as an integer.
    pub fn neighbour_count(&self) -> u32 {
        self.neighbours as u32
    }
}

/// What one candidate at delta `d` (`|d|^2 = d2`) adds to the observer's sums where `near` (its
/// neighbour test, `sees`, or the topological search's pick): a separation push `-d / d2`
/// where it is closer than the separation distance, whatever its flock and species; its velocity
/// and delta where it shares the observer's key. `d2` must be above zero where `near` holds (a
/// boid on the very same spot goes through [`accumulate_coincident`]).
#[inline(always)]
pub fn accumulate<R: Real>(
    sums: &mut NeighbourSums<R>,
    o: &Observer<R>,
    near: R::Mask,
    d: Coords<R>,
    d2: R,
    c: &Candidate<R>,
) {
    let zero = R::splat(0.0);
    let close = near & d2.lt(o.separation2);
    let same = near & R::key_eq(c.key, o.key);
    // NOTE: a true division, not an approximate reciprocal: the result must be the same on
    // every CPU for the flock to replay bit for bit.
    let push = R::select(close, R::splat(1.0) / d2, zero);
    sums.separation = sums.separation - d.scale(push);
    sums.crowding = sums.crowding + push;
    sums.alignment = sums.alignment.add_where(same, c.velocity);
    sums.cohesion = sums.cohesion.add_where(same, d);
    sums.same = sums.same.add_where(same, R::splat(1.0));
    sums.neighbours = sums.neighbours.add_where(near, R::splat(1.0));
}

/// What a neighbour on exactly the observer's spot adds: a separation push along `tie_break`
/// (a unit vector that differs between the two, see
/// [`tie_break`](crate::steering::tie_break)) as if it were `COINCIDENT_DISTANCE` away, where the separation
/// distance is above zero; its velocity where it shares the observer's key (its delta is zero).
#[inline]
pub fn accumulate_coincident(
    sums: &mut NeighbourSums<f32>,
    o: &Observer<f32>,
    c: &Candidate<f32>,
    tie_break: Coords<f32>,
) {
    if 0.0 < o.separation2 {
        let push = 1.0 / COINCIDENT_DISTANCE;
        sums.separation = sums.separation + tie_break.scale(push);
        sums.crowding += push * push;
    }
    if c.key == o.key {
        sums.alignment = sums.alignment + c.velocity;
        sums.same += 1.0;
    }
    sums.neighbours += 1.0;
}

/// The distance two boids on exactly the same spot are treated as being apart, world units.
pub const COINCIDENT_DISTANCE: f32 = 0.01;

/// Flee from one threat at delta `d` (from the boid to the threat) closer than the flee radius
/// (`|d|^2 < flee2`): `-d / |d|`, and zero from one farther away. Sum over threats and steer
/// along the sum. The mask says where `d` is within reach but has no direction (the boid on the
/// threat's very spot), where the caller flees along a tie-break of its own. (glam's
/// `try_normalize`, as a select.)
#[inline(always)]
pub fn flee<R: Real>(d: Coords<R>, flee2: R) -> (Coords<R>, R::Mask) {
    let d2 = d.length_squared();
    // `0 < d2 < flee2`: then `1 / |d|` is finite and positive (even for the least `d2`), so
    // this is `try_normalize` where it succeeds.
    let within = d2.lt(flee2);
    let has_direction = d2.gt(R::splat(0.0));
    let away = Coords::select(
        has_direction,
        d.scale(-(R::splat(1.0) / d2.sqrt())),
        Coords::zero(),
    );
    (
        Coords::select(within, away, Coords::zero()),
        within & d2.eq(R::splat(0.0)),
    )
}

/// Reynolds steering along `dir`: `desired = dir / |dir| * speed`, `force = desired - v`,
/// shortened to at most `max_force` (which must not be negative). A zero or non-finite `dir`
/// gives zero. (glam's `try_normalize` and `clamp_length_max`, as selects.)
#[inline(always)]
pub fn steer<R: Real>(dir: Coords<R>, v: Coords<R>, speed: R, max_force: R) -> Coords<R> {
    let rcp = R::splat(1.0) / dir.length_squared().sqrt();
    let some = rcp.is_finite() & rcp.gt(R::splat(0.0));
    let desired = dir.scale(rcp).scale(speed);
    let force = (desired - v).clamp_length_max(max_force);
    Coords::select(some, force, Coords::zero())
}

/// The weights of the three flocking rules, and how the pulls give way to crowding.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Weights<R> {
    /// Separation.
    pub separation: R,
    /// Alignment.
    pub alignment: R,
    /// Cohesion.
    pub cohesion: R,
    /// `separation_distance^2 / crowding_comfort`, zero where the flock keeps the tutorial's
    /// rule ([`give_way`]).
    pub give_way: R,
}

/// How far a boid's pulls toward others give way to its crowding, from 0 (not at all) to 1
/// (entirely): `clamp(C s^2 / comfort - 1, 0, 1)`, where `C s^2` is the sum of `(s / d)^2` over
/// the neighbours closer than the separation distance `s` ([`NeighbourSums::crowding`]) and
/// `comfort` the flock's [`crowding_comfort`](crate::FlockParams::crowding_comfort). Zero up to
/// the comfortable crowding, one from twice it. `give_way` is `s^2 / comfort` (zero: never).
///
/// This is Reynolds' prioritised allocation (1987) in its simplest form: keeping apart comes
/// first, so a crowded boid stops heeding whatever pulls it toward the others (cohesion, and an
/// [`Attractor`](crate::Attractor)'s seek), and only the others' pushes and alignment steer it.
/// A pull on the whole flock then no longer has every separation push hold the pull of all the
/// boids behind it: each boid yields on its own, which holds a pulled flock of 1,000 or 10,000
/// above half its separation distance. It does not stop all pressure from building up from the
/// edge to the middle: pulled to one point, a flock of 100,000 still tightens toward its middle
/// (fish, seed 1: 0.66, 0.65 and 0.57 separation distances at 1,000, 10,000 and 100,000; the
/// README's report table).
#[inline(always)]
pub fn give_way<R: Real>(s: &NeighbourSums<R>, give_way: R) -> R {
    let (zero, one) = (R::splat(0.0), R::splat(1.0));
    let over = s.crowding * give_way - one;
    R::select(over.gt(one), one, R::select(over.gt(zero), over, zero))
}

/// The flocking force from a boid's sums: `separation_weight * steer(sum of pushes) +
/// alignment_weight * steer(sum of velocities) + (1 - g) cohesion_weight * steer(mean delta)`,
/// each `steer` at `speed` and capped at `max_force`, where `g` is how far the boid gives way to
/// its crowding ([`give_way`], zero for the tutorial's rule); alignment and cohesion only with a
/// neighbour of the boid's own flock and species.
///
/// Alignment uses the sum, not the mean: only its direction matters to `steer`. Cohesion's mean
/// delta is the way to the local centre, `mean(q) - p`.
#[inline(always)]
pub fn flocking_force<R: Real>(
    s: &NeighbourSums<R>,
    v: Coords<R>,
    speed: R,
    max_force: R,
    w: &Weights<R>,
) -> Coords<R> {
    let g = give_way(s, w.give_way);
    let one = R::splat(1.0);
    let separation = steer(s.separation, v, speed, max_force).scale(w.separation * (one + g));
    let alignment = steer(s.alignment, v, speed, max_force).scale(w.alignment);
    let centre = s.cohesion.div_by(s.same);
    let cohesion = steer(centre, v, speed, max_force).scale(w.cohesion * (one - g));
    let flocking = s.same.gt(R::splat(0.0));
    Coords::select(flocking, separation + alignment + cohesion, separation)
}

/// Units ignore a crowding below this (about 5% inside the separation distance): a push that
/// fades out smoothly would keep a packed crowd creeping apart for half a minute at a tenth of a
/// unit a second; with the dead band it comes to rest, like friction.
pub const UNIT_CROWDING_DEADBAND: f32 = 0.05;

/// The flocking force of a strategy-game unit (a boid with [`Arrive`](crate::Arrive)): only
/// separation, as a push that grows with the crowding instead of a full-speed steer:
/// `normalize(S) * speed * clamp(|S| s - 1, 0, 1)`, capped at `max_force`, times the separation
/// weight, where `S` is the sum of pushes and `s` the separation distance (for one neighbour:
/// zero at the separation distance, full at half of it). It does not brake a unit that walks past
/// another (arrive does the braking), and two units standing too close ease apart rather than
/// being kicked to full speed and back each step, which is what makes a crowd jitter. Crowding
/// under [`UNIT_CROWDING_DEADBAND`] pushes not at all.
#[inline(always)]
pub fn unit_force<R: Real>(
    s: &NeighbourSums<R>,
    speed: R,
    max_force: R,
    separation_distance: R,
    separation_weight: R,
) -> Coords<R> {
    let (zero, one) = (R::splat(0.0), R::splat(1.0));
    let raw = s.separation.length_squared().sqrt() * separation_distance - one;
    let crowding = R::select(raw.gt(one), one, R::select(raw.lt(zero), zero, raw));
    let push = s
        .separation
        .normalize_or(Coords::zero())
        .scale(speed)
        .scale(crowding)
        .clamp_length_max(max_force)
        .scale(separation_weight);
    Coords::select(
        crowding.lt(R::splat(UNIT_CROWDING_DEADBAND)),
        Coords::zero(),
        push,
    )
}

#[cfg(test)]
mod tests {
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::*;
    use crate::lanes::Real;
    use crate::math::Vector;
    use crate::math::xyz;

    fn random_sums(rng: &mut Xoshiro256PlusPlus, i: usize) -> NeighbourSums<f32> {
        let mut v = || xyz([0.0; 3].map(|_| rng.random::<f32>() - 0.5)) * 200.0;
        NeighbourSums {
            separation: Coords::of(if i.is_multiple_of(7) {
                Vector::ZERO
            } else {
                v() * 0.01
            }),
            alignment: Coords::of(if i.is_multiple_of(5) {
                Vector::ZERO
            } else {
                v() * 4.0
            }),
            cohesion: Coords::of(v() * 3.0),
            same: (i % 4) as f32,
            neighbours: (i % 6) as f32,
            // Times `give_way` below: from no crowding to twice the comfort, every branch.
            crowding: (i % 9) as f32 * 0.0008,
        }
    }

    /// Pulls give way from the comfortable crowding on, fully from twice it; never under the
    /// tutorial's rule (`give_way` zero), however crowded.
    #[test]
    fn pulls_give_way_between_the_comfort_and_twice_it() {
        let (s, comfort) = (20.0f32, 2.0f32);
        let at = |distances: &[f32], give: f32| {
            let mut sums = NeighbourSums::<f32>::zero();
            for d in distances {
                sums.crowding += 1.0 / (d * d);
            }
            give_way(&sums, give)
        };
        let k = s * s / comfort;
        let near = |x: f32, want: f32| (x - want).abs() < 1e-4;
        assert_eq!(at(&[], k), 0.0);
        // One neighbour at the separation distance: crowding 1, under the comfort of 2.
        assert_eq!(at(&[s], k), 0.0);
        // Crowding 3: half way.
        assert!(near(at(&[s, s, s], k), 0.5), "{}", at(&[s, s, s], k));
        assert!(near(at(&[s / 3f32.sqrt()], k), 0.5));
        // Crowding 4 and far more: entirely.
        assert_eq!(at(&[s / 2.0], k), 1.0);
        assert_eq!(at(&[0.01; 50], k), 1.0);
        assert_eq!(at(&[0.01; 50], 0.0), 0.0);
    }

    /// The forces of eight boids side by side are each boid's own, bit for bit: flocking and
    /// units, zero sums and lone boids included.
    #[test]
    fn forces_in_lanes_are_forces_one_by_one() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        for block in 0..200 {
            let sums: [NeighbourSums<f32>; 8] =
                core::array::from_fn(|l| random_sums(&mut rng, block * 8 + l));
            let velocities: [Vector; 8] =
                core::array::from_fn(|_| xyz([0.0; 3].map(|_| rng.random::<f32>() - 0.5)) * 300.0);
            let lanes = NeighbourSums::<Lanes<8>>::gather(|l| sums[l]);
            let v = Coords::<Lanes<8>>::from_fn(|l| velocities[l]);
            let w = Weights {
                separation: 1.6,
                alignment: 1.0,
                cohesion: 0.9,
                // Separation distance 25 and crowding comfort 2.
                give_way: if block % 2 == 0 { 312.5 } else { 0.0 },
            };
            let wl = Weights {
                separation: Lanes::splat(w.separation),
                alignment: Lanes::splat(w.alignment),
                cohesion: Lanes::splat(w.cohesion),
                give_way: Lanes::splat(w.give_way),
            };
            let (speed, max) = (120.0, 200.0);
            let flock = flocking_force(&lanes, v, Lanes::splat(speed), Lanes::splat(max), &wl);
            let unit = unit_force(
                &lanes,
                Lanes::splat(speed),
                Lanes::splat(max),
                Lanes::splat(25.0),
                Lanes::splat(1.6),
            );
            for l in 0..8 {
                let bits = |v: Vector| v.to_array().map(f32::to_bits);
                let one = flocking_force(&sums[l], Coords::of(velocities[l]), speed, max, &w);
                assert_eq!(bits(flock.lane(l)), bits(one.to_vector()), "{block} {l}");
                let one = unit_force(&sums[l], speed, max, 25.0, 1.6);
                assert_eq!(bits(unit.lane(l)), bits(one.to_vector()), "{block} {l}");
            }
        }
    }

    /// `steer` never exceeds its cap, never returns NaN for finite input, and gives zero for a
    /// zero direction.
    #[test]
    fn steer_is_bounded() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(8);
        for _ in 0..10_000 {
            let mut f = |s: f32| (rng.random::<f32>() - 0.5) * s;
            let dir = Coords::of(xyz([f(1e4), f(1e-3), f(1.0)]));
            let v = Coords::of(xyz([f(500.0), f(500.0), f(500.0)]));
            let max = f(400.0).abs();
            let force = steer(dir, v, 120.0, max).to_vector();
            assert!(force.is_finite());
            assert!(force.length() <= max * 1.0001 + 1e-4, "{force} over {max}");
        }
        let zero = steer(Coords::zero(), Coords::of(Vector::X), 120.0, 200.0);
        assert_eq!(zero.to_vector(), Vector::ZERO);
    }
}
