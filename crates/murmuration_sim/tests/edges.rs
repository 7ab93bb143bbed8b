//! Wrap (nearest image, no tearing) and turn-back edges.

mod common;

use bevy::prelude::*;
use common::*;
use murmuration_sim::prelude::*;

#[test]
fn a_pair_two_units_apart_across_the_seam_are_neighbours() {
    let mut app = app(
        FlockParams::default(),
        SimulationBounds::wrap(rect(400.0, 300.0)),
    );
    spawn_boid(&mut app, Vec2::new(399.0, 150.0), Vec2::new(0.0, 100.0), 0);
    spawn_boid(&mut app, Vec2::new(1.0, 150.0), Vec2::new(0.0, 100.0), 0);
    step(&mut app, 1);
    assert_eq!(app.world().resource::<FlockStats>().neighbours, 2);
}

#[test]
fn a_boid_leaving_the_right_edge_reappears_on_the_left() {
    let params = FlockParams {
        min_speed: 0.0,
        ..FlockParams::default()
    };
    let mut app = app(params, SimulationBounds::wrap(rect(400.0, 300.0)));
    let b = spawn_boid(&mut app, Vec2::new(399.5, 120.0), Vec2::new(100.0, 0.0), 0);
    step(&mut app, 1);
    let p = app.world().get::<Position>(b).unwrap().0;
    // 100 units/s for 1/64 s: 1.5625 units, 1.0625 of them past the seam.
    assert!((p - Vec2::new(1.0625, 120.0)).length() < 1e-3, "{p}");
}

#[test]
fn a_flock_crossing_the_seam_stays_together() {
    // A tight group flying +x across the seam keeps its shape: nobody loses its neighbours.
    let params = FlockParams::default();
    let mut app = app(params, SimulationBounds::wrap(rect(400.0, 300.0)));
    for i in 0..5 {
        for j in 0..5 {
            let p = Vec2::new(340.0 + i as f32 * 12.0, 120.0 + j as f32 * 12.0);
            spawn_boid(&mut app, p, Vec2::new(110.0, 0.0), 0);
        }
    }
    let mut crossed = false;
    for _ in 0..120 {
        step(&mut app, 1);
        let all = boids(&mut app);
        let xs: Vec<f32> = all.iter().map(|b| b.1.x).collect();
        crossed |= xs.iter().any(|&x| x < 100.0) && xs.iter().any(|&x| x > 300.0);
        // Every boid still sees at least two others.
        let per_boid = app.world().resource::<FlockStats>().neighbours_per_boid();
        assert!(
            per_boid >= 2.0,
            "the flock tore at the seam: {per_boid} neighbours per boid"
        );
    }
    assert!(crossed, "the flock never straddled the seam");
}

#[test]
fn turn_back_keeps_a_boid_inside_by_steering() {
    let bounds = SimulationBounds::turn_back(rect(400.0, 400.0));
    let mut app = app(FlockParams::default(), bounds);
    let b = spawn_boid(&mut app, Vec2::new(300.0, 200.0), Vec2::new(120.0, 0.0), 0);
    let mut turned = false;
    for _ in 0..640 {
        step(&mut app, 1);
        let p = app.world().get::<Position>(b).unwrap().0;
        let v = app.world().get::<Velocity>(b).unwrap().0;
        turned |= v.x < 0.0;
        // Well inside: the turn-back force did it, not the hard wall at the edge.
        assert!(
            p.x > 5.0 && p.x < 395.0 && p.y > 5.0 && p.y < 395.0,
            "the boid reached the edge at {p}"
        );
    }
    assert!(turned, "it never turned back");
}

#[test]
fn turn_back_keeps_a_whole_flock_inside() {
    let bounds = SimulationBounds::turn_back(rect(600.0, 400.0));
    let mut app = flock_app(FlockParams::default(), bounds, 300, 4);
    for _ in 0..640 {
        step(&mut app, 1);
    }
    for (_, p, _) in boids(&mut app) {
        assert!(bounds.rect.contains(p), "{p} left the bounds");
    }
}
