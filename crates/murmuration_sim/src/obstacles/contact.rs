//! What a query of an obstacle's surface gives, in every dimension: the nearest surface
//! ([`Surface`]), the first crossing of a move ([`Hit`]), and the ball's sweep that circles and
//! spheres share.

use crate::math::Vector;

/// The nearest surface of an obstacle to a point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Surface {
    /// How far the point is from the surface: negative inside a solid obstacle.
    pub distance: f32,
    /// The unit direction out of the obstacle at its nearest point, toward the outside (for a
    /// wall, toward the point's side). Zero where there is none (a point on a circle's centre).
    pub normal: Vector,
}

/// Where a move first crosses an obstacle's surface.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// How far along the move, 0 to 1.
    pub t: f32,
    /// The unit normal of the surface there, toward the side the move came from.
    pub normal: Vector,
}

/// The gap a boid stopped by an obstacle keeps from its surface, world units: enough for the
/// rounding of coordinates as large as `p`'s to keep it on its side.
#[inline]
pub(crate) fn skin(p: Vector) -> f32 {
    1e-3 + p.abs().max_element() * 4e-6
}

/// The first time the move `d` from `q` (relative to the centre) enters a ball of `radius`;
/// `None` if it starts inside, moves away, misses, or ends first.
#[inline]
pub(crate) fn sweep_ball(q: Vector, d: Vector, radius: f32) -> Option<Hit> {
    let c = q.length_squared() - radius * radius;
    let b = q.dot(d);
    if c < 0.0 || b >= 0.0 {
        return None;
    }
    let a = d.length_squared();
    let disc = b * b - a * c;
    if disc < 0.0 || a == 0.0 {
        return None;
    }
    let t = ((-b - disc.sqrt()) / a).max(0.0);
    if t > 1.0 {
        return None;
    }
    let normal = (q + d * t)
        .try_normalize()
        .unwrap_or(-d.normalize_or_zero());
    Some(Hit { t, normal })
}

/// The nearest surface of a ball of `radius` to a point at `q` from its centre.
#[inline]
pub(crate) fn ball_surface(q: Vector, radius: f32) -> Surface {
    let length = q.length();
    Surface {
        distance: length - radius,
        normal: if length > 0.0 {
            q / length
        } else {
            Vector::ZERO
        },
    }
}
