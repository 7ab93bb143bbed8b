//! Separation, alignment and cohesion: every boid's neighbour sums in one pass over the hash,
//! then one pass over the boids that turns each one's sums into its force, eight at a time.

use bevy::ecs::change_detection::ContiguousMut;
use bevy::prelude::*;

use crate::components::FlockId;
use crate::components::{Acceleration, Arrive, Boid, HashSlot, MaxSpeed, Velocity};
use crate::hash::SpatialHash;
use crate::lanes::{Coords, Lanes, Real};
use crate::neighbour_pass::neighbour_sums;
use crate::neighbours::NeighbourSearch;
use crate::parallel::{Changing, DENSE, Parts, for_each_part};
use crate::rules::{NeighbourSums, Weights, flocking_force, unit_force};
use crate::simd::{Target, dispatch};
use crate::stats::FlockStats;
use crate::systems::prepare::StepBounds;
use crate::table::{FlockRow, FlockTable};

/// Adds the three flocking rules to every boid's [`Acceleration`], in parallel.
///
/// Each boid steers at its own top speed ([`MaxSpeed`], else its flock's) with its flock's
/// limits and weights; boids with [`Arrive`] (units) get separation only ([`unit_force`]). A
/// boid spawned since the hash was built has no slot yet and waits for the next step.
pub(crate) fn flock(
    bounds: Res<StepBounds>,
    table: Res<FlockTable>,
    hash: Res<SpatialHash>,
    search: Res<NeighbourSearch>,
    mut boids: Query<
        (
            &HashSlot,
            &Velocity,
            &FlockId,
            &mut Acceleration,
            Option<&MaxSpeed>,
            Has<Arrive>,
        ),
        With<Boid>,
    >,
    mut sums: Local<Vec<NeighbourSums<f32>>>,
    mut stats: ResMut<FlockStats>,
) {
    let counts = neighbour_sums(&hash, &table, &bounds, *search, &mut sums);
    stats.candidates = counts.candidates;
    stats.neighbours = counts.neighbours;
    let (sums, table) = (&sums[..], &*table);
    for (slots, velocities, flocks, acceleration, max_speed, unit) in
        boids.contiguous_iter_mut().expect(DENSE)
    {
        // Every boid's acceleration changes: the change ticks are marked in the parts.
        let (acceleration, mut ticks) = ContiguousMut::bypass_change_detection_split(acceleration);
        let parts = (
            (slots, velocities),
            (flocks, max_speed),
            acceleration,
            Changing::new(&mut ticks),
        );
        for_each_part(
            parts,
            Parts::EVEN,
            |((slots, velocities), (flocks, max_speed), acceleration, changing)| {
                changing.mark();
                let boids = Boids {
                    slots,
                    velocities,
                    flocks,
                    max_speed,
                    unit,
                };
                add_forces(sums, table, &boids, acceleration);
            },
        );
    }
}

/// One part of a table of boids, as the forces pass reads it.
struct Boids<'a> {
    slots: &'a [HashSlot],
    velocities: &'a [Velocity],
    flocks: &'a [FlockId],
    max_speed: Option<&'a [MaxSpeed]>,
    /// Units ([`Arrive`]): the whole table is, or none of it.
    unit: bool,
}

dispatch! {
    /// Adds each boid's flocking force, from its sums in `sums`, to `out`, in the build for this
    /// CPU.
    fn add_forces(
        sums: &[NeighbourSums<f32>],
        table: &FlockTable,
        boids: &Boids,
        out: &mut [Acceleration],
    ) = add_forces_in;
}

/// [`add_forces`] as each build compiles it: eight boids at a time, then the rest one by one,
/// through the same code.
#[inline(always)]
fn add_forces_in(
    _: Target,
    sums: &[NeighbourSums<f32>],
    table: &FlockTable,
    boids: &Boids,
    out: &mut [Acceleration],
) {
    const N: usize = 8;
    let len = boids.slots.len();
    let whole = len / N * N;
    for first in (0..whole).step_by(N) {
        forces_of::<N>(sums, table, boids, first, out);
    }
    for first in whole..len {
        forces_of::<1>(sums, table, boids, first, out);
    }
}

/// The forces of the `N` boids from `first`, added to `out`.
#[inline(always)]
fn forces_of<const N: usize>(
    sums: &[NeighbourSums<f32>],
    table: &FlockTable,
    boids: &Boids,
    first: usize,
    out: &mut [Acceleration],
) {
    let slot = |l: usize| boids.slots[first + l].0 as usize;
    let present: [bool; N] = core::array::from_fn(|l| slot(l) < sums.len());
    let s = NeighbourSums::<Lanes<N>>::gather(|l| {
        if present[l] {
            sums[slot(l)]
        } else {
            NeighbourSums::zero()
        }
    });
    let v = Coords::<Lanes<N>>::from_fn(|l| boids.velocities[first + l].0);
    let flocks = &boids.flocks[first..first + N];
    let uniform = flocks.iter().all(|f| *f == flocks[0]);
    let rows: [&FlockRow; N] = core::array::from_fn(|l| table.row(flocks[l]));
    let param = |f: fn(&FlockRow) -> f32| {
        if uniform {
            Lanes::splat(f(rows[0]))
        } else {
            Lanes::from_fn(|l| f(rows[l]))
        }
    };
    let speed = match boids.max_speed {
        Some(m) => Lanes::from_fn(|l| m[first + l].0),
        None => param(|r| r.max_speed),
    };
    let max_force = param(|r| r.max_force);
    let force = if boids.unit {
        let distance = param(|r| r.separation_distance);
        unit_force(
            &s,
            speed,
            max_force,
            distance,
            param(|r| r.weights.separation),
        )
    } else {
        let weights = Weights {
            separation: param(|r| r.weights.separation),
            alignment: param(|r| r.weights.alignment),
            cohesion: param(|r| r.weights.cohesion),
        };
        flocking_force(&s, v, speed, max_force, &weights)
    };
    for (l, out) in out[first..first + N].iter_mut().enumerate() {
        if present[l] {
            out.0 += force.lane(l);
        }
    }
}
