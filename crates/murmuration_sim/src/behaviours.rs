//! The steering behaviours as pure functions of plain vectors, each with its formula.
//!
//! The plugin's systems (and [`flock_sums`](crate::flock_sums())) feed them from the ECS and
//! the spatial hash; tools and tests can call them directly. `p` is the boid's position, `v` its
//! velocity, `d` a vector from the boid to something else. None of them returns NaN for finite
//! input, zero vectors included.

use bevy::prelude::*;

/// Reynolds steering toward a desired velocity: `force = desired - v`, shortened to at most
/// `max_force` without changing its direction.
#[inline]
pub fn steer_to_velocity(desired: Vec2, v: Vec2, max_force: f32) -> Vec2 {
    (desired - v).clamp_length_max(max_force.max(0.0))
}

/// Reynolds steering along a direction: `desired = dir / |dir| * speed`,
/// `force = desired - v`, `|force| <= max_force`. A zero (or non-finite) `dir` gives a zero force.
#[inline]
pub fn steer(dir: Vec2, v: Vec2, speed: f32, max_force: f32) -> Vec2 {
    match dir.try_normalize() {
        Some(unit) => steer_to_velocity(unit * speed, v, max_force),
        None => Vec2::ZERO,
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

/// Field of view: `dot(d, v) / (|d| |v|) >= view_cos`, without a square root or division.
///
/// A boid that does not move (`v = 0`) sees all around, and so does one with `view_cos <= -1`.
#[inline]
pub fn in_view(d: Vec2, v: Vec2, view_cos: f32) -> bool {
    if view_cos <= -1.0 {
        return true;
    }
    let dot = d.dot(v);
    let bound = view_cos * view_cos * d.length_squared() * v.length_squared();
    if view_cos >= 0.0 {
        dot >= 0.0 && dot * dot >= bound
    } else {
        dot >= 0.0 || dot * dot <= bound
    }
}

/// Separation push from one neighbour at `d` (from the boid to the neighbour), `|d|^2 = d2`:
/// `(p - q) / |p - q|^2 = -d / d2`, so a neighbour twice as close pushes twice as hard. Two boids
/// on the same spot push apart along `tie_break()` (a unit vector, only asked for then) as if
/// they were [`COINCIDENT_DISTANCE`] apart.
#[inline]
pub fn separation_push(d: Vec2, d2: f32, tie_break: impl FnOnce() -> Vec2) -> Vec2 {
    if d2 > 0.0 {
        -d * d2.recip()
    } else {
        tie_break() * COINCIDENT_DISTANCE.recip()
    }
}

/// The distance two boids on exactly the same spot are treated as being apart, world units.
pub const COINCIDENT_DISTANCE: f32 = 0.01;

/// Sums over a boid's neighbours for the three flocking rules, filled one neighbour at a time.
#[derive(Reflect, Debug, Clone, Copy, Default, PartialEq)]
#[reflect(Debug, Clone, Default, PartialEq)]
pub struct FlockSums {
    /// Sum of [`separation_push`] over neighbours closer than the separation distance.
    pub separation: Vec2,
    /// Sum of the velocities of same-species neighbours.
    pub alignment: Vec2,
    /// Sum of the deltas to same-species neighbours.
    pub cohesion: Vec2,
    /// Number of same-species neighbours.
    pub same_species: u32,
    /// Number of neighbours of any species.
    pub neighbours: u32,
}

impl FlockSums {
    /// Adds one visible neighbour at delta `d` (`|d|^2 = d2`) with velocity `velocity`.
    #[inline]
    pub fn add(
        &mut self,
        d: Vec2,
        d2: f32,
        velocity: Vec2,
        same_species: bool,
        separation2: f32,
        tie_break: impl FnOnce() -> Vec2,
    ) {
        self.neighbours += 1;
        if d2 < separation2 {
            self.separation += separation_push(d, d2, tie_break);
        }
        if same_species {
            self.alignment += velocity;
            self.cohesion += d;
            self.same_species += 1;
        }
    }
}

/// The weights the three rules are steered with.
#[derive(Reflect, Debug, Clone, Copy, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct RuleWeights {
    /// Separation weight.
    pub separation: f32,
    /// Alignment weight.
    pub alignment: f32,
    /// Cohesion weight.
    pub cohesion: f32,
}

impl RuleWeights {
    /// The three weights of `params`.
    pub fn of(params: &crate::params::FlockParams) -> Self {
        Self {
            separation: params.separation_weight,
            alignment: params.alignment_weight,
            cohesion: params.cohesion_weight,
        }
    }
}

/// The flocking force from a boid's neighbour sums:
/// `separation_weight * steer(sum of pushes) + alignment_weight * steer(sum of velocities)
/// + cohesion_weight * steer(mean delta)`, each `steer` at `speed` and capped at `max_force`.
///
/// Alignment uses the sum, not the mean: only its direction matters to `steer`. Cohesion's mean
/// delta is the way to the local centre, `mean(q) - p`.
///
/// With `units` set (strategy-game units) only separation counts, and it is a push that grows
/// with the crowding instead of a full-speed steer: `normalize(S) * speed * clamp(|S| s - 1, 0, 1)`,
/// capped at `max_force`, where `S` is the sum of pushes and `s` the separation distance (for one
/// neighbour: zero at the separation distance, full at half of it). It does not brake a unit that
/// walks past another (arrive does the braking), and two units standing too close ease apart
/// rather than being kicked to full speed and back each step, which is what makes a crowd jitter.
/// Crowding under [`UNIT_CROWDING_DEADBAND`] pushes not at all.
#[inline]
pub fn flocking_force(
    sums: &FlockSums,
    v: Vec2,
    speed: f32,
    max_force: f32,
    weights: RuleWeights,
    units: bool,
    separation_distance: f32,
) -> Vec2 {
    if units {
        let crowding = (sums.separation.length() * separation_distance - 1.0).clamp(0.0, 1.0);
        if crowding < UNIT_CROWDING_DEADBAND {
            return Vec2::ZERO;
        }
        let push = sums.separation.normalize_or_zero() * speed * crowding;
        return push.clamp_length_max(max_force.max(0.0)) * weights.separation;
    }
    let mut force = steer(sums.separation, v, speed, max_force) * weights.separation;
    if sums.same_species > 0 {
        force += steer(sums.alignment, v, speed, max_force) * weights.alignment;
        let centre = sums.cohesion / sums.same_species as f32;
        force += steer(centre, v, speed, max_force) * weights.cohesion;
    }
    force
}

/// Units ignore a crowding below this (about 5% inside the separation distance): a push that
/// fades out smoothly would keep a packed crowd creeping apart for half a minute at a tenth of a
/// unit a second; with the dead band it comes to rest, like friction.
pub const UNIT_CROWDING_DEADBAND: f32 = 0.05;

/// Turn-back direction: `+1` on an axis when `p` is within `margin` of the low edge, `-1` near the
/// high edge, `0` elsewhere; steer along it with weight `edge_weight`.
#[inline]
pub fn turn_back_direction(p: Vec2, rect: Rect, margin: f32) -> Vec2 {
    let axis = |x: f32, lo: f32, hi: f32| {
        if x < lo + margin {
            1.0
        } else if x > hi - margin {
            -1.0
        } else {
            0.0
        }
    };
    Vec2::new(
        axis(p.x, rect.min.x, rect.max.x),
        axis(p.y, rect.min.y, rect.max.y),
    )
}

/// Obstacle avoidance from one round obstacle at delta `d` (from the boid to its centre):
/// within `safe = radius + avoid_distance`, push away along `-d / |d|` with strength
/// `(safe - |d|) / avoid_distance` (0 at the safe distance, 1 at the obstacle's edge, more inside).
/// Sum it over obstacles and steer along the sum. A boid exactly on the centre is pushed along
/// `tie_break()` (only asked for then).
#[inline]
pub fn obstacle_push(
    d: Vec2,
    radius: f32,
    avoid_distance: f32,
    tie_break: impl FnOnce() -> Vec2,
) -> Vec2 {
    let safe = radius + avoid_distance;
    let d2 = d.length_squared();
    if d2 >= safe * safe {
        return Vec2::ZERO;
    }
    let distance = d2.sqrt();
    let away = if distance > 0.0 {
        -d / distance
    } else {
        tie_break()
    };
    away * ((safe - distance) / avoid_distance)
}

/// Flee direction from one threat at delta `d` (from the boid to the threat): `-d / |d|` within
/// `flee_radius`, else zero. Sum over threats and steer along the sum. A boid exactly on the
/// threat flees along `tie_break()` (only asked for then).
#[inline]
pub fn flee_direction(d: Vec2, flee_radius: f32, tie_break: impl FnOnce() -> Vec2) -> Vec2 {
    let d2 = d.length_squared();
    if d2 > flee_radius * flee_radius {
        return Vec2::ZERO;
    }
    d.try_normalize().map_or_else(tie_break, |u| -u)
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
pub fn arrive(d: Vec2, v: Vec2, slow_radius: f32, max_speed: f32, max_force: f32) -> Vec2 {
    let distance = d.length();
    let (speed, gain) = if slow_radius > 0.0 {
        let k = max_speed / slow_radius;
        (max_speed * (distance / slow_radius).min(1.0), 4.0 * k)
    } else {
        (max_speed, 1.0)
    };
    let desired = d.try_normalize().map_or(Vec2::ZERO, |u| u * speed);
    ((desired - v) * gain).clamp_length_max(max_force.max(0.0))
}

/// A unit vector that differs between slots, for pushing apart boids that sit on the same spot
/// deterministically (the lower slot goes one way, the higher the other).
#[inline]
pub fn tie_break(own: usize, other: usize) -> Vec2 {
    // The golden angle spreads consecutive slots evenly around the circle.
    let angle = (own.min(other) as f32) * 2.399_963;
    let dir = Vec2::from_angle(angle);
    if own < other { dir } else { -dir }
}
