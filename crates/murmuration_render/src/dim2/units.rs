//! Mouse controls for strategy-game units ([`murmuration_sim::units`]): left click selects the unit
//! under the cursor, a left drag selects every unit in the rectangle, Shift adds to the
//! selection, a click on empty ground clears it, and a right click sends the selection there.
//! Selected units are highlighted, the rectangle is drawn while dragging, and a ring marks each
//! order's target until its units have settled.

use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use murmuration_sim::units::{OrderMarker, Selected, Unit, UnitCommand};

use super::view::WorldView;
use super::visuals::FlockShapes;
use crate::RenderSystems;
use crate::controls::InputBlocked;
use crate::look::FlockLook;

/// Settings of the unit controls.
#[derive(Resource, Reflect, Debug, Clone, PartialEq)]
#[reflect(Resource, Debug, Clone)]
pub struct UnitControls {
    /// Whether the mouse selects and orders units.
    pub enabled: bool,
    /// A press and release closer than this are a click, not a drag, logical pixels.
    pub drag_threshold: f32,
}

impl Default for UnitControls {
    fn default() -> Self {
        Self {
            enabled: true,
            drag_threshold: 4.0,
        }
    }
}

/// The rectangle drawn while dragging a selection.
#[derive(Component, Debug, Default)]
pub struct SelectionBox;

/// Where the current left drag started, in window coordinates.
#[derive(Resource, Debug, Default, Clone, Copy, PartialEq)]
pub struct DragStart(pub Option<Vec2>);

/// Depth of the selection box and order rings, above everything on the screen layer.
const OVERLAY_Z: f32 = 50.0;

/// Spawns the (hidden) selection box.
pub(crate) fn setup_selection_box(mut commands: Commands, look: Option<Res<FlockLook>>) {
    let look = look.map(|l| l.clone()).unwrap_or_default();
    commands.spawn((
        Name::new("Selection box"),
        SelectionBox,
        Sprite {
            color: look.selected.with_alpha(0.18),
            custom_size: Some(Vec2::ONE),
            ..default()
        },
        Transform::from_xyz(0.0, 0.0, OVERLAY_Z),
        Visibility::Hidden,
    ));
}

/// Turns mouse input into [`UnitCommand`]s and draws the selection box.
pub(crate) fn unit_input(
    controls: Res<UnitControls>,
    blocked: Res<InputBlocked>,
    buttons: Res<ButtonInput<MouseButton>>,
    keys: Res<ButtonInput<KeyCode>>,
    view: Option<Res<WorldView>>,
    window: Query<&Window, With<PrimaryWindow>>,
    mut drag: ResMut<DragStart>,
    mut commands: MessageWriter<UnitCommand>,
    mut selection_box: Query<(&mut Transform, &mut Visibility), With<SelectionBox>>,
) {
    let (Ok(window), Some(view)) = (window.single(), view) else {
        return;
    };
    if !controls.enabled {
        drag.0 = None;
        return;
    }
    let cursor = window.cursor_position();
    let add = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
    if buttons.just_pressed(MouseButton::Left) && !blocked.pointer {
        drag.0 = cursor;
    }
    if buttons.just_pressed(MouseButton::Right)
        && !blocked.pointer
        && let Some(cursor) = cursor
    {
        commands.write(UnitCommand::MoveTo {
            target: view.cursor_to_world(cursor),
        });
    }
    let dragging = drag.0.zip(cursor);
    if buttons.just_released(MouseButton::Left)
        && let Some((start, end)) = dragging
    {
        drag.0 = None;
        if start.distance(end) < controls.drag_threshold {
            commands.write(UnitCommand::SelectAt {
                point: view.cursor_to_world(end),
                add,
            });
        } else {
            let rect = Rect::from_corners(view.cursor_to_world(start), view.cursor_to_world(end));
            commands.write(UnitCommand::SelectIn { rect, add });
        }
    }
    let shown = drag
        .0
        .zip(cursor)
        .filter(|(start, end)| start.distance(*end) >= controls.drag_threshold);
    for (mut transform, mut visibility) in &mut selection_box {
        match shown {
            Some((start, end)) => {
                let rect =
                    Rect::from_corners(view.cursor_to_world(start), view.cursor_to_world(end));
                transform.translation = rect.center().extend(OVERLAY_Z);
                transform.scale = rect.size().extend(1.0);
                visibility.set_if_neq(Visibility::Inherited);
            }
            None => {
                visibility.set_if_neq(Visibility::Hidden);
            }
        }
    }
}

/// Highlights selected units.
pub(crate) fn highlight_selected(
    look: Option<Res<FlockLook>>,
    mut units: Query<(&mut Sprite, Has<Selected>), With<Unit>>,
) {
    let Some(look) = look else { return };
    for (mut sprite, selected) in &mut units {
        let color = if selected { look.selected } else { look.unit };
        if sprite.color != color {
            sprite.color = color;
        }
    }
}

/// Draws a ring at a new order's target.
pub(crate) fn on_add_order_marker(
    add: On<Add, OrderMarker>,
    mut commands: Commands,
    shapes: Option<Res<FlockShapes>>,
    look: Option<Res<FlockLook>>,
    positions: Query<&murmuration_sim::Position>,
) {
    let (Some(shapes), Some(look), Ok(position)) = (shapes, look, positions.get(add.entity)) else {
        return;
    };
    commands.entity(add.entity).insert((
        Sprite {
            image: shapes.ring.clone(),
            color: look.selected.with_alpha(0.8),
            custom_size: Some(Vec2::splat(look.unit_size * 1.6)),
            ..default()
        },
        Transform::from_translation(position.0.extend(OVERLAY_Z)),
    ));
}

/// Mouse controls for strategy-game units (see `murmuration_sim::units`): select, drag-select, Shift, right-click
/// orders; highlights and markers when [`BoidsRenderPlugin`](crate::BoidsRenderPlugin) draws. Usable headless with a window
/// entity and Bevy's input. Turn the flock controls' pointer predator and click-to-place obstacles
/// off with it ([`FlockControls`](crate::FlockControls)), as they share the left button.
#[derive(Debug, Clone, Default)]
pub struct BoidsUnitControlsPlugin;

impl Plugin for BoidsUnitControlsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<UnitControls>()
            .init_resource::<DragStart>()
            .init_resource::<InputBlocked>()
            .register_type::<UnitControls>()
            .add_systems(Startup, setup_selection_box)
            .add_systems(Update, unit_input.in_set(RenderSystems::Controls))
            .add_systems(Update, highlight_selected.in_set(RenderSystems::Draw))
            .add_observer(on_add_order_marker);
    }
}
