//! The plugin itself, in both dimensions: sets, resources, transform sync, stats, adding it
//! twice, missing resources, spawning and despawning mid-run.

mod common;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use common::*;
use murmuration_sim::components::PreviousPosition;
use murmuration_sim::hash::SpatialHash;
use murmuration_sim::hunting::CatchStats;
use murmuration_sim::hunting::HuntingPlugin;
use murmuration_sim::internal::FlockTable;
use murmuration_sim::internal::HashSlot;
use murmuration_sim::math::{Region, Vector};
use murmuration_sim::metrics::FlockMetrics;
use murmuration_sim::metrics::MetricsPlugin;
use murmuration_sim::params::NeighbourMode;
use murmuration_sim::prelude::*;
use murmuration_sim::stats::FlockStats;
use murmuration_sim::step::TransformInterpolation;
use murmuration_sim::units::UnitSettings;
use murmuration_sim::units::UnitsPlugin;

#[test]
fn adding_the_plugin_twice_warns_and_steps_once() {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_plugins(BoidsPlugins::default())
        .add_plugins(BoidsPlugins::default().with_params(FlockParams::sheep()))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    let b = spawn_boid(&mut app, Vector::ZERO, xyz([100.0, 0.0, 0.0]), 0);
    step(&mut app, 3);
    assert_eq!(app.world().resource::<FlockStats>().steps, 3);
    // The first plugin's parameters are the ones in use.
    assert_eq!(
        *app.world().resource::<FlockParams>(),
        FlockParams::default()
    );
    // One integrate per step: 3 steps of 100/64 units.
    let x = app.world().get::<Position>(b).unwrap().x;
    assert!((x - 3.0 * 100.0 / 64.0).abs() < 1e-3, "{x}");
}

#[test]
fn without_bounds_the_flock_pauses_and_resumes() {
    let mut app = app(FlockParams::default(), SimulationBounds::default());
    let b = spawn_boid(&mut app, Vector::ZERO, xyz([100.0, 0.0, 0.0]), 0);
    step(&mut app, 2);
    let bounds = app
        .world_mut()
        .remove_resource::<SimulationBounds>()
        .unwrap();
    let before = app.world().get::<Position>(b).unwrap().0;
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(app.world().get::<Position>(b).unwrap().0, before, "paused");
    app.world_mut().insert_resource(bounds);
    step(&mut app, 1);
    assert_ne!(app.world().get::<Position>(b).unwrap().0, before, "resumed");
}

#[test]
fn a_user_inserted_resource_is_kept() {
    let mut app = App::new();
    let bounds = SimulationBounds::turn_back(rect(300.0, 200.0));
    app.insert_resource(FlockParams::fish())
        .insert_resource(bounds)
        .add_plugins((MinimalPlugins, BoidsPlugins::default()));
    assert_eq!(*app.world().resource::<FlockParams>(), FlockParams::fish());
    assert_eq!(*app.world().resource::<SimulationBounds>(), bounds);
}

#[test]
fn transforms_follow_position_and_heading() {
    let mut app = app(FlockParams::default(), SimulationBounds::default());
    app.add_plugins(bevy::transform::TransformPlugin);
    let b = spawn_boid(&mut app, xyz([10.0, 20.0, 0.0]), xyz([0.0, 100.0, 0.0]), 0);
    step(&mut app, 2);
    let p = app.world().get::<Position>(b).unwrap().0;
    let previous = app.world().get::<PreviousPosition>(b).unwrap().0.unwrap();
    assert!(
        (p - previous - xyz([0.0, 100.0 / 64.0, 0.0])).length() < 1e-4,
        "one step apart"
    );
    // In FixedUpdate the transform is interpolated by how far the frame is into the next step.
    let t = app.world().resource::<Time<Fixed>>().overstep_fraction();
    let transform = app.world().get::<Transform>(b).unwrap();
    let expected = previous.lerp(p, t);
    assert!((xyz(transform.translation.to_array()) - expected).length() < 1e-4);
    let heading = xyz((transform.rotation * Vec3::X).to_array());
    assert!(
        (heading - Vector::Y).length() < 1e-5,
        "faces along +y: {heading}"
    );
    let g = app.world().get::<GlobalTransform>(b).unwrap();
    assert_eq!(
        g.translation(),
        transform.translation,
        "propagated the same frame"
    );
    // Without interpolation it is exactly the position.
    app.insert_resource(TransformInterpolation(false));
    step(&mut app, 1);
    let p = app.world().get::<Position>(b).unwrap().0;
    assert_eq!(
        xyz(app
            .world()
            .get::<Transform>(b)
            .unwrap()
            .translation
            .to_array()),
        p
    );
}

