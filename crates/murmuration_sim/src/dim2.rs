//! What only the 2D simulation does; everything else is written once over
//! [`Vector`](crate::math::Vector) and [`DIM`](crate::math::DIM).

use bevy::prelude::*;

use crate::lanes::{Coords, Real};

/// `v` turned a quarter turn to the left (`(-y, x)`): the side a boid at its minimum speed
/// turns toward when a force pushes it to that side.
#[inline(always)]
pub fn left_of<R: Real>(v: Coords<R>) -> Coords<R> {
    let [x, y] = v.0;
    Coords([-y, x])
}

/// A unit vector for the `i`-th of a series, the series spread evenly around the circle (each
/// the golden angle on from the last): the directions [`tie_break`](crate::steering::tie_break)
/// pushes boids on one spot apart along.
#[inline]
pub fn spread_direction(i: usize) -> Vec2 {
    Vec2::from_angle(i as f32 * 2.399_963)
}

/// The size of the default [`SimulationBounds`](crate::SimulationBounds), world units.
pub const DEFAULT_WORLD_SIZE: Vec2 = Vec2::new(1280.0, 720.0);

/// How far a boid at `r` from a flock's centre, flying at `v`, turns about it: the sine of the
/// angle from `r` to `v` (`perp_dot(r, v) / (|r| |v|)`, positive anticlockwise); `None` where
/// either is zero. [`milling`](crate::metrics::milling) averages it.
#[inline]
pub fn turn_about_vertical(r: Vec2, v: Vec2) -> Option<f32> {
    let (lr, lv) = (r.length(), v.length());
    (lr > 0.0 && lv > 0.0).then(|| r.perp_dot(v) / (lr * lv))
}

/// Puts `transform` at `at`, keeping its `z` (its drawing layer), and says whether that moved it.
#[inline]
pub fn place(transform: &mut Transform, at: Vec2) -> bool {
    if transform.translation.truncate() == at {
        return false;
    }
    transform.translation.x = at.x;
    transform.translation.y = at.y;
    true
}

/// The rotation about +z that turns +x to face along `v`, without trigonometry: for the unit
/// heading `(c, s)` it is the quaternion `(0, 0, sin(a / 2), cos(a / 2))` with
/// `cos(a / 2) = sqrt((1 + c) / 2)` and `sin(a / 2) = sign(s) sqrt((1 - c) / 2)`. `None` for a
/// zero or non-finite `v`.
#[inline]
pub fn heading_rotation(v: Vec2) -> Option<Quat> {
    let (half_sin, half_cos) = half_angle(v.try_normalize()?);
    Some(Quat::from_xyzw(0.0, 0.0, half_sin, half_cos))
}

/// `(sin(a / 2), cos(a / 2))` for the unit heading `u = (cos(a), sin(a))`.
#[inline(always)]
fn half_angle(u: Vec2) -> (f32, f32) {
    let half_cos = ((1.0 + u.x) * 0.5).max(0.0).sqrt();
    let half_sin = ((1.0 - u.x) * 0.5).max(0.0).sqrt().copysign(u.y);
    (half_sin, half_cos)
}

/// The [`heading_rotation`]s of `N` velocities side by side, lane by lane without a branch (the
/// same operations in the same order, so the same bits): the quaternion `(0, 0, z, w)`, with a
/// NaN `w` for no heading (it cannot be NaN otherwise, being a square root of at least zero).
pub(crate) struct Headings<const N: usize> {
    z: [f32; N],
    w: [f32; N],
}

impl<const N: usize> Headings<N> {
    /// The headings of `v`, or none.
    #[inline(always)]
    pub fn of(v: Option<[Vec2; N]>) -> Self {
        let mut out = Self {
            z: [0.0; N],
            w: [f32::NAN; N],
        };
        // Over the array itself (not `Option::iter().flatten()`, which kept the loop scalar:
        // a square root and a division per boid, one after another).
        if let Some(v) = v {
            for (l, v) in v.iter().enumerate() {
                // `Vec2::try_normalize`: a reciprocal length that is finite and above zero.
                let rcp = v.length_recip();
                let (z, w) = half_angle(*v * rcp);
                out.z[l] = z;
                out.w[l] = if rcp.is_finite() && rcp > 0.0 {
                    w
                } else {
                    f32::NAN
                };
            }
        }
        out
    }

    /// Lane `l`'s heading.
    #[inline(always)]
    pub fn rotation(&self, l: usize) -> Option<Quat> {
        (!self.w[l].is_nan()).then(|| Quat::from_xyzw(0.0, 0.0, self.z[l], self.w[l]))
    }
}

/// A random unit vector, uniform around the circle (one draw from `rng`).
#[inline]
pub fn random_direction(rng: &mut impl rand::Rng) -> Vec2 {
    use rand::RngExt;
    Vec2::from_angle(rng.random::<f32>() * core::f32::consts::TAU)
}

/// The way round an obstacle at `to_obstacle` for a unit headed for `to_target`: across the
/// way to the obstacle, on the side the target lies (left if it is dead ahead), unit length or
/// zero.
#[inline]
pub fn side_toward(to_obstacle: Vec2, to_target: Vec2) -> Vec2 {
    let rim = to_obstacle.perp().normalize_or_zero();
    if rim.dot(to_target) >= 0.0 { rim } else { -rim }
}

/// Which way a boid at its minimum speed, heading along the unit `heading`, turns under the
/// force `a`: a quarter turn to the side `a` pushes toward (left where it pushes straight on or
/// back).
#[inline(always)]
pub fn turn_side<R: Real>(heading: Coords<R>, a: Coords<R>) -> Coords<R> {
    let left = left_of(heading);
    Coords::select(a.dot(left).ge(R::splat(0.0)), left, -left)
}
