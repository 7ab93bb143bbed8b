//! Whatever a game feeds the plugin, the flock keeps running and no NaN or infinity reaches
//! another boid. (That each problem is reported once is `told_once.rs`.)

mod common;

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use common::*;
use murmuration_sim::math::{Region, Vector};
use murmuration_sim::obstacles::ObstacleSettings;
use murmuration_sim::prelude::*;
use murmuration_sim::stats::FlockStats;

/// Every boid's state is finite.
fn assert_all_finite(app: &mut App) {
    for (e, p, v) in boids(app) {
        assert!(p.is_finite() && v.is_finite(), "{e}: {p} {v}");
    }
}

fn run_with(params: FlockParams, bounds: SimulationBounds) -> App {
    let mut app = flock_app(params, bounds, 200, 71);
    step(&mut app, 100);
    assert_all_finite(&mut app);
    app
}

#[test]
fn a_nan_or_infinite_boid_is_repaired_and_spreads_nothing() {
    let bounds = SimulationBounds::wrap(rect(300.0, 300.0));
    let mut app = flock_app(FlockParams::default(), bounds, 300, 72);
    step(&mut app, 2);
    let all = boids(&mut app);
    let centre = bounds.rect.center();
    app.world_mut().get_mut::<Position>(all[0].0).unwrap().0 = xyz([f32::NAN, 3.0, 3.0]);
    app.world_mut().get_mut::<Position>(all[1].0).unwrap().0 = Vector::splat(f32::INFINITY);
    app.world_mut().get_mut::<Velocity>(all[2].0).unwrap().0 =
        xyz([0.0, f32::NEG_INFINITY, f32::NEG_INFINITY]);
    app.world_mut().get_mut::<Acceleration>(all[3].0).unwrap().0 = Vector::NAN;
    step(&mut app, 1);
    // Parked: a bad position goes to the centre of the bounds (and the boid flies on from there).
    let p0 = app.world().get::<Position>(all[0].0).unwrap().0;
    assert!(p0.distance(centre) < 5.0, "repaired to {p0}");
    step(&mut app, 200);
    assert_all_finite(&mut app);
    assert_eq!(app.world().resource::<FlockStats>().repaired, 4);
}

#[test]
fn boids_on_exactly_the_same_spot_come_apart() {
    let mut app = app(
        FlockParams::default(),
        SimulationBounds::wrap(rect(400.0, 400.0)),
    );
    let ids: Vec<Entity> = (0..5)
        .map(|_| spawn_boid(&mut app, Vector::splat(200.0), xyz([60.0, 0.0, 0.0]), 0))
        .collect();
    step(&mut app, 60);
    assert_all_finite(&mut app);
    let positions: Vec<Vector> = ids
        .iter()
        .map(|&e| app.world().get::<Position>(e).unwrap().0)
        .collect();
    for (i, a) in positions.iter().enumerate() {
        for b in &positions[i + 1..] {
            assert!(a.distance(*b) > 1.0, "still together: {a} {b}");
        }
    }
}

#[test]
fn zero_or_negative_distances_speeds_and_forces_are_survived() {
    let bounds = SimulationBounds::wrap(rect(500.0, 500.0));
    for value in [0.0, -10.0, f32::NAN, f32::INFINITY] {
        for set in [
            |p: &mut FlockParams, v| p.perception_radius = v,
            |p: &mut FlockParams, v| p.separation_distance = v,
            |p: &mut FlockParams, v| p.max_speed = v,
            |p: &mut FlockParams, v| p.max_force = v,
            |p: &mut FlockParams, v| p.min_speed = v,
            |p: &mut FlockParams, v| p.cohesion_weight = v,
        ] {
            let mut params = FlockParams::default();
            set(&mut params, value);
            let _ = run_with(params, bounds);
        }
    }
}

