//! Round obstacles: no boid centre ever enters one.

mod common;

use bevy::prelude::*;
use common::*;
use murmuration_sim::obstacles::ObstacleSettings;
use murmuration_sim::prelude::*;

#[test]
fn no_boid_enters_an_obstacle_over_a_long_run() {
    let bounds = SimulationBounds::wrap(rect(600.0, 600.0));
    let obstacles = [
        (xyz([150.0, 200.0, 200.0]), 40.0),
        (xyz([400.0, 150.0, 150.0]), 30.0),
        (xyz([350.0, 420.0, 420.0]), 60.0),
        (xyz([598.0, 300.0, 300.0]), 25.0), // across the seam
    ];
    let mut app = flock_app(FlockParams::default(), bounds, 400, 21);
    app.world_mut().flush();
    // Start nobody inside or right at the edge of an obstacle.
    let inside: Vec<Entity> = boids(&mut app)
        .into_iter()
        .filter(|b| {
            obstacles
                .iter()
                .any(|(c, r)| bounds.delta(b.1, *c).length() < r + 30.0)
        })
        .map(|b| b.0)
        .collect();
    for e in inside {
        app.world_mut().despawn(e);
    }
    for (c, r) in obstacles {
        app.world_mut().spawn((Obstacle::round(r), Position(c)));
    }
    let mut closest = f32::INFINITY;
    for _ in 0..3000 {
        step(&mut app, 1);
        for (_, p, _) in boids(&mut app) {
            for (c, r) in obstacles {
                let gap = bounds.delta(p, c).length() - r;
                closest = closest.min(gap);
                assert!(gap > 0.0, "a boid at {p} is inside the obstacle at {c}");
            }
        }
    }
    // Boids did fly into the avoidance band, so the test exercised the avoidance.
    let avoid = ObstacleSettings::default().avoid_distance;
    assert!(closest < avoid, "closest approach {closest}");
}

#[test]
fn a_boid_flying_straight_at_an_obstacle_turns_aside_without_braking_or_touching_it() {
    // Head-on, its look-ahead meets the obstacle dead ahead: it turns along the surface (to the
    // side the tie-break picks), keeping its speed, and never touches the obstacle.
    let bounds = SimulationBounds::turn_back(rect(800.0, 400.0));
    let mut app = app(FlockParams::default(), bounds);
    let b = spawn_boid(
        &mut app,
        xyz([100.0, 200.0, 200.0]),
        xyz([120.0, 0.0, 0.0]),
        0,
    );
    let centre = xyz([400.0, 200.0, 200.0]);
    app.world_mut()
        .spawn((Obstacle::round(50.0), Position(centre)));
    let mut closest = f32::INFINITY;
    let mut slowest = f32::INFINITY;
    for _ in 0..150 {
        step(&mut app, 1);
        let p = app.world().get::<Position>(b).unwrap().0;
        closest = closest.min(p.distance(centre) - 50.0);
        slowest = slowest.min(app.world().get::<Velocity>(b).unwrap().0.length());
    }
    assert!(
        closest > 0.0 && closest < 30.0,
        "closest approach to the edge {closest}"
    );
    assert!(slowest > 110.0, "it turned without braking: {slowest}");
}
