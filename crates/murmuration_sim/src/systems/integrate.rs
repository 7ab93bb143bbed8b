//! The one system that moves everything: apply the acceleration, clamp the speed, move, handle
//! the edges.

use bevy::ecs::change_detection::ContiguousMut;
use bevy::platform::time::Instant;
use bevy::prelude::*;

use crate::bounds::{Edges, SimulationBounds};
use crate::components::{
    Acceleration, Arrive, Boid, Hunter, MaxSpeed, Obstacle, Position, PreviousPosition, Velocity,
};
use crate::parallel::{Changing, DENSE, Parts, for_each_part};
use crate::params::FlockParams;
use crate::stats::FlockStats;
use crate::systems::forces::Agents;
use crate::systems::integrate_lanes::{Inputs, LANES, Lane, integrate_arrays, integrate_in};
use crate::systems::prepare::StepConfig;

/// The longest step the simulation takes at once, seconds: a longer frame (a hitch, a hidden
/// window) is simulated as this much, so nothing jumps through a neighbour or an obstacle.
pub const MAX_DT: f32 = 0.1;

/// One Euler step for one entity: `v += a dt`, `|v|` clamped to `[min_speed, max_speed]`,
/// `p += v dt`, then wrapped or kept inside `bounds`. A non-finite acceleration counts as zero.
///
/// A boid already at its minimum speed cannot brake any further, so the part of the force that
/// would slow it below `min_speed` turns it instead: its heading turns toward the force (to the
/// left when the force is dead against it) by `atan(|a| dt / min_speed)`, so less than a quarter
/// turn a step. That is how a bird flying straight at a wall banks around instead of pressing on
/// at its slowest. A stopped boid with a minimum speed sets off along +x.
#[inline]
pub fn integrate_one(
    p: Vec2,
    v: Vec2,
    a: Vec2,
    dt: f32,
    min_speed: f32,
    max_speed: f32,
    bounds: &SimulationBounds,
) -> (Vec2, Vec2) {
    let a = if a.is_finite() { a } else { Vec2::ZERO };
    let old = v;
    let mut v = v + a * dt;
    let speed2 = v.length_squared();
    if speed2 > max_speed * max_speed {
        v *= max_speed / speed2.sqrt();
    } else if speed2 < min_speed * min_speed {
        let heading = old.try_normalize().unwrap_or(Vec2::X);
        let left = heading.perp();
        let side = if a.dot(left) >= 0.0 { left } else { -left };
        let turn = a.length() * dt / min_speed;
        v = (heading + side * turn).normalize_or(heading) * min_speed;
    }
    if !v.is_finite() {
        v = Vec2::ZERO;
    }
    let mut p = p + v * dt;
    match bounds.edges {
        Edges::Wrap => p = bounds.wrap_point(p),
        Edges::TurnBack { .. } => {
            let r = bounds.rect;
            wall(&mut p.x, &mut v.x, r.min.x, r.max.x);
            wall(&mut p.y, &mut v.y, r.min.y, r.max.y);
        }
    }
    (p, v)
}

/// Puts a centre that ended up inside a round obstacle back on its rim, and takes away the part
/// of its velocity that points inward (keeping at least `min_speed`, along the rim). Steering
/// keeps boids out on its own; this is the guarantee for whatever steering cannot hold off (a
/// strong arrive or a crowd pushing from behind), and it lets a unit pressed against an obstacle
/// slide round its rim.
#[inline]
pub fn keep_out_of_obstacles(
    mut p: Vec2,
    mut v: Vec2,
    min_speed: f32,
    obstacles: &[(Vec2, f32)],
    bounds: &SimulationBounds,
) -> (Vec2, Vec2) {
    for &(centre, radius) in obstacles {
        let d = bounds.delta(centre, p);
        let d2 = d.length_squared();
        if d2 >= radius * radius {
            continue;
        }
        let out = d.try_normalize().unwrap_or(Vec2::X);
        p = centre + out * radius;
        let inward = v.dot(out);
        if inward < 0.0 {
            v -= out * inward;
            if v.length_squared() < min_speed * min_speed {
                let along = v.try_normalize().unwrap_or(out.perp());
                v = along * min_speed;
            }
        }
    }
    (p, v)
}

