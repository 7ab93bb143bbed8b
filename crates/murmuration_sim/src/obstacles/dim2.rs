//! Obstacle geometry in 2D, in world space: circles, edges (walls, and the sides of solid
//! polygons) and the insides of solid polygons.

use bevy::math::{Quat, Vec2};
use bevy::prelude::{Polygon, Rectangle};

use super::contact::{Hit, Surface, ball_surface, sweep_ball};
use super::shape::ObstacleShape;

/// One piece of an obstacle, in world space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Part {
    /// A solid circle.
    Circle { centre: Vec2, radius: f32 },
    /// An edge from `a` to `b`. A side of a solid polygon (`solid`, its ring counter-clockwise,
    /// so that the outside is on the edge's right) blocks only a move from outside; a wall
    /// blocks both ways.
    Edge { a: Vec2, b: Vec2, solid: bool },
    /// The inside of a solid polygon: its counter-clockwise ring is `vertices[first..][..len]`,
    /// within the box `min..max`. It gives a surface only to a point inside.
    Inside {
        first: u32,
        len: u32,
        min: Vec2,
        max: Vec2,
    },
}

/// How far past its ends an edge still stops a move: a move through the joint of two edges
/// meets at least one of them.
const END_SLACK: f32 = 1e-4;

impl Part {
    /// The box the part lies in.
    pub(crate) fn bounds(&self) -> (Vec2, Vec2) {
        match *self {
            Part::Circle { centre, radius } => (centre - radius, centre + radius),
            Part::Edge { a, b, .. } => (a.min(b), a.max(b)),
            Part::Inside { min, max, .. } => (min, max),
        }
    }

    /// Whether the part may come within `reach` of `centre` (conservative: `true` when unsure).
    pub(crate) fn may_reach(&self, centre: Vec2, reach: f32) -> bool {
        match *self {
            Part::Edge { a, b, .. } => centre.distance(closest_on_edge(centre, a, b)) <= reach,
            _ => true,
        }
    }

    /// What tells two parts apart: equal keys, the same part (a polygon's inside by its ring).
    pub(crate) fn key(&self, vertices: &[Vec2]) -> String {
        match *self {
            Part::Inside { first, len, .. } => {
                format!("{:?}", &vertices[first as usize..][..len as usize])
            }
            _ => format!("{self:?}"),
        }
    }

    /// The part's nearest surface to `p`; `None` for the inside of a polygon that `p` is not in.
    pub(crate) fn surface(&self, p: Vec2, vertices: &[Vec2]) -> Option<Surface> {
        match *self {
            Part::Circle { centre, radius } => Some(ball_surface(p - centre, radius)),
            Part::Edge { a, b, .. } => {
                let d = p - closest_on_edge(p, a, b);
                let distance = d.length();
                let normal = if distance > 0.0 {
                    d / distance
                } else {
                    right_normal(a, b)
                };
                Some(Surface { distance, normal })
            }
            Part::Inside { first, len, .. } => {
                let ring = &vertices[first as usize..][..len as usize];
                if !inside_ring(p, ring) {
                    return None;
                }
                let (mut best, mut normal) = (f32::INFINITY, Vec2::ZERO);
                for (a, b) in edges(ring) {
                    let q = closest_on_edge(p, a, b);
                    let distance = p.distance(q);
                    if distance < best {
                        best = distance;
                        normal = (q - p).try_normalize().unwrap_or(right_normal(a, b));
                    }
                }
                Some(Surface {
                    distance: -best,
                    normal,
                })
            }
        }
    }

    /// Where the move `d` from `p` first enters the part; `None` if it does not.
    pub(crate) fn sweep(&self, p: Vec2, d: Vec2) -> Option<Hit> {
        match *self {
            Part::Circle { centre, radius } => sweep_ball(p - centre, d, radius),
            Part::Edge { a, b, solid } => {
                let e = b - a;
                // Left of the edge is positive; the outside of a solid ring is on its right.
                let from = e.perp_dot(p - a);
                let to = e.perp_dot(p + d - a);
                let crosses = (from < 0.0 && to >= 0.0) || (!solid && from > 0.0 && to <= 0.0);
                if !crosses {
                    return None;
                }
                let t = from / (from - to);
                let along = (p + d * t - a).dot(e) / e.length_squared();
                if !(-END_SLACK..=1.0 + END_SLACK).contains(&along) {
                    return None;
                }
                let left = e.perp().normalize();
                let normal = if from > 0.0 { left } else { -left };
                Some(Hit {
                    t: t.clamp(0.0, 1.0),
                    normal,
                })
            }
            Part::Inside { .. } => None,
        }
    }
}

/// The unit normal on the right of the edge from `a` to `b` (outward on a counter-clockwise
/// ring).
fn right_normal(a: Vec2, b: Vec2) -> Vec2 {
    -(b - a).perp().normalize_or_zero()
}

