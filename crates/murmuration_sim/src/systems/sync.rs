//! Copy the simulation's state into `Transform`, for rendering and for other plugins.

use bevy::ecs::change_detection::ContiguousMut;
use bevy::prelude::*;

use crate::components::{Position, PreviousPosition, Velocity};
use crate::parallel::{DENSE, Parts, for_each_part};

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
    for (p, previous, v, transforms) in query.contiguous_iter_mut().expect(DENSE) {
        // Only a transform that moved or turned counts as a change.
        let (transforms, mut ticks) = ContiguousMut::bypass_change_detection_split(transforms);
        let now = ticks.this_run();
        let slices = (p, previous, v, transforms, ticks.changed_mut());
        for_each_part(
            slices,
            Parts::EVEN,
            |(p, previous, v, transforms, changed)| {
                for (i, (transform, changed)) in transforms.iter_mut().zip(changed).enumerate() {
                    let previous = previous.and_then(|q| q[i].0);
                    let velocity = v.map(|v| v[i].0);
                    if place(transform, p[i].0, previous, velocity, t) {
                        *changed = now;
                    }
                }
            },
        );
    }
}

/// Puts `transform` at `p` (from `previous` by `t` if there is one), facing along `v` if it is
/// moving, and says whether that changed it.
#[inline]
fn place(
    transform: &mut Transform,
    p: Vec2,
    previous: Option<Vec2>,
    v: Option<Vec2>,
    t: f32,
) -> bool {
    if !p.is_finite() {
        return false;
    }
    let at = match previous {
        Some(q) if q.is_finite() => q.lerp(p, t),
        _ => p,
    };
    let mut changed = false;
    if transform.translation.truncate() != at {
        transform.translation.x = at.x;
        transform.translation.y = at.y;
        changed = true;
    }
    if let Some(rotation) = v.and_then(heading_rotation)
        && transform.rotation != rotation
    {
        transform.rotation = rotation;
        changed = true;
    }
    changed
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
