//! The grid against the brute-force oracle: from the same flock, both find the same neighbours
//! and give the same steering, up to float rounding, in both edge modes and both neighbour modes.

mod common;

use bevy::prelude::*;
use common::*;
use murmuration_sim::internal::NeighbourSearch;
use murmuration_sim::math::{Region, Vector};
use murmuration_sim::params::NeighbourMode;
use murmuration_sim::prelude::*;
use murmuration_sim::stats::FlockStats;

/// Every boid's steering force in the first step (read between steering and integration), in
/// entity order, and that step's neighbour count.
fn forces(
    params: FlockParams,
    bounds: SimulationBounds,
    search: NeighbourSearch,
) -> (Vec<Vector>, u64) {
    let mut app = flock_app(params, bounds, 600, 9);
    app.insert_resource(search);
    // Capture the accelerations between steering and integration.
    app.init_resource::<Captured>().add_systems(
        FixedUpdate,
        capture
            .after(BoidsSystems::Steer)
            .before(BoidsSystems::Integrate),
    );
    step(&mut app, 1);
    let captured = app.world().resource::<Captured>().0.clone();
    let neighbours = app.world().resource::<FlockStats>().neighbours;
    (captured, neighbours)
}

#[derive(Resource, Default)]
struct Captured(Vec<Vector>);

fn capture(mut captured: ResMut<Captured>, boids: Query<(Entity, &Acceleration), With<Boid>>) {
    let mut all: Vec<(Entity, Vector)> = boids.iter().map(|(e, a)| (e, a.0)).collect();
    all.sort_by_key(|b| b.0);
    captured.0 = all.into_iter().map(|b| b.1).collect();
}

#[test]
fn grid_and_brute_force_steer_alike() {
    let rect = Region::from_corners(Vector::ZERO, xyz([600.0, 450.0, 450.0]));
    let topological = FlockParams {
        neighbour_mode: NeighbourMode::Topological { k: 7 },
        ..FlockParams::starlings()
    };
    for bounds in [
        SimulationBounds::wrap(rect),
        SimulationBounds::turn_back(rect),
    ] {
        for params in [
            FlockParams::starlings(),
            FlockParams::default(),
            topological.clone(),
        ] {
            let (grid, grid_n) = forces(params.clone(), bounds, NeighbourSearch::Grid);
            let (brute, brute_n) = forces(params.clone(), bounds, NeighbourSearch::BruteForce);
            assert!(grid_n > 600, "a real flock has neighbours: {grid_n}");
            assert_eq!(grid_n, brute_n, "{bounds:?} {:?}", params.neighbour_mode);
            assert_eq!(grid.len(), brute.len());
            for (g, b) in grid.iter().zip(&brute) {
                assert!(g.is_finite());
                assert!(
                    (*g - *b).length() <= 1e-2 * b.length().max(1.0),
                    "grid {g} vs brute force {b}"
                );
            }
        }
    }
}
