//! The spatial hash returns exactly the brute-force neighbour set and pairs, wraps to the
//! nearest image, and survives degenerate flocks.

use bevy::prelude::*;
use murmuration_sim::hash::HashHit;
use murmuration_sim::hash::KNearest;
use murmuration_sim::hash::SpatialHash;
use murmuration_sim::prelude::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

type Tuple = (Entity, Vec2, Vec2, u16);

/// Random boids over `rect`, plus boids exactly on cell borders and on the seam.
fn flock(rng: &mut Xoshiro256PlusPlus, rect: Rect, n: usize, cell: f32) -> Vec<Tuple> {
    let mut out: Vec<Tuple> = (0..n)
        .map(|i| {
            let p = rect.min + Vec2::new(rng.random::<f32>(), rng.random::<f32>()) * rect.size();
            (Entity::from_raw_u32(i as u32).unwrap(), p, Vec2::X, 0)
        })
        .collect();
    let mut extra = Vec::new();
    for k in 0..8 {
        let k = k as f32;
        extra.push(rect.min + Vec2::new(k * cell, 2.0 * cell));
        extra.push(rect.min + Vec2::new(3.0 * cell, k * cell));
        extra.push(Vec2::new(rect.min.x, rect.min.y + k * 7.0));
        extra.push(Vec2::new(rect.max.x - 0.001, rect.min.y + k * 7.0));
        extra.push(Vec2::new(rect.min.x + k * 9.0, rect.max.y - 0.5));
    }
    extra.push(rect.max - Vec2::splat(0.0001));
    for (i, p) in extra.into_iter().enumerate() {
        out.push((Entity::from_raw_u32((n + i) as u32).unwrap(), p, Vec2::Y, 1));
    }
    out
}

fn brute_force(boids: &[Tuple], bounds: &SimulationBounds, p: Vec2, r: f32) -> Vec<Entity> {
    let mut out: Vec<Entity> = boids
        .iter()
        .filter(|b| bounds.delta(p, b.1).length_squared() < r * r)
        .map(|b| b.0)
        .collect();
    out.sort();
    out
}

fn hashed(hash: &SpatialHash, p: Vec2, r: f32) -> Vec<Entity> {
    let mut out = Vec::new();
    hash.for_each_within(p, r, |hit: HashHit| out.push(hash.entity(hit.slot)));
    out.sort();
    out
}

fn check(bounds: SimulationBounds, n: usize, cell: f32, seed: u64) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let boids = flock(&mut rng, bounds.rect, n, cell);
    let mut hash = SpatialHash::default();
    hash.rebuild(&bounds, cell, &boids);
    assert_eq!(hash.len(), boids.len());
    let mut total = 0;
    // Query at every boid, and at random points, for radii below, at and above the cell size.
    let points: Vec<Vec2> = boids
        .iter()
        .map(|b| b.1)
        .chain((0..200).map(|_| {
            bounds.rect.min
                + Vec2::new(rng.random::<f32>(), rng.random::<f32>()) * bounds.rect.size()
        }))
        .collect();
    for (i, &p) in points.iter().enumerate() {
        let r = [cell * 0.5, cell, cell * 1.7][i % 3];
        let expected = brute_force(&boids, &bounds, p, r);
        let got = hashed(&hash, p, r);
        assert_eq!(got, expected, "query at {p} radius {r} ({bounds:?})");
        total += got.len();
    }
    assert!(
        total > points.len(),
        "the test should find neighbours ({total})"
    );
    // Every pair within each radius, once, the lower slot first: as brute force finds them.
    for r in [cell * 0.5, cell, cell * 1.7] {
        let mut expected = Vec::new();
        for (i, a) in boids.iter().enumerate() {
            for b in &boids[i + 1..] {
                if bounds.delta(a.1, b.1).length_squared() < r * r {
                    expected.push((a.0.min(b.0), a.0.max(b.0)));
                }
            }
        }
        expected.sort();
        let mut got = Vec::new();
        hash.for_each_pair_within(r, |a, b| {
            assert!(a < b, "slot {a} before slot {b}");
            let (ea, eb) = (hash.entity(a), hash.entity(b));
            got.push((ea.min(eb), ea.max(eb)));
        });
        got.sort();
        assert_eq!(got, expected, "pairs within {r} ({bounds:?})");
        assert!(!got.is_empty(), "the test should find pairs within {r}");
    }
}

