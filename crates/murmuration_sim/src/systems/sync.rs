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
        if let Some(v) = v
            && v.length_squared() > 0.0
            && v.is_finite()
        {
            transform.rotation = Quat::from_rotation_z(v.y.atan2(v.x));
        }
    });
}
