//! Flocks as entities: each flies by its own parameters; separation acts between flocks,
//! alignment and cohesion only within one; boids join, move between and leave flocks at run
//! time; a despawned flock takes its boids with it; populations and metrics per flock.

mod common;

use bevy::prelude::*;
use common::*;
use murmuration_sim::flock::FlockMembers;
use murmuration_sim::internal::FlockId;
use murmuration_sim::internal::FlockTable;
use murmuration_sim::math::Vector;
use murmuration_sim::metrics::FlockMetrics;
use murmuration_sim::metrics::FlockShape;
use murmuration_sim::population::ResetFlock;
use murmuration_sim::prelude::*;
use murmuration_sim::stats::FlockStats;

/// The boids of `flock` (`None`: the default flock): (entity, position, velocity).
fn members(app: &mut App, flock: Option<Entity>) -> Vec<(Entity, Vector, Vector)> {
    let mut q = app
        .world_mut()
        .query_filtered::<(Entity, &Position, &Velocity, Option<&InFlock>), With<Boid>>();
    q.iter(app.world())
        .filter(|(.., f)| f.map(|f| f.0) == flock)
        .map(|(e, p, v, _)| (e, p.0, v.0))
        .collect()
}

fn speeds(boids: &[(Entity, Vector, Vector)]) -> (f32, f32) {
    let s = boids.iter().map(|b| b.2.length());
    let (lo, hi) = s.fold((f32::INFINITY, 0.0f32), |(lo, hi), x| {
        (lo.min(x), hi.max(x))
    });
    (lo, hi)
}

fn spawn_flock(app: &mut App, params: FlockParams) -> Entity {
    app.world_mut().spawn(Flock::new(params)).id()
}

/// A flock with a top speed of 30 (the default flock's is far above).
fn spawn_slow_flock(app: &mut App) -> Entity {
    let params = FlockParams {
        max_speed: 30.0,
        min_speed: 10.0,
        ..FlockParams::default()
    };
    spawn_flock(app, params)
}

/// A boid at (100, 100) flying along x at 100, the default flock's speed.
fn spawn_fast_boid(app: &mut App) -> Entity {
    spawn_boid(app, xyz([100.0, 100.0, 200.0]), xyz([100.0, 0.0, 0.0]), 0)
}

/// Boid `b` has the row of the slow flock `flock` ([`spawn_slow_flock`]) and keeps to its speed.
fn assert_flies_in(app: &App, b: Entity, flock: Entity) {
    let id = app.world().resource::<FlockTable>().id_of(flock).unwrap();
    assert_eq!(*app.world().get::<FlockId>(b).unwrap(), id);
    let speed = app.world().get::<Velocity>(b).unwrap().length();
    assert!(
        speed <= 30.0 * 1.001,
        "flies at its flock's top speed: {speed}"
    );
}

#[test]
fn each_flock_flies_by_its_own_parameters() {
    let bounds = SimulationBounds::wrap(rect(1200.0, 900.0));
    let mut app = flock_app(FlockParams::default(), bounds, 200, 1);
    let slow = spawn_flock(
        &mut app,
        FlockParams {
            max_speed: 60.0,
            min_speed: 30.0,
            ..FlockParams::default()
        },
    );
    let fast = spawn_flock(
        &mut app,
        FlockParams {
            max_speed: 300.0,
            min_speed: 250.0,
            ..FlockParams::default()
        },
    );
    for (flock, seed) in [(slow, 2), (fast, 3)] {
        app.world_mut().commands().queue(
            FlockSpawn::new(200, seed)
                .with_region(bounds.rect)
                .in_flock(flock),
        );
    }
    step(&mut app, 120);
    let (lo, hi) = speeds(&members(&mut app, Some(slow)));
    assert!(lo >= 30.0 * 0.999 && hi <= 60.0 * 1.001, "slow: {lo}..{hi}");
    let (lo, hi) = speeds(&members(&mut app, Some(fast)));
    assert!(
        lo >= 250.0 * 0.999 && hi <= 300.0 * 1.001,
        "fast: {lo}..{hi}"
    );
    let (lo, hi) = speeds(&members(&mut app, None));
    assert!(
        lo >= 40.0 * 0.999 && hi <= 120.0 * 1.001,
        "default: {lo}..{hi}"
    );
    // Every member knows its row, and the table its flock.
    let table = app.world().resource::<FlockTable>().clone();
    for flock in [slow, fast] {
        let id = table.id_of(flock).unwrap();
        assert_eq!(table.entity_of(id), Some(flock));
        for (e, ..) in members(&mut app, Some(flock)) {
            assert_eq!(*app.world().get::<FlockId>(e).unwrap(), id);
        }
    }
}

