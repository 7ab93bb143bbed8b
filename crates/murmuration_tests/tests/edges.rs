//! Wrap (nearest image, no tearing) and turn-back edges.

mod common;

use bevy::prelude::*;
use common::*;
use murmuration_sim::math::{DIM, Vector};
use murmuration_sim::prelude::*;
use murmuration_sim::stats::FlockStats;

#[test]
fn a_pair_two_units_apart_across_the_seam_are_neighbours() {
    // Across each face of the world (each axis's seam) in turn.
    let bounds = SimulationBounds::wrap(rect(400.0, 300.0));
    for axis in 0..DIM {
        let mut app = app(FlockParams::default(), bounds);
        let (mut a, mut b) = (bounds.rect.center(), bounds.rect.center());
        a[axis] = bounds.rect.max[axis] - 1.0;
        b[axis] = bounds.rect.min[axis] + 1.0;
        // Flying across the seam's axis, so that neither is behind the other.
        let mut v = Vector::ZERO;
        v[(axis + 1) % DIM] = 100.0;
        spawn_boid(&mut app, a, v, 0);
        spawn_boid(&mut app, b, v, 0);
        step(&mut app, 1);
        assert_eq!(
            app.world().resource::<FlockStats>().neighbours,
            2,
            "across axis {axis}"
        );
    }
}

#[test]
fn a_boid_leaving_the_right_edge_reappears_on_the_left() {
    let params = FlockParams {
        min_speed: 0.0,
        ..FlockParams::default()
    };
    let mut app = app(params, SimulationBounds::wrap(rect(400.0, 300.0)));
    let b = spawn_boid(
        &mut app,
        xyz([399.5, 120.0, 150.0]),
        xyz([100.0, 0.0, 0.0]),
        0,
    );
    step(&mut app, 1);
    let p = app.world().get::<Position>(b).unwrap().0;
    // 100 units/s for 1/64 s: 1.5625 units, 1.0625 of them past the seam.
    assert!((p - xyz([1.0625, 120.0, 150.0])).length() < 1e-3, "{p}");
}

#[test]
fn a_flock_crossing_the_seam_stays_together() {
    // A tight group flying +x across the seam keeps its shape: nobody loses its neighbours.
    let params = FlockParams::default();
    let mut app = app(params, SimulationBounds::wrap(rect(400.0, 300.0)));
    for i in 0..5 {
        for j in 0..5 {
            let p = xyz([340.0 + i as f32 * 12.0, 120.0 + j as f32 * 12.0, 150.0]);
            spawn_boid(&mut app, p, xyz([110.0, 0.0, 0.0]), 0);
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
    let b = spawn_boid(
        &mut app,
        xyz([300.0, 200.0, 200.0]),
        xyz([120.0, 0.0, 0.0]),
        0,
    );
    let mut turned = false;
    for _ in 0..640 {
        step(&mut app, 1);
        let p = app.world().get::<Position>(b).unwrap().0;
        let v = app.world().get::<Velocity>(b).unwrap().0;
        turned |= v.x < 0.0;
        // Well inside: the turn-back force did it, not the hard wall at the edge.
        assert!(
            (0..DIM).all(|axis| p[axis] > 5.0 && p[axis] < 395.0),
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