#[test]
fn a_boid_crossing_the_seam_is_interpolated_across_it() {
    let mut app = app(
        FlockParams::default(),
        SimulationBounds::wrap(rect(400.0, 300.0)),
    );
    let b = spawn_boid(
        &mut app,
        xyz([399.5, 100.0, 0.0]),
        xyz([100.0, 0.0, 0.0]),
        0,
    );
    step(&mut app, 1);
    let p = app.world().get::<Position>(b).unwrap().0;
    let previous = app.world().get::<PreviousPosition>(b).unwrap().0.unwrap();
    assert!(p.x < 2.0, "wrapped to {p}");
    assert!(
        (previous.x - (p.x - 100.0 / 64.0)).abs() < 1e-3,
        "just left of the seam: {previous}"
    );
}

#[test]
fn stats_describe_the_step() {
    let bounds = SimulationBounds::wrap(rect(400.0, 400.0));
    let mut app = flock_app(FlockParams::default(), bounds, 300, 61);
    step(&mut app, 10);
    let stats = app.world().resource::<FlockStats>();
    assert_eq!(stats.steps, 10);
    assert_eq!(stats.boids, 300);
    assert!(stats.neighbours > 0 && stats.candidates >= stats.neighbours);
    // Each boid checks at least every other boid of its own cell, at most all 299.
    let per_boid = stats.candidates_per_boid();
    assert!(per_boid > 1.0 && per_boid < 300.0, "{per_boid}");
    assert!(stats.step_time() > std::time::Duration::ZERO);
}

#[test]
fn boids_can_come_and_go_between_steps() {
    let bounds = SimulationBounds::wrap(rect(400.0, 400.0));
    let mut app = flock_app(FlockParams::default(), bounds, 100, 62);
    step(&mut app, 5);
    let all = boids(&mut app);
    for b in all.iter().take(40) {
        app.world_mut().despawn(b.0);
    }
    step(&mut app, 1);
    assert_eq!(app.world().resource::<FlockStats>().boids, 60);
    let newcomer = spawn_boid(&mut app, Vector::splat(200.0), xyz([50.0, 0.0, 0.0]), 3);
    step(&mut app, 5);
    assert_eq!(app.world().resource::<FlockStats>().boids, 61);
    let slot = app.world().get::<HashSlot>(newcomer).unwrap();
    assert_ne!(*slot, HashSlot::NONE);
    let hash = app.world().resource::<SpatialHash>();
    assert_eq!(hash.entity(slot.0 as usize), newcomer);
}

#[test]
fn bad_parameters_are_clamped_once_and_reported() {
    let mut params = FlockParams {
        perception_radius: -5.0,
        max_speed: f32::NAN,
        min_speed: 500.0,
        field_of_view: 720.0,
        ..FlockParams::default()
    };
    let issues = params.validate();
    let fields: Vec<&str> = issues.iter().map(|i| i.field).collect();
    assert!(fields.contains(&"perception_radius"));
    assert!(fields.contains(&"max_speed"));
    assert!(fields.contains(&"min_speed"));
    assert!(fields.contains(&"field_of_view"));
    assert_eq!(params.max_speed, 120.0);
    assert_eq!(params.min_speed, 120.0);
    assert_eq!(params.field_of_view, 360.0);
    assert!(
        params.validate().is_empty(),
        "validating twice changes nothing"
    );

    // Through the plugin: the values are clamped in the resource too, and the flock runs.
    let mut app = flock_app(
        FlockParams {
            perception_radius: 0.0,
            max_force: -1.0,
            ..FlockParams::default()
        },
        SimulationBounds::wrap(Region {
            min: Vector::splat(10.0),
            max: Vector::splat(-10.0),
        }),
        50,
        63,
    );
    step(&mut app, 20);
    let params = app.world().resource::<FlockParams>();
    assert_eq!(params.perception_radius, FlockParams::MIN_DISTANCE);
    assert_eq!(params.max_force, 0.0);
    let bounds = app.world().resource::<SimulationBounds>();
    assert_eq!(
        bounds.rect,
        Region::from_corners(Vector::splat(-10.0), Vector::splat(10.0))
    );
    for (_, p, v) in boids(&mut app) {
        assert!(p.is_finite() && v.is_finite());
    }
}

#[test]
fn a_nan_boid_is_repaired_and_spreads_nothing() {
    let bounds = SimulationBounds::wrap(rect(200.0, 200.0));
    let mut app = flock_app(FlockParams::default(), bounds, 200, 64);
    step(&mut app, 2);
    let victim = boids(&mut app)[0].0;
    app.world_mut().get_mut::<Position>(victim).unwrap().0 = Vector::NAN;
    let other = boids(&mut app)[1].0;
    app.world_mut().get_mut::<Velocity>(other).unwrap().0 = xyz([f32::INFINITY, 0.0, 0.0]);
    step(&mut app, 50);
    for (e, p, v) in boids(&mut app) {
        assert!(p.is_finite() && v.is_finite(), "{e}: {p} {v}");
    }
    assert_eq!(app.world().resource::<FlockStats>().repaired, 2);
}

