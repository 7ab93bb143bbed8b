//! `FlockPopulation` keeps the flock at its size and species count and resets it from its seed;
//! `SimulationControl` pauses and single-steps it.

mod common;

use bevy::prelude::*;
use common::*;
use murmuration_sim::control::SimulationControl;
use murmuration_sim::math::Vector;
use murmuration_sim::population::ResetFlock;
use murmuration_sim::prelude::*;
use murmuration_sim::spawn::FlockIndex;
use murmuration_sim::stats::FlockStats;

fn population_app(count: usize, species: u16) -> App {
    let mut app = app(
        FlockParams::default(),
        SimulationBounds::wrap(rect(600.0, 400.0)),
    );
    app.insert_resource(FlockPopulation::new(count, 5).with_species(species));
    app
}

fn species_counts(app: &mut App) -> Vec<usize> {
    let mut q = app.world_mut().query_filtered::<&Species, With<Boid>>();
    let mut counts = vec![0; 4];
    for s in q.iter(app.world()) {
        counts[s.0 as usize] += 1;
    }
    counts
}

#[test]
fn the_count_handler_spawns_and_despawns_to_the_exact_count() {
    let mut app = population_app(100, 1);
    step(&mut app, 2);
    assert_eq!(boids(&mut app).len(), 100);
    for target in [250, 37, 0, 1, 64] {
        app.world_mut().resource_mut::<FlockPopulation>().count = target;
        step(&mut app, 2);
        assert_eq!(boids(&mut app).len(), target, "asked for {target}");
        assert_eq!(app.world().resource::<FlockStats>().boids, target);
    }
}

#[test]
fn growing_keeps_the_seed() {
    // Growing 10 -> 20 adds boids 10..19 exactly as a fresh spawn of 20 places them.
    let params = FlockParams::default();
    let fresh: Vec<_> = FlockSpawn::new(20, 5)
        .with_region(rect(600.0, 400.0))
        .boids(&params)
        .collect();
    let mut app = population_app(10, 1);
    app.world_mut().resource_mut::<SimulationControl>().paused = true;
    app.update();
    app.world_mut().resource_mut::<FlockPopulation>().count = 20;
    app.update();
    let mut q = app
        .world_mut()
        .query_filtered::<(&FlockIndex, &Position, &Velocity), With<Boid>>();
    let mut got: Vec<_> = q.iter(app.world()).map(|(i, p, v)| (*i, *p, *v)).collect();
    got.sort_by_key(|g| g.0);
    assert_eq!(got.len(), 20);
    for (g, f) in got.iter().zip(&fresh) {
        assert_eq!((g.0, g.1, g.2), (f.0, f.1, f.2));
    }
}

#[test]
fn species_follow_the_species_count() {
    let mut app = population_app(120, 1);
    step(&mut app, 1);
    assert_eq!(species_counts(&mut app), vec![120, 0, 0, 0]);
    app.world_mut().resource_mut::<FlockPopulation>().species = 3;
    step(&mut app, 1);
    assert_eq!(species_counts(&mut app), vec![40, 40, 40, 0]);
}

#[test]
fn reset_brings_back_the_first_flock() {
    let mut app = population_app(50, 2);
    step(&mut app, 1);
    let start: Vec<(Vector, Vector)> = sorted_state(&mut app);
    step(&mut app, 100);
    assert_ne!(sorted_state(&mut app), start, "the flock moved");
    app.world_mut().write_message(ResetFlock);
    step(&mut app, 1);
    // After the reset and one step, the same as one step after the start.
    assert_eq!(sorted_state(&mut app), start);
}

fn sorted_state(app: &mut App) -> Vec<(Vector, Vector)> {
    let mut q = app
        .world_mut()
        .query_filtered::<(&FlockIndex, &Position, &Velocity), With<Boid>>();
    let mut v: Vec<_> = q
        .iter(app.world())
        .map(|(i, p, v)| (i.0, p.0, v.0))
        .collect();
    v.sort_by_key(|x| x.0);
    v.into_iter().map(|x| (x.1, x.2)).collect()
}

#[test]
fn pause_stops_the_flock_and_step_advances_it_once() {
    let mut app = population_app(30, 1);
    step(&mut app, 3);
    app.world_mut()
        .resource_mut::<SimulationControl>()
        .toggle_pause();
    let before = sorted_state(&mut app);
    let steps = app.world().resource::<FlockStats>().steps;
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(sorted_state(&mut app), before, "paused");
    app.world_mut()
        .resource_mut::<SimulationControl>()
        .step_once();
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(
        app.world().resource::<FlockStats>().steps,
        steps + 1,
        "exactly one step"
    );
    assert_ne!(sorted_state(&mut app), before);
    app.world_mut()
        .resource_mut::<SimulationControl>()
        .toggle_pause();
    step(&mut app, 3);
}
