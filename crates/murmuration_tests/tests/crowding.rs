//! A flock crushed into a few cells: the candidate cap keeps each boid's checks bounded, the
//! forces stay finite, and the flock still spreads itself out.

mod common;

use bevy::prelude::*;
use common::*;
use murmuration_sim::hash::SpatialHash;
use murmuration_sim::internal::CANDIDATE_CAP;
use murmuration_sim::math::{Region, Vector};
use murmuration_sim::metrics::{Members, mean_nearest_neighbour_distance};
use murmuration_sim::prelude::*;
use murmuration_sim::stats::FlockStats;

#[test]
fn a_crushed_flock_is_capped_and_comes_apart() {
    let params = FlockParams::starlings();
    let bounds = SimulationBounds::wrap(rect(2000.0, 2000.0));
    let mut app = app(params.clone(), bounds);
    // 6,000 boids in a square two perception radii across: every block holds them all.
    let crush = Region::from_center_size(Vector::splat(1000.0), Vector::splat(140.0));
    app.world_mut()
        .commands()
        .queue(FlockSpawn::new(6000, 3).with_region(crush));
    app.world_mut().flush();
    step(&mut app, 1);
    let before =
        mean_nearest_neighbour_distance(Members::all(app.world().resource::<SpatialHash>()))
            .unwrap();
    let stats = app.world().resource::<FlockStats>().clone();
    // Uncapped, each boid would check all 6,000; capped, about CANDIDATE_CAP (plus the partial
    // groups at the ends of the block's runs).
    assert!(
        stats.candidates_per_boid() <= (CANDIDATE_CAP + 6 * 8) as f64,
        "{} candidates per boid",
        stats.candidates_per_boid()
    );
    assert!(stats.candidates_per_boid() > CANDIDATE_CAP as f64 * 0.5);
    // The estimate still sees the crowd: over a thousand neighbours (in 2D the perception disc
    // holds about 40% of the square, in 3D its ball about 20% of the cube), not the few hundred
    // of the sample alone.
    assert!(
        stats.neighbours_per_boid() > 1000.0,
        "{}",
        stats.neighbours_per_boid()
    );
    step(&mut app, 120);
    let mut query = app
        .world_mut()
        .query_filtered::<(&Position, &Velocity), With<Boid>>();
    for (p, v) in query.iter(app.world()) {
        assert!(p.is_finite() && v.is_finite());
    }
    let after =
        mean_nearest_neighbour_distance(Members::all(app.world().resource::<SpatialHash>()))
            .unwrap();
    assert!(
        after > before * 2.0,
        "nearest neighbour {before} -> {after}"
    );
}
