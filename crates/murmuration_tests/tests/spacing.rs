//! The presets keep their spacing at any size: after 60 simulated seconds, flying freely and
//! pulled together by an attractor at the centre of the world, the mean nearest-neighbour
//! distance is at least half the separation distance, and a flock eight times bigger (in a world
//! eight times bigger) keeps it within 1.25x. The same runs as the `report` example
//! (`MeasuredRun::steady`). The runs at 8,000 boids are the long tier (ignored; CI runs them with
//! `-- --include-ignored`).

use murmuration_harness::measured::MeasuredRun;
use murmuration_sim::prelude::*;

/// Mean nearest-neighbour distance over the separation distance, at steady state.
fn spacing(params: &FlockParams, boids: usize, pulled: bool) -> f32 {
    let m = MeasuredRun::steady(params.clone(), boids, 1, pulled).measure();
    println!("{boids} boids, pulled {pulled}: {m:?}");
    assert!(m.boids > 0, "measured the flock");
    m.nn_distance / params.separation_distance
}

/// Every preset but the tutorial's keeps at least half its separation distance at 1,000 boids,
/// flying freely and pulled together.
#[test]
fn the_presets_keep_their_spacing_at_a_thousand_boids() {
    for (name, params) in presets() {
        for pulled in [false, true] {
            let s = spacing(&params, 1000, pulled);
            assert!(
                s >= 0.5,
                "{name} (pulled {pulled}): nearest neighbours at {s} separation distances"
            );
        }
    }
}

/// The presets that give way to crowding.
fn presets() -> [(&'static str, FlockParams); 3] {
    [
        ("starlings", FlockParams::starlings()),
        ("fish", FlockParams::fish()),
        ("sheep", FlockParams::sheep()),
    ]
}

/// The spacing of `params` at 1,000 and 8,000 boids, free and pulled: at least half the
/// separation distance at both sizes, within 1.25x of each other.
fn keeps_its_spacing(params: FlockParams) {
    for pulled in [false, true] {
        let small = spacing(&params, 1000, pulled);
        let big = spacing(&params, 8000, pulled);
        for (boids, s) in [(1000, small), (8000, big)] {
            assert!(
                s >= 0.5,
                "{boids} boids (pulled {pulled}): nearest neighbours at {s} separation distances"
            );
        }
        let ratio = small.max(big) / small.min(big);
        assert!(
            ratio <= 1.25,
            "pulled {pulled}: {small} at 1,000 boids against {big} at 8,000 ({ratio}x)"
        );
    }
}

#[test]
#[ignore = "long tier: cargo test --workspace -- --include-ignored"]
fn starlings_keep_their_spacing_at_any_size() {
    keeps_its_spacing(FlockParams::starlings());
}

#[test]
#[ignore = "long tier: cargo test --workspace -- --include-ignored"]
fn fish_keep_their_spacing_at_any_size() {
    keeps_its_spacing(FlockParams::fish());
}

#[test]
#[ignore = "long tier: cargo test --workspace -- --include-ignored"]
fn sheep_keep_their_spacing_at_any_size() {
    keeps_its_spacing(FlockParams::sheep());
}

/// The tutorial's exact rule does not: pulled together, its flock crushes.
#[test]
fn the_tutorials_rule_crushes_when_pulled() {
    let params = FlockParams::default();
    assert_eq!(params.crowding_comfort, 0.0, "the tutorial's rule exactly");
    let small = spacing(&params, 1000, true);
    assert!(small < 0.25, "{small} at 1,000");
}

/// And the bigger the flock, the more.
#[test]
#[ignore = "long tier: cargo test --workspace -- --include-ignored"]
fn the_tutorials_rule_crushes_the_more_the_bigger_the_flock() {
    let params = FlockParams::default();
    let small = spacing(&params, 1000, true);
    let big = spacing(&params, 8000, true);
    assert!(big < small, "{small} at 1,000, {big} at 8,000");
}
