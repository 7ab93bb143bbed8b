//! Copy the simulation's state into `Transform`, for rendering and for other plugins.

use bevy::ecs::change_detection::{ContiguousMut, Tick};
use bevy::prelude::*;

use crate::components::{Position, PreviousPosition, Velocity};
use crate::math::finite;
use crate::parallel::{DENSE, Parts, for_each_part};

/// Whether `Transform` shows boids between their last two steps (see [`PreviousPosition`]). The
/// plugin turns it on when the step runs in `FixedUpdate`, where frames and steps do not line up.
#[derive(Resource, Reflect, Debug, Clone, Copy, PartialEq, Eq)]
#[reflect(Resource, Debug, Clone)]
pub struct TransformInterpolation(pub bool);

/// Puts every entity with a [`Position`] at its position (keeping its `z`), interpolated from its
/// [`PreviousPosition`] by how far this frame is into the next fixed step, and turns it to face
/// along its [`Velocity`], if it has one and is moving. Runs in `PostUpdate` before transform
/// propagation.
pub(crate) fn sync_transforms(
    interpolation: Res<TransformInterpolation>,
    time: Res<Time<Fixed>>,
    mut query: Query<(
        &Position,
        Option<&PreviousPosition>,
        Option<&Velocity>,
        &mut Transform,
    )>,
) {
    let t = if interpolation.0 {
        time.overstep_fraction().clamp(0.0, 1.0)
    } else {
        1.0
    };
    for (p, previous, v, transforms) in query.contiguous_iter_mut().expect(DENSE) {
        // Only a transform that moved or turned counts as a change.
        let (transforms, mut ticks) = ContiguousMut::bypass_change_detection_split(transforms);
        let now = ticks.this_run();
        let slices = (p, previous, v, transforms, ticks.changed_mut());
        for_each_part(
            slices,
            Parts::EVEN,
            |(p, previous, v, transforms, changed)| {
                sync_slices(p, previous, v, transforms, changed, now, t);
            },
        );
    }
}

/// Boids placed side by side: their headings' square roots and division run a register at a
/// time instead of one boid at a time.
const BATCH: usize = 8;

/// [`sync_transforms`] on one part of a table: whole batches first, then the rest one by one.
fn sync_slices(
    p: &[Position],
    previous: Option<&[PreviousPosition]>,
    v: Option<&[Velocity]>,
    transforms: &mut [Transform],
    changed: &mut [Tick],
    now: Tick,
    t: f32,
) {
    let batches = p.len() / BATCH * BATCH;
    for start in (0..batches).step_by(BATCH) {
        let range = start..start + BATCH;
        let lanes = Placements::of(
            batch(&p[range.clone()]),
            previous.map(|q| batch(&q[range.clone()])),
            v.map(|v| batch(&v[range.clone()])),
            t,
        );
        let out = transforms[range.clone()]
            .iter_mut()
            .zip(&mut changed[range]);
        for (l, (transform, changed)) in out.enumerate() {
            if let Some(at) = lanes.at(l)
                && apply(transform, at, lanes.rotation(l))
            {
                *changed = now;
            }
        }
    }
    for i in batches..p.len() {
        let previous = previous.and_then(|q| q[i].0);
        let velocity = v.map(|v| v[i].0);
        if let Some(at) = placement(p[i].0, previous, t)
            && apply(&mut transforms[i], at, velocity.and_then(heading_rotation))
        {
            changed[i] = now;
        }
    }
}

/// The first [`BATCH`] items of `items`, which must hold that many.
#[inline(always)]
fn batch<T>(items: &[T]) -> &[T; BATCH] {
    items.try_into().expect("a whole batch")
}

/// Where an entity at `p`, coming from `previous`, is shown `t` of the way into the next step;
/// `None` for a non-finite position, which leaves its transform alone.
#[inline]
fn placement(p: Vec2, previous: Option<Vec2>, t: f32) -> Option<Vec2> {
    if !p.is_finite() {
        return None;
    }
    Some(match previous {
        Some(q) if q.is_finite() => q.lerp(p, t),
        _ => p,
    })
}

