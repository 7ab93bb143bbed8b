//! Hunters catch boids, in both dimensions alike: the counter matches the catches, the flock
//! keeps its size, a hunter rests after a catch, and two hunters catch as many a minute in a 3D
//! world as crowded as the 2D one as the bound says.

mod common;

use bevy::prelude::*;
use common::*;
use murmuration_sim::hunting::{CatchStats, OnCatch};
use murmuration_sim::math::Vector;
use murmuration_sim::prelude::*;
use murmuration_sim::stats::FlockStats;
use murmuration_sim::{BoidCaught, CatchRules};

/// Every catch message, collected.
#[derive(Resource, Default)]
struct Caught(Vec<BoidCaught>);

fn collect(mut messages: MessageReader<BoidCaught>, mut caught: ResMut<Caught>) {
    caught.0.extend(messages.read().copied());
}

/// 300 boids and two hunters in opposite corners of a wrapping world as crowded as 800 x 600
/// ([`world_as_crowded_as`]).
fn hunt_app(on_catch: OnCatch, population: bool) -> App {
    let bounds = SimulationBounds::wrap(world_as_crowded_as(800.0, 600.0));
    let mut app = app(FlockParams::default(), bounds);
    app.insert_resource(CatchRules {
        on_catch,
        seed: 3,
        ..CatchRules::default()
    })
    .init_resource::<Caught>()
    .add_systems(FixedUpdate, collect.in_set(BoidsSystems::Last));
    if population {
        app.insert_resource(FlockPopulation::new(300, 17));
    } else {
        app.world_mut()
            .commands()
            .queue(FlockSpawn::new(300, 17).with_region(bounds.rect));
    }
    let corners = [
        bounds.rect.min + Vector::splat(50.0),
        bounds.rect.max - Vector::splat(50.0),
    ];
    for corner in corners {
        app.world_mut().spawn((Hunter::default(), Position(corner)));
    }
    app
}

#[test]
fn hunters_catch_boids_and_the_flock_keeps_its_size() {
    let mut app = hunt_app(OnCatch::Respawn, false);
    for _ in 0..30 {
        step(&mut app, 64);
        assert_eq!(boids(&mut app).len(), 300, "respawned, not lost");
    }
    let caught = app.world().resource::<Caught>().0.len() as u64;
    let stats = app.world().resource::<CatchStats>();
    assert!(caught >= 1, "30 s with two hunters and no catch");
    assert_eq!(stats.catches, caught, "the counter matches the catches");
    assert!(stats.per_minute() > 0.0);
    // Every caught boid was respawned on the edge of the bounds.
    let bounds = app.world().resource::<SimulationBounds>().rect;
    for c in &app.world().resource::<Caught>().0 {
        assert!(bounds.contains(c.at));
    }
}

#[test]
fn removed_boids_are_replaced_by_the_population() {
    let mut app = hunt_app(OnCatch::Remove, true);
    for _ in 0..30 {
        step(&mut app, 64);
        assert_eq!(
            boids(&mut app).len(),
            300,
            "the population tops the flock up"
        );
    }
    let caught = app.world().resource::<Caught>().0.len() as u64;
    assert!(caught >= 1);
    assert_eq!(app.world().resource::<CatchStats>().catches, caught);
    // Caught boids are gone for good.
    for c in &app.world().resource::<Caught>().0 {
        assert!(
            app.world().get_entity(c.boid).is_err(),
            "{} still exists",
            c.boid
        );
    }
}

#[test]
fn removed_boids_without_a_population_shrink_the_flock() {
    let mut app = hunt_app(OnCatch::Remove, false);
    step(&mut app, 64 * 20);
    let caught = app.world().resource::<Caught>().0.len();
    assert!(caught >= 1);
    assert_eq!(boids(&mut app).len(), 300 - caught);
}

#[test]
fn a_hunter_rests_after_a_catch() {
    let mut app = hunt_app(OnCatch::Respawn, false);
    let rest = app.world().resource::<CatchRules>().rest_seconds;
    let mut first: Option<(Entity, u64)> = None;
    for _ in 0..64 * 30 {
        step(&mut app, 1);
        if let Some(c) = app.world().resource::<Caught>().0.first() {
            first = Some((c.hunter, app.world().resource::<FlockStats>().steps));
            break;
        }
    }
    let (hunter, at) = first.expect("a catch");
    // No catch by that hunter during its rest, and it slows down.
    let rest_steps = (rest * 64.0) as u64 - 2;
    step(&mut app, rest_steps);
    let later = app
        .world()
        .resource::<Caught>()
        .0
        .iter()
        .skip(1)
        .any(|c| c.hunter == hunter);
    assert!(!later, "caught again within {rest} s of step {at}");
    let speed = app.world().get::<Velocity>(hunter).unwrap().length();
    assert!(speed < 40.0, "a resting hunter brakes: {speed}");
}

/// Half the catches in a minute by the two hunters of [`hunt_app`] in 2D: 22 in 2D and 20 in
/// 3D when this was written (with the hunters as agile as `HuntSettings::weight` 1 makes them,
/// 11 in 2D and none in 3D).
const HALF_THE_2D_RATE: u64 = 11;

#[test]
fn two_hunters_catch_in_3d_at_least_half_as_often_as_in_2d() {
    let mut app = hunt_app(OnCatch::Respawn, false);
    step(&mut app, 64 * 60);
    let catches = app.world().resource::<CatchStats>().catches;
    println!("{catches} catches in a minute");
    assert!(
        catches >= HALF_THE_2D_RATE,
        "{catches} catches in a minute: fewer than half the 2D rate"
    );
}
