//! [`OrbitCamera`]: a camera that turns round a point (drag with the left mouse button), moves
//! the point across the view (drag with the right button) and moves in and out (mouse
//! wheel).

use bevy::camera::SubCameraView;
use bevy::input::mouse::AccumulatedMouseScroll;
use bevy::prelude::*;
use bevy::window::CursorMoved;

use crate::controls::{InputBlocked, ViewInsets};

/// Put on a `Camera3d` to orbit `focus` at `distance`, from `yaw` round the vertical and
/// `pitch` above the horizon (radians). The plugin places the camera every frame.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct OrbitCamera {
    /// The point it looks at.
    pub focus: Vec3,
    /// How far from it.
    pub distance: f32,
    /// Round the vertical, radians.
    pub yaw: f32,
    /// Above the horizon, radians (kept within about 85 degrees either way).
    pub pitch: f32,
}

impl Default for OrbitCamera {
    /// Looking at the origin from 1,500 units away, a little round and above it.
    fn default() -> Self {
        Self {
            focus: Vec3::ZERO,
            distance: 1500.0,
            yaw: 0.5,
            pitch: 0.3,
        }
    }
}

impl OrbitCamera {
    /// Where the camera stands.
    pub fn eye(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.focus + Vec3::new(cp * sy, sp, cp * cy) * self.distance
    }
}

/// Turns, pans and zooms each [`OrbitCamera`] from the mouse, and places it.
///
/// Drags follow the cursor (its moves in the window, not the mouse's raw motion): the scene
/// turns and slides under the pointer as far as the pointer went, and it works wherever the
/// window gets cursor events (remote desktops, tablets, and X servers without raw input).
pub(crate) fn orbit(
    blocked: Res<InputBlocked>,
    buttons: Res<ButtonInput<MouseButton>>,
    mut moves: MessageReader<CursorMoved>,
    scroll: Res<AccumulatedMouseScroll>,
    mut cameras: Query<(&mut OrbitCamera, &mut Transform)>,
) {
    let moved: Vec2 = moves.read().filter_map(|m| m.delta).sum();
    for (mut orbit, mut transform) in &mut cameras {
        // Drags and scrolls over the UI are the UI's.
        let free = !blocked.pointer;
        if free && buttons.pressed(MouseButton::Left) {
            orbit.yaw -= moved.x * 0.005;
            orbit.pitch = (orbit.pitch + moved.y * 0.005).clamp(-1.48, 1.48);
        }
        if free && buttons.pressed(MouseButton::Right) {
            // The focus follows the pointer across the view: about one pixel of the focus's
            // depth per pixel moved (the view is some 1,000 pixels across a 60 degree field).
            let (right, up) = (transform.right(), transform.up());
            let per_pixel = orbit.distance * 0.0012;
            orbit.focus += (right * -moved.x + up * moved.y) * per_pixel;
        }
        if free && scroll.delta.y != 0.0 {
            orbit.distance = (orbit.distance * (1.0 - scroll.delta.y * 0.1)).clamp(1.0, 1e6);
        }
        *transform = Transform::from_translation(orbit.eye()).looking_at(orbit.focus, Vec3::Y);
    }
}

/// Centres each [`OrbitCamera`]'s image in the part of the window the UI leaves
/// ([`ViewInsets`]): the camera draws the left part of an image as much wider as the UI covers,
/// so that the image's centre, where the focus is, falls in the middle of the rest.
pub(crate) fn fit_beside_ui(
    insets: Res<ViewInsets>,
    windows: Query<&Window, With<bevy::window::PrimaryWindow>>,
    mut cameras: Query<&mut Camera, With<OrbitCamera>>,
) {
    let Ok(window) = windows.single() else { return };
    let size = window.size().round().as_uvec2();
    let covered = insets.left.round().max(0.0) as u32;
    let sub_view = (covered > 0 && covered < size.x && size.y > 0).then(|| SubCameraView {
        full_size: UVec2::new(size.x + covered, size.y),
        offset: Vec2::ZERO,
        size,
    });
    for mut camera in &mut cameras {
        if camera.sub_camera_view != sub_view {
            camera.sub_camera_view = sub_view;
        }
    }
}
