//! Inputs that a naive neighbour search pays for with the square of the flock: every boid on one
//! point, in one cell, on one line, far outside the world, a perception radius larger than the
//! world, every boid a hunter. Each runs, bounded: no boid checks more than about
//! `CANDIDATE_CAP` candidates, whatever the flock's size, and nothing becomes NaN. (The `stress`
//! example's `--case` times them.)

use murmuration_harness::stress::{Pathology, StressFlock};
use murmuration_sim::internal::CANDIDATE_CAP;
use murmuration_sim::math::DIM;
use murmuration_sim::prelude::*;
use murmuration_sim::stats::FlockStats;

/// The most candidates a boid may check: the cap, plus a part-filled group of eight at the end
/// of each run of its block of cells (a row of three cells, twice where it crosses the seam: six
/// runs in 2D, eighteen in 3D).
const BOUND: f64 = (CANDIDATE_CAP + 2 * 3usize.pow(DIM as u32 - 1) * 8) as f64;

/// Flies `boids` boids of `case` for a few steps and returns the most candidates per boid a step
/// checked, after checking every boid stayed finite.
fn most_candidates(case: Pathology, boids: usize) -> f64 {
    let flock = StressFlock {
        pathology: Some(case),
        ..StressFlock::new(boids)
    };
    let mut app = flock.app(Some(1));
    let mut most: f64 = 0.0;
    for _ in 0..6 {
        app.update();
        let stats = app.world().resource::<FlockStats>();
        most = most.max(stats.candidates_per_boid());
    }
    let mut query = app.world_mut().query::<(&Position, &Velocity)>();
    let mut count = 0;
    for (p, v) in query.iter(app.world()) {
        assert!(p.is_finite() && v.is_finite(), "{case:?}: {p:?} {v:?}");
        count += 1;
    }
    assert_eq!(count, boids, "{case:?}");
    most
}

#[test]
fn no_input_makes_a_boid_check_more_than_the_cap() {
    for (name, case) in Pathology::ALL {
        let small = most_candidates(case, 1000);
        let big = most_candidates(case, 4000);
        println!("{name}: {small:.1} candidates per boid at 1,000 boids, {big:.1} at 4,000");
        assert!(small <= BOUND && big <= BOUND, "{name}: {small}, {big}");
    }
}
