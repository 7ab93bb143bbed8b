//! What only the 3D simulation has; everything else is written once over
//! [`Vector`](crate::math::Vector) and [`DIM`](crate::math::DIM).

use bevy::prelude::*;

use crate::lanes::{Coords, Real};
pub use crate::math::Box3;

/// A direction across `v` for a boid at its minimum speed to turn toward when a force pushes it
/// straight back: `v` crossed with the vertical (+y), or with +x where `v` is vertical; unit
/// length (zero for a zero `v`).
#[inline(always)]
pub fn left_of<R: Real>(v: Coords<R>) -> Coords<R> {
    let [x, y, z] = v.0;
    let zero = R::splat(0.0);
    // v x (0, 1, 0) = (-z, 0, x); where that is zero (v along y), v x (1, 0, 0) = (0, z, -y).
    let flat = (x * x + z * z).gt(zero);
    Coords([
        R::select(flat, -z, zero),
        R::select(flat, zero, z),
        R::select(flat, x, -y),
    ])
    .normalize_or(Coords::zero())
}

/// A unit vector for the `i`-th of a series, the series spread evenly over the sphere (a
/// Fibonacci spiral: heights evenly spaced, each the golden angle round from the last): the
/// directions [`tie_break`](crate::steering::tie_break) pushes boids on one spot apart along.
#[inline]
pub fn spread_direction(i: usize) -> Vec3 {
    let t = i as f32;
    let y = 1.0 - 2.0 * (t * 0.618_034).fract();
    let r = (1.0 - y * y).max(0.0).sqrt();
    let (sin, cos) = (t * 2.399_963).sin_cos();
    Vec3::new(r * cos, y, r * sin)
}

/// The size of the default [`SimulationBounds`](crate::SimulationBounds), world units.
pub const DEFAULT_WORLD_SIZE: Vec3 = Vec3::new(1280.0, 720.0, 720.0);

/// How far a boid at `r` from a flock's centre, flying at `v`, turns about the vertical axis
/// (+y) through it: the 2D turn of their horizontal parts (x and z), the sine of the angle
/// between them seen from above; `None` where either has no horizontal part.
/// [`milling`](crate::metrics::milling) averages it.
#[inline]
pub fn turn_about_vertical(r: Vec3, v: Vec3) -> Option<f32> {
    let (r, v) = (Vec2::new(r.x, -r.z), Vec2::new(v.x, -v.z));
    let (lr, lv) = (r.length(), v.length());
    (lr > 0.0 && lv > 0.0).then(|| r.perp_dot(v) / (lr * lv))
}

/// Puts `transform` at `at`, and says whether that moved it.
#[inline]
pub fn place(transform: &mut Transform, at: Vec3) -> bool {
    if transform.translation == at {
        return false;
    }
    transform.translation = at;
    true
}

/// The rotation that turns +x to face along `v` and keeps +y as near up as it can (a yaw about
/// +y, then a pitch about the turned z; no roll): `None` for a zero or non-finite `v`.
///
/// Without trigonometry, as the 2D heading: each turn's quaternion from the cosine and sine of
/// its angle by the half-angle formulas. For the unit heading `f` with horizontal length `h`,
/// the yaw has cosine `f.x / h` and sine `-f.z / h` (none where `f` is vertical), the pitch
/// cosine `h` and sine `f.y`.
#[inline]
pub fn heading_rotation(v: Vec3) -> Option<Quat> {
    let f = v.try_normalize()?;
    let h = (f.x * f.x + f.z * f.z).sqrt();
    let (cos_yaw, sin_yaw) = if h > 0.0 {
        (f.x / h, -f.z / h)
    } else {
        (1.0, 0.0)
    };
    let (ys, yc) = half_angle(cos_yaw, sin_yaw);
    let (ps, pc) = half_angle(h, f.y);
    Some(Quat::from_xyzw(0.0, ys, 0.0, yc) * Quat::from_xyzw(0.0, 0.0, ps, pc))
}