#[test]
fn radius_queries_match_brute_force_without_wrap() {
    let rect = Rect::new(-300.0, -170.0, 310.0, 200.0);
    for seed in 0..4 {
        check(SimulationBounds::turn_back(rect), 1500, 50.0, seed);
    }
}

#[test]
fn radius_queries_match_brute_force_with_wrap() {
    // 610 x 370 does not divide by 50, so the wrapped grid must stretch its cells.
    let rect = Rect::new(-300.0, -170.0, 310.0, 200.0);
    for seed in 10..14 {
        check(SimulationBounds::wrap(rect), 1500, 50.0, seed);
    }
}

#[test]
fn radius_queries_match_brute_force_in_tiny_wrapped_worlds() {
    // Two cells and one cell across: the 3x3 block folds onto itself.
    check(
        SimulationBounds::wrap(Rect::new(0.0, 0.0, 100.0, 60.0)),
        300,
        50.0,
        3,
    );
    check(
        SimulationBounds::wrap(Rect::new(0.0, 0.0, 40.0, 40.0)),
        100,
        50.0,
        4,
    );
}

#[test]
fn a_pair_across_the_seam_are_two_units_apart() {
    let bounds = SimulationBounds::wrap(Rect::new(0.0, 0.0, 400.0, 300.0));
    let a = Entity::from_raw_u32(1).unwrap();
    let b = Entity::from_raw_u32(2).unwrap();
    let boids = [
        (a, Vec2::new(399.0, 150.0), Vec2::X, 0),
        (b, Vec2::new(1.0, 150.0), Vec2::X, 0),
    ];
    let mut hash = SpatialHash::default();
    hash.rebuild(&bounds, 50.0, &boids);
    let mut hits = Vec::new();
    hash.for_each_within(Vec2::new(399.0, 150.0), 5.0, |hit| hits.push(hit));
    assert_eq!(hits.len(), 2, "itself and the one across the seam");
    let across = hits.iter().find(|h| hash.entity(h.slot) == b).unwrap();
    assert!(
        (across.delta - Vec2::new(2.0, 0.0)).length() < 1e-4,
        "{:?}",
        across.delta
    );
}

#[test]
fn nearest_and_k_nearest_match_brute_force() {
    for bounds in [
        SimulationBounds::wrap(Rect::new(0.0, 0.0, 800.0, 500.0)),
        SimulationBounds::turn_back(Rect::new(0.0, 0.0, 800.0, 500.0)),
    ] {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let boids = flock(&mut rng, bounds.rect, 400, 40.0);
        let mut hash = SpatialHash::default();
        hash.rebuild(&bounds, 40.0, &boids);
        let mut nearest = KNearest::new(7);
        for _ in 0..300 {
            // Some points outside the bounds (in the grid's edge cells, or wrapped).
            let p = bounds.rect.min
                + (Vec2::new(rng.random::<f32>(), rng.random::<f32>()) * 1.4 - 0.2)
                    * bounds.rect.size();
            let mut all: Vec<f32> = boids
                .iter()
                .map(|b| bounds.delta(p, b.1).length_squared())
                .collect();
            all.sort_by(f32::total_cmp);
            // The hash measures across the seam through stored images, the oracle by rounding:
            // equal up to float rounding.
            let close = |a: f32, b: f32| (a.sqrt() - b.sqrt()).abs() <= 1e-3;
            let hit = hash.nearest(p, f32::INFINITY, |_| true).unwrap();
            assert!(
                close(hit.distance_squared, all[0]),
                "{} vs {}",
                hit.distance_squared,
                all[0]
            );
            nearest.set_k(7);
            hash.k_nearest_into(p, f32::INFINITY, |_| true, &mut nearest);
            let got: Vec<f32> = nearest
                .as_slice()
                .iter()
                .map(|h| h.distance_squared)
                .collect();
            assert_eq!(got.len(), 7);
            for (g, want) in got.iter().zip(&all[..7]) {
                assert!(
                    close(*g, *want),
                    "7 nearest of {p}: {got:?} vs {:?}",
                    &all[..7]
                );
            }
            // Limited reach: only those within it.
            hash.k_nearest_into(p, 30.0, |_| true, &mut nearest);
            let within = all.iter().filter(|&&d| d < 900.0).count().min(7);
            assert_eq!(nearest.as_slice().len(), within);
            // `nearest` is the first of the one nearest, exactly (the same boid, ties
            // included), with a filter and with a limited reach.
            for (reach, odd) in [(f32::INFINITY, false), (f32::INFINITY, true), (30.0, true)] {
                let accept = |h: &HashHit| !odd || h.slot % 2 == 1;
                nearest.set_k(1);
                hash.k_nearest_into(p, reach, accept, &mut nearest);
                assert_eq!(
                    hash.nearest(p, reach, accept),
                    nearest.as_slice().first().copied()
                );
            }
        }
    }
}

