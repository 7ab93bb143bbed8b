//! The one system that moves everything: apply the acceleration, clamp the speed, move, handle
//! the edges, eight entities at a time through [`motion::integrate`](crate::motion::integrate).

use bevy::ecs::change_detection::ContiguousMut;
use bevy::platform::time::Instant;
use bevy::prelude::*;

use crate::bounds::SimulationBounds;
use crate::bounds::StepBounds;
use crate::components::{
    Acceleration, Agents, FlockId, MaxSpeed, Position, PreviousPosition, Velocity,
};
use crate::hunting::Hunter;
use crate::lanes::{Coords, Lanes, Real, fill};
use crate::math::Vector;
use crate::motion::{MAX_DT, World, delta, integrate as integrate_lanes, previous_position};
use crate::obstacles::ObstacleIndex;
use crate::parallel::{Changing, DENSE, Parts, for_each_part};
use crate::simd::out_of_line;
use crate::stats::FlockStats;
use crate::table::FlockTable;
use crate::units::Arrive;

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
    obstacles: Option<Res<ObstacleIndex>>,
    mut stats: ResMut<FlockStats>,
) {
    let start = Instant::now();
    if let Some(steer_started) = stats.steer_started.take() {
        stats.steering = start.duration_since(steer_started);
    }
    let step = Step {
        dt: time.delta_secs().clamp(0.0, MAX_DT),
        bounds: &bounds,
        table: &table,
        obstacles: obstacles.as_deref().filter(|index| !index.is_empty()),
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
    /// The obstacles, where there are any.
    obstacles: Option<&'a ObstacleIndex>,
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

/// Integrates one part of a table: eight entities at a time, then the rest one by one, through
/// the same code.
fn integrate_slices(step: &Step, movers: &Movers, mut slices: Slices) {
    const N: usize = 8;
    let lanes = move_lanes();
    let len = slices.0.len();
    let whole = len / N * N;
    for first in (0..whole).step_by(N) {
        // SAFETY: `move_lanes` gave the build for this CPU.
        integrate_block::<N>(step, movers, first, &mut slices, |m| unsafe { lanes(m) });
    }
    for first in whole..len {
        integrate_block::<1>(step, movers, first, &mut slices, move_in_lanes);
    }
}

/// The lane part of integrating a block of `N` entities: where they were and what moves them,
/// as the components hold them, and their speed limits.
// NOTE: references to the components, not copies: copied lane by lane and read back whole by
// the out-of-line lane code, the copies waited on their narrow stores (the step's integration
// 1.5x slower at 100,000 boids).
#[derive(Clone, Copy)]
struct MoveIn<'a, const N: usize> {
    position: &'a [Position; N],
    velocity: &'a [Velocity; N],
    acceleration: &'a [Acceleration; N],
    limits: Limits<'a, N>,
    dt: f32,
    bounds: &'a SimulationBounds,
}

/// The `(min, max)` speeds of a block: one pair for all (nearly always), or each its own.
#[derive(Clone, Copy)]
enum Limits<'a, const N: usize> {
    All(f32, f32),
    Each(&'a [(f32, f32); N]),
}

/// What the lane part computed: each entity's new position and velocity, the way back to its
/// old position's nearest image (for [`PreviousPosition`]), and which lanes a lane alone must
/// finish (far outside the world, or too far from the old position for the quick fold).
#[derive(Clone, Copy)]
struct MoveOut<const N: usize> {
    position: [Vector; N],
    velocity: [Vector; N],
    back: [Vector; N],
    /// Lanes to finish alone.
    fix: [bool; N],
    outside: [bool; N],
}

/// [`motion::integrate`](crate::motion::integrate) and the way back, in lanes: the vectors
/// turned into lanes and back here, where the build's vector instructions can shuffle them.
#[inline(always)]
fn move_in_lanes<const N: usize>(m: &MoveIn<'_, N>) -> MoveOut<N> {
    let world = World::<Lanes<N>>::new(m.bounds);
    let dt = Lanes::splat(m.dt);
    let limits = match m.limits {
        Limits::All(min, max) => (Lanes::splat(min), Lanes::splat(max)),
        Limits::Each(each) => (Lanes::from_fn(|l| each[l].0), Lanes::from_fn(|l| each[l].1)),
    };
    let old = Coords::<Lanes<N>>::from_fn(|l| m.position[l].0);
    let velocity = Coords::from_fn(|l| m.velocity[l].0);
    let acceleration = Coords::from_fn(|l| m.acceleration[l].0);
    let (position, velocity, outside) =
        integrate_lanes(old, velocity, acceleration, dt, limits, &world);
    let (back, general) = delta(old, position, &world);
    let fix = outside | general;
    MoveOut {
        position: fill(Vector::ZERO, |l| position.lane(l)),
        velocity: fill(Vector::ZERO, |l| velocity.lane(l)),
        back: fill(Vector::ZERO, |l| back.lane(l)),
        fix: fill(false, |l| fix.lane(l)),
        outside: fill(false, |l| outside.lane(l)),
    }
}

out_of_line! {
    /// [`move_in_lanes`] for eight entities, in the build for this CPU, out of line.
    fn move_lanes(m: &MoveIn<'_, 8>) -> MoveOut<8> = move_in_lanes(m);
}

/// Integrates the `N` entities from `first`: the lane part (`lanes`, [`move_in_lanes`]), then,
/// lane by lane, a far wrap where one is still outside the world, the obstacles' keep-out, and
/// the writes.
#[inline(always)]
fn integrate_block<const N: usize>(
    step: &Step,
    movers: &Movers,
    first: usize,
    (p, v, a, previous): &mut Slices,
    lanes: impl Fn(&MoveIn<'_, N>) -> MoveOut<N>,
) {
    let bounds = step.bounds;
    let flocks = &movers.flocks[first..first + N];
    let uniform = movers.max_speed.is_none() && flocks.iter().all(|f| *f == flocks[0]);
    let limit = |l: usize| {
        let own = movers.max_speed.map(|m| m[first + l].0);
        step.table.row(flocks[l]).speed_limits(own, movers.can_stop)
    };
    let each: [(f32, f32); N];
    let limits = if uniform {
        let (min, max) = limit(0);
        Limits::All(min, max)
    } else {
        each = fill((0.0, 0.0), limit);
        Limits::Each(&each)
    };
    let whole = first..first + N;
    let out = lanes(&MoveIn {
        position: p[whole.clone()].try_into().expect("N"),
        velocity: v[whole.clone()].try_into().expect("N"),
        acceleration: a[whole].try_into().expect("N"),
        limits,
        dt: step.dt,
        bounds,
    });
    let obstacles = step.obstacles.is_some();
    if !obstacles && !out.fix.contains(&true) {
        // Nearly always: the whole block written as it is, without a branch per entity.
        for l in 0..N {
            p[first + l].0 = out.position[l];
            v[first + l].0 = out.velocity[l];
            a[first + l].0 = Vector::ZERO;
        }
        if let Some(previous) = previous.as_deref_mut() {
            for l in 0..N {
                previous[first + l] = PreviousPosition(Some(out.position[l] - out.back[l]));
            }
        }
        return;
    }
    for l in 0..N {
        let i = first + l;
        let (mut np, mut nv) = (out.position[l], out.velocity[l]);
        if !(obstacles | out.fix[l]) {
            p[i].0 = np;
            v[i].0 = nv;
            a[i].0 = Vector::ZERO;
            if let Some(previous) = previous.as_deref_mut() {
                previous[i] = PreviousPosition(Some(np - out.back[l]));
            }
            continue;
        }
        let old = p[i].0;
        if out.outside[l] {
            // Rare: far outside the world (put there by hand), back in by a remainder.
            np = bounds.wrap_point(old + nv * step.dt);
        }
        if let Some(index) = step.obstacles {
            let min_speed = match limits {
                Limits::All(min, _) => min,
                Limits::Each(each) => each[l].0,
            };
            (np, nv) = index.keep_out(old, np, nv, min_speed);
        }
        p[i].0 = np;
        v[i].0 = nv;
        a[i].0 = Vector::ZERO;
        if let Some(previous) = previous.as_deref_mut() {
            // The old position's image nearest the new one (across the seam if it wrapped).
            previous[i] = PreviousPosition(Some(previous_position(old, np, bounds)));
        }
    }
}