#[test]
fn a_zero_negative_or_endless_obstacle_berth_is_survived_and_fixed() {
    let bounds = SimulationBounds::wrap(rect(500.0, 500.0));
    for value in [0.0, -10.0, f32::NAN, f32::INFINITY] {
        let mut app = flock_app(FlockParams::default(), bounds, 200, 71);
        app.insert_resource(ObstacleSettings {
            avoid_distance: value,
            ..default()
        });
        app.world_mut()
            .spawn((Obstacle::round(30.0), Position(bounds.rect.center())));
        step(&mut app, 100);
        assert_all_finite(&mut app);
        let used = app.world().resource::<ObstacleSettings>().avoid_distance;
        assert!(
            used.is_finite() && used >= FlockParams::MIN_DISTANCE,
            "avoid distance {value} is used as {used}"
        );
    }
}

#[test]
fn min_speed_above_max_speed_is_clamped() {
    let params = FlockParams {
        min_speed: 500.0,
        max_speed: 100.0,
        ..FlockParams::default()
    };
    let mut app = run_with(params, SimulationBounds::wrap(rect(500.0, 500.0)));
    for (_, _, v) in boids(&mut app) {
        assert!((v.length() - 100.0).abs() < 0.01, "speed {}", v.length());
    }
}

#[test]
fn fields_of_view_of_0_and_360_work() {
    let bounds = SimulationBounds::wrap(rect(400.0, 400.0));
    for fov in [0.0, 360.0] {
        let params = FlockParams {
            field_of_view: fov,
            ..FlockParams::default()
        };
        let mut app = run_with(params, bounds);
        let neighbours = app.world().resource::<FlockStats>().neighbours;
        if fov == 0.0 {
            assert_eq!(neighbours, 0, "a boid that sees nothing has no neighbours");
        } else {
            assert!(neighbours > 0);
        }
        step(&mut app, 1);
    }
}

#[test]
fn zero_size_and_inverted_bounds_are_fixed() {
    for rect in [
        Region::from_corners(Vector::splat(100.0), Vector::splat(100.0)),
        Region {
            min: xyz([300.0, 200.0, 100.0]),
            max: xyz([-300.0, -200.0, -100.0]),
        },
        Region {
            min: Vector::ZERO,
            max: xyz([f32::NAN, 10.0, 10.0]),
        },
    ] {
        for bounds in [
            SimulationBounds::wrap(rect),
            SimulationBounds::turn_back(rect),
        ] {
            let mut app = app(FlockParams::default(), bounds);
            app.world_mut().commands().queue(FlockSpawn::new(50, 3));
            step(&mut app, 50);
            assert_all_finite(&mut app);
            let fixed = app.world().resource::<SimulationBounds>().rect;
            assert!(fixed.size().min_element() >= 1.0, "{fixed:?}");
        }
    }
}

#[test]
fn no_boids_and_one_boid_work() {
    let mut app = app(FlockParams::default(), SimulationBounds::default());
    step(&mut app, 10);
    assert_eq!(app.world().resource::<FlockStats>().boids, 0);
    let lonely = spawn_boid(&mut app, Vector::ZERO, xyz([50.0, 50.0, 50.0]), 0);
    step(&mut app, 100);
    assert_all_finite(&mut app);
    let stats = app.world().resource::<FlockStats>();
    assert_eq!((stats.boids, stats.neighbours), (1, 0));
    assert!(app.world().get::<Velocity>(lonely).unwrap().length() > 0.0);
}

#[test]
fn a_million_boids_step() {
    let bounds = SimulationBounds::wrap(rect(20_000.0, 20_000.0));
    let mut app = flock_app(FlockParams::default(), bounds, 1_000_000, 73);
    step(&mut app, 2);
    let stats = app.world().resource::<FlockStats>();
    assert_eq!(stats.boids, 1_000_000);
    assert!(stats.neighbours > 0);
}

