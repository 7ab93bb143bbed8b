//! Copy the simulation's state into `Transform`, for rendering and for other plugins.

use bevy::prelude::*;

use crate::components::{Position, Velocity};

/// Puts every entity with a [`Position`] at its position (keeping its `z`) and turns it to face
/// along its [`Velocity`], if it has one and is moving. Runs in `PostUpdate` before transform
/// propagation.
pub(crate) fn sync_transforms(
    mut query: Query<
        (&Position, Option<&Velocity>, &mut Transform),
        Or<(Changed<Position>, Changed<Velocity>)>,
    >,
) {
    query.par_iter_mut().for_each(|(p, v, mut transform)| {
        if !p.is_finite() {
            return;
        }
        transform.translation.x = p.x;
        transform.translation.y = p.y;
        if let Some(rotation) = v.and_then(|v| heading_rotation(v.0)) {
            transform.rotation = rotation;
        }
    });
}

/// The rotation about +z that turns +x to face along `v`, without trigonometry: for the unit
/// heading `(c, s)` it is the quaternion `(0, 0, sin(a / 2), cos(a / 2))` with
/// `cos(a / 2) = sqrt((1 + c) / 2)` and `sin(a / 2) = sign(s) sqrt((1 - c) / 2)`. `None` for a
/// zero or non-finite `v`.
#[inline]
pub fn heading_rotation(v: Vec2) -> Option<Quat> {
    let u = v.try_normalize()?;
    let half_cos = ((1.0 + u.x) * 0.5).max(0.0).sqrt();
    let half_sin = ((1.0 - u.x) * 0.5).max(0.0).sqrt().copysign(u.y);
    Some(Quat::from_xyzw(0.0, 0.0, half_sin, half_cos))
}
