//! Motion: one Euler step ([`integrate`]), the edges of the world, and the keep-out of round
//! obstacles, as pure functions. Written once over [`Real`], so the integrate system moves eight
//! entities at a time with exactly the bits [`integrate_one`] gives one.

use crate::bounds::SimulationBounds;
use crate::dim;
use crate::lanes::{Coords, Real};
use crate::math::{DIM, Vector};

/// The longest step the simulation takes at once, seconds: a longer frame (a hitch, a hidden
/// window) is simulated as this much, so nothing jumps through a neighbour or an obstacle.
pub const MAX_DT: f32 = 0.1;

/// The world's edges as a step reads them.
#[derive(Debug, Clone, Copy)]
pub struct World<R: Real> {
    min: Coords<R>,
    max: Coords<R>,
    size: Coords<R>,
    half: Coords<R>,
    wrap: bool,
}

impl<R: Real> World<R> {
    /// `bounds` in every lane.
    #[inline(always)]
    pub fn new(bounds: &SimulationBounds) -> Self {
        let (min, max) = (bounds.rect.min, bounds.rect.max);
        let size = max - min;
        Self {
            min: Coords::from_vector(min),
            max: Coords::from_vector(max),
            size: Coords::from_vector(size),
            half: Coords::from_vector(size * 0.5),
            wrap: bounds.wraps(),
        }
    }

    /// Where `p` lies in the world (`min` inclusive, `max` exclusive), on every axis.
    #[inline(always)]
    fn inside(&self, p: Coords<R>) -> R::Mask {
        let mut ok = R::mask(true);
        for axis in 0..DIM {
            ok = ok & p.0[axis].ge(self.min.0[axis]) & p.0[axis].lt(self.max.0[axis]);
        }
        ok
    }
}

/// One Euler step: `v += a dt`, `|v|` clamped to `[min_speed, max_speed]`, `p += v dt`, then
/// wrapped or kept inside the world. A non-finite acceleration counts as zero; a velocity that
/// ends up non-finite is zeroed.
///
/// A boid already at its minimum speed cannot brake any further, so the part of the force that
/// would slow it below `min_speed` turns it instead: its heading turns toward the force (to the
/// left when the force is dead against it) by `atan(|a| dt / min_speed)`, so less than a quarter
/// turn a step. That is how a bird flying straight at a wall banks around instead of pressing on
/// at its slowest. A stopped boid with a minimum speed sets off along +x.
///
/// Under wrapping edges a point that left the world by less than its size comes back across the
/// seam; the returned mask holds where it is still outside (a boid put far away by hand), which
/// [`integrate_one`] and the integrate system finish with [`SimulationBounds::wrap_point`].
#[inline(always)]
pub fn integrate<R: Real>(
    p: Coords<R>,
    v: Coords<R>,
    a: Coords<R>,
    dt: R,
    (min_speed, max_speed): (R, R),
    world: &World<R>,
) -> (Coords<R>, Coords<R>, R::Mask) {
    let zero = Coords::zero();
    let a = Coords::select(a.is_finite(), a, zero);
    let old = v;
    let pushed = v + a.scale(dt);
    let speed2 = pushed.length_squared();
    let over = speed2.gt(max_speed * max_speed);
    let under = !over & speed2.lt(min_speed * min_speed);
    // Over the top speed: `v *= max / |v|`.
    let capped = pushed.scale(max_speed / speed2.sqrt());
    // Under the minimum: turn toward the force at the minimum speed.
    let mut x = Coords::zero();
    x.0[0] = R::splat(1.0);
    let heading = old.normalize_or(x);
    let side = dim::turn_side(heading, a);
    let turn = a.length_squared().sqrt() * dt / min_speed;
    let turned = (heading + side.scale(turn))
        .normalize_or(heading)
        .scale(min_speed);
    let v = Coords::select(over, capped, Coords::select(under, turned, pushed));
    let v = Coords::select(v.is_finite(), v, zero);
    let p = p + v.scale(dt);
    if world.wrap {
        let mut q = p;
        for axis in 0..DIM {
            let (x, lo, hi, size) = (
                p.0[axis],
                world.min.0[axis],
                world.max.0[axis],
                world.size.0[axis],
            );
            q.0[axis] = R::select(x.ge(hi), x - size, R::select(x.lt(lo), x + size, x));
        }
        (q, v, !world.inside(q))
    } else {
        let (mut p, mut v) = (p, v);
        for axis in 0..DIM {
            let (x, w, lo, hi) = (p.0[axis], v.0[axis], world.min.0[axis], world.max.0[axis]);
            let (below, above) = (x.lt(lo), x.gt(hi));
            p.0[axis] = R::select(below, lo, R::select(above, hi, x));
            v.0[axis] = R::select(below, w.abs(), R::select(above, -w.abs(), w));
        }
        (p, v, R::mask(false))
    }
}

/// One coordinate `x` of a delta in a world `size` across (`half` its half) that wraps, moved to
/// its image nearest zero: `x - size` above `half`, `x + size` below `-half`, else `x`. Exact for
/// `|x| < size`. The one nearest-image rule: [`delta`], the spatial hash and the kernel's folded
/// blocks use it. With `size` and `half` infinite it leaves `x` as it is.
#[inline(always)]
pub fn nearest_image<R: Real>(x: R, size: R, half: R) -> R {
    R::select(x.gt(half), x - size, R::select(x.lt(-half), x + size, x))
}

/// The vector from `from` to `to`: across the seam to the nearest image when the world wraps,
/// straight otherwise. The returned mask holds where the two are more than one world apart (or
/// not finite), where [`SimulationBounds::delta`] must finish the job.
#[inline(always)]
pub fn delta<R: Real>(from: Coords<R>, to: Coords<R>, world: &World<R>) -> (Coords<R>, R::Mask) {
    let mut d = to - from;
    if !world.wrap {
        return (d, R::mask(false));
    }
    let mut general = R::mask(false);
    for axis in 0..DIM {
        let (x, size, half) = (d.0[axis], world.size.0[axis], world.half.0[axis]);
        d.0[axis] = nearest_image(x, size, half);
        general = general | !x.abs().le(size);
    }
    (d, general)
}

/// `integrate` for one entity, far wraps included: its new position and velocity.
#[inline]
pub fn integrate_one(
    p: Vector,
    v: Vector,
    a: Vector,
    dt: f32,
    min_speed: f32,
    max_speed: f32,
    bounds: &SimulationBounds,
) -> (Vector, Vector) {
    let world = World::new(bounds);
    let limits = (min_speed, max_speed);
    let (q, v, outside) = integrate(
        Coords::of(p),
        Coords::of(v),
        Coords::of(a),
        dt,
        limits,
        &world,
    );
    let q = q.to_vector();
    let q = if outside {
        bounds.wrap_point(p + v.to_vector() * dt)
    } else {
        q
    };
    (q, v.to_vector())
}

/// Where an entity that moved from `old` to `new` was, seen from `new`: the old position's image
/// nearest the new one (across the seam if it wrapped), for [`PreviousPosition`](crate::components::PreviousPosition).
#[inline]
pub fn previous_position(old: Vector, new: Vector, bounds: &SimulationBounds) -> Vector {
    let (d, general) = delta(Coords::of(old), Coords::of(new), &World::new(bounds));
    let d = if general {
        bounds.delta(old, new)
    } else {
        d.to_vector()
    };
    new - d
}
