//! The steering behaviours as pure functions of plain vectors, each with its formula.
//!
//! The plugin's systems feed them from the ECS and the spatial hash; tools and tests can call
//! them directly. The flocking rules themselves (separation, alignment, cohesion) are in
//! [`rules`], written once for one boid and for lanes of boids. `p` is the boid's position, `v` its
//! velocity, `d` a vector from the boid to something else. None of them returns NaN for finite
//! input, zero vectors included.

use crate::lanes::Coords;
use crate::math::Vector;
use crate::rules::{self, Observer, VIEW_ALL, VIEW_NARROW, VIEW_WIDE, view_kind};

/// Reynolds steering toward a desired velocity: `force = desired - v`, shortened to at most
/// `max_force` without changing its direction.
#[inline]
pub fn steer_to_velocity(desired: Vector, v: Vector, max_force: f32) -> Vector {
    (desired - v).clamp_length_max(max_force.max(0.0))
}

/// Reynolds steering along a direction: `desired = dir / |dir| * speed`,
/// `force = desired - v`, `|force| <= max_force`. A zero (or non-finite) `dir` gives a zero force.
/// ([`rules::steer`] for one boid.)
#[inline]
pub fn steer(dir: Vector, v: Vector, speed: f32, max_force: f32) -> Vector {
    rules::steer(Coords::of(dir), Coords::of(v), speed, max_force.max(0.0)).to_vector()
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

/// Field of view: `dot(d, v) / (|d| |v|) >= view_cos`, without a square root or division
/// ([`rules::in_view`] for one boid).
///
/// A boid that does not move (`v = 0`) sees all around, and so does one with `view_cos <= -1`.
#[inline]
pub fn in_view(d: Vector, v: Vector, view_cos: f32) -> bool {
    let d = Coords::of(d);
    let d2 = d.length_squared();
    let o = Observer::new(
        Coords::zero(),
        Coords::of(v),
        0,
        0.0,
        0.0,
        view_cos * view_cos,
    );
    match view_kind(view_cos) {
        VIEW_ALL => true,
        VIEW_NARROW => rules::in_view::<f32, VIEW_NARROW>(&o, d, d2),
        _ => rules::in_view::<f32, VIEW_WIDE>(&o, d, d2),
    }
}

use crate::dim;
use crate::math::{Region, per_axis};
pub use crate::rules::COINCIDENT_DISTANCE;

/// Turn-back direction: `+1` on an axis when `p` is within `margin` of the low edge, `-1` near the
/// high edge, `0` elsewhere; steer along it with weight `edge_weight`.
#[inline]
pub fn turn_back_direction(p: Vector, rect: Region, margin: f32) -> Vector {
    let axis = |x: f32, lo: f32, hi: f32| {
        if x < lo + margin {
            1.0
        } else if x > hi - margin {
            -1.0
        } else {
            0.0
        }
    };
    per_axis(|i| axis(p[i], rect.min[i], rect.max[i]))
}

/// Obstacle avoidance from one round obstacle at delta `d` (from the boid to its centre):
/// within `safe = radius + avoid_distance`, push away along `-d / |d|` with strength
/// `(safe - |d|) / avoid_distance` (0 at the safe distance, 1 at the obstacle's edge, more inside).
/// Sum it over obstacles and steer along the sum. A boid exactly on the centre is pushed along
/// `tie_break()` (only asked for then).
#[inline]
pub fn obstacle_push(
    d: Vector,
    radius: f32,
    avoid_distance: f32,
    tie_break: impl FnOnce() -> Vector,
) -> Vector {
    let safe = radius + avoid_distance;
    let d2 = d.length_squared();
    if d2 >= safe * safe {
        return Vector::ZERO;
    }
    let distance = d2.sqrt();
    let away = if distance > 0.0 {
        -d / distance
    } else {
        tie_break()
    };
    away * ((safe - distance) / avoid_distance)
}

/// Flee direction from one threat at delta `d` (from the boid to the threat): `-d / |d|` closer
/// than `flee_radius`, else zero. Sum over threats and steer along the sum. A boid exactly on
/// the threat flees along `tie_break()` (only asked for then). ([`rules::flee`] for one threat.)
#[inline]
pub fn flee_direction(d: Vector, flee_radius: f32, tie_break: impl FnOnce() -> Vector) -> Vector {
    let (away, on_the_spot) = rules::flee(Coords::of(d), flee_radius * flee_radius);
    if on_the_spot {
        tie_break()
    } else {
        away.to_vector()
    }
}

/// Arrive: steer toward a target at delta `d` with desired speed
/// `max_speed * min(|d| / slow_radius, 1)`, so the desired speed falls linearly to zero at the
/// target, where the force brakes the boid.
///
/// The force is `4 k (desired - v)` with `k = max_speed / slow_radius`, capped at `max_force`.
/// Plain `desired - v` (a gain of 1/s, as in the tutorial's `steer`) would make the approach an
/// underdamped spring (`d'' + d' + k d = 0`): a unit overshoots its target by a quarter of the slow
/// radius and rocks around it for many seconds. The gain `4k` makes the approach critically
/// damped, so a unit stops on its target without overshooting.
#[inline]
pub fn arrive(d: Vector, v: Vector, slow_radius: f32, max_speed: f32, max_force: f32) -> Vector {
    let distance = d.length();
    let (speed, gain) = if slow_radius > 0.0 {
        let k = max_speed / slow_radius;
        (max_speed * (distance / slow_radius).min(1.0), 4.0 * k)
    } else {
        (max_speed, 1.0)
    };
    let desired = d.try_normalize().map_or(Vector::ZERO, |u| u * speed);
    ((desired - v) * gain).clamp_length_max(max_force.max(0.0))
}

/// A unit vector that differs between slots, for pushing apart boids that sit on the same spot
/// deterministically (the lower slot goes one way, the higher the other).
#[inline]
pub fn tie_break(own: usize, other: usize) -> Vector {
    let dir = dim::spread_direction(own.min(other));
    if own < other { dir } else { -dir }
}
