//! The mesh an obstacle is drawn with, built from its shape: a circle is the shared unit circle
//! scaled, every other shape a mesh of its own (a wall a band of [`WALL_WIDTH`]).

use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use murmuration_sim::obstacles::ObstacleShape;

/// How wide a wall (a segment or a polyline, which has no thickness) is drawn, world units.
pub(crate) const WALL_WIDTH: f32 = 4.0;

/// What an obstacle of `shape` is drawn with: `None` for a circle (the shared unit circle,
/// scaled by the returned factor), else its own mesh at scale 1.
pub(crate) fn obstacle_mesh(shape: &ObstacleShape) -> (Option<Mesh>, f32) {
    match shape {
        ObstacleShape::Circle(circle) => (None, circle.radius),
        ObstacleShape::Rectangle(rectangle) => (Some(Mesh::from(*rectangle)), 1.0),
        ObstacleShape::Segment(segment) => (Some(wall_mesh(&segment.vertices)), 1.0),
        ObstacleShape::Polyline(line) => (Some(wall_mesh(&line.vertices)), 1.0),
        ObstacleShape::Polygon(polygon) => (Some(polygon_mesh(&polygon.vertices)), 1.0),
    }
}

/// A mesh of triangles over `points` (2D, at z 0).
fn triangles(points: Vec<Vec2>, indices: Vec<u32>) -> Mesh {
    let positions: Vec<[f32; 3]> = points.iter().map(|p| [p.x, p.y, 0.0]).collect();
    let normals = vec![[0.0, 0.0, 1.0]; positions.len()];
    let uvs = vec![[0.0, 0.0]; positions.len()];
    Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    )
    .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions)
    .with_inserted_attribute(Mesh::ATTRIBUTE_NORMAL, normals)
    .with_inserted_attribute(Mesh::ATTRIBUTE_UV_0, uvs)
    .with_inserted_indices(Indices::U32(indices))
}

/// A band [`WALL_WIDTH`] wide along each segment of a line of walls, with a square at each
/// joint so that corners look closed.
fn wall_mesh(line: &[Vec2]) -> Mesh {
    let (mut points, mut indices) = (Vec::new(), Vec::new());
    let half = WALL_WIDTH * 0.5;
    let mut quad = |corners: [Vec2; 4]| {
        let first = points.len() as u32;
        points.extend(corners);
        indices.extend([0, 1, 2, 0, 2, 3].map(|i| first + i));
    };
    for pair in line.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let Some(along) = (b - a).try_normalize() else {
            continue;
        };
        let side = along.perp() * half;
        quad([a - side, b - side, b + side, a + side]);
    }
    for &p in line {
        quad([
            p + Vec2::new(-half, -half),
            p + Vec2::new(half, -half),
            p + Vec2::new(half, half),
            p + Vec2::new(-half, half),
        ]);
    }
    triangles(points, indices)
}

/// A solid polygon, convex or concave, cut into triangles by ear clipping.
fn polygon_mesh(ring: &[Vec2]) -> Mesh {
    let mut ring: Vec<Vec2> = ring.to_vec();
    ring.dedup();
    let area: f32 = (0..ring.len())
        .map(|i| ring[i].perp_dot(ring[(i + 1) % ring.len()]))
        .sum();
    if area < 0.0 {
        ring.reverse();
    }
    let mut left: Vec<usize> = (0..ring.len()).collect();
    let mut indices = Vec::new();
    let mut guard = 0;
    while left.len() > 3 && guard < ring.len() * ring.len() {
        guard += 1;
        let n = left.len();
        let ear = (0..n).find(|&i| {
            let (a, b, c) = (
                ring[left[(i + n - 1) % n]],
                ring[left[i]],
                ring[left[(i + 1) % n]],
            );
            if (b - a).perp_dot(c - b) <= 0.0 {
                return false;
            }
            left.iter().all(|&k| {
                let p = ring[k];
                p == a || p == b || p == c || !in_triangle(p, a, b, c)
            })
        });
        // A ring that crosses itself has no ear left: the rest goes as a fan.
        let Some(i) = ear else { break };
        let n = left.len();
        indices.extend([left[(i + n - 1) % n], left[i], left[(i + 1) % n]].map(|k| k as u32));
        left.remove(i);
    }
    for i in 1..left.len().saturating_sub(1) {
        indices.extend([left[0], left[i], left[i + 1]].map(|k| k as u32));
    }
    triangles(ring, indices)
}

/// Whether `p` is inside the counter-clockwise triangle `a b c` (edges included).
fn in_triangle(p: Vec2, a: Vec2, b: Vec2, c: Vec2) -> bool {
    (b - a).perp_dot(p - a) >= 0.0
        && (c - b).perp_dot(p - b) >= 0.0
        && (a - c).perp_dot(p - c) >= 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The area the triangles of a mesh cover.
    fn covered(mesh: &Mesh) -> f32 {
        let Some(bevy::mesh::VertexAttributeValues::Float32x3(p)) =
            mesh.attribute(Mesh::ATTRIBUTE_POSITION)
        else {
            panic!("positions");
        };
        let Some(Indices::U32(indices)) = mesh.indices() else {
            panic!("indices");
        };
        indices
            .chunks(3)
            .map(|t| {
                let [a, b, c] =
                    [t[0], t[1], t[2]].map(|i| Vec2::new(p[i as usize][0], p[i as usize][1]));
                (b - a).perp_dot(c - a).abs() * 0.5
            })
            .sum()
    }

    #[test]
    fn a_concave_polygon_is_covered_exactly() {
        // A U of 200 x 200 with a 100 x 150 notch: 40,000 - 15,000.
        let u = [
            Vec2::new(-100.0, -100.0),
            Vec2::new(100.0, -100.0),
            Vec2::new(100.0, 100.0),
            Vec2::new(50.0, 100.0),
            Vec2::new(50.0, -50.0),
            Vec2::new(-50.0, -50.0),
            Vec2::new(-50.0, 100.0),
            Vec2::new(-100.0, 100.0),
        ];
        let area = covered(&polygon_mesh(&u));
        assert!((area - 25_000.0).abs() < 1.0, "{area}");
        // Clockwise, the same.
        let mut reversed = u;
        reversed.reverse();
        assert!((covered(&polygon_mesh(&reversed)) - 25_000.0).abs() < 1.0);
    }
}
