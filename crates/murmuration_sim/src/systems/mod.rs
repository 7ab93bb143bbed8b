//! The systems of a step, in the order [`BoidsSystems`](crate::BoidsSystems) runs them.
//!
//! - [`prepare`]: validate the parameters after a change, repair non-finite state.
//! - [`build`]: rebuild the [`SpatialHash`](crate::SpatialHash).
//! - [`flocking`]: separation, alignment and cohesion in one pass over the neighbours.
//! - [`forces`]: edges, obstacles, flee, seek, arrive and hunt, each its own system.
//! - [`integrate`]: apply the acceleration, clamp the speed, move, wrap or keep in bounds
//!   ([`integrate_lanes`]: eight entities at a time).
//! - [`sync`]: copy position and heading into `Transform`, outside the step.

pub(crate) mod build;
pub(crate) mod flocking;
pub(crate) mod forces;
pub(crate) mod integrate;
pub(crate) mod integrate_lanes;
pub(crate) mod prepare;
pub(crate) mod sync;
