//! Boids flee predators and seek attractors.

mod common;

use bevy::prelude::*;
use common::*;
use murmuration_sim::math::{Region, Vector};
use murmuration_sim::prelude::*;

fn mean_distance(app: &mut App, to: Vector, bounds: &SimulationBounds) -> f32 {
    let all = boids(app);
    all.iter()
        .map(|b| bounds.delta(to, b.1).length())
        .sum::<f32>()
        / all.len() as f32
}

/// 150 boids in a square 140 across at the centre of an 800 x 800 wrapping world (queued to
/// spawn on the first step): the app, the bounds and the centre.
fn flock_at_the_centre() -> (App, SimulationBounds, Vector) {
    let bounds = SimulationBounds::wrap(rect(800.0, 800.0));
    let centre = Vector::splat(400.0);
    let mut app = app(FlockParams::default(), bounds);
    app.world_mut().commands().queue(
        FlockSpawn::new(150, 31)
            .with_region(Region::from_center_size(centre, Vector::splat(140.0))),
    );
    (app, bounds, centre)
}

#[test]
fn boids_near_a_predator_move_away_from_it() {
    let (mut app, bounds, centre) = flock_at_the_centre();
    app.world_mut().spawn((Predator, Position(centre)));
    step(&mut app, 1);
    let before: Vec<(Entity, f32)> = boids(&mut app)
        .into_iter()
        .map(|b| (b.0, b.1.distance(centre)))
        .collect();
    let start = mean_distance(&mut app, centre, &bounds);
    step(&mut app, 64);
    let end = mean_distance(&mut app, centre, &bounds);
    assert!(
        end > 100.0 && end > start + 40.0,
        "mean distance {start} -> {end}"
    );
    // Nearly every boid that started inside the flee radius is now farther out.
    let after: Vec<(Entity, Vector, Vector)> = boids(&mut app);
    let (mut inside, mut fled) = (0, 0);
    for (e, d0) in before {
        if d0 < 100.0 {
            inside += 1;
            let p = after.iter().find(|b| b.0 == e).unwrap().1;
            fled += usize::from(p.distance(centre) > d0);
        }
    }
    assert!(fled * 10 >= inside * 9, "{fled} of {inside} fled");
}

#[test]
fn without_a_predator_the_same_flock_stays_closer() {
    // The control for the test above: flocking alone does not spread them as far.
    let (mut app, bounds, centre) = flock_at_the_centre();
    step(&mut app, 65);
    let end = mean_distance(&mut app, centre, &bounds);
    assert!(end < 100.0, "mean distance without a predator {end}");
}

#[test]
fn boids_seek_an_attractor() {
    let bounds = SimulationBounds::wrap(rect(800.0, 800.0));
    let target = xyz([600.0, 300.0, 300.0]);
    let mut app = flock_app(FlockParams::default(), bounds, 200, 32);
    app.world_mut().spawn((Attractor, Position(target)));
    step(&mut app, 1);
    let start = mean_distance(&mut app, target, &bounds);
    step(&mut app, 320);
    let end = mean_distance(&mut app, target, &bounds);
    assert!(
        end < start * 0.5,
        "mean distance to the attractor {start} -> {end}"
    );
}

/// With more predators than a boid checks one by one (they go in a hash of their own, and
/// each boid's flee is worked out in the flock's hash order), a flock still flees a pack.
#[test]
fn boids_flee_a_pack_of_many_predators() {
    let (mut app, bounds, centre) = flock_at_the_centre();
    for i in 0..60 {
        let (sin, cos) = (i as f32 * 0.1).sin_cos();
        let at = centre + xyz([cos, sin, 0.0]) * (i % 5) as f32;
        app.world_mut().spawn((Predator, Position(at)));
    }
    step(&mut app, 1);
    let start = mean_distance(&mut app, centre, &bounds);
    step(&mut app, 64);
    let end = mean_distance(&mut app, centre, &bounds);
    assert!(
        end > 100.0 && end > start + 40.0,
        "mean distance {start} -> {end}"
    );
}
