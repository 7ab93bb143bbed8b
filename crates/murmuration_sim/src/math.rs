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
    use bevy::reflect::{Reflect, std_traits::ReflectDefault};

    /// A position, velocity or force in world units.
    pub type Vector = Vec3;
    /// A cell of the spatial hash, or any integer point.
    pub type IVector = IVec3;
    /// A count per axis (the hash's cells).
    pub type UVector = UVec3;
    /// An axis-aligned region of the world: a box.
    pub type Region = Box3;
    /// How many coordinates a [`Vector`] has.
    pub const DIM: usize = 3;

    /// An axis-aligned box, the 3D world's [`Region`]: what [`Rect`](bevy::math::Rect) is in 2D,
    /// with the same methods the simulation uses.
    #[derive(Reflect, Debug, Clone, Copy, PartialEq, Default)]
    #[reflect(Debug, Clone, PartialEq, Default)]
    pub struct Box3 {
        /// The corner with the smallest coordinates.
        pub min: Vec3,
        /// The corner with the largest coordinates.
        pub max: Vec3,
    }

    impl Box3 {
        /// The box between two opposite corners, in any order.
        pub fn from_corners(a: Vec3, b: Vec3) -> Self {
            Self {
                min: a.min(b),
                max: a.max(b),
            }
        }

        /// The box of `size` centred on `center`.
        pub fn from_center_size(center: Vec3, size: Vec3) -> Self {
            Self::from_corners(center - size * 0.5, center + size * 0.5)
        }

        /// Its size along each axis.
        pub fn size(&self) -> Vec3 {
            self.max - self.min
        }

        /// Its extent along x.
        pub fn width(&self) -> f32 {
            self.max.x - self.min.x
        }

        /// Its centre.
        pub fn center(&self) -> Vec3 {
            (self.min + self.max) * 0.5
        }

        /// Whether `p` is inside (edges included).
        pub fn contains(&self, p: Vec3) -> bool {
            p.cmpge(self.min).all() && p.cmple(self.max).all()
        }

        /// Whether it holds no volume (some axis of zero or negative size).
        pub fn is_empty(&self) -> bool {
            self.min.cmpge(self.max).any()
        }
    }
}

pub use types::*;

/// `[f(0), f(1), ..., f(N - 1)]`, always inlined. The hot path builds its arrays with this, not
/// with `core::array::from_fn` or `map`, which the compiler does not always inline: a call in a
/// lane loop costs far more than the loop, and the callee, compiled without the build's target
/// features, spills every vector register around it.
#[inline(always)]
pub fn fill<T: Copy, const N: usize>(init: T, mut f: impl FnMut(usize) -> T) -> [T; N] {
    let mut out = [init; N];
    for (i, x) in out.iter_mut().enumerate() {
        *x = f(i);
    }
    out
}

/// The [`Vector`] whose coordinate on each axis is `f(axis)`.
#[inline(always)]
pub fn per_axis(f: impl FnMut(usize) -> f32) -> Vector {
    Vector::from_array(fill(0.0, f))
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
