//! Properties over random inputs: the spatial hash returns exactly the brute-force neighbour set
//! for any positions, radius, bounds and edge mode; `steer` never exceeds its maximum force.

use bevy::prelude::*;
use murmuration_sim::hash::SpatialHash;
use murmuration_sim::math::{Region, Vector, xyz};
use murmuration_sim::prelude::*;
use murmuration_sim::steering::steer;
use proptest::prelude::*;

fn world() -> impl Strategy<Value = (SimulationBounds, f32)> {
    (
        (-1000.0f32..1000.0, -1000.0f32..1000.0, -1000.0f32..1000.0),
        (10.0f32..2000.0, 10.0f32..2000.0, 10.0f32..2000.0),
        any::<bool>(),
        1.0f32..200.0,
    )
        .prop_map(|((x, y, z), (w, h, d), wrap, cell)| {
            let rect = Region::from_corners(xyz([x, y, z]), xyz([x + w, y + h, z + d]));
            let bounds = if wrap {
                SimulationBounds::wrap(rect)
            } else {
                SimulationBounds::turn_back(rect)
            };
            (bounds, cell)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn hash_matches_brute_force(
        (bounds, cell) in world(),
        // Positions as fractions of the world; some a little outside it.
        fractions in prop::collection::vec((-0.1f32..1.1, -0.1f32..1.1, -0.1f32..1.1), 1..250),
        radius_factor in 0.05f32..1.5,
        query in (0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0),
    ) {
        let rect = bounds.rect;
        let boids: Vec<(Entity, Vector, Vector, u16)> = fractions
            .iter()
            .enumerate()
            .map(|(i, &(fx, fy, fz))| {
                let p = rect.min + xyz([fx, fy, fz]) * rect.size();
                (Entity::from_raw_u32(i as u32 + 1).unwrap(), p, Vector::X, 0)
            })
            .collect();
        let mut hash = SpatialHash::default();
        hash.rebuild(&bounds, cell, &boids);
        let radius = cell * radius_factor;
        let at = rect.min + xyz([query.0, query.1, query.2]) * rect.size();
        let mut got: Vec<Entity> = Vec::new();
        hash.for_each_within(at, radius, |hit| got.push(hash.entity(hit.slot)));
        got.sort();
        // Brute force, with a sliver of tolerance on the radius for boids exactly on it (the
        // hash measures across the seam through stored images, the oracle by rounding).
        let d = |p: Vector| bounds.delta(at, p).length();
        let sure: Vec<Entity> = boids.iter().filter(|b| d(b.1) < radius * 0.9999).map(|b| b.0).collect();
        let maybe: Vec<Entity> = boids.iter().filter(|b| d(b.1) < radius * 1.0001).map(|b| b.0).collect();
        for e in &sure {
            prop_assert!(got.contains(e), "missed {e}");
        }
        for e in &got {
            prop_assert!(maybe.contains(e), "extra {e}");
        }
    }

    #[test]
    fn steer_never_exceeds_max_force(
        dir in (-1e6f32..1e6, -1e6f32..1e6, -1e6f32..1e6),
        v in (-1e4f32..1e4, -1e4f32..1e4, -1e4f32..1e4),
        speed in 0.0f32..1e4,
        max_force in 0.0f32..1e4,
    ) {
        let f = steer(xyz([dir.0, dir.1, dir.2]), xyz([v.0, v.1, v.2]), speed, max_force);
        prop_assert!(f.is_finite());
        prop_assert!(f.length() <= max_force * (1.0 + 1e-5) + 1e-3, "{f} > {max_force}");
    }
}
