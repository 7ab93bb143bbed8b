//! The controls, driven through real Bevy input in a headless app: a window entity with a cursor
//! position, and mouse and keyboard input messages.

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
use murmuration_render::WorldView;
use murmuration_render::{ControlledHunter, InputBlocked, PointerProxy};
use murmuration_sim::control::SimulationControl;
use murmuration_sim::prelude::*;
use murmuration_sim::spawn::FlockIndex;
use murmuration_sim::stats::FlockStats;

/// An 800 x 600 window over bounds 0..800 x 0..600: one world unit per pixel, y up.
fn app() -> (App, Entity) {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, InputPlugin))
        .add_plugins(
            BoidsPlugins::default()
                .with_bounds(SimulationBounds::wrap(Rect::new(0.0, 0.0, 800.0, 600.0))),
        )
        .add_plugins(BoidsControlsPlugin)
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    let window = spawn_window(&mut app);
    app.update();
    (app, window)
}

fn click(app: &mut App, window: Entity, button: MouseButton) {
    for state in [ButtonState::Pressed, ButtonState::Released] {
        mouse_button(app, window, button, state);
    }
}

fn press_key(app: &mut App, window: Entity, key_code: KeyCode, logical_key: Key) {
    for state in [ButtonState::Pressed, ButtonState::Released] {
        key(app, window, key_code, logical_key.clone(), state);
    }
}

fn proxy(app: &mut App) -> Option<(Vec2, bool, bool)> {
    let mut q = app
        .world_mut()
        .query_filtered::<(&Position, Has<Predator>, Has<Attractor>), With<PointerProxy>>();
    let all: Vec<_> = q.iter(app.world()).map(|(p, a, b)| (p.0, a, b)).collect();
    assert!(all.len() <= 1, "one pointer proxy at most");
    all.first().copied()
}

fn obstacles(app: &mut App) -> Vec<(Vec2, f32)> {
    let mut q = app.world_mut().query::<(&Position, &Obstacle)>();
    q.iter(app.world())
        .map(|(p, o)| (p.0, o.radius().expect("a placed obstacle is round")))
        .collect()
}

#[test]
fn the_predator_follows_the_cursor() {
    let (mut app, window) = app();
    assert_eq!(proxy(&mut app), None, "no cursor, no predator");
    set_cursor(&mut app, window, Some(Vec2::new(400.0, 300.0)));
    app.update();
    assert_eq!(
        proxy(&mut app),
        Some((Vec2::new(400.0, 300.0), true, false))
    );
    // Screen y grows down, world y up.
    set_cursor(&mut app, window, Some(Vec2::new(650.0, 100.0)));
    app.update();
    assert_eq!(
        proxy(&mut app),
        Some((Vec2::new(650.0, 500.0), true, false))
    );
    // As an attractor instead.
    app.world_mut().resource_mut::<FlockControls>().pointer = PointerRole::Attractor;
    app.update();
    app.update();
    assert_eq!(
        proxy(&mut app),
        Some((Vec2::new(650.0, 500.0), false, true))
    );
    // Over the UI, or outside the window: gone.
    app.world_mut().resource_mut::<InputBlocked>().pointer = true;
    app.update();
    assert_eq!(proxy(&mut app), None);
    app.world_mut().resource_mut::<InputBlocked>().pointer = false;
    set_cursor(&mut app, window, None);
    app.update();
    assert_eq!(proxy(&mut app), None);
}

#[test]
fn boids_flee_the_cursor() {
    let (mut app, window) = app();
    // 30 units from the cursor, flying straight at it.
    let cursor = Vec2::new(400.0, 300.0);
    let boid = app
        .world_mut()
        .spawn((
            Boid,
            Position(Vec2::new(430.0, 300.0)),
            Velocity(Vec2::new(-60.0, 0.0)),
        ))
        .id();
    set_cursor(&mut app, window, Some(cursor));
    for _ in 0..64 {
        app.update();
    }
    let p = app.world().get::<Position>(boid).unwrap().0;
    let v = app.world().get::<Velocity>(boid).unwrap().0;
    assert!(p.distance(cursor) > 60.0, "the boid fled to {p}");
    assert!(v.dot(p - cursor) > 0.0, "and keeps flying away: {v}");
}

