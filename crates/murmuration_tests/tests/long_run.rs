//! A 2,000-boid flock with a hunter and an obstacle flies on: speeds stay within their bounds,
//! nothing turns NaN, nobody leaves the world. A thousand steps in the fast tier, ten thousand in
//! the long one.

mod common;

use common::*;
use murmuration_sim::prelude::*;
use murmuration_sim::stats::FlockStats;

#[test]
fn a_thousand_steps_of_two_thousand_boids_stay_finite_and_within_speed() {
    flies_on(1_000);
}

#[test]
#[ignore = "long tier: cargo test --workspace -- --include-ignored"]
fn ten_thousand_steps_of_two_thousand_boids_stay_finite_and_within_speed() {
    flies_on(10_000);
}

/// `steps` steps (whole hundreds), checked every hundred.
fn flies_on(steps: u64) {
    let params = FlockParams {
        field_of_view: 270.0,
        ..FlockParams::default()
    };
    let (min, max) = (params.min_speed, params.max_speed);
    let bounds = SimulationBounds::wrap(rect(1600.0, 1000.0));
    let mut app = flock_app(params, bounds, 2000, 51);
    app.world_mut()
        .spawn((Hunter::default(), Position(xyz([800.0, 500.0, 500.0]))));
    app.world_mut()
        .spawn((Obstacle::round(60.0), Position(xyz([400.0, 300.0, 300.0]))));
    for round in 0..steps / 100 {
        step(&mut app, 100);
        for (e, p, v) in boids(&mut app) {
            assert!(
                p.is_finite() && v.is_finite(),
                "step {}: {e} at {p} {v}",
                round * 100
            );
            let s = v.length();
            assert!(
                s >= min * 0.999 && s <= max * 1.001,
                "step {}: {e} flies at {s}",
                round * 100
            );
            assert!(bounds.rect.contains(p), "{p} outside the wrapped world");
        }
    }
    let stats = app.world().resource::<FlockStats>();
    assert_eq!(stats.boids, 2000);
    assert_eq!(stats.repaired, 0);
}