/// A hard wall on one axis: a coordinate outside `lo..=hi` is put back on the edge and its
/// velocity turned to point inside.
#[inline]
fn wall(x: &mut f32, v: &mut f32, lo: f32, hi: f32) {
    if *x < lo {
        *x = lo;
        *v = v.abs();
    } else if *x > hi {
        *x = hi;
        *v = -v.abs();
    }
}

/// Integrates every boid and hunter in parallel and resets its acceleration. Units
/// ([`Arrive`]) and hunters have no minimum speed; `dt` is capped at [`MAX_DT`].
pub(crate) fn integrate(
    time: Res<Time>,
    config: Res<StepConfig>,
    mut movers: Query<
        (
            &mut Position,
            &mut Velocity,
            &mut Acceleration,
            Option<&mut PreviousPosition>,
            Option<&MaxSpeed>,
            Has<Arrive>,
            Has<Hunter>,
        ),
        Agents,
    >,
    obstacles: Query<(&Position, &Obstacle), (Without<Boid>, Without<Hunter>)>,
    mut list: Local<Vec<(Vec2, f32)>>,
    mut stats: ResMut<FlockStats>,
) {
    let start = Instant::now();
    list.clear();
    list.extend(obstacles.iter().filter_map(|(p, o)| {
        (p.is_finite() && o.radius.is_finite() && o.radius > 0.0).then_some((p.0, o.radius))
    }));
    if let Some(steer_started) = stats.steer_started.take() {
        stats.steering = start.duration_since(steer_started);
    }
    let step = Step {
        dt: time.delta_secs().clamp(0.0, MAX_DT),
        bounds: &config.bounds,
        params: &config.params,
        obstacles: &list,
    };
    let tables = movers.contiguous_iter_mut().expect(DENSE);
    for (p, v, a, previous, max_speed, unit, hunter) in tables {
        // Every entity moves: its components' change ticks are marked in the parts.
        let (p, mut p_ticks) = ContiguousMut::bypass_change_detection_split(p);
        let (v, mut v_ticks) = ContiguousMut::bypass_change_detection_split(v);
        let (a, mut a_ticks) = ContiguousMut::bypass_change_detection_split(a);
        let (previous, mut q_ticks) = previous
            .map(ContiguousMut::bypass_change_detection_split)
            .unzip();
        let changing = (
            Changing::new(&mut p_ticks),
            Changing::new(&mut v_ticks),
            Changing::new(&mut a_ticks),
            q_ticks.as_mut().map(Changing::new),
        );
        let slices = (p, v, a, previous, (max_speed, changing));
        let min_speed = !(unit || hunter);
        for_each_part(
            slices,
            Parts::EVEN,
            |(p, v, a, previous, (max_speed, changing))| {
                step.run((p, v, a, previous), max_speed, min_speed);
                let (p, v, a, previous) = changing;
                for ticks in [Some(p), Some(v), Some(a), previous].into_iter().flatten() {
                    ticks.mark();
                }
            },
        );
    }
    stats.integrate = start.elapsed();
}

/// What integrating one entity needs besides its own state.
#[derive(Clone, Copy)]
struct Step<'a> {
    dt: f32,
    bounds: &'a SimulationBounds,
    params: &'a FlockParams,
    obstacles: &'a [(Vec2, f32)],
}

/// The slices of one part of a table that every entity's integration writes.
type Slices<'s> = (
    &'s mut [Position],
    &'s mut [Velocity],
    &'s mut [Acceleration],
    Option<&'s mut [PreviousPosition]>,
);

