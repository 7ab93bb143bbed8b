//! Copy the simulation's state into `Transform`, for rendering and for other plugins.

use bevy::prelude::*;

use crate::components::{Position, PreviousPosition, Velocity};

/// Whether `Transform` shows boids between their last two steps (see [`PreviousPosition`]). The
/// plugin turns it on when the step runs in `FixedUpdate`, where frames and steps do not line up.
#[derive(Resource, Reflect, Debug, Clone, Copy, PartialEq, Eq)]
#[reflect(Resource, Debug, Clone)]
pub struct TransformInterpolation(pub bool);

/// Puts every entity with a [`Position`] at its position (keeping its `z`), interpolated from its
/// [`PreviousPosition`] by how far this frame is into the next fixed step, and turns it to face
/// along its [`Velocity`], if it has one and is moving. Runs in `PostUpdate` before transform
/// propagation.
pub(crate) fn sync_transforms(
    interpolation: Res<TransformInterpolation>,
    time: Res<Time<Fixed>>,
    mut query: Query<(
        &Position,
        Option<&PreviousPosition>,
        Option<&Velocity>,
        &mut Transform,
    )>,
) {
    let t = if interpolation.0 {
        time.overstep_fraction().clamp(0.0, 1.0)
    } else {
        1.0
    };
    query
        .par_iter_mut()
        .for_each(|(p, previous, v, mut transform)| {
            if !p.is_finite() {
                return;
            }
            let at = match previous.and_then(|q| q.0) {
                Some(q) if q.is_finite() => q.lerp(p.0, t),
                _ => p.0,
            };
            if transform.translation.truncate() != at {
                transform.translation.x = at.x;
                transform.translation.y = at.y;
            }
            if let Some(rotation) = v.and_then(|v| heading_rotation(v.0))
                && transform.rotation != rotation
            {
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