/// Two flocks released together on the same spot, each half flying east and half west, with
/// alignment alone: each flock comes to one heading of its own, whatever the other does, as
/// they do not align with each other. Then with separation alone, a boid of one flock pushes a
/// boid of the other away.
#[test]
fn alignment_stays_within_a_flock_and_separation_crosses_flocks() {
    let bounds = SimulationBounds::wrap(rect(400.0, 400.0));
    let aligning = FlockParams {
        separation_weight: 0.0,
        cohesion_weight: 0.0,
        alignment_weight: 2.0,
        min_speed: 50.0,
        perception_radius: 400.0,
        field_of_view: 360.0,
        ..FlockParams::default()
    };
    let mut app = app(aligning.clone(), bounds);
    let other = spawn_flock(&mut app, aligning);
    for i in 0..40 {
        let p = xyz([
            180.0 + (i % 8) as f32 * 5.0,
            180.0 + (i / 8) as f32 * 5.0,
            200.0,
        ]);
        // The default flock leans east, the other flock west; each half and half otherwise.
        let east = xyz([100.0, if i % 2 == 0 { 20.0 } else { -20.0 }, 0.0]);
        let lean = if i % 3 == 0 { -east } else { east };
        spawn_boid(&mut app, p, lean, 0);
        let b = spawn_boid(&mut app, p + xyz([2.5, 2.5, 0.0]), -lean, 0);
        app.world_mut().entity_mut(b).insert(InFlock(other));
    }
    step(&mut app, 300);
    let mean = |boids: Vec<(Entity, Vector, Vector)>| {
        boids.iter().map(|b| b.2.normalize()).sum::<Vector>() / boids.len() as f32
    };
    let (a, b) = (
        mean(members(&mut app, None)),
        mean(members(&mut app, Some(other))),
    );
    assert!(
        a.length() > 0.95 && b.length() > 0.95,
        "{a} {b}: each flock aligned"
    );
    assert!(a.x > 0.9 && b.x < -0.9, "{a} {b}: each its own way");

    let separating = FlockParams {
        separation_weight: 2.0,
        alignment_weight: 0.0,
        cohesion_weight: 0.0,
        min_speed: 0.0,
        ..FlockParams::default()
    };
    let mut app = common::app(separating.clone(), bounds);
    let other = spawn_flock(&mut app, separating);
    let a = spawn_boid(&mut app, xyz([200.0, 200.0, 200.0]), Vector::ZERO, 0);
    let b = spawn_boid(&mut app, xyz([210.0, 200.0, 200.0]), Vector::ZERO, 0);
    app.world_mut().entity_mut(b).insert(InFlock(other));
    step(&mut app, 30);
    let at = |app: &App, e: Entity| app.world().get::<Position>(e).unwrap().0;
    assert!(
        at(&app, a).x < 199.0 && at(&app, b).x > 211.0,
        "pushed apart"
    );
}