impl Step<'_> {
    /// Integrates the entities of one part of a table: these slices side by side.
    /// `min_speed` is false for units and hunters. Built for AVX2 where the CPU has it (the
    /// same operations, so the same bits).
    fn run(&self, slices: Slices, max_speed: Option<&[MaxSpeed]>, min_speed: bool) {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            #[target_feature(enable = "avx2")]
            fn avx2(step: &Step, slices: Slices, max_speed: Option<&[MaxSpeed]>, min_speed: bool) {
                step.run_in::<true>(slices, max_speed, min_speed);
            }
            // SAFETY: the CPU was just checked to have AVX2.
            return unsafe { avx2(self, slices, max_speed, min_speed) };
        }
        self.run_in::<false>(slices, max_speed, min_speed);
    }

    /// [`Self::run`], inlined into each build; `AVX2` only where the CPU has it.
    #[inline(always)]
    fn run_in<const AVX2: bool>(
        &self,
        mut slices: Slices,
        max_speed: Option<&[MaxSpeed]>,
        min_speed: bool,
    ) {
        let (bounds, params) = (self.bounds, self.params);
        let limits = |i: usize| {
            let max = max_speed.map_or(params.max_speed, |m| m[i].0).max(0.0);
            let min = if min_speed {
                params.min_speed.min(max)
            } else {
                0.0
            };
            (min, max)
        };
        let len = slices.0.len();
        let whole = len / LANES * LANES;
        if AVX2 && self.obstacles.is_empty() && max_speed.is_none() {
            // The common case, read and written eight at a time in registers.
            let (min, max) = limits(0);
            for first in (0..whole).step_by(LANES) {
                // SAFETY: `AVX2` is only true in the build for a CPU with AVX2.
                #[cfg(target_arch = "x86_64")]
                unsafe {
                    self.block_avx2(first, (min, max), &mut slices);
                }
            }
        } else {
            self.blocks(whole, limits, &mut slices);
        }
        for i in whole..len {
            let (min, max) = limits(i);
            let (p, v, a, _) = &slices;
            let old = p[i].0;
            let moved = integrate_one(old, v[i].0, a[i].0, self.dt, min, max, bounds);
            self.store(i, old, moved, min, &mut slices);
        }
    }

    /// The block of eight entities from `first`, with no obstacles and the same speed limits
    /// for all: loaded, integrated and written back in registers; lanes that left a wrapping
    /// world redone by [`integrate_one`]. The same bits as [`Self::blocks`].
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn block_avx2(&self, first: usize, (min, max): (f32, f32), slices: &mut Slices) {
        use crate::systems::integrate_lanes::avx2::{deltas, load_xy, store_xy};
        let (p, v, a, previous) = slices;
        let lanes = first..first + LANES;
        let (p, v, a) = (&mut p[lanes.clone()], &mut v[lanes.clone()], &mut a[lanes]);
        // SAFETY: the caller runs on a CPU with AVX2; each slice holds eight `Vec2`s
        // (`repr(transparent)`), sixteen `f32`s.
        let input = unsafe {
            let (px, py) = load_xy(p.as_ptr().cast());
            let (vx, vy) = load_xy(v.as_ptr().cast());
            let (ax, ay) = load_xy(a.as_ptr().cast());
            Inputs {
                px,
                py,
                vx,
                vy,
                ax,
                ay,
                min: [min; LANES],
                max: [max; LANES],
            }
        };
        let moved = integrate_arrays(&input, self.dt, self.bounds);
        // SAFETY: as above.
        unsafe {
            store_xy(p.as_mut_ptr().cast(), moved.px, moved.py);
            store_xy(v.as_mut_ptr().cast(), moved.vx, moved.vy);
            store_xy(a.as_mut_ptr().cast(), [0.0; LANES], [0.0; LANES]);
        }
        for (l, &redo) in moved.redo.iter().enumerate() {
            if redo {
                (p[l].0, v[l].0) = input.lane(l).integrate_one(self.dt, self.bounds);
            }
        }
        if let Some(previous) = previous.as_deref_mut() {
            // The deltas of the eight side by side (one at a time, the seam's compares and
            // branches were about a third of this system's time).
            // SAFETY: as above.
            let (to_x, to_y) = unsafe { load_xy(p.as_ptr().cast()) };
            // SAFETY: as above.
            let (dx, dy, general) =
                unsafe { deltas(self.bounds, (input.px, input.py), (to_x, to_y)) };
            for (l, previous) in previous[first..first + LANES].iter_mut().enumerate() {
                *previous = if general & 1 << l != 0 {
                    self.previous(Vec2::new(input.px[l], input.py[l]), p[l].0)
                } else {
                    PreviousPosition(Some(Vec2::new(to_x[l] - dx[l], to_y[l] - dy[l])))
                };
            }
        }
    }

    /// The whole blocks of eight entities before `whole`, one lane at a time around the
    /// eight-lane integration.
    #[inline(always)]
    fn blocks(&self, whole: usize, limits: impl Fn(usize) -> (f32, f32), slices: &mut Slices) {
        let bounds = self.bounds;
        for first in (0..whole).step_by(LANES) {
            let (p, v, a, _) = &*slices;
            let lanes: [Lane; LANES] = core::array::from_fn(|l| {
                let i = first + l;
                let (min_speed, max_speed) = limits(i);
                Lane {
                    p: p[i].0,
                    v: v[i].0,
                    a: a[i].0,
                    min_speed,
                    max_speed,
                }
            });
            let moved = integrate_in(&lanes, self.dt, bounds);
            for (l, lane) in lanes.iter().enumerate() {
                let moved = moved.get(l, lane, self.dt, bounds);
                self.store(first + l, lane.p, moved, lane.min_speed, slices);
            }
        }
    }

    /// The [`PreviousPosition`] of an entity that moved from `old` to `new`: the old position's
    /// image nearest the new one (across the seam if it wrapped).
    #[inline(always)]
    fn previous(&self, old: Vec2, new: Vec2) -> PreviousPosition {
        PreviousPosition(Some(new - self.bounds.delta(old, new)))
    }

    /// The obstacles, then the writes, of entity `i`, which moved from `old` to `moved`.
    #[inline(always)]
    fn store(&self, i: usize, old: Vec2, moved: (Vec2, Vec2), min: f32, slices: &mut Slices) {
        let (mut np, mut nv) = moved;
        if !self.obstacles.is_empty() {
            (np, nv) = keep_out_of_obstacles(np, nv, min, self.obstacles, self.bounds);
        }
        let (p, v, a, previous) = slices;
        if let Some(previous) = previous.as_deref_mut() {
            previous[i] = self.previous(old, np);
        }
        p[i].0 = np;
        v[i].0 = nv;
        a[i].0 = Vec2::ZERO;
    }
}