/// Puts `transform` at `at` (keeping its `z`), turned to `rotation` if there is one, and says
/// whether that changed it.
#[inline]
fn apply(transform: &mut Transform, at: Vec2, rotation: Option<Quat>) -> bool {
    let mut changed = false;
    if transform.translation.truncate() != at {
        transform.translation.x = at.x;
        transform.translation.y = at.y;
        changed = true;
    }
    if let Some(rotation) = rotation
        && transform.rotation != rotation
    {
        transform.rotation = rotation;
        changed = true;
    }
    changed
}

/// [`placement`] and [`heading_rotation`] of a batch, lane by lane without a branch: the same
/// operations in the same order, so the same bits. A NaN in `x` stands for no placement, in
/// `w` for no heading (neither can be NaN otherwise: a finite position and a finite previous
/// position give a lerp that is not NaN, and `w` is a square root of at least zero).
struct Placements {
    x: [f32; BATCH],
    y: [f32; BATCH],
    /// The heading's quaternion: `(0, 0, z, w)`.
    z: [f32; BATCH],
    w: [f32; BATCH],
}

impl Placements {
    #[inline(always)]
    fn of(
        p: &[Position; BATCH],
        previous: Option<&[PreviousPosition; BATCH]>,
        v: Option<&[Velocity; BATCH]>,
        t: f32,
    ) -> Self {
        let mut out = Self {
            x: p.map(|p| p.x),
            y: p.map(|p| p.y),
            z: [0.0; BATCH],
            w: [f32::NAN; BATCH],
        };
        if let Some(previous) = previous {
            for (l, q) in previous.iter().enumerate() {
                let q = q.0.unwrap_or(Vec2::NAN);
                let at = q.lerp(p[l].0, t);
                let from = finite(q);
                out.x[l] = if from { at.x } else { out.x[l] };
                out.y[l] = if from { at.y } else { out.y[l] };
            }
        }
        for (l, p) in p.iter().enumerate() {
            out.x[l] = if finite(p.0) { out.x[l] } else { f32::NAN };
        }
        if let Some(v) = v {
            for (l, v) in v.iter().enumerate() {
                // `Vec2::try_normalize`: a reciprocal length that is finite and above zero.
                let rcp = v.length_recip();
                let (z, w) = half_angle(v.0 * rcp);
                out.z[l] = z;
                out.w[l] = if rcp.is_finite() && rcp > 0.0 {
                    w
                } else {
                    f32::NAN
                };
            }
        }
        out
    }

    /// Lane `l`'s [`placement`].
    #[inline(always)]
    fn at(&self, l: usize) -> Option<Vec2> {
        (!self.x[l].is_nan()).then(|| Vec2::new(self.x[l], self.y[l]))
    }

    /// Lane `l`'s [`heading_rotation`].
    #[inline(always)]
    fn rotation(&self, l: usize) -> Option<Quat> {
        (!self.w[l].is_nan()).then(|| Quat::from_xyzw(0.0, 0.0, self.z[l], self.w[l]))
    }
}

/// The rotation about +z that turns +x to face along `v`, without trigonometry: for the unit
/// heading `(c, s)` it is the quaternion `(0, 0, sin(a / 2), cos(a / 2))` with
/// `cos(a / 2) = sqrt((1 + c) / 2)` and `sin(a / 2) = sign(s) sqrt((1 - c) / 2)`. `None` for a
/// zero or non-finite `v`.
#[inline]
pub fn heading_rotation(v: Vec2) -> Option<Quat> {
    let (half_sin, half_cos) = half_angle(v.try_normalize()?);
    Some(Quat::from_xyzw(0.0, 0.0, half_sin, half_cos))
}

/// `(sin(a / 2), cos(a / 2))` for the unit heading `u = (cos(a), sin(a))`.
#[inline(always)]
fn half_angle(u: Vec2) -> (f32, f32) {
    let half_cos = ((1.0 + u.x) * 0.5).max(0.0).sqrt();
    let half_sin = ((1.0 - u.x) * 0.5).max(0.0).sqrt().copysign(u.y);
    (half_sin, half_cos)
}

