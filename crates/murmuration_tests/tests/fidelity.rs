//! The presets and rules do what the tutorials say, measured with `FlockMetrics` over the last
//! fifth of a seeded headless run (the same measurement as the `report` example).

mod common;

use common::*;
use murmuration_harness::measured::MeasuredRun;
use murmuration_sim::math::Region;
use murmuration_sim::metrics::FlockMetrics;
use murmuration_sim::prelude::*;

/// 300 boids released in the middle of a wrapping world as crowded as 1000 x 750
/// ([`world_as_crowded_as`]), flown for `seconds`.
fn measure(params: FlockParams, seconds: f32) -> FlockMetrics {
    measure_n(params, seconds, 300)
}

fn measure_n(params: FlockParams, seconds: f32, boids: usize) -> FlockMetrics {
    let world = world_as_crowded_as(1000.0, 750.0);
    let middle = Region::from_center_size(world.center(), world.size() * 0.5);
    let m = MeasuredRun {
        params,
        bounds: SimulationBounds::wrap(world),
        population: FlockPopulation {
            region: Some(middle),
            ..FlockPopulation::new(boids, 1)
        },
        seconds,
        steps_per_second: 60.0,
        roost: None,
    }
    .measure();
    println!("{m:?}");
    m
}

#[test]
fn fish_polarize_more_than_sheep() {
    let fish = measure(FlockParams::fish(), 30.0);
    let sheep = measure(FlockParams::sheep(), 30.0);
    assert!(
        fish.polarization > 0.9,
        "fish turn as one: {}",
        fish.polarization
    );
    assert!(
        fish.polarization > sheep.polarization + 0.5,
        "fish {} vs sheep {}",
        fish.polarization,
        sheep.polarization
    );
}

#[test]
fn sheep_stay_a_slow_cohesive_herd() {
    let sheep = measure(FlockParams::sheep(), 30.0);
    let params = FlockParams::sheep();
    assert!(
        sheep.mean_speed < params.max_speed * 0.3,
        "slow: {}",
        sheep.mean_speed
    );
    assert!(
        sheep.groups <= 2 && sheep.largest_share > 0.9,
        "one herd: {sheep:?}"
    );
    assert!(
        sheep.polarization < 0.4,
        "milling, not marching: {}",
        sheep.polarization
    );
}

#[test]
fn starlings_keep_a_dense_fast_single_cloud() {
    // Murmurations are big: 600 birds (300 hold together too, measured 0.97 in the largest).
    let starlings = measure_n(FlockParams::starlings(), 30.0, 600);
    let fish = measure(FlockParams::fish(), 30.0);
    let sheep = measure(FlockParams::sheep(), 30.0);
    assert!(
        starlings.groups == 1 && starlings.largest_share > 0.95,
        "{starlings:?}"
    );
    // Dense: nearest neighbours well inside the perception radius.
    let perception = FlockParams::starlings().perception_radius;
    assert!(
        starlings.nn_distance < perception * 0.5,
        "{}",
        starlings.nn_distance
    );
    // Fast: the fastest of the presets.
    assert!(
        starlings.mean_speed > fish.mean_speed * 1.5,
        "{starlings:?} vs {fish:?}"
    );
    assert!(starlings.mean_speed > sheep.mean_speed * 5.0);
}

#[test]
fn without_separation_boids_pile_up() {
    let with = measure(FlockParams::default(), 20.0);
    let without = measure(
        FlockParams {
            separation_weight: 0.0,
            ..FlockParams::default()
        },
        20.0,
    );
    assert!(without.violations > 0.95, "{without:?}");
    assert!(
        without.nn_distance < with.nn_distance * 0.3,
        "nearest neighbour {} without separation vs {} with",
        without.nn_distance,
        with.nn_distance
    );
}
