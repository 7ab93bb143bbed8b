//! Where the pointer is in the 3D world ([`PointerPosition`], for the shared
//! [`controls`](crate::controls): the mouse as a predator or an attractor): the point where the
//! cursor's ray crosses the horizontal plane through the [`OrbitCamera`]'s focus (the middle of
//! the flock); `None` while the cursor is outside the window or its ray misses the plane. And
//! what only 3D has: the orbit camera's mouse controls, and its image centred beside the UI.

use bevy::prelude::*;
use bevy::window::PrimaryWindow;

use super::camera::{OrbitCamera, fit_beside_ui, orbit};
use crate::RenderSystems;
use crate::controls::PointerPosition;

/// The one-line help the 3D examples show.
pub const HELP: &str = "Mouse: predator (or attractor)   Drag: turn round   Right-drag: pan   \
     Wheel: zoom   Space: pause   .: step   R: reset   H: hide panel";

/// Adds the 3D side of [`BoidsControlsPlugin`](crate::BoidsControlsPlugin).
pub(crate) fn build(app: &mut App) {
    // The camera's drags read the cursor's moves (a window's messages; registered here too for
    // apps and tests without a window plugin).
    app.add_message::<bevy::window::CursorMoved>()
        .add_systems(Update, fit_beside_ui.in_set(RenderSystems::View))
        .add_systems(
            Update,
            orbit.in_set(RenderSystems::Controls).before(track_pointer),
        );
}

/// Keeps [`PointerPosition`] at the pointer.
pub(crate) fn track_pointer(
    mut pointer: ResMut<PointerPosition>,
    windows: Query<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform, &OrbitCamera)>,
) {
    let at = windows
        .single()
        .ok()
        .and_then(Window::cursor_position)
        .and_then(|cursor| {
            let (camera, transform, orbit) = cameras.iter().next()?;
            let ray = camera.viewport_to_world(transform, cursor).ok()?;
            ray.plane_intersection_point(orbit.focus, InfinitePlane3d::new(Vec3::Y))
        });
    pointer.set_if_neq(PointerPosition(at));
}
