//! The one system that moves everything: apply the acceleration, clamp the speed, move, handle
//! the edges, eight entities at a time through [`motion::integrate`](crate::motion::integrate).

use bevy::ecs::change_detection::ContiguousMut;
use bevy::platform::time::Instant;
use bevy::prelude::*;

use crate::bounds::SimulationBounds;
use crate::components::FlockId;
use crate::components::{
    Acceleration, Arrive, Boid, Hunter, MaxSpeed, Obstacle, Position, PreviousPosition, Velocity,
};
use crate::lanes::{Coords, Lanes, Real};
use crate::math::Vector;
use crate::motion::{MAX_DT, World, delta, integrate as integrate_lanes, keep_out_of_obstacles};
use crate::parallel::{Changing, DENSE, Parts, for_each_part};
use crate::simd::{Target, dispatch};
use crate::stats::FlockStats;
use crate::systems::forces::Agents;
use crate::systems::prepare::StepBounds;
use crate::table::FlockTable;

/// Integrates every boid and hunter in parallel and resets its acceleration. Units
/// ([`Arrive`]) and hunters have no minimum speed; `dt` is capped at [`MAX_DT`].
pub(crate) fn integrate(
    time: Res<Time>,
    bounds: Res<StepBounds>,
    table: Res<FlockTable>,
    mut movers: Query<
        (
            &mut Position,
            &mut Velocity,
            &mut Acceleration,
            Option<&mut PreviousPosition>,
            (&FlockId, Option<&MaxSpeed>),
            Has<Arrive>,
            Has<Hunter>,
        ),
        Agents,
    >,
    obstacles: Query<(&Position, &Obstacle), (Without<Boid>, Without<Hunter>)>,
    mut list: Local<Vec<(Vector, f32)>>,
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
        bounds: &bounds,
        table: &table,
        obstacles: &list,
    };
    let tables = movers.contiguous_iter_mut().expect(DENSE);
    for (p, v, a, previous, (flocks, max_speed), unit, hunter) in tables {
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
        let slices = (p, v, a, previous, ((flocks, max_speed), changing));
        let can_stop = unit || hunter;
        for_each_part(
            slices,
            Parts::EVEN,
            |(p, v, a, previous, ((flocks, max_speed), changing))| {
                let movers = Movers {
                    flocks,
                    max_speed,
                    can_stop,
                };
                integrate_slices(&step, &movers, (p, v, a, previous));
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
struct Step<'a> {
    dt: f32,
    bounds: &'a SimulationBounds,
    table: &'a FlockTable,
    obstacles: &'a [(Vector, f32)],
}

/// What sets one part's speed limits.
struct Movers<'a> {
    flocks: &'a [FlockId],
    max_speed: Option<&'a [MaxSpeed]>,
    /// Units and hunters: no minimum speed (the whole table is, or none of it).
    can_stop: bool,
}

/// The slices of one part of a table that every entity's integration writes.
type Slices<'s> = (
    &'s mut [Position],
    &'s mut [Velocity],
    &'s mut [Acceleration],
    Option<&'s mut [PreviousPosition]>,
);

dispatch! {
    /// Integrates one part of a table, in the build for this CPU.
    fn integrate_slices(step: &Step, movers: &Movers, slices: Slices) = integrate_slices_in;
}

/// [`integrate_slices`] as each build compiles it: eight entities at a time, then the rest one
/// by one, through the same code.
#[inline(always)]
fn integrate_slices_in(_: Target, step: &Step, movers: &Movers, mut slices: Slices) {
    const N: usize = 8;
    let len = slices.0.len();
    let whole = len / N * N;
    for first in (0..whole).step_by(N) {
        integrate_block::<N>(step, movers, first, &mut slices);
    }
    for first in whole..len {
        integrate_block::<1>(step, movers, first, &mut slices);
    }
}

/// Integrates the `N` entities from `first`: [`motion::integrate`](crate::motion::integrate) in
/// lanes, then, lane by lane, a far wrap where one is still outside the world, the obstacles'
/// keep-out, and the writes.
#[inline(always)]
fn integrate_block<const N: usize>(
    step: &Step,
    movers: &Movers,
    first: usize,
    (p, v, a, previous): &mut Slices,
) {
    let bounds = step.bounds;
    let world = World::<Lanes<N>>::new(bounds);
    let old = Coords::<Lanes<N>>::from_fn(|l| p[first + l].0);
    let velocity = Coords::from_fn(|l| v[first + l].0);
    let acceleration = Coords::from_fn(|l| a[first + l].0);
    let flocks = &movers.flocks[first..first + N];
    let uniform = movers.max_speed.is_none() && flocks.iter().all(|f| *f == flocks[0]);
    let limits: [(f32, f32); N] = core::array::from_fn(|l| {
        let row = step.table.row(flocks[if uniform { 0 } else { l }]);
        let own = movers.max_speed.map(|m| m[first + l].0);
        row.speed_limits(own, movers.can_stop)
    });
    let min = Lanes::from_fn(|l| limits[l].0);
    let max = Lanes::from_fn(|l| limits[l].1);
    let dt = Lanes::splat(step.dt);
    let (moved, turned, outside) =
        integrate_lanes(old, velocity, acceleration, dt, (min, max), &world);
    for l in 0..N {
        let (mut np, mut nv) = (moved.lane(l), turned.lane(l));
        if outside.lane(l) {
            // Rare: far outside the world (put there by hand), back in by a remainder.
            np = bounds.wrap_point(old.lane(l) + nv * step.dt);
        }
        if !step.obstacles.is_empty() {
            (np, nv) = keep_out_of_obstacles(np, nv, limits[l].0, step.obstacles, bounds);
        }
        p[first + l].0 = np;
        v[first + l].0 = nv;
        a[first + l].0 = Vector::ZERO;
    }
    if let Some(previous) = previous.as_deref_mut() {
        // The old position's image nearest the new one (across the seam if it wrapped).
        let new = Coords::<Lanes<N>>::from_fn(|l| p[first + l].0);
        let (d, general) = delta(old, new, &world);
        for l in 0..N {
            let (from, to) = (old.lane(l), new.lane(l));
            let d = if general.lane(l) {
                bounds.delta(from, to)
            } else {
                d.lane(l)
            };
            previous[first + l] = PreviousPosition(Some(to - d));
        }
    }
}
