//! Pointer, click and key controls: the mouse (or a finger) as a predator or an attractor,
//! clicks that place and remove obstacles, hunters on demand, and the keys Space (pause),
//! `.` (single step), R (reset to the seed) and H (hide the panel).
//!
//! These systems only need a window and Bevy's input, not the renderer, so headless tests can
//! drive them with simulated cursor positions and button presses.

use bevy::input::touch::Touches;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use murmuration_sim::{
    Attractor, Hunter, MaxSpeed, Obstacle, Position, Predator, ResetFlock, SimulationBounds,
    SimulationControl, Velocity,
};

use crate::view::{ViewInsets, WorldView};

/// What the pointer is to the flock while it is over the view.
#[derive(Reflect, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[reflect(Debug, Clone, PartialEq, Default)]
pub enum PointerRole {
    /// A predator: boids within the flee radius flee it.
    #[default]
    Predator,
    /// An attractor: boids seek it.
    Attractor,
    /// Nothing.
    Off,
}

/// The controls' settings and state.
#[derive(Resource, Reflect, Debug, Clone, PartialEq)]
#[reflect(Resource, Debug, Clone)]
pub struct FlockControls {
    /// What the pointer is.
    pub pointer: PointerRole,
    /// Whether a click on empty space places an obstacle and a click on one removes it.
    pub click_obstacles: bool,
    /// Radius of a placed obstacle, world units.
    pub obstacle_radius: f32,
    /// How many hunters the controls keep in the world.
    pub hunters: usize,
    /// Their top speed, world units per second.
    pub hunter_speed: f32,
    /// Whether the keys (Space, `.`, R, H) work.
    pub keys: bool,
    /// Whether the settings panel is shown (H toggles it).
    pub panel_visible: bool,
}

impl Default for FlockControls {
    fn default() -> Self {
        Self {
            pointer: PointerRole::Predator,
            click_obstacles: true,
            obstacle_radius: 30.0,
            hunters: 0,
            hunter_speed: Hunter::DEFAULT_MAX_SPEED,
            keys: true,
            panel_visible: true,
        }
    }
}

/// Set by the UI each frame: input it has taken, which the flock controls then ignore.
#[derive(Resource, Reflect, Debug, Clone, Copy, Default, PartialEq, Eq)]
#[reflect(Resource, Debug, Clone, Default)]
pub struct InputBlocked {
    /// The pointer is over (or dragging) the UI.
    pub pointer: bool,
    /// The UI is typing into a text field.
    pub keyboard: bool,
}

/// The entity that follows the pointer, as a [`Predator`] or an [`Attractor`].
#[derive(Component, Debug, Default)]
pub struct PointerProxy;

/// A hunter spawned by the controls (see [`FlockControls::hunters`]).
#[derive(Component, Debug, Default)]
pub struct ControlledHunter;

/// Where the pointer is in the world: the mouse cursor, else the first touch.
pub fn pointer_world(window: &Window, touches: Option<&Touches>, view: &WorldView) -> Option<Vec2> {
    window
        .cursor_position()
        .or_else(|| touches.and_then(Touches::first_pressed_position))
        .map(|p| view.cursor_to_world(p))
}

/// Keeps the [`WorldView`] up to date without a renderer (the view module does it with one).
pub(crate) fn update_world_view(
    mut commands: Commands,
    bounds: Res<SimulationBounds>,
    insets: Res<ViewInsets>,
    window: Query<&Window, With<PrimaryWindow>>,
    view: Option<Res<WorldView>>,
) {
    if let Ok(window) = window.single() {
        let fitted = WorldView::fit(bounds.rect, window.size(), insets.left);
        if view.as_deref() != Some(&fitted) {
            commands.insert_resource(fitted);
        }
    }
}

/// Moves the pointer proxy to the pointer, gives it its role, and removes it when the pointer
/// leaves the view, is over the UI, or has no role.
pub(crate) fn follow_pointer(
    mut commands: Commands,
    controls: Res<FlockControls>,
    blocked: Res<InputBlocked>,
    view: Option<Res<WorldView>>,
    window: Query<&Window, With<PrimaryWindow>>,
    touches: Option<Res<Touches>>,
    mut proxy: Query<(Entity, &mut Position, Has<Predator>, Has<Attractor>), With<PointerProxy>>,
) {
    let point = match (window.single(), view) {
        (Ok(window), Some(view)) if controls.pointer != PointerRole::Off && !blocked.pointer => {
            pointer_world(window, touches.as_deref(), &view)
        }
        _ => None,
    };
    let existing = proxy.single_mut().ok();
    match (point, existing) {
        (Some(point), Some((entity, mut position, predator, attractor))) => {
            position.0 = point;
            let mut proxy = commands.entity(entity);
            match controls.pointer {
                PointerRole::Predator if !predator => {
                    proxy.remove::<Attractor>().insert(Predator);
                }
                PointerRole::Attractor if !attractor => {
                    proxy.remove::<Predator>().insert(Attractor);
                }
                _ => {}
            }
        }
        (Some(point), None) => {
            let mut proxy = commands.spawn((Name::new("Pointer"), PointerProxy, Position(point)));
            if controls.pointer == PointerRole::Attractor {
                proxy.insert(Attractor);
            } else {
                proxy.insert(Predator);
            }
        }
        (None, Some((entity, ..))) => commands.entity(entity).despawn(),
        (None, None) => {}
    }
}

