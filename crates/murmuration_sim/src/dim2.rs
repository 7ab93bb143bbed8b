//! What only the 2D simulation does; everything else is written once over
//! [`Vector`](crate::math::Vector) and [`DIM`](crate::math::DIM).

use crate::lanes::{Coords, Real};

/// `v` turned a quarter turn to the left (`(-y, x)`): the side a boid at its minimum speed
/// turns toward when a force pushes it to that side.
#[inline(always)]
pub fn left_of<R: Real>(v: Coords<R>) -> Coords<R> {
    let [x, y] = v.0;
    Coords([-y, x])
}
