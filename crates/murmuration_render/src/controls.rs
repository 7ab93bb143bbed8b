//! Pointer and key controls, the same in 2D and in 3D: the mouse (or a finger) as a predator or
//! an attractor, hunters on demand, and the keys Space (pause), `.` (single step), R (reset to the
//! seed) and H (hide the panel). Where the pointer is in the world ([`PointerPosition`]) comes
//! from each dimension's drawing, which adds what only its dimension has (in 2D, clicks that
//! place and remove obstacles; in 3D, the orbit camera's drags).
//!
//! These systems only need a window and Bevy's input, not the renderer, so headless tests can
//! drive them with simulated cursor positions and button presses.

use bevy::prelude::*;
use murmuration_sim::control::SimulationControl;
use murmuration_sim::math::{DIM, Vector};
use murmuration_sim::population::ResetFlock;
use murmuration_sim::prelude::*;

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
    /// Whether a click on empty space places an obstacle and a click on one removes it (2D).
    pub click_obstacles: bool,
    /// Radius of a placed obstacle, world units (2D).
    pub obstacle_radius: f32,
    /// Whether a right-drag draws a wall (a line segment obstacle) and a right click on an
    /// obstacle removes it (2D). Off by default: strategy units move on a right click.
    pub draw_walls: bool,
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
            draw_walls: false,
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

/// Space the UI covers along the window's edges, logical pixels (the settings panel writes it):
/// the view centres the flock in the rest (in 2D it fits the bounds there; in 3D the camera's
/// image shifts so that its centre is the middle of the rest).
#[derive(Resource, Reflect, Debug, Clone, Copy, Default, PartialEq)]
#[reflect(Resource, Debug, Clone, Default)]
pub struct ViewInsets {
    /// Covered on the left (a side panel).
    pub left: f32,
}

/// Where the pointer is in the world, kept by the drawing's `pointer` module each frame before
/// the controls run; `None` while it is outside the view.
#[derive(Resource, Debug, Clone, Copy, Default, PartialEq)]
pub struct PointerPosition(pub Option<Vector>);

/// Moves the pointer proxy to the pointer, gives it its role, and removes it when the pointer
/// leaves the view, is over the UI, or has no role.
pub(crate) fn follow_pointer(
    mut commands: Commands,
    controls: Res<FlockControls>,
    blocked: Res<InputBlocked>,
    pointer: Res<PointerPosition>,
    mut proxy: Query<(Entity, &mut Position, Has<Predator>, Has<Attractor>), With<PointerProxy>>,
) {
    let point = pointer
        .0
        .filter(|_| controls.pointer != PointerRole::Off && !blocked.pointer);
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

/// Keeps [`FlockControls::hunters`] hunters in the world, entering near the bounds' corners, at
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
    let (min, max) = (bounds.rect.min, bounds.rect.max);
    let centre = (min + max) * 0.5;
    // Corners in opposite pairs: the first two hunters enter across the world from each other.
    let corner = |i: usize| {
        let k = i & !1;
        let bits = if i % 2 == 1 { !k } else { k };
        let mut at = min;
        for axis in 0..DIM {
            if bits >> axis & 1 == 1 {
                at[axis] = max[axis];
            }
        }
        at
    };
    for i in have..controls.hunters {
        let at = corner(i % (1 << DIM)).lerp(centre, 0.15);
        commands.spawn((
            Name::new("Hunter"),
            ControlledHunter,
            Hunter::default(),
            MaxSpeed(controls.hunter_speed),
            Position(at),
            Velocity((centre - at).normalize_or_zero() * controls.hunter_speed),
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