#[test]
fn a_click_places_an_obstacle_and_a_second_click_removes_it() {
    let (mut app, window) = app();
    set_cursor(&mut app, window, Some(Vec2::new(200.0, 150.0)));
    click(&mut app, window, MouseButton::Left);
    let radius = app.world().resource::<FlockControls>().obstacle_radius;
    assert_eq!(obstacles(&mut app), vec![(Vec2::new(200.0, 450.0), radius)]);
    // A second click on it, off-centre but inside, removes it.
    set_cursor(&mut app, window, Some(Vec2::new(210.0, 160.0)));
    click(&mut app, window, MouseButton::Left);
    assert!(obstacles(&mut app).is_empty());
    // Clicks over the UI do nothing.
    app.world_mut().resource_mut::<InputBlocked>().pointer = true;
    click(&mut app, window, MouseButton::Left);
    assert!(obstacles(&mut app).is_empty());
}

#[test]
fn keys_pause_step_reset_and_hide() {
    let (mut app, window) = app();
    press_key(&mut app, window, KeyCode::Space, Key::Space);
    assert!(app.world().resource::<SimulationControl>().paused);
    let steps = app.world().resource::<FlockStats>().steps;
    press_key(
        &mut app,
        window,
        KeyCode::Period,
        Key::Character(".".into()),
    );
    app.update();
    assert_eq!(app.world().resource::<FlockStats>().steps, steps + 1);
    press_key(&mut app, window, KeyCode::Space, Key::Space);
    assert!(!app.world().resource::<SimulationControl>().paused);
    press_key(&mut app, window, KeyCode::KeyH, Key::Character("h".into()));
    assert!(!app.world().resource::<FlockControls>().panel_visible);
    // R resets the population to its seed.
    app.insert_resource(FlockPopulation::new(20, 9));
    app.update();
    app.update();
    let start: Vec<Vec2> = positions(&mut app);
    for _ in 0..20 {
        app.update();
    }
    assert_ne!(positions(&mut app), start, "the flock moved on");
    // The key is read in `Update`, after that frame's fixed step; the next frame's step resets
    // the flock and runs its first step; one more matches the two steps `start` had.
    press_key(&mut app, window, KeyCode::KeyR, Key::Character("r".into()));
    app.update();
    assert_eq!(
        positions(&mut app),
        start,
        "back to where the seed started it"
    );
}

fn positions(app: &mut App) -> Vec<Vec2> {
    let mut q = app
        .world_mut()
        .query_filtered::<(&FlockIndex, &Position), With<Boid>>();
    let mut v: Vec<_> = q.iter(app.world()).map(|(i, p)| (i.0, p.0)).collect();
    v.sort_by_key(|x| x.0);
    v.into_iter().map(|x| x.1).collect()
}

#[test]
fn the_controls_keep_the_asked_number_of_hunters() {
    let (mut app, _) = app();
    let count = |app: &mut App| {
        let mut q = app
            .world_mut()
            .query_filtered::<(), (With<Hunter>, With<ControlledHunter>)>();
        q.iter(app.world()).count()
    };
    assert_eq!(count(&mut app), 0);
    app.world_mut().resource_mut::<FlockControls>().hunters = 3;
    app.update();
    assert_eq!(count(&mut app), 3);
    app.world_mut().resource_mut::<FlockControls>().hunters = 1;
    app.update();
    assert_eq!(count(&mut app), 1);
}

#[test]
fn the_view_fits_the_bounds_beside_the_panel() {
    let bounds = Rect::new(0.0, 0.0, 800.0, 600.0);
    // A wide window: the height decides the scale; the bounds sit centred.
    let view = WorldView::fit(bounds, Vec2::new(1600.0, 600.0), 0.0);
    assert_eq!(view.rect, Rect::new(-400.0, 0.0, 1200.0, 600.0));
    // A 300-pixel panel on the left: the bounds fit into the other 500 pixels.
    let view = WorldView::fit(bounds, Vec2::new(800.0, 600.0), 300.0);
    let free_left = view.cursor_to_world(Vec2::new(300.0, 300.0));
    let free_right = view.cursor_to_world(Vec2::new(800.0, 300.0));
    assert!((free_left.x - 0.0).abs() < 1e-3 && (free_right.x - 800.0).abs() < 1e-3);
    assert!(view.rect.height() >= 600.0);
}