/// Cohesion pulls a boid to its own flock only: a lone boid of one flock beside a tight group of
/// another is not drawn in, while a lone boid of the group's own flock is.
#[test]
fn cohesion_stays_within_a_flock() {
    let bounds = SimulationBounds::wrap(rect(600.0, 600.0));
    let cohering = FlockParams {
        separation_weight: 0.0,
        alignment_weight: 0.0,
        cohesion_weight: 2.0,
        min_speed: 0.0,
        max_speed: 40.0,
        perception_radius: 100.0,
        field_of_view: 360.0,
        ..FlockParams::default()
    };
    let mut app = app(cohering.clone(), bounds);
    let other = spawn_flock(&mut app, cohering);
    for i in 0..9 {
        let p = xyz([290.0, 290.0, 200.0]) + xyz([(i % 3) as f32, (i / 3) as f32, 0.0]) * 10.0;
        spawn_boid(&mut app, p, Vector::ZERO, 0);
    }
    let stranger = spawn_boid(&mut app, xyz([360.0, 300.0, 200.0]), Vector::ZERO, 0);
    app.world_mut().entity_mut(stranger).insert(InFlock(other));
    let friend = spawn_boid(&mut app, xyz([240.0, 300.0, 200.0]), Vector::ZERO, 0);
    step(&mut app, 180);
    let at = |e: Entity| app.world().get::<Position>(e).unwrap().0;
    let centre = xyz([300.0, 300.0, 200.0]);
    assert!(at(stranger).distance(centre) > 59.0, "{}", at(stranger));
    assert!(at(friend).distance(centre) < 30.0, "{}", at(friend));
}

#[test]
fn boids_move_between_flocks_and_leave_them() {
    let bounds = SimulationBounds::wrap(rect(800.0, 800.0));
    let mut app = app(FlockParams::default(), bounds);
    let slow = spawn_slow_flock(&mut app);
    let b = spawn_fast_boid(&mut app);
    step(&mut app, 5);
    assert_eq!(*app.world().get::<FlockId>(b).unwrap(), FlockId::DEFAULT);
    let speed = |app: &App| app.world().get::<Velocity>(b).unwrap().length();
    assert!(speed(&app) > 90.0);
    app.world_mut().entity_mut(b).insert(InFlock(slow));
    step(&mut app, 2);
    assert_flies_in(&app, b, slow);
    let members = app.world().get::<FlockMembers>(slow).unwrap();
    assert_eq!(members.iter().collect::<Vec<_>>(), vec![b]);
    app.world_mut().entity_mut(b).remove::<InFlock>();
    step(&mut app, 2);
    assert_eq!(*app.world().get::<FlockId>(b).unwrap(), FlockId::DEFAULT);
}

#[test]
fn a_despawned_flock_takes_its_boids_and_frees_its_row() {
    let bounds = SimulationBounds::wrap(rect(800.0, 800.0));
    let mut app = flock_app(FlockParams::default(), bounds, 50, 1);
    let doomed = spawn_flock(&mut app, FlockParams::fish());
    app.world_mut()
        .commands()
        .queue(FlockSpawn::new(80, 2).in_flock(doomed));
    step(&mut app, 5);
    assert_eq!(members(&mut app, Some(doomed)).len(), 80);
    assert_eq!(app.world().resource::<FlockStats>().boids, 130);
    let id = app.world().resource::<FlockTable>().id_of(doomed).unwrap();
    app.world_mut().entity_mut(doomed).despawn();
    step(&mut app, 2);
    assert_eq!(app.world().resource::<FlockStats>().boids, 50);
    let table = app.world().resource::<FlockTable>();
    assert_eq!(table.id_of(doomed), None);
    assert_eq!(table.entity_of(id), None);
    // A new flock reuses the row.
    let next = spawn_flock(&mut app, FlockParams::sheep());
    step(&mut app, 1);
    assert_eq!(app.world().resource::<FlockTable>().id_of(next), Some(id));
}

