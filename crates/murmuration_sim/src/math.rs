//! The dimension the simulation runs in, as types: [`Vector`], [`IVector`], [`Region`] and
//! [`DIM`].
//!
//! Code that is the same in every dimension is written over these (and over
//! [`Coords`](crate::lanes::Coords), `DIM` coordinates of a lane type), never over `x` and `y`
//! spelled out; what differs between dimensions lives in `dim2` or `dim3`, one of which is
//! built: `murmuration_sim` is this source built with the `2d` feature, `murmuration_sim3d`
//! the same source built with `3d`.

#[cfg(all(feature = "2d", feature = "3d"))]
compile_error!("murmuration_sim is built for one dimension: enable `2d` or `3d`, not both");
#[cfg(not(any(feature = "2d", feature = "3d")))]
compile_error!("murmuration_sim needs a dimension: enable the `2d` or the `3d` feature");

#[cfg(feature = "2d")]
mod types {
    use bevy::math::{IVec2, Rect, UVec2, Vec2};

    /// A position, velocity or force in world units.
    pub type Vector = Vec2;
    /// A cell of the spatial hash, or any integer point.
    pub type IVector = IVec2;
    /// A count per axis (the hash's cells).
    pub type UVector = UVec2;
    /// An axis-aligned region of the world: a rectangle.
    pub type Region = Rect;
    /// How many coordinates a [`Vector`] has.
    pub const DIM: usize = 2;
}

#[cfg(feature = "3d")]
mod types {
    use bevy::math::{IVec3, UVec3, Vec3};

    /// A position, velocity or force in world units.
    pub type Vector = Vec3;
    /// A cell of the spatial hash, or any integer point.
    pub type IVector = IVec3;
    /// A count per axis (the hash's cells).
    pub type UVector = UVec3;
    /// An axis-aligned region of the world: a box.
    pub type Region = crate::dim3::Box3;
    /// How many coordinates a [`Vector`] has.
    pub const DIM: usize = 3;
}

pub use types::*;

/// The [`Vector`] whose coordinate on each axis is `f(axis)`.
#[inline(always)]
pub fn per_axis(f: impl FnMut(usize) -> f32) -> Vector {
    Vector::from_array(crate::lanes::fill(0.0, f))
}

/// `v.is_finite()` as float multiplies and compares (zero times a finite number is zero, times
/// an infinity or a NaN is a NaN), which vectorise where its integer tests do not.
#[inline(always)]
pub(crate) fn finite(v: Vector) -> bool {
    v.to_array()
        .iter()
        .fold(true, |ok, &x| ok & (x * 0.0 == 0.0))
}

/// The first [`DIM`] coordinates of `[x, y, z]` (2D drops `z`): one point written once for both
/// dimensions, as the tests and the benchmarks do.
pub fn xyz(c: [f32; 3]) -> Vector {
    per_axis(|axis| c[axis])
}

/// The region between two corners written as `[x, y, z]` ([`xyz`]).
#[cfg(test)]
pub(crate) fn region(min: [f32; 3], max: [f32; 3]) -> Region {
    Region::from_corners(xyz(min), xyz(max))
}