#[test]
fn degenerate_flocks_do_not_panic() {
    let bounds = SimulationBounds::turn_back(Rect::new(0.0, 0.0, 1000.0, 1000.0));
    let e = |i: u32| Entity::from_raw_u32(i + 1).unwrap();
    let mut hash = SpatialHash::default();

    // Everyone in one cell, on the same spot.
    let same: Vec<Tuple> = (0..500)
        .map(|i| (e(i), Vec2::splat(3.0), Vec2::X, 0))
        .collect();
    hash.rebuild(&bounds, 50.0, &same);
    let mut n = 0;
    hash.for_each_within(Vec2::splat(3.0), 1.0, |_| n += 1);
    assert_eq!(n, 500);
    // Of boids equally near, the first in hash order.
    let first = hash.nearest(Vec2::splat(3.0), f32::INFINITY, |_| true);
    assert_eq!(first.map(|h| h.slot), Some(0));
    let second = hash.nearest(Vec2::splat(3.0), f32::INFINITY, |h| h.slot != 0);
    assert_eq!(second.map(|h| h.slot), Some(1));
    let mut pairs = 0;
    hash.for_each_pair_within(1.0, |_, _| pairs += 1);
    assert_eq!(pairs, 500 * 499 / 2);

    // Bounds far larger than the flock, and boids far outside them.
    let huge = SimulationBounds::wrap(Rect::new(-1e7, -1e7, 1e7, 1e7));
    let spread: Vec<Tuple> = (0..100)
        .map(|i| (e(i), Vec2::new(i as f32, 0.0), Vec2::X, 0))
        .collect();
    hash.rebuild(&huge, 50.0, &spread);
    assert!(hash.dims().x * hash.dims().y <= 1 << 22);
    let mut n = 0;
    hash.for_each_within(Vec2::new(50.0, 0.0), 10.0, |_| n += 1);
    assert_eq!(n, 19);
    let outside: Vec<Tuple> = (0..100)
        .map(|i| (e(i), Vec2::new(-5e6 + i as f32 * 1e5, 3e6), Vec2::X, 0))
        .collect();
    hash.rebuild(&bounds, 50.0, &outside);
    let mut n = 0;
    hash.for_each_within(Vec2::new(-5e6, 3e6), 1.0, |_| n += 1);
    assert_eq!(n, 1);

    // Non-finite input lands somewhere without a panic; zero and tiny cells too.
    let bad = vec![
        (e(0), Vec2::NAN, Vec2::X, 0),
        (e(1), Vec2::INFINITY, Vec2::X, 0),
        (e(2), Vec2::new(1.0, 1.0), Vec2::X, 0),
    ];
    for cell in [0.0, -5.0, f32::NAN, 1e-9, 50.0] {
        hash.rebuild(&bounds, cell, &bad);
        assert_eq!(hash.len(), 3);
        hash.for_each_within(Vec2::new(1.0, 1.0), 1.0, |_| {});
        for radius in [1.0, f32::NAN, f32::INFINITY] {
            hash.for_each_pair_within(radius, |_, _| {});
        }
    }

    // No boids at all.
    hash.rebuild(&bounds, 50.0, &[]);
    assert!(hash.is_empty());
    assert!(hash.nearest(Vec2::ZERO, f32::INFINITY, |_| true).is_none());
}

#[test]
fn rebuilding_keeps_its_buffers() {
    let bounds = SimulationBounds::wrap(Rect::new(0.0, 0.0, 1000.0, 800.0));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let boids = flock(&mut rng, bounds.rect, 5000, 50.0);
    let mut hash = SpatialHash::default();
    hash.rebuild(&bounds, 50.0, &boids);
    let before = (hash.entities().as_ptr(), hash.keys().as_ptr());
    for _ in 0..10 {
        hash.rebuild(&bounds, 50.0, &boids);
    }
    assert_eq!(
        before,
        (hash.entities().as_ptr(), hash.keys().as_ptr()),
        "no reallocation once warm"
    );
}
