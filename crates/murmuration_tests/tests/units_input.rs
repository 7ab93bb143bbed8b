//! Selecting and ordering units through real Bevy input: a window entity with a cursor, mouse
//! button and keyboard messages.

mod input;

use bevy::input::ButtonState;
use bevy::input::InputPlugin;
use bevy::input::keyboard::Key;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use input::*;
use murmuration_render::BoidsControlsPlugin;
use murmuration_render::FlockControls;
use murmuration_render::PointerRole;
use murmuration_render::prelude::*;
use murmuration_sim::Unit;
use murmuration_sim::prelude::*;
use murmuration_sim::units::MoveOrder;
use murmuration_sim::units::Selected;

/// An 800 x 600 window over bounds 0..800 x 0..600 (one unit per pixel, y up) with units at
/// (100 + 40 i, 100) for i in 0..5 and (100 + 40 i, 300) for i in 0..5.
fn app() -> (App, Entity, Vec<Entity>) {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, InputPlugin))
        .add_plugins(
            BoidsPlugins::default().with_bounds(SimulationBounds::turn_back(Rect::new(
                0.0, 0.0, 800.0, 600.0,
            ))),
        )
        .add_plugins((BoidsControlsPlugin, BoidsUnitControlsPlugin))
        .insert_resource(FlockControls {
            pointer: PointerRole::Off,
            click_obstacles: false,
            ..default()
        })
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    let window = spawn_window(&mut app);
    let mut units = Vec::new();
    for row in [100.0, 300.0] {
        for i in 0..5 {
            let p = Vec2::new(100.0 + 40.0 * i as f32, row);
            units.push(app.world_mut().spawn((Unit, Position(p))).id());
        }
    }
    app.update();
    (app, window, units)
}

/// The window position of world point `p` (y flips).
fn screen(p: Vec2) -> Vec2 {
    Vec2::new(p.x, 600.0 - p.y)
}

fn cursor(app: &mut App, window: Entity, at: Vec2) {
    set_cursor(app, window, Some(at));
}

fn shift(app: &mut App, window: Entity, state: ButtonState) {
    key(app, window, KeyCode::ShiftLeft, Key::Shift, state);
}

/// A left click at `world`. The command is read in `Update`, after that frame's fixed step; the
/// next frame's step carries it out, hence the extra update.
fn click(app: &mut App, window: Entity, world: Vec2) {
    cursor(app, window, screen(world));
    mouse_button(app, window, MouseButton::Left, ButtonState::Pressed);
    mouse_button(app, window, MouseButton::Left, ButtonState::Released);
    app.update();
}

fn drag(app: &mut App, window: Entity, from: Vec2, to: Vec2) {
    cursor(app, window, screen(from));
    mouse_button(app, window, MouseButton::Left, ButtonState::Pressed);
    cursor(app, window, screen((from + to) / 2.0));
    app.update();
    cursor(app, window, screen(to));
    app.update();
    mouse_button(app, window, MouseButton::Left, ButtonState::Released);
    app.update();
}

fn selection(app: &mut App) -> Vec<Entity> {
    let mut q = app.world_mut().query_filtered::<Entity, With<Selected>>();
    let mut v: Vec<_> = q.iter(app.world()).collect();
    v.sort();
    v
}

fn sorted(mut v: Vec<Entity>) -> Vec<Entity> {
    v.sort();
    v
}

#[test]
fn a_click_selects_exactly_the_unit_under_the_cursor() {
    let (mut app, window, units) = app();
    click(&mut app, window, Vec2::new(143.0, 102.0));
    assert_eq!(selection(&mut app), vec![units[1]]);
    // Another click moves the selection.
    click(&mut app, window, Vec2::new(260.0, 298.0));
    assert_eq!(selection(&mut app), vec![units[9]]);
}

#[test]
fn a_drag_selects_exactly_the_units_inside() {
    let (mut app, window, units) = app();
    // Dragged from bottom right to top left: the corners' order does not matter.
    drag(
        &mut app,
        window,
        Vec2::new(230.0, 330.0),
        Vec2::new(130.0, 60.0),
    );
    assert_eq!(
        selection(&mut app),
        sorted(vec![
            units[1], units[2], units[3], units[6], units[7], units[8]
        ])
    );
    // The box was shown while dragging and is hidden again.
    let mut q = app
        .world_mut()
        .query_filtered::<&Visibility, With<murmuration_render::SelectionBox>>();
    assert_eq!(*q.single(app.world()).unwrap(), Visibility::Hidden);
}

#[test]
fn shift_adds_and_empty_ground_clears() {
    let (mut app, window, units) = app();
    click(&mut app, window, Vec2::new(100.0, 100.0));
    shift(&mut app, window, ButtonState::Pressed);
    click(&mut app, window, Vec2::new(260.0, 100.0));
    drag(
        &mut app,
        window,
        Vec2::new(90.0, 290.0),
        Vec2::new(150.0, 310.0),
    );
    shift(&mut app, window, ButtonState::Released);
    assert_eq!(
        selection(&mut app),
        sorted(vec![units[0], units[4], units[5], units[6]])
    );
    // A click where there is no unit clears the selection.
    click(&mut app, window, Vec2::new(600.0, 500.0));
    assert_eq!(selection(&mut app), vec![]);
}

#[test]
fn a_right_click_orders_the_selected_units_and_only_those() {
    let (mut app, window, units) = app();
    drag(
        &mut app,
        window,
        Vec2::new(50.0, 50.0),
        Vec2::new(300.0, 150.0),
    );
    let target = Vec2::new(600.0, 450.0);
    cursor(&mut app, window, screen(target));
    mouse_button(&mut app, window, MouseButton::Right, ButtonState::Pressed);
    mouse_button(&mut app, window, MouseButton::Right, ButtonState::Released);
    app.update();
    for &u in &units[..5] {
        assert_eq!(app.world().get::<MoveOrder>(u).unwrap().target, target);
        assert_eq!(app.world().get::<Arrive>(u).unwrap().target, target);
    }
    for &u in &units[5..] {
        assert!(app.world().get::<MoveOrder>(u).is_none());
    }
    // They walk there and settle within a crowd's radius.
    for _ in 0..64 * 12 {
        app.update();
    }
    for &u in &units[..5] {
        let p = app.world().get::<Position>(u).unwrap().0;
        assert!(p.distance(target) < 60.0, "{p}");
        assert!(app.world().get::<MoveOrder>(u).unwrap().settled);
    }
}
