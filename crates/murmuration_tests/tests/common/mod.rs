//! Helpers shared by the integration tests: a headless app stepped by hand.
#![allow(dead_code)]

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use murmuration_harness::room_per_boid;
use murmuration_sim::hash::SpatialHash;
pub use murmuration_sim::math::xyz;
use murmuration_sim::math::{DIM, Region, Vector};
use murmuration_sim::prelude::*;
use murmuration_sim::stats::FlockStats;

/// A headless app with the plugin in `FixedUpdate`; every `update()` runs exactly one step of
/// 1/64 s (after the first, which only starts the clock).
pub fn app(params: FlockParams, bounds: SimulationBounds) -> App {
    let mut app = App::new();
    add_plugins(&mut app, params, bounds);
    app
}

/// Adds to `app` what [`app`] builds it with (also to a world that already holds entities).
pub fn add_plugins(app: &mut App, params: FlockParams, bounds: SimulationBounds) {
    app.add_plugins(MinimalPlugins)
        .add_plugins(
            BoidsPlugins::new(FixedUpdate)
                .with_params(params)
                .with_bounds(bounds),
        )
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
}

/// The app with a seeded flock of `count` boids over the whole bounds.
pub fn flock_app(params: FlockParams, bounds: SimulationBounds, count: usize, seed: u64) -> App {
    let rect = bounds.rect;
    let mut app = app(params, bounds);
    app.world_mut()
        .commands()
        .queue(FlockSpawn::new(count, seed).with_region(rect));
    app.world_mut().flush();
    app
}

/// Runs the app until `n` more simulation steps have happened.
pub fn step(app: &mut App, n: u64) {
    let target = app.world().resource::<FlockStats>().steps + n;
    let mut guard = 0;
    while app.world().resource::<FlockStats>().steps < target {
        app.update();
        guard += 1;
        assert!(guard < n + 10, "the simulation does not step");
    }
}

/// Spawns one boid.
pub fn spawn_boid(app: &mut App, position: Vector, velocity: Vector, species: u16) -> Entity {
    app.world_mut()
        .spawn((
            Boid,
            Position(position),
            Velocity(velocity),
            Species(species),
        ))
        .id()
}

/// Every boid's (entity, position, velocity), in entity order.
pub fn boids(app: &mut App) -> Vec<(Entity, Vector, Vector)> {
    let mut q = app
        .world_mut()
        .query_filtered::<(Entity, &Position, &Velocity), With<Boid>>();
    let mut out: Vec<_> = q.iter(app.world()).map(|(e, p, v)| (e, p.0, v.0)).collect();
    out.sort_by_key(|b| b.0);
    out
}

/// A world rectangle from (0, 0) to (`w`, `h`); in 3D a box `h` deep.
pub fn rect(w: f32, h: f32) -> Region {
    Region::from_corners(Vector::ZERO, xyz([w, h, h]))
}

/// The size of a world as crowded as the `w` x `h` rectangle for a flock that sees 50 units
/// (the default perception radius): the rectangle in 2D; in 3D a cube of the volume
/// [`room_per_boid`] gives, so that a test asks the same of a flock in both dimensions.
pub fn as_crowded_as(w: f32, h: f32) -> Vector {
    if DIM == 2 {
        xyz([w, h, 0.0])
    } else {
        Vector::splat(room_per_boid(w * h, 50.0).cbrt())
    }
}

/// A world from the origin, as crowded as the `w` x `h` rectangle ([`as_crowded_as`]).
pub fn world_as_crowded_as(w: f32, h: f32) -> Region {
    Region::from_corners(Vector::ZERO, as_crowded_as(w, h))
}

/// Parameters with only the given rule weights, and the flee/seek/obstacle weights kept.
pub fn only_rules(separation: f32, alignment: f32, cohesion: f32) -> FlockParams {
    FlockParams {
        separation_weight: separation,
        alignment_weight: alignment,
        cohesion_weight: cohesion,
        ..FlockParams::default()
    }
}

/// The hash rebuilt from the app's current state, for measuring (the plugin's own copy is
/// from the start of the last step).
pub fn fresh_hash(app: &mut App) -> SpatialHash {
    let bounds = *app.world().resource::<SimulationBounds>();
    let radius = app.world().resource::<FlockParams>().perception_radius;
    let mut q = app
        .world_mut()
        .query_filtered::<(Entity, &Position, &Velocity, &Species), With<Boid>>();
    let boids: Vec<_> = q
        .iter(app.world())
        .map(|(e, p, v, s)| (e, p.0, v.0, s.0))
        .collect();
    let mut hash = SpatialHash::default();
    hash.rebuild(&bounds, radius, &boids);
    hash
}