/// `(sin(a / 2), cos(a / 2))` of the angle `a` with cosine `cos` and sine `sin`: the sine as
/// `sin / (2 cos(a / 2))` for small angles, where `sqrt((1 - cos) / 2)` would lose its digits to
/// the subtraction.
#[inline(always)]
fn half_angle(cos: f32, sin: f32) -> (f32, f32) {
    let half_cos = ((1.0 + cos) * 0.5).max(0.0).sqrt();
    let half_sin = if half_cos > 0.5 {
        sin / (2.0 * half_cos)
    } else {
        ((1.0 - cos) * 0.5).max(0.0).sqrt().copysign(sin)
    };
    (half_sin, half_cos)
}

/// The [`heading_rotation`]s of `N` velocities.
pub(crate) struct Headings<const N: usize>([Option<Quat>; N]);

impl<const N: usize> Headings<N> {
    /// The headings of `v`, or none.
    #[inline(always)]
    pub fn of(v: Option<[Vec3; N]>) -> Self {
        Self(v.map_or([None; N], |v| v.map(heading_rotation)))
    }

    /// Lane `l`'s heading.
    #[inline(always)]
    pub fn rotation(&self, l: usize) -> Option<Quat> {
        self.0[l]
    }
}

/// A random unit vector, uniform over the sphere (two draws from `rng`: the height, then the
/// angle round the vertical).
#[inline]
pub fn random_direction(rng: &mut impl rand::Rng) -> Vec3 {
    use rand::RngExt;
    let y = rng.random::<f32>() * 2.0 - 1.0;
    let (sin, cos) = (rng.random::<f32>() * core::f32::consts::TAU).sin_cos();
    let r = (1.0 - y * y).max(0.0).sqrt();
    Vec3::new(r * cos, y, r * sin)
}

/// The way round an obstacle at `to_obstacle` for a unit headed for `to_target`: across the
/// way to the obstacle, toward the target (the part of `to_target` square to `to_obstacle`), or
/// [`left_of`] it where the target is dead ahead; unit length or zero.
#[inline]
pub fn side_toward(to_obstacle: Vec3, to_target: Vec3) -> Vec3 {
    let u = to_obstacle.normalize_or_zero();
    let across = to_target - u * u.dot(to_target);
    across
        .try_normalize()
        .unwrap_or_else(|| left_of(Coords::of(u)).to_vector())
}

/// Which way a boid at its minimum speed, heading along the unit `heading`, turns under the
/// force `a`: along the part of `a` square to the heading, or [`left_of`] the heading where `a`
/// pushes straight on or back.
#[inline(always)]
pub fn turn_side<R: Real>(heading: Coords<R>, a: Coords<R>) -> Coords<R> {
    let across = a - heading.scale(a.dot(heading));
    across.normalize_or(left_of(heading))
}

#[cfg(test)]
mod tests {
    use bevy::prelude::*;

    use super::heading_rotation;
    use crate::dim3::random_direction;

    /// The heading turns +x onto the velocity and keeps the boid's up (+y) in the vertical
    /// plane through the heading (no roll), for random and for axis-aligned headings.
    #[test]
    fn the_heading_faces_the_velocity_without_roll() {
        let mut rng = <rand::rngs::Xoshiro256PlusPlus as rand::SeedableRng>::seed_from_u64(4);
        let axes = [Vec3::X, -Vec3::X, Vec3::Z, -Vec3::Z, Vec3::Y, -Vec3::Y];
        let random = (0..500).map(|_| random_direction(&mut rng) * 37.0);
        for v in axes.into_iter().chain(random) {
            let q = heading_rotation(v).unwrap();
            let f = v.normalize();
            assert!((q * Vec3::X - f).length() < 1e-4, "{v}: {}", q * Vec3::X);
            assert!((q.length() - 1.0).abs() < 1e-4);
            // No roll: the turned z stays horizontal.
            assert!((q * Vec3::Z).y.abs() < 1e-4, "{v}: rolled");
        }
        assert_eq!(heading_rotation(Vec3::ZERO), None);
        assert_eq!(heading_rotation(Vec3::NAN), None);
    }
}
