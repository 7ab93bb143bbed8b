//! A hunter seeks the nearest boid through the hash and closes on it; boids flee hunters.

mod common;

use bevy::prelude::*;
use common::*;
use murmuration_sim::hash::SpatialHash;
use murmuration_sim::math::Vector;
use murmuration_sim::prelude::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

#[test]
fn a_hunter_closes_on_a_fleeing_boid() {
    let bounds = SimulationBounds::wrap(rect(2000.0, 2000.0));
    let mut app = app(FlockParams::default(), bounds);
    let prey = spawn_boid(
        &mut app,
        xyz([600.0, 500.0, 500.0]),
        xyz([120.0, 0.0, 0.0]),
        0,
    );
    let hunter = app
        .world_mut()
        .spawn((
            Hunter::default(),
            Position(xyz([300.0, 500.0, 500.0])),
            Velocity(Vector::X * 150.0),
        ))
        .id();
    let distance = |app: &App| {
        let h = app.world().get::<Position>(hunter).unwrap().0;
        let p = app.world().get::<Position>(prey).unwrap().0;
        bounds.delta(h, p).length()
    };
    let start = distance(&app);
    // It closes in without ever falling back, until it reaches its prey.
    let mut previous = start;
    let mut reached_at = None;
    for step_index in 0..64 * 12 {
        step(&mut app, 1);
        assert_eq!(app.world().get::<Hunter>(hunter).unwrap().prey, Some(prey));
        let d = distance(&app);
        if d < 5.0 {
            reached_at = Some(step_index);
            break;
        }
        assert!(
            d <= previous + 1e-3,
            "step {step_index}: fell back from {previous} to {d}"
        );
        previous = d;
    }
    let reached_at = reached_at.expect("the hunter never reached its prey");
    // It keeps after it. Without a catch rule it flies through its prey, which turns away more
    // tightly (fleeing has weight 4, the hunter's chase 2.5); it swings round and comes back,
    // again and again: within 25 units at least once in every 3 s.
    let (mut farthest, mut gap, mut longest_gap) = (0.0f32, 0, 0);
    for _ in 0..64 * 12 {
        step(&mut app, 1);
        let d = distance(&app);
        farthest = farthest.max(d);
        gap = if d < 25.0 { 0 } else { gap + 1 };
        longest_gap = longest_gap.max(gap);
    }
    println!(
        "reached after {reached_at} steps; then at most {farthest} away, at most {} s beyond 25",
        longest_gap as f32 / 64.0
    );
    assert!(
        longest_gap < 64 * 3,
        "reached after {reached_at} steps, then more than 25 away for {} s (at most {farthest})",
        longest_gap as f32 / 64.0
    );
}

#[test]
fn a_hunter_chases_the_nearest_boid_and_the_flock_flees_it() {
    let bounds = SimulationBounds::wrap(rect(800.0, 800.0));
    let mut app = flock_app(FlockParams::default(), bounds, 300, 41);
    let hunter = app
        .world_mut()
        .spawn((Hunter::default(), Position(Vector::splat(400.0))))
        .id();
    let mut near_hunter = 0.0;
    for _ in 0..20 {
        step(&mut app, 15);
        // The prey of the next step is the nearest boid of that step's snapshot to where the
        // hunter was when it started.
        let before = app.world().get::<Position>(hunter).unwrap().0;
        step(&mut app, 1);
        let hash = app.world().resource::<SpatialHash>();
        let nearest = (0..hash.len())
            .min_by(|&a, &b| {
                let da = bounds.delta(before, hash.position(a)).length_squared();
                let db = bounds.delta(before, hash.position(b)).length_squared();
                da.total_cmp(&db)
            })
            .map(|slot| hash.entity(slot));
        assert_eq!(app.world().get::<Hunter>(hunter).unwrap().prey, nearest);
        let h = app.world().get::<Position>(hunter).unwrap().0;
        near_hunter += boids(&mut app)
            .iter()
            .filter(|b| bounds.delta(h, b.1).length() < 30.0)
            .count() as f32;
    }
    // Fleeing keeps the space around the hunter nearly empty: with 300 boids spread evenly, a
    // 30-unit circle would hold about 1.3 of them at any time.
    let mean = near_hunter / 20.0;
    assert!(mean < 1.3, "mean boids within 30 of the hunter: {mean}");
}

