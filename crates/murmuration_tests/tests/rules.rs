//! Each of the three rules on its own does what the tutorial says it does.

mod common;

use bevy::prelude::*;
use common::*;
use murmuration_sim::math::Region;
use murmuration_sim::metrics::{Members, mean_nearest_neighbour_distance, polarization};
use murmuration_sim::prelude::*;

fn polarization_of(app: &mut App) -> f32 {
    polarization(boids(app).into_iter().map(|b| b.2)).unwrap()
}

fn groups(app: &mut App) -> usize {
    let radius = app.world().resource::<FlockParams>().perception_radius;
    murmuration_sim::metrics::groups(Members::all(&fresh_hash(app)), radius).0
}

fn nn_distance(app: &mut App) -> f32 {
    mean_nearest_neighbour_distance(Members::all(&fresh_hash(app))).unwrap()
}

#[test]
fn alignment_alone_polarizes_the_flock() {
    let bounds = SimulationBounds::wrap(world_as_crowded_as(500.0, 500.0));
    let mut app = flock_app(only_rules(0.0, 1.0, 0.0), bounds, 400, 11);
    step(&mut app, 1);
    let start = polarization_of(&mut app);
    assert!(start < 0.2, "random headings to begin with: {start}");
    // Measured: 0.50 after 300 steps, 0.90 after 600, 0.98 after 900.
    step(&mut app, 900);
    let end = polarization_of(&mut app);
    assert!(
        end > 0.9,
        "polarization after 900 steps (14 s): {start} -> {end}"
    );
}

#[test]
fn separation_alone_disperses_the_flock() {
    // Packed into a 120 x 120 square (as crowded a cube in 3D) in a big world.
    let bounds = SimulationBounds::wrap(world_as_crowded_as(800.0, 800.0));
    let mut app = app(only_rules(1.6, 0.0, 0.0), bounds);
    let packed = Region::from_center_size(bounds.rect.center(), as_crowded_as(120.0, 120.0));
    app.world_mut()
        .commands()
        .queue(FlockSpawn::new(300, 12).with_region(packed));
    step(&mut app, 1);
    let start = nn_distance(&mut app);
    step(&mut app, 300);
    let end = nn_distance(&mut app);
    assert!(
        end > start * 1.5,
        "mean nearest-neighbour distance {start} -> {end}"
    );
}

#[test]
fn cohesion_alone_clumps_the_flock() {
    // Sparse to begin with (mean spacing 70, perception 50), so the flock starts as many small
    // groups: cohesion pulls them into fewer, tighter clumps.
    let bounds = SimulationBounds::wrap(world_as_crowded_as(1000.0, 1000.0));
    let mut app = flock_app(only_rules(0.0, 0.0, 0.9), bounds, 200, 13);
    step(&mut app, 1);
    let start = nn_distance(&mut app);
    let groups_at_start = groups(&mut app);
    // Measured: 86 groups -> 35 after 900 steps.
    step(&mut app, 900);
    let end = nn_distance(&mut app);
    let groups_at_end = groups(&mut app);
    assert!(
        end < start * 0.75,
        "mean nearest-neighbour distance {start} -> {end}"
    );
    assert!(
        groups_at_end * 3 < groups_at_start * 2,
        "groups {groups_at_start} -> {groups_at_end}"
    );
}

#[test]
fn all_three_rules_make_an_ordered_flock_that_keeps_its_distance() {
    let bounds = SimulationBounds::wrap(world_as_crowded_as(600.0, 600.0));
    let mut app = flock_app(FlockParams::default(), bounds, 400, 14);
    step(&mut app, 900);
    let p = polarization_of(&mut app);
    let nn = nn_distance(&mut app);
    assert!(p > 0.6, "polarization {p}");
    // Separation keeps neighbours apart: nobody stacks on anybody.
    assert!(nn > 5.0, "mean nearest-neighbour distance {nn}");
}