/// A click (or tap) on empty space places an obstacle; on an obstacle, removes it.
pub(crate) fn click_obstacles(
    mut commands: Commands,
    controls: Res<FlockControls>,
    blocked: Res<InputBlocked>,
    buttons: Res<ButtonInput<MouseButton>>,
    touches: Option<Res<Touches>>,
    view: Option<Res<WorldView>>,
    window: Query<&Window, With<PrimaryWindow>>,
    obstacles: Query<(Entity, &Position, &Obstacle)>,
) {
    if !controls.click_obstacles || blocked.pointer {
        return;
    }
    let (Ok(window), Some(view)) = (window.single(), view) else {
        return;
    };
    let tap = touches
        .as_deref()
        .and_then(|t| t.iter_just_pressed().next().map(|touch| touch.position()));
    let screen = if buttons.just_pressed(MouseButton::Left) {
        window.cursor_position()
    } else {
        tap
    };
    let Some(point) = screen.map(|p| view.cursor_to_world(p)) else {
        return;
    };
    let hit = obstacles
        .iter()
        .find(|(_, position, obstacle)| position.distance(point) <= obstacle.radius);
    match hit {
        Some((entity, ..)) => commands.entity(entity).despawn(),
        None => {
            commands.spawn((
                Name::new("Obstacle"),
                Obstacle {
                    radius: controls.obstacle_radius,
                },
                Position(point),
            ));
        }
    }
}

/// Keeps [`FlockControls::hunters`] hunters in the world, entering from the bounds' corners, at
/// [`FlockControls::hunter_speed`].
pub(crate) fn keep_hunters(
    mut commands: Commands,
    controls: Res<FlockControls>,
    bounds: Res<SimulationBounds>,
    mut hunters: Query<(Entity, &mut MaxSpeed), With<ControlledHunter>>,
) {
    for (_, mut speed) in &mut hunters {
        speed.set_if_neq(MaxSpeed(controls.hunter_speed));
    }
    let have = hunters.iter().count();
    let rect = bounds.rect;
    let corners = [
        rect.min,
        rect.max,
        Vec2::new(rect.min.x, rect.max.y),
        Vec2::new(rect.max.x, rect.min.y),
    ];
    for i in have..controls.hunters {
        let at = corners[i % 4].lerp(rect.center(), 0.15);
        commands.spawn((
            Name::new("Hunter"),
            ControlledHunter,
            Hunter::default(),
            MaxSpeed(controls.hunter_speed),
            Position(at),
            Velocity((rect.center() - at).normalize_or_zero() * controls.hunter_speed),
        ));
    }
    for (entity, _) in hunters.iter().skip(controls.hunters) {
        commands.entity(entity).despawn();
    }
}

/// Space pauses, `.` steps once, R resets the flock to its seed, H shows or hides the panel.
pub(crate) fn keys(
    keys: Res<ButtonInput<KeyCode>>,
    blocked: Res<InputBlocked>,
    mut controls: ResMut<FlockControls>,
    mut simulation: ResMut<SimulationControl>,
    mut resets: MessageWriter<ResetFlock>,
) {
    if !controls.keys || blocked.keyboard {
        return;
    }
    if keys.just_pressed(KeyCode::Space) {
        simulation.toggle_pause();
    }
    if keys.just_pressed(KeyCode::Period) {
        simulation.step_once();
    }
    if keys.just_pressed(KeyCode::KeyR) {
        resets.write(ResetFlock);
    }
    if keys.just_pressed(KeyCode::KeyH) {
        controls.panel_visible = !controls.panel_visible;
    }
}

/// The one-line help the examples show.
pub const HELP: &str = "Mouse: predator (or attractor)   Click: place / remove obstacle   \
     Space: pause   .: step   R: reset   H: hide panel";
