//! The systems of a step, in the order [`BoidsSystems`](crate::BoidsSystems) runs them.
//!
//! - [`prepare`]: validate the parameters after a change, repair non-finite state.
//! - [`build`]: rebuild the [`SpatialHash`](crate::SpatialHash).
//! - [`flocking`]: separation, alignment and cohesion in one pass over the neighbours.
//! - [`forces`]: edges, obstacles, flee, seek, arrive and hunt, each its own system.
//! - [`integrate`]: apply the acceleration, clamp the speed, move, wrap or keep in bounds
//!   ([`integrate_lanes`]: eight entities at a time).
//! - [`sync`]: copy position and heading into `Transform`, outside the step, eight entities at
//!   a time.

use bevy::math::Vec2;

pub(crate) mod build;
pub(crate) mod flocking;
pub(crate) mod forces;
pub(crate) mod integrate;
pub(crate) mod integrate_lanes;
pub(crate) mod prepare;
pub(crate) mod sync;

/// `v.is_finite()` as float multiplies and compares (zero times a finite number is zero, times
/// an infinity or a NaN is a NaN), which vectorise where its integer tests do not.
#[inline(always)]
pub(crate) fn finite(v: Vec2) -> bool {
    (v.x * 0.0 == 0.0) & (v.y * 0.0 == 0.0)
}
