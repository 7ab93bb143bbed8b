//! Numbers that describe a flock's shape, computed from the [`SpatialHash`] snapshot.

use bevy::prelude::*;

use crate::hash::SpatialHash;

/// Polarization, the Vicsek order parameter `|sum(v / |v|)| / n`: 1 when every boid flies the
/// same way, near 0 when headings are random. Boids that do not move are left out; `None` if
/// none moves.
pub fn polarization(velocities: impl IntoIterator<Item = Vec2>) -> Option<f32> {
    let (mut sum, mut n) = (Vec2::ZERO, 0u32);
    for v in velocities {
        if let Some(u) = v.try_normalize() {
            sum += u;
            n += 1;
        }
    }
    (n > 0).then(|| sum.length() / n as f32)
}

/// Mean distance from each boid to its nearest other boid (nearest image when the edges wrap),
/// world units; `None` with fewer than two boids.
pub fn mean_nearest_neighbour_distance(hash: &SpatialHash) -> Option<f32> {
    if hash.len() < 2 {
        return None;
    }
    let total: f64 = (0..hash.len())
        .filter_map(|i| hash.nearest(hash.position(i), f32::INFINITY, |hit| hit.slot != i))
        .map(|hit| f64::from(hit.distance_squared.sqrt()))
        .sum();
    Some((total / hash.len() as f64) as f32)
}

/// Share of boids with another boid closer than `distance` (a separation violation), 0 to 1.
pub fn share_closer_than(hash: &SpatialHash, distance: f32) -> f32 {
    if hash.is_empty() {
        return 0.0;
    }
    let crowded = (0..hash.len())
        .filter(|&i| {
            hash.nearest(hash.position(i), distance, |hit| hit.slot != i)
                .is_some()
        })
        .count();
    crowded as f32 / hash.len() as f32
}

/// Groups of boids linked by chains of neighbours closer than `radius` (union-find over the
/// hash's radius queries): how many groups, and how many boids the largest holds.
pub fn groups(hash: &SpatialHash, radius: f32) -> (usize, usize) {
    let n = hash.len();
    if n == 0 {
        return (0, 0);
    }
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn find(parent: &mut [u32], mut i: u32) -> u32 {
        while parent[i as usize] != i {
            let up = parent[parent[i as usize] as usize];
            parent[i as usize] = up;
            i = up;
        }
        i
    }
    for i in 0..n {
        hash.for_each_within(hash.position(i), radius, |hit| {
            let (a, b) = (
                find(&mut parent, i as u32),
                find(&mut parent, hit.slot as u32),
            );
            if a != b {
                // Always hang the larger root under the smaller: the result is deterministic.
                let (lo, hi) = (a.min(b), a.max(b));
                parent[hi as usize] = lo;
            }
        });
    }
    let mut sizes = vec![0usize; n];
    for i in 0..n as u32 {
        let root = find(&mut parent, i);
        sizes[root as usize] += 1;
    }
    let count = sizes.iter().filter(|&&s| s > 0).count();
    let largest = sizes.iter().copied().max().unwrap_or(0);
    (count, largest)
}
