//! Copy the simulation's state into `Transform`, for rendering and for other plugins.

use bevy::ecs::change_detection::{ContiguousMut, Tick};
use bevy::prelude::*;

use crate::components::{Position, PreviousPosition, Velocity};
use crate::dim;
pub use crate::dim::heading_rotation;
use crate::lanes::fill;
use crate::math::{DIM, Vector, finite, per_axis};
use crate::parallel::{DENSE, Parts, for_each_part};

/// The system set of the system that copies positions and headings into `Transform` (in
/// `PostUpdate`, before transform propagation): order a system after it to adjust what it wrote
/// (a 3D renderer's banking, say).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TransformSync;

/// Whether `Transform` shows boids between their last two steps (see [`PreviousPosition`]). The
/// plugin turns it on when the step runs in `FixedUpdate`, where frames and steps do not line up.
#[derive(Resource, Reflect, Debug, Clone, Copy, PartialEq, Eq)]
#[reflect(Resource, Debug, Clone)]
pub struct TransformInterpolation(pub bool);

/// Puts every entity with a [`Position`] at its position (in 2D keeping its `z`), interpolated
/// from its [`PreviousPosition`] by how far this frame is into the next fixed step, and turns it
/// to face along its [`Velocity`], if it has one and is moving. Runs in `PostUpdate` before transform
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
fn placement(p: Vector, previous: Option<Vector>, t: f32) -> Option<Vector> {
    if !p.is_finite() {
        return None;
    }
    Some(match previous {
        Some(q) if q.is_finite() => q.lerp(p, t),
        _ => p,
    })
}

/// Puts `transform` at `at` ([`dim::place`]), turned to `rotation` if there is one, and says
/// whether that changed it.
#[inline]
fn apply(transform: &mut Transform, at: Vector, rotation: Option<Quat>) -> bool {
    let mut changed = dim::place(transform, at);
    if let Some(rotation) = rotation
        && transform.rotation != rotation
    {
        transform.rotation = rotation;
        changed = true;
    }
    changed
}

/// [`placement`] and [`heading_rotation`] of a batch, lane by lane without a branch: the same
/// operations in the same order, so the same bits. A NaN in the first coordinate stands for no
/// placement (it cannot be NaN otherwise: a finite position and a finite previous position give
/// a lerp that is not NaN).
struct Placements {
    at: [[f32; BATCH]; DIM],
    headings: dim::Headings<BATCH>,
}

impl Placements {
    #[inline(always)]
    fn of(
        p: &[Position; BATCH],
        previous: Option<&[PreviousPosition; BATCH]>,
        v: Option<&[Velocity; BATCH]>,
        t: f32,
    ) -> Self {
        let mut at: [[f32; BATCH]; DIM] = fill([0.0; BATCH], |axis| p.map(|p| p.0[axis]));
        if let Some(previous) = previous {
            for (l, q) in previous.iter().enumerate() {
                let q = q.0.unwrap_or(Vector::NAN);
                let lerp = q.lerp(p[l].0, t);
                let from = finite(q);
                for axis in 0..DIM {
                    at[axis][l] = if from { lerp[axis] } else { at[axis][l] };
                }
            }
        }
        for (l, p) in p.iter().enumerate() {
            at[0][l] = if finite(p.0) { at[0][l] } else { f32::NAN };
        }
        Self {
            at,
            headings: dim::Headings::of(v.map(|v| v.map(|v| v.0))),
        }
    }

    /// Lane `l`'s [`placement`].
    #[inline(always)]
    fn at(&self, l: usize) -> Option<Vector> {
        (!self.at[0][l].is_nan()).then(|| per_axis(|axis| self.at[axis][l]))
    }

    /// Lane `l`'s [`heading_rotation`].
    #[inline(always)]
    fn rotation(&self, l: usize) -> Option<Quat> {
        self.headings.rotation(l)
    }
}

#[cfg(test)]
mod tests {
    use bevy::ecs::change_detection::Tick;
    use bevy::prelude::*;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::{BATCH, apply, heading_rotation, placement, sync_slices};
    use crate::components::{Position, PreviousPosition, Velocity};
    use crate::math::{Vector, per_axis};

    /// `first` on the first axis, `rest` on the others.
    fn with_first(first: f32, rest: f32) -> Vector {
        per_axis(|axis| if axis == 0 { first } else { rest })
    }

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
                    0 => Position(with_first(f32::NAN, 1.0)),
                    1 => Position(with_first(2.0, f32::INFINITY)),
                    _ => Position(per_axis(|_| f(500.0))),
                })
                .collect();
            let previous: Vec<PreviousPosition> = (0..n)
                .map(|i| match (i + round) % 7 {
                    0 => PreviousPosition(None),
                    1 => PreviousPosition(Some(with_first(f32::NEG_INFINITY, 0.0))),
                    _ => PreviousPosition(Some(p[i].0 + per_axis(|_| f(4.0)))),
                })
                .collect();
            let v: Vec<Velocity> = (0..n)
                .map(|i| match (i + round) % 9 {
                    0 => Velocity(Vector::ZERO),
                    1 => Velocity(with_first(1e-30, -1e-30)),
                    2 => Velocity(with_first(-f(100.0).abs() - 1.0, 0.0)),
                    3 => Velocity(Vector::splat(f32::MAX)),
                    4 => Velocity(with_first(f32::NAN, 1.0)),
                    _ => Velocity(per_axis(|_| f(200.0))),
                })
                .collect();
            let t = if round % 3 == 0 { 1.0 } else { f(1.0).abs() };
            let start: Vec<Transform> = (0..n)
                .map(|i| {
                    let mut transform = Transform::from_xyz(f(9.0), f(9.0), i as f32);
                    if i % 5 == 0 {
                        // Already where the rules put it: not a change.
                        if let Some(at) = placement(p[i].0, previous[i].0, t) {
                            apply(&mut transform, at, heading_rotation(v[i].0));
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