#[cfg(test)]
mod tests {
    use bevy::prelude::*;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::Step;
    use crate::bounds::{Edges, SimulationBounds};
    use crate::components::{Acceleration, Position, PreviousPosition, Velocity};
    use crate::params::FlockParams;

    /// The AVX2 build's blocks, loaded and stored in registers, write the same bits as the
    /// lane-by-lane blocks: positions, velocities, cleared accelerations and previous positions,
    /// across the seam (from within one world of it and from further) and into the walls, for a
    /// part that does not end on a whole block.
    #[test]
    fn register_blocks_are_lane_blocks() {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
            let mut f = |scale: f32| (rng.random::<f32>() - 0.3) * scale;
            let n = 8 * 300 + 5;
            for edges in [Edges::Wrap, Edges::TURN_BACK] {
                let bounds = SimulationBounds {
                    rect: Rect::new(-50.0, 0.0, 250.0, 100.0),
                    edges,
                };
                let params = FlockParams::starlings();
                let step = Step {
                    dt: 0.05,
                    bounds: &bounds,
                    params: &params,
                    obstacles: &[],
                };
                // Some far outside the world, more than one world from where they wrap to.
                let p: Vec<Position> = (0..n)
                    .map(|i| {
                        let p = Vec2::new(f(330.0) - 20.0, f(130.0));
                        Position(if i % 13 == 0 { p * 4.0 } else { p })
                    })
                    .collect();
                let v: Vec<Velocity> = (0..n)
                    .map(|i| Velocity(Vec2::new(f(400.0), f(400.0)) * (i % 3) as f32))
                    .collect();
                let a: Vec<Acceleration> = (0..n)
                    .map(|i| {
                        let a = Vec2::new(f(900.0), f(900.0));
                        Acceleration(if i % 11 == 0 { Vec2::NAN } else { a })
                    })
                    .collect();
                let run = |registers: bool| {
                    let (mut p, mut v, mut a) = (p.clone(), v.clone(), a.clone());
                    let mut previous = vec![PreviousPosition(None); n];
                    let slices = (&mut p[..], &mut v[..], &mut a[..], Some(&mut previous[..]));
                    if registers {
                        #[target_feature(enable = "avx2")]
                        fn avx2(step: &Step, slices: super::Slices) {
                            step.run_in::<true>(slices, None, true);
                        }
                        // SAFETY: the CPU was just checked to have AVX2.
                        unsafe { avx2(&step, slices) };
                    } else {
                        step.run_in::<false>(slices, None, true);
                    }
                    let bits = |v: Vec2| v.to_array().map(f32::to_bits);
                    let rows: Vec<_> = (0..n)
                        .map(|i| {
                            let previous = previous[i].0.map(bits);
                            (bits(p[i].0), bits(v[i].0), bits(a[i].0), previous)
                        })
                        .collect();
                    rows
                };
                assert_eq!(run(true), run(false), "{edges:?}");
            }
        }
    }
}