/// A hunter that is a boid too (every boid a hunter) is in the hash with the others: it hunts
/// the nearest other boid, never itself.
#[test]
fn a_hunter_that_is_a_boid_hunts_another() {
    let bounds = SimulationBounds::wrap(rect(2000.0, 2000.0));
    let mut app = app(FlockParams::default(), bounds);
    let a = spawn_boid(
        &mut app,
        xyz([600.0, 500.0, 500.0]),
        xyz([120.0, 0.0, 0.0]),
        0,
    );
    let b = spawn_boid(
        &mut app,
        xyz([700.0, 500.0, 500.0]),
        xyz([0.0, 120.0, 120.0]),
        0,
    );
    for e in [a, b] {
        app.world_mut().entity_mut(e).insert(Hunter::default());
    }
    step(&mut app, 1);
    assert_eq!(app.world().get::<Hunter>(a).unwrap().prey, Some(b));
    assert_eq!(app.world().get::<Hunter>(b).unwrap().prey, Some(a));
}

/// Many hunters that are boids too (more than the hunt looks up one by one): each still hunts
/// the nearest other boid.
#[test]
fn many_hunters_that_are_boids_each_hunt_the_nearest_other() {
    let bounds = SimulationBounds::wrap(rect(1000.0, 1000.0));
    let mut app = app(FlockParams::default(), bounds);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(8);
    let mut hunters = Vec::new();
    for _ in 0..60 {
        let at = xyz([0.0; 3].map(|_| rng.random::<f32>())) * 1000.0;
        let e = spawn_boid(&mut app, at, Vector::X * 50.0, 0);
        app.world_mut().entity_mut(e).insert(Hunter::default());
        hunters.push((e, at));
    }
    step(&mut app, 1);
    for &(e, at) in &hunters {
        let nearest = hunters
            .iter()
            .filter(|&&(other, _)| other != e)
            .min_by(|a, b| {
                let da = bounds.delta(at, a.1).length_squared();
                let db = bounds.delta(at, b.1).length_squared();
                da.total_cmp(&db)
            })
            .map(|&(other, _)| other);
        assert_eq!(app.world().get::<Hunter>(e).unwrap().prey, nearest);
    }
}

/// Many hunters in two tables, boids that hunt and hunters that are not boids (spawned mixed,
/// so neither table's hunters come first): each hunts the nearest boid other than itself.
#[test]
fn hunters_in_two_tables_each_hunt_the_nearest_other_boid() {
    let bounds = SimulationBounds::wrap(rect(1000.0, 1000.0));
    let mut app = app(FlockParams::default(), bounds);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    let mut random_point = || xyz([0.0; 3].map(|_| rng.random::<f32>())) * 1000.0;
    let mut hunters = Vec::new();
    for i in 0..80 {
        let at = random_point();
        let e = if i % 3 == 0 {
            // A hunter of its own, not a boid.
            let e = app
                .world_mut()
                .spawn((Hunter::default(), Position(at)))
                .id();
            (e, at, false)
        } else {
            let e = spawn_boid(&mut app, at, Vector::X * 50.0, 0);
            app.world_mut().entity_mut(e).insert(Hunter::default());
            (e, at, true)
        };
        hunters.push(e);
    }
    step(&mut app, 1);
    for &(e, at, _) in &hunters {
        let nearest = hunters
            .iter()
            .filter(|&&(other, _, boid)| boid && other != e)
            .min_by(|a, b| {
                let da = bounds.delta(at, a.1).length_squared();
                let db = bounds.delta(at, b.1).length_squared();
                da.total_cmp(&db)
            })
            .map(|&(other, ..)| other);
        assert_eq!(app.world().get::<Hunter>(e).unwrap().prey, nearest);
    }
}
