//! Where the pointer is in the 2D world ([`PointerPosition`], for the shared
//! [`controls`](crate::controls)): the mouse cursor, else the first touch, through the
//! [`WorldView`]; and what only 2D has: a click (or tap) that places or removes an obstacle, and
//! a right-drag that draws a wall.

use bevy::input::touch::Touches;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use murmuration_sim::prelude::*;

use super::view::WorldView;
use crate::RenderSystems;
use crate::controls::{FlockControls, InputBlocked, PointerPosition, ViewInsets};

/// The one-line help the examples show.
pub const HELP: &str = "Mouse: predator (or attractor)   Click: place / remove obstacle   \
     Space: pause   .: step   R: reset   H: hide panel";

/// Adds the 2D side of [`BoidsControlsPlugin`](crate::BoidsControlsPlugin).
pub(crate) fn build(app: &mut App) {
    app.register_type::<WorldView>()
        .init_resource::<WallDraft>()
        .add_systems(Update, update_world_view.in_set(RenderSystems::View))
        .add_systems(
            Update,
            (click_obstacles, draw_walls).in_set(RenderSystems::Controls),
        );
}

/// Where the pointer is in the world: the mouse cursor, else the first touch.
pub fn pointer_world(window: &Window, touches: Option<&Touches>, view: &WorldView) -> Option<Vec2> {
    window
        .cursor_position()
        .or_else(|| touches.and_then(Touches::first_pressed_position))
        .map(|p| view.cursor_to_world(p))
}

/// Keeps [`PointerPosition`] at the pointer.
pub(crate) fn track_pointer(
    mut pointer: ResMut<PointerPosition>,
    view: Option<Res<WorldView>>,
    window: Query<&Window, With<PrimaryWindow>>,
    touches: Option<Res<Touches>>,
) {
    let at = match (window.single(), view) {
        (Ok(window), Some(view)) => pointer_world(window, touches.as_deref(), &view),
        _ => None,
    };
    pointer.set_if_neq(PointerPosition(at));
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

/// A click (or tap) on empty space places an obstacle; on an obstacle, removes it.
pub(crate) fn click_obstacles(
    mut commands: Commands,
    controls: Res<FlockControls>,
    blocked: Res<InputBlocked>,
    buttons: Res<ButtonInput<MouseButton>>,
    touches: Option<Res<Touches>>,
    view: Option<Res<WorldView>>,
    window: Query<&Window, With<PrimaryWindow>>,
    obstacles: Query<(Entity, &Position, &Obstacle, &Transform)>,
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
    match obstacle_at(&obstacles, point, 0.0) {
        Some(entity) => commands.entity(entity).despawn(),
        None => {
            commands.spawn((
                Name::new("Obstacle"),
                Obstacle::round(controls.obstacle_radius),
                Position(point),
            ));
        }
    }
}

/// The obstacle at `point` (within `slack` world units of it), if any.
fn obstacle_at(
    obstacles: &Query<(Entity, &Position, &Obstacle, &Transform)>,
    point: Vec2,
    slack: f32,
) -> Option<Entity> {
    obstacles
        .iter()
        .find(|(_, position, obstacle, transform)| {
            obstacle
                .distance(position.0, transform.rotation, point)
                .is_some_and(|d| d <= slack)
        })
        .map(|(entity, ..)| entity)
}

/// How far the pointer must move, in pixels, for a right press to draw a wall, not remove one.
const WALL_DRAG_PIXELS: f32 = 6.0;

/// The wall being drawn: from where the right-drag started to the pointer, world units (the
/// debug overlays show it).
#[derive(Resource, Debug, Default, Clone, Copy, PartialEq)]
pub(crate) struct WallDraft(pub Option<(Vec2, Vec2)>);

/// A right-drag draws a wall from where it started to where it ends; a right click on an
/// obstacle removes it.
#[allow(clippy::too_many_arguments)]
pub(crate) fn draw_walls(
    mut commands: Commands,
    controls: Res<FlockControls>,
    blocked: Res<InputBlocked>,
    buttons: Res<ButtonInput<MouseButton>>,
    view: Option<Res<WorldView>>,
    window: Query<&Window, With<PrimaryWindow>>,
    obstacles: Query<(Entity, &Position, &Obstacle, &Transform)>,
    mut draft: ResMut<WallDraft>,
    mut start: Local<Option<Vec2>>,
) {
    let (true, Ok(window), Some(view)) = (controls.draw_walls, window.single(), view) else {
        *start = None;
        draft.set_if_neq(WallDraft(None));
        return;
    };
    let cursor = window.cursor_position();
    if buttons.just_pressed(MouseButton::Right) && !blocked.pointer {
        *start = cursor;
    }
    let (Some(from), Some(to)) = (*start, cursor) else {
        draft.set_if_neq(WallDraft(None));
        return;
    };
    let (a, b) = (view.cursor_to_world(from), view.cursor_to_world(to));
    let drawn = from.distance(to) >= WALL_DRAG_PIXELS;
    if buttons.pressed(MouseButton::Right) {
        draft.set_if_neq(WallDraft(drawn.then_some((a, b))));
        return;
    }
    *start = None;
    draft.set_if_neq(WallDraft(None));
    if !buttons.just_released(MouseButton::Right) {
        return;
    }
    if drawn {
        let middle = (a + b) * 0.5;
        commands.spawn((
            Name::new("Wall"),
            Obstacle::from(Segment2d::new(a - middle, b - middle)),
            Position(middle),
        ));
    } else if let Some(entity) = obstacle_at(&obstacles, b, 4.0) {
        commands.entity(entity).despawn();
    }
}

/// Shows the wall being drawn (with the debug overlays' gizmos).
#[cfg(feature = "debug")]
pub(crate) fn show_wall_draft(
    draft: Option<Res<WallDraft>>,
    mut gizmos: Gizmos<crate::debug::FlockDebugGizmos>,
) {
    if let Some(&WallDraft(Some((a, b)))) = draft.as_deref() {
        gizmos.line_2d(a, b, Color::WHITE.with_alpha(0.7));
    }
}
