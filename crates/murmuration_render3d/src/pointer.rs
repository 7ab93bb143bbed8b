//! The mouse as a predator in 3D: a [`Predator`] follows the point where the cursor's ray crosses
//! the horizontal plane through the [`OrbitCamera`]'s focus (the middle of the flock), and is
//! taken away while the cursor is outside the window or its ray misses the plane.

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use murmuration_sim3d::{Position, Predator};

use crate::camera::OrbitCamera;

/// Marks the predator that follows the mouse (see the [module docs](self)).
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct PointerPredator;

/// Moves, spawns or despawns the [`PointerPredator`] to follow the cursor.
pub(crate) fn follow_pointer(
    mut commands: Commands,
    windows: Query<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform, &OrbitCamera)>,
    mut predators: Query<(Entity, &mut Position), With<PointerPredator>>,
) {
    let point = windows
        .single()
        .ok()
        .and_then(Window::cursor_position)
        .and_then(|cursor| {
            let (camera, transform, orbit) = cameras.iter().next()?;
            let ray = camera.viewport_to_world(transform, cursor).ok()?;
            ray.plane_intersection_point(orbit.focus, InfinitePlane3d::new(Vec3::Y))
        });
    match (point, predators.single_mut()) {
        (Some(p), Ok((_, mut at))) => at.0 = p,
        (Some(p), Err(_)) => {
            commands.spawn((
                Name::new("Pointer predator"),
                PointerPredator,
                Predator,
                Position(p),
            ));
        }
        (None, Ok((entity, _))) => commands.entity(entity).despawn(),
        (None, Err(_)) => {}
    }
}