#[test]
fn public_types_are_registered_for_reflection() {
    let app = app(FlockParams::default(), SimulationBounds::default());
    let registry = app.world().resource::<AppTypeRegistry>().read();
    for name in [
        "Boid",
        "Position",
        "Velocity",
        "Acceleration",
        "Species",
        "MaxSpeed",
        "Hunter",
        "Arrive",
        "Obstacle",
        "Predator",
        "Attractor",
        "FlockParams",
        "SimulationBounds",
        "SpatialHash",
        "FlockStats",
    ] {
        assert!(
            registry.get_with_short_type_path(name).is_some(),
            "{name} is not registered"
        );
    }
}

#[test]
fn the_topological_mode_follows_k_neighbours() {
    let params = FlockParams {
        neighbour_mode: NeighbourMode::Topological { k: 7 },
        field_of_view: 360.0,
        ..FlockParams::default()
    };
    let bounds = SimulationBounds::wrap(world_as_crowded_as(300.0, 300.0));
    let mut app = flock_app(params, bounds, 400, 65);
    step(&mut app, 5);
    let stats = app.world().resource::<FlockStats>();
    // Dense enough that everybody has 7 others within twice the perception radius.
    assert_eq!(stats.neighbours, 400 * 7);
}

/// How many boids a `Last` system saw changed, per component, in the step just run.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq)]
struct ChangedCounts {
    position: usize,
    velocity: usize,
    acceleration: usize,
    previous: usize,
}

#[test]
fn a_step_marks_every_moving_boid_changed() {
    // Enough boids that the flocking pass and integration are cut into parts.
    let bounds = SimulationBounds::wrap(rect(3000.0, 3000.0));
    let mut app = flock_app(FlockParams::starlings(), bounds, 6000, 4);
    app.init_resource::<ChangedCounts>().add_systems(
        FixedUpdate,
        (|p: Query<(), (With<Boid>, Changed<Position>)>,
          v: Query<(), (With<Boid>, Changed<Velocity>)>,
          a: Query<(), (With<Boid>, Changed<Acceleration>)>,
          q: Query<(), (With<Boid>, Changed<PreviousPosition>)>,
          mut counts: ResMut<ChangedCounts>| {
            *counts = ChangedCounts {
                position: p.iter().count(),
                velocity: v.iter().count(),
                acceleration: a.iter().count(),
                previous: q.iter().count(),
            };
        })
        .in_set(BoidsSystems::Last),
    );
    step(&mut app, 3);
    let all = ChangedCounts {
        position: 6000,
        velocity: 6000,
        acceleration: 6000,
        previous: 6000,
    };
    for _ in 0..3 {
        assert_eq!(*app.world().resource::<ChangedCounts>(), all);
        step(&mut app, 1);
    }
}

#[test]
fn parts_of_the_plugin_group_can_be_left_out() {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_plugins(
            BoidsPlugins::default()
                .build()
                .disable::<UnitsPlugin>()
                .disable::<HuntingPlugin>()
                .disable::<MetricsPlugin>(),
        )
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    let b = spawn_boid(&mut app, Vector::ZERO, xyz([100.0, 0.0, 0.0]), 0);
    step(&mut app, 3);
    assert!(app.world().get::<Position>(b).unwrap().x > 1.0, "it flies");
    let world = app.world();
    assert!(!world.contains_resource::<UnitSettings>());
    assert!(!world.contains_resource::<CatchStats>());
    assert!(!world.contains_resource::<FlockMetrics>());
    assert!(world.contains_resource::<FlockTable>());
}

/// A schedule a game runs itself (a turn-based game's step, say).
#[derive(bevy::ecs::schedule::ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
struct Simulate;

#[test]
fn the_simulation_can_run_in_a_schedule_of_its_own() {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_plugins(BoidsPlugins::new(Simulate))
        .insert_resource(TimeUpdateStrategy::ManualDuration(
            core::time::Duration::from_secs_f64(1.0 / 60.0),
        ));
    let b = spawn_boid(&mut app, Vector::ZERO, xyz([60.0, 0.0, 0.0]), 0);
    for _ in 0..3 {
        app.update();
    }
    assert_eq!(app.world().resource::<FlockStats>().steps, 0, "not run yet");
    for _ in 0..4 {
        app.update();
        app.world_mut().run_schedule(Simulate);
    }
    assert_eq!(app.world().resource::<FlockStats>().steps, 4);
    let x = app.world().get::<Position>(b).unwrap().x;
    assert!(
        (x - 4.0).abs() < 0.01,
        "four steps of 1/60 s at 60 units/s: {x}"
    );
    // Outside `FixedUpdate`, transforms show the last step, not an interpolation.
    assert!(!app.world().resource::<TransformInterpolation>().0);
}