#[cfg(test)]
mod tests {
    use bevy::ecs::change_detection::Tick;
    use bevy::prelude::*;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::{BATCH, apply, heading_rotation, placement, sync_slices};
    use crate::components::{Position, PreviousPosition, Velocity};

    /// The batched sync gives every entity what the one-at-a-time rules give it, bit for bit,
    /// and marks the same ones changed: finite and non-finite positions, no previous position,
    /// a non-finite one, stopped, tiny, huge and backwards velocities, a transform already in
    /// place, tables with and without the optional components, and a tail after the batches.
    #[test]
    fn batches_place_as_one_at_a_time() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
        let mut f = |scale: f32| (rng.random::<f32>() - 0.5) * scale;
        let n = 5 * BATCH + 3;
        for round in 0..200 {
            let p: Vec<Position> = (0..n)
                .map(|i| match (i + round) % 11 {
                    0 => Position(Vec2::new(f32::NAN, 1.0)),
                    1 => Position(Vec2::new(2.0, f32::INFINITY)),
                    _ => Position(Vec2::new(f(500.0), f(500.0))),
                })
                .collect();
            let previous: Vec<PreviousPosition> = (0..n)
                .map(|i| match (i + round) % 7 {
                    0 => PreviousPosition(None),
                    1 => PreviousPosition(Some(Vec2::new(f32::NEG_INFINITY, 0.0))),
                    _ => PreviousPosition(Some(p[i].0 + Vec2::new(f(4.0), f(4.0)))),
                })
                .collect();
            let v: Vec<Velocity> = (0..n)
                .map(|i| match (i + round) % 9 {
                    0 => Velocity(Vec2::ZERO),
                    1 => Velocity(Vec2::new(1e-30, -1e-30)),
                    2 => Velocity(Vec2::new(-f(100.0).abs() - 1.0, 0.0)),
                    3 => Velocity(Vec2::new(f32::MAX, f32::MAX)),
                    4 => Velocity(Vec2::new(f32::NAN, 1.0)),
                    _ => Velocity(Vec2::new(f(200.0), f(200.0))),
                })
                .collect();
            let t = if round % 3 == 0 { 1.0 } else { f(1.0).abs() };
            let start: Vec<Transform> = (0..n)
                .map(|i| {
                    let mut transform = Transform::from_xyz(f(9.0), f(9.0), i as f32);
                    if i % 5 == 0 {
                        // Already where the rules put it: not a change.
                        if let Some(at) = placement(p[i].0, previous[i].0, t) {
                            transform.translation = at.extend(transform.translation.z);
                        }
                        if let Some(r) = heading_rotation(v[i].0) {
                            transform.rotation = r;
                        }
                    }
                    transform
                })
                .collect();
            let (old, now) = (Tick::new(1), Tick::new(2));
            for (with_previous, with_velocity) in [(true, true), (false, true), (true, false)] {
                let previous = with_previous.then_some(&previous[..]);
                let v = with_velocity.then_some(&v[..]);
                let mut got = start.clone();
                let mut got_ticks = vec![old; n];
                sync_slices(&p, previous, v, &mut got, &mut got_ticks, now, t);
                for i in 0..n {
                    let mut want = start[i];
                    let heading = v.and_then(|v| heading_rotation(v[i].0));
                    let moved = placement(p[i].0, previous.and_then(|q| q[i].0), t)
                        .is_some_and(|at| apply(&mut want, at, heading));
                    let bits = |t: &Transform| {
                        (
                            t.translation.to_array().map(f32::to_bits),
                            t.rotation.to_array().map(f32::to_bits),
                        )
                    };
                    let case = (round, i, with_previous, with_velocity);
                    assert_eq!(bits(&got[i]), bits(&want), "{case:?}");
                    assert_eq!(got_ticks[i], if moved { now } else { old }, "{case:?}");
                }
            }
        }
    }
}
