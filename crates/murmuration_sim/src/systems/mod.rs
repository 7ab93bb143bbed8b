//! The systems of a step, in the order [`BoidsSystems`](crate::BoidsSystems) runs them.
//!
//! - [`prepare`]: validate the bounds, repair non-finite state, the run conditions.
//! - [`build`]: rebuild the [`SpatialHash`](crate::SpatialHash).
//! - [`flocking`]: separation, alignment and cohesion: every boid's neighbour sums, then its
//!   force.
//! - [`forces`]: edges, obstacles, flee, seek, arrive and hunt, each its own system.
//! - [`integrate`]: apply the acceleration, clamp the speed, move, wrap or keep in bounds.
//! - [`sync`]: copy position and heading into `Transform`, outside the step, eight entities at
//!   a time.

pub(crate) mod build;
pub(crate) mod flocking;
pub(crate) mod forces;
pub(crate) mod integrate;
pub(crate) mod prepare;
pub(crate) mod sync;
