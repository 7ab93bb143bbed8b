//! The field of view hides what is straight behind a boid and nothing else.

mod common;

use bevy::prelude::*;
use common::*;
use murmuration_sim::hash::SpatialHash;
use murmuration_sim::internal::FlockRow;
use murmuration_sim::internal::HashSlot;
use murmuration_sim::internal::neighbours_of;
use murmuration_sim::internal::{in_view, view_cos};
use murmuration_sim::math::{DIM, Vector};
use murmuration_sim::prelude::*;
use murmuration_sim::stats::FlockStats;

#[test]
fn the_view_test_itself() {
    let v = xyz([50.0, 0.0, 0.0]);
    let c270 = view_cos(270.0);
    assert!(in_view(xyz([10.0, 0.0, 0.0]), v, c270), "ahead");
    assert!(in_view(xyz([0.0, 10.0, 0.0]), v, c270), "to the side");
    assert!(
        in_view(xyz([-10.0, 11.0, 0.0]), v, c270),
        "132 degrees off the heading"
    );
    assert!(!in_view(xyz([-10.0, 0.0, 0.0]), v, c270), "straight behind");
    assert!(
        !in_view(xyz([-10.0, 9.5, 0.0]), v, c270),
        "136.5 degrees: just inside the blind spot"
    );
    let c120 = view_cos(120.0);
    assert!(in_view(xyz([10.0, 5.0, 0.0]), v, c120));
    if DIM == 3 {
        // The cone is round about the heading: the same off its other sides.
        assert!(in_view(xyz([0.0, 0.0, 10.0]), v, c270));
        assert!(in_view(xyz([10.0, 3.0, 4.0]), v, c120));
        assert!(!in_view(xyz([10.0, 12.0, 16.0]), v, c120));
        assert!(!in_view(xyz([-10.0, 6.0, -7.0]), v, c270));
    }
    assert!(
        !in_view(xyz([0.0, 10.0, 0.0]), v, c120),
        "90 degrees is outside 120"
    );
    assert!(
        !in_view(xyz([10.0, 20.0, 0.0]), v, c120),
        "63 degrees is outside 60"
    );
    for d in [Vector::X, -Vector::X, Vector::Y, xyz([-3.0, -0.001, 0.2])] {
        assert!(in_view(d, v, view_cos(360.0)), "360 sees {d}");
        assert!(in_view(d, Vector::ZERO, c270), "a boid at rest sees {d}");
    }
    assert!(
        !in_view(xyz([10.0, 0.1, 0.0]), v, view_cos(0.0)),
        "0 degrees sees nothing off-axis"
    );
}

/// How many neighbours each of the boids sees under `fov`.
fn neighbour_counts(fov: f32, boids: &[(Vector, Vector)]) -> Vec<usize> {
    let params = FlockParams {
        field_of_view: fov,
        ..FlockParams::default()
    };
    let perception = FlockRow::new(&params).perception();
    let mut app = app(params, SimulationBounds::wrap(rect(400.0, 400.0)));
    let ids: Vec<Entity> = boids
        .iter()
        .map(|&(p, v)| spawn_boid(&mut app, p, v, 0))
        .collect();
    step(&mut app, 1);
    // The snapshot the step read: the boids as spawned.
    let hash = app.world().resource::<SpatialHash>().clone();
    ids.iter()
        .map(|&e| {
            let slot = app.world().get::<HashSlot>(e).unwrap().0 as usize;
            neighbours_of(&hash, &perception, slot).len()
        })
        .collect()
}

#[test]
fn a_neighbour_straight_behind_is_ignored_at_270_and_one_ahead_is_seen() {
    // A flies +x; B is 20 behind it, C 20 ahead, both flying +x too.
    let boids = [
        (xyz([200.0; 3]), xyz([100.0, 0.0, 0.0])),
        (xyz([180.0, 200.0, 200.0]), xyz([100.0, 0.0, 0.0])),
        (xyz([220.0, 200.0, 200.0]), xyz([100.0, 0.0, 0.0])),
    ];
    // A sees C only; B sees A and C ahead; C sees neither (both behind).
    assert_eq!(neighbour_counts(270.0, &boids), vec![1, 2, 0]);
    assert_eq!(neighbour_counts(360.0, &boids), vec![2, 2, 2]);
}

#[test]
fn the_plugin_counts_the_same_neighbours() {
    for (fov, expected) in [(270.0, 3), (360.0, 6)] {
        let params = FlockParams {
            field_of_view: fov,
            ..FlockParams::default()
        };
        let mut app = app(params, SimulationBounds::wrap(rect(400.0, 400.0)));
        for x in [180.0, 200.0, 220.0] {
            spawn_boid(&mut app, xyz([x, 200.0, 200.0]), xyz([100.0, 0.0, 0.0]), 0);
        }
        step(&mut app, 1);
        assert_eq!(
            app.world().resource::<FlockStats>().neighbours,
            expected,
            "fov {fov}"
        );
    }
}