#[test]
fn a_boid_far_outside_the_bounds_comes_back() {
    let rect = rect(400.0, 300.0);
    for bounds in [
        SimulationBounds::wrap(rect),
        SimulationBounds::turn_back(rect),
    ] {
        let mut app = app(FlockParams::default(), bounds);
        let far = spawn_boid(&mut app, xyz([1e6, -3e5, -3e5]), xyz([10.0, 0.0, 0.0]), 0);
        spawn_boid(
            &mut app,
            xyz([200.0, 150.0, 150.0]),
            xyz([0.0, 50.0, 50.0]),
            0,
        );
        step(&mut app, 1);
        let p = app.world().get::<Position>(far).unwrap().0;
        assert!(bounds.rect.contains(p), "{p} under {:?}", bounds.edges);
        step(&mut app, 100);
        assert_all_finite(&mut app);
    }
}

#[test]
fn a_five_second_frame_is_a_tenth_of_a_second_step() {
    // In `Update`, one step per frame with the frame's delta: capped at 0.1 s.
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_plugins(BoidsPlugins::new(Update).with_bounds(SimulationBounds::wrap(rect(1e5, 1e5))))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs(5)));
    let b = spawn_boid(&mut app, Vector::splat(5e4), xyz([100.0, 0.0, 0.0]), 0);
    app.update();
    app.update();
    let before = app.world().get::<Position>(b).unwrap().0;
    app.update();
    let after = app.world().get::<Position>(b).unwrap().0;
    let moved = before.distance(after);
    assert!(
        moved <= 120.0 * murmuration_sim::MAX_DT + 1e-3,
        "moved {moved} in one 5 s frame"
    );
    // In `FixedUpdate`, Bevy's virtual clock already caps a frame at 0.25 s: a handful of steps.
    let mut app = app_fixed();
    let b = spawn_boid(&mut app, Vector::splat(5e4), xyz([100.0, 0.0, 0.0]), 0);
    app.update();
    app.update();
    let steps = app.world().resource::<FlockStats>().steps;
    app.update();
    assert!(app.world().resource::<FlockStats>().steps - steps <= 20);
    assert!(app.world().get::<Position>(b).unwrap().is_finite());
}

fn app_fixed() -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_plugins(BoidsPlugins::default().with_bounds(SimulationBounds::wrap(rect(1e5, 1e5))))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs(5)));
    app
}

#[test]
fn unknown_species_ids_are_just_another_species() {
    let mut app = app(
        FlockParams::default(),
        SimulationBounds::wrap(rect(300.0, 300.0)),
    );
    for (i, species) in [0u16, 7, 999, u16::MAX].into_iter().enumerate() {
        spawn_boid(
            &mut app,
            xyz([100.0 + i as f32 * 10.0, 150.0, 150.0]),
            Vector::X * 50.0,
            species,
        );
    }
    step(&mut app, 100);
    assert_all_finite(&mut app);
}

#[test]
fn an_arrive_target_on_the_unit_itself_keeps_it_still() {
    let mut app = app(
        FlockParams::default(),
        SimulationBounds::turn_back(rect(300.0, 300.0)),
    );
    let unit = spawn_boid(&mut app, Vector::splat(150.0), Vector::ZERO, 0);
    app.world_mut()
        .entity_mut(unit)
        .insert(Arrive::new(Vector::splat(150.0)));
    step(&mut app, 100);
    assert_eq!(
        app.world().get::<Position>(unit).unwrap().0,
        Vector::splat(150.0)
    );
    assert_eq!(app.world().get::<Velocity>(unit).unwrap().0, Vector::ZERO);
}

#[test]
fn a_hunter_with_no_boids_left_just_coasts() {
    let mut app = app(
        FlockParams::default(),
        SimulationBounds::wrap(rect(300.0, 300.0)),
    );
    let hunter = app
        .world_mut()
        .spawn((
            Hunter::default(),
            Position(Vector::splat(150.0)),
            Velocity(Vector::X * 20.0),
        ))
        .id();
    step(&mut app, 100);
    let h = app.world().get::<Hunter>(hunter).unwrap();
    assert_eq!(h.prey, None);
    assert!(app.world().get::<Position>(hunter).unwrap().is_finite());
}