/// The point of the edge from `a` to `b` nearest to `p`.
#[inline]
fn closest_on_edge(p: Vec2, a: Vec2, b: Vec2) -> Vec2 {
    let e = b - a;
    let length2 = e.length_squared();
    if length2 == 0.0 {
        return a;
    }
    a + e * ((p - a).dot(e) / length2).clamp(0.0, 1.0)
}

/// The edges of a closed ring, the last back to the first.
fn edges(ring: &[Vec2]) -> impl Iterator<Item = (Vec2, Vec2)> + '_ {
    ring.iter()
        .copied()
        .zip(ring.iter().copied().cycle().skip(1))
}

/// Whether `p` is inside the ring (even-odd rule).
fn inside_ring(p: Vec2, ring: &[Vec2]) -> bool {
    let mut inside = false;
    for (a, b) in edges(ring) {
        if (a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x) {
            inside = !inside;
        }
    }
    inside
}

/// Twice the signed area of a ring: positive counter-clockwise.
fn twice_area(ring: &[Vec2]) -> f32 {
    edges(ring).map(|(a, b)| a.perp_dot(b)).sum()
}

/// Adds the parts of `shape`, centred on `at` and turned by `rotation`, to `parts` (a
/// polygon's ring to `vertices`); an error says why a shape gave none.
pub(crate) fn compile(
    shape: &ObstacleShape,
    at: Vec2,
    rotation: Quat,
    parts: &mut Vec<Part>,
    vertices: &mut Vec<Vec2>,
) -> Result<(), String> {
    let place = |v: Vec2| at + (rotation * v.extend(0.0)).truncate();
    let finite = |points: &[Vec2]| points.iter().all(|v| v.is_finite());
    match shape {
        ObstacleShape::Circle(circle) => {
            if !circle.radius.is_finite() || circle.radius <= 0.0 {
                return Err(format!("a circle of radius {} is ignored", circle.radius));
            }
            parts.push(Part::Circle {
                centre: at,
                radius: circle.radius,
            });
        }
        ObstacleShape::Rectangle(Rectangle { half_size: h }) => {
            if !h.is_finite() || h.min_element() <= 0.0 {
                return Err(format!("a rectangle of half size {h} is ignored"));
            }
            let corners = [
                Vec2::new(-h.x, -h.y),
                Vec2::new(h.x, -h.y),
                Vec2::new(h.x, h.y),
                Vec2::new(-h.x, h.y),
            ];
            solid(corners.map(place).to_vec(), parts, vertices)?;
        }
        ObstacleShape::Segment(segment) => {
            if !finite(&segment.vertices) {
                return Err("a segment with a non-finite end is ignored".into());
            }
            wall(&segment.vertices.map(place), parts)?;
        }
        ObstacleShape::Polyline(line) => {
            if !finite(&line.vertices) {
                return Err("a polyline with a non-finite vertex is ignored".into());
            }
            let points: Vec<Vec2> = line.vertices.iter().copied().map(place).collect();
            wall(&points, parts)?;
        }
        ObstacleShape::Polygon(Polygon { vertices: ring }) => {
            if !finite(ring) {
                return Err("a polygon with a non-finite vertex is ignored".into());
            }
            solid(ring.iter().copied().map(place).collect(), parts, vertices)?;
        }
    }
    Ok(())
}

/// The edges of a line of walls, blocking both ways; zero-length edges are left out.
fn wall(points: &[Vec2], parts: &mut Vec<Part>) -> Result<(), String> {
    let before = parts.len();
    for pair in points.windows(2) {
        if pair[0] != pair[1] {
            parts.push(Part::Edge {
                a: pair[0],
                b: pair[1],
                solid: false,
            });
        }
    }
    if parts.len() == before {
        return Err("a wall of zero length is ignored".into());
    }
    Ok(())
}

/// The edges and the inside of a solid polygon.
fn solid(
    mut ring: Vec<Vec2>,
    parts: &mut Vec<Part>,
    vertices: &mut Vec<Vec2>,
) -> Result<(), String> {
    ring.dedup();
    while ring.len() > 1 && ring.first() == ring.last() {
        ring.pop();
    }
    let area = if ring.len() < 3 {
        0.0
    } else {
        twice_area(&ring) * 0.5
    };
    if area.abs() <= f32::EPSILON * bounds_area(&ring) {
        return Err(format!(
            "a polygon of {} distinct vertices and area {area} is ignored",
            ring.len()
        ));
    }
    if area < 0.0 {
        ring.reverse();
    }
    let (min, max) = ring
        .iter()
        .fold((ring[0], ring[0]), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    for (a, b) in edges(&ring) {
        parts.push(Part::Edge { a, b, solid: true });
    }
    parts.push(Part::Inside {
        first: vertices.len() as u32,
        len: ring.len() as u32,
        min,
        max,
    });
    vertices.extend(ring);
    Ok(())
}

/// The area of a ring's bounding box (the scale its own area is compared against).
fn bounds_area(ring: &[Vec2]) -> f32 {
    let Some(&first) = ring.first() else {
        return 0.0;
    };
    let (lo, hi) = ring
        .iter()
        .fold((first, first), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let size = hi - lo;
    size.x * size.y
}
