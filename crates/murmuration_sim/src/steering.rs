//! The steering formulas every behaviour is built from: Reynolds' [`steer`] along a direction
//! and [`steer_to_velocity`] toward a desired velocity, the [`flee_direction`] from one threat,
//! and the [`tie_break`] that pushes boids on one spot apart. A game's own force (the
//! `custom_rule` example) is one of these, weighted, added to [`Acceleration`].
//!
//! Each behaviour's own formula is in its module ([`turn_back_direction`](crate::edges::turn_back_direction),
//! [`obstacle_push`](crate::obstacles::obstacle_push), [`arrive`](crate::units::arrive)); the
//! flocking rules (separation, alignment, cohesion) are written once for one boid and for lanes
//! of boids in the crate's `rules`. None of them returns NaN for finite input, zero vectors
//! included. `v` is the boid's velocity, `d` a vector from the boid to something else.

use bevy::ecs::change_detection::ContiguousMut;

use crate::components::{Acceleration, FlockId, MaxSpeed, Position, Velocity};
use crate::dim;
use crate::lanes::Coords;
use crate::math::Vector;
use crate::parallel::{Changing, Parts, Split, for_each_part};
use crate::rules;
use crate::table::FlockRow;

/// Reynolds steering toward a desired velocity: `force = desired - v`, shortened to at most
/// `max_force` without changing its direction.
#[inline]
pub fn steer_to_velocity(desired: Vector, v: Vector, max_force: f32) -> Vector {
    (desired - v).clamp_length_max(max_force.max(0.0))
}

/// Reynolds steering along a direction: `desired = dir / |dir| * speed`,
/// `force = desired - v`, `|force| <= max_force`. A zero (or non-finite) `dir` gives a zero force.
/// (The crate's `rules::steer` for lanes of boids.)
#[inline]
pub fn steer(dir: Vector, v: Vector, speed: f32, max_force: f32) -> Vector {
    rules::steer(Coords::of(dir), Coords::of(v), speed, max_force.max(0.0)).to_vector()
}

/// Flee direction from one threat at delta `d` (from the boid to the threat): `-d / |d|` closer
/// than `flee_radius`, else zero. Sum over threats and steer along the sum. A boid exactly on
/// the threat flees along `tie_break()` (only asked for then). (The crate's `rules::flee` for lanes.)
#[inline]
pub fn flee_direction(d: Vector, flee_radius: f32, tie_break: impl FnOnce() -> Vector) -> Vector {
    let (away, on_the_spot) = rules::flee(Coords::of(d), flee_radius * flee_radius);
    if on_the_spot {
        tie_break()
    } else {
        away.to_vector()
    }
}

/// A unit vector that differs between slots, for pushing apart boids that sit on the same spot
/// deterministically (the lower slot goes one way, the higher the other).
#[inline]
pub fn tie_break(own: usize, other: usize) -> Vector {
    let dir = dim::spread_direction(own.min(other));
    if own < other { dir } else { -dir }
}

/// The state a force needs of one boid or hunter.
pub(crate) type Mover<'a> = (
    &'a Position,
    &'a Velocity,
    &'a mut Acceleration,
    Option<&'a MaxSpeed>,
    &'a FlockId,
);

/// Runs `f` over every table of a steering system's query, in parts on every thread (the
/// compute pool's and this one): `tables` gives each table's slices beside its accelerations,
/// `f` adds to one part's accelerations. Every entity's acceleration is marked changed, as it
/// is every step anyway (integration zeroes it).
///
/// Not Bevy's `par_iter`: that runs on the calling thread alone when the compute pool has one
/// thread, which is what Bevy's default pools give a two-core machine.
#[track_caller]
pub(crate) fn add_forces<'w, S: Split>(
    tables: impl Iterator<Item = (S, ContiguousMut<'w, Acceleration>)>,
    f: impl Fn(S, &mut [Acceleration]) + Sync,
) {
    for (slices, a) in tables {
        let (a, mut ticks) = ContiguousMut::bypass_change_detection_split(a);
        let parts = (slices, a, Changing::new(&mut ticks));
        for_each_part(parts, Parts::EVEN, |(slices, a, changing)| {
            changing.mark();
            f(slices, a);
        });
    }
}

/// The top speed mover `i` of a table steers at: its own [`MaxSpeed`] where the table has them,
/// else its flock's (`row`).
#[inline]
pub(crate) fn top_speed(max_speed: Option<&[MaxSpeed]>, i: usize, row: &FlockRow) -> f32 {
    max_speed.map_or(row.max_speed, |m| m[i].0)
}

/// One table of a [`Mover`] query, as Bevy's contiguous access gives it.
pub(crate) type MoverTable<'w> = (
    &'w [Position],
    &'w [Velocity],
    ContiguousMut<'w, Acceleration>,
    Option<&'w [MaxSpeed]>,
    &'w [FlockId],
);

/// What a steering system reads of a [`MoverTable`].
pub(crate) type MoverSlices<'w> = (
    &'w [Position],
    &'w [Velocity],
    Option<&'w [MaxSpeed]>,
    &'w [FlockId],
);

/// A [`MoverTable`] as [`add_forces`] takes it: the slices read, beside the accelerations.
pub(crate) fn mover_parts(
    (p, v, a, max_speed, flock): MoverTable<'_>,
) -> (MoverSlices<'_>, ContiguousMut<'_, Acceleration>) {
    ((p, v, max_speed, flock), a)
}

/// [`mover_parts`] for a query of a [`Mover`] and one more component `x`, read beside it.
pub(crate) fn mover_parts_with<'w, X>(
    ((p, v, a, max_speed, flock), x): (MoverTable<'w>, X),
) -> (
    (
        &'w [Position],
        &'w [Velocity],
        (Option<&'w [MaxSpeed]>, &'w [FlockId]),
        X,
    ),
    ContiguousMut<'w, Acceleration>,
) {
    ((p, v, (max_speed, flock), x), a)
}