#[test]
fn populations_and_metrics_are_per_flock() {
    let bounds = SimulationBounds::wrap(rect(1000.0, 800.0));
    let mut app = app(FlockParams::default(), bounds);
    app.insert_resource(FlockPopulation::new(120, 1));
    let fish = app
        .world_mut()
        .spawn((
            Name::new("Fish"),
            Flock::new(FlockParams::fish()),
            Population(FlockPopulation::new(70, 2).with_species(2)),
        ))
        .id();
    step(&mut app, 61);
    assert_eq!(members(&mut app, None).len(), 120);
    assert_eq!(members(&mut app, Some(fish)).len(), 70);
    app.world_mut().get_mut::<Population>(fish).unwrap().0.count = 40;
    step(&mut app, 60);
    assert_eq!(members(&mut app, Some(fish)).len(), 40);
    assert_eq!(
        members(&mut app, None).len(),
        120,
        "the default flock is left alone"
    );
    let shape = app.world().get::<FlockShape>(fish).unwrap();
    assert_eq!(shape.boids, 40);
    assert!(shape.mean_speed > 0.0 && shape.mean_speed <= 110.0 * 1.001);
    assert_eq!(app.world().resource::<FlockMetrics>().boids, 120);
    // A reset brings every flock back to its seed.
    app.world_mut().write_message(ResetFlock);
    step(&mut app, 2);
    assert_eq!(members(&mut app, Some(fish)).len(), 40);
    assert_eq!(members(&mut app, None).len(), 120);
}

#[test]
fn bad_flock_parameters_are_clamped_in_the_flock() {
    let bounds = SimulationBounds::wrap(rect(800.0, 800.0));
    let mut app = app(FlockParams::default(), bounds);
    let flock = spawn_flock(
        &mut app,
        FlockParams {
            max_speed: f32::NAN,
            perception_radius: -4.0,
            field_of_view: 900.0,
            ..FlockParams::default()
        },
    );
    let b = spawn_boid(
        &mut app,
        xyz([400.0, 400.0, 200.0]),
        xyz([50.0, 0.0, 0.0]),
        0,
    );
    app.world_mut().entity_mut(b).insert(InFlock(flock));
    step(&mut app, 10);
    let params = &app.world().get::<Flock>(flock).unwrap().params;
    assert_eq!(params.max_speed, FlockParams::default().max_speed);
    assert_eq!(params.perception_radius, FlockParams::MIN_DISTANCE);
    assert_eq!(params.field_of_view, 360.0);
    assert!(app.world().get::<Position>(b).unwrap().is_finite());
}

/// The plugin added to a world that already holds boids: they fly, and join a flock later.
#[test]
fn boids_spawned_before_the_plugin_fly_and_join_flocks() {
    let mut app = App::new();
    let b = spawn_fast_boid(&mut app);
    let bounds = SimulationBounds::wrap(rect(800.0, 800.0));
    add_plugins(&mut app, FlockParams::default(), bounds);
    step(&mut app, 2);
    assert_eq!(*app.world().get::<FlockId>(b).unwrap(), FlockId::DEFAULT);
    let slow = spawn_slow_flock(&mut app);
    app.world_mut().entity_mut(b).insert(InFlock(slow));
    step(&mut app, 2);
    assert_flies_in(&app, b, slow);
}

/// The plugin added to a world that already holds a flock and its boids: the flock gets its
/// row and its `FlockShape`, and its boids fly by its parameters.
#[test]
fn a_flock_spawned_before_the_plugin_flies_by_its_parameters() {
    let mut app = App::new();
    let slow = spawn_slow_flock(&mut app);
    let b = spawn_fast_boid(&mut app);
    app.world_mut().entity_mut(b).insert(InFlock(slow));
    let bounds = SimulationBounds::wrap(rect(800.0, 800.0));
    add_plugins(&mut app, FlockParams::default(), bounds);
    step(&mut app, 2);
    assert_flies_in(&app, b, slow);
    assert!(app.world().get::<FlockShape>(slow).is_some());
    // A flock spawned afterwards gets its shape too.
    let later = spawn_flock(&mut app, FlockParams::default());
    step(&mut app, 1);
    assert!(app.world().get::<FlockShape>(later).is_some());
}
