//! Input helpers shared by the headless input tests: an 800 x 600 primary window, the cursor,
//! and mouse and keyboard messages, each followed by an update.
#![allow(dead_code)]

use bevy::input::ButtonState;
use bevy::input::keyboard::{Key, KeyboardInput};
use bevy::input::mouse::MouseButtonInput;
use bevy::prelude::*;
use bevy::window::{PrimaryWindow, WindowResolution};

/// Spawns an 800 x 600 primary window (no renderer needed) and returns it.
pub fn spawn_window(app: &mut App) -> Entity {
    app.world_mut()
        .spawn((
            Window {
                resolution: WindowResolution::new(800, 600),
                ..default()
            },
            PrimaryWindow,
        ))
        .id()
}

/// Puts the cursor at `cursor` in window coordinates (`None`: outside the window).
pub fn set_cursor(app: &mut App, window: Entity, cursor: Option<Vec2>) {
    app.world_mut()
        .get_mut::<Window>(window)
        .unwrap()
        .set_cursor_position(cursor);
}

/// Presses or releases a mouse button, then updates.
pub fn mouse_button(app: &mut App, window: Entity, button: MouseButton, state: ButtonState) {
    app.world_mut().write_message(MouseButtonInput {
        button,
        state,
        window,
    });
    app.update();
}

/// Presses or releases a key, then updates.
pub fn key(app: &mut App, window: Entity, key_code: KeyCode, logical_key: Key, state: ButtonState) {
    app.world_mut().write_message(KeyboardInput {
        key_code,
        logical_key,
        state,
        text: None,
        repeat: false,
        window,
    });
    app.update();
}
