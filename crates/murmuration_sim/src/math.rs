//! The dimension the simulation runs in, as types: [`Vector`], [`IVector`] and [`DIM`].
//!
//! Code that is the same in every dimension is written over these (and over
//! [`Coords`](crate::lanes::Coords), `DIM` coordinates of a lane type), never over `x` and `y`
//! spelled out; what differs between dimensions lives in [`dim2`](crate::dim2).

use bevy::math::{IVec2, Vec2};

/// A position, velocity or force in world units.
pub type Vector = Vec2;

/// A cell of the spatial hash, or any integer point.
pub type IVector = IVec2;

/// How many coordinates a [`Vector`] has.
pub const DIM: usize = 2;

/// `v.is_finite()` as float multiplies and compares (zero times a finite number is zero, times
/// an infinity or a NaN is a NaN), which vectorise where its integer tests do not.
#[inline(always)]
pub(crate) fn finite(v: Vector) -> bool {
    v.to_array()
        .iter()
        .fold(true, |ok, &x| ok & (x * 0.0 == 0.0))
}
