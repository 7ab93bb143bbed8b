//! Fleeing: boids steer away from every [`Predator`] (the mouse, a hawk, a shark, a sheepdog)
//! within their flock's [`flee_radius`](FlockParams::flee_radius), weighted by its
//! [`flee_weight`](FlockParams::flee_weight), along the sum of [`flee_direction`]s.
//!
//! The radius and weight are per flock ([`FlockParams`]): how far an animal keeps from a
//! predator is the animal's (sheep and swallows flee from further off than starlings).
//!
//! Up to a few dozen predators every boid checks each one; more (every boid a hunter) go into a
//! spatial hash of their own, cells a flee radius across, so each boid looks only at those near
//! it.

use bevy::prelude::*;

use crate::bounds::StepBounds;
use crate::components::{Acceleration, Boid, FlockId, HashSlot, MaxSpeed, Position, Velocity};
use crate::hash::{Points, SpatialHash};
use crate::math::Vector;
use crate::parallel::{DENSE, Parts, for_each_part};
use crate::params::FlockParams;
use crate::schedule::{SteeringSystems, schedule_of};
use crate::steering::{add_forces, flee_direction, steer, tie_break, top_speed};
use crate::table::FlockTable;
use crate::threats::{self, FEW_PREDATORS};

/// Boids flee [`Predator`]s, in [`SteeringSystems::Flee`].
#[derive(Debug, Clone, Default)]
pub struct FleePlugin;

impl Plugin for FleePlugin {
    fn is_unique(&self) -> bool {
        // Added twice, the second does nothing (see `StepPlugin`).
        false
    }

    fn build(&self, app: &mut App) {
        if app.is_plugin_added::<Self>() {
            return;
        }
        let schedule = schedule_of(app, "FleePlugin");
        app.register_type::<Predator>()
            .add_systems(schedule, flee_predators.in_set(SteeringSystems::Flee));
    }
}

/// Something boids flee from when it is within
/// [`FlockParams::flee_radius`]: the mouse, a hawk, a shark, a
/// sheepdog. Only its [`Position`] is read.
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug, Clone)]
#[require(Position)]
pub struct Predator;

/// Boids flee every [`Predator`] (the mouse, a hunter) within the flee radius.
pub(crate) fn flee_predators(
    bounds: Res<StepBounds>,
    table: Res<FlockTable>,
    hash: Res<SpatialHash>,
    predators: Query<(Entity, &Position), With<Predator>>,
    mut boids: Query<
        (
            Entity,
            &Position,
            &Velocity,
            &mut Acceleration,
            (Option<&MaxSpeed>, &FlockId, Option<&HashSlot>),
        ),
        With<Boid>,
    >,
    mut list: Local<(Vec<Entity>, Vec<Position>)>,
    mut by_cell: Local<SpatialHash>,
    mut by_slot: Local<Vec<Vector>>,
) {
    let (entities, positions) = &mut *list;
    entities.clear();
    positions.clear();
    for (e, p) in predators.iter().filter(|(_, p)| p.is_finite()) {
        entities.push(e);
        positions.push(*p);
    }
    if entities.is_empty() {
        return;
    }
    // Up to `FEW_PREDATORS`, every boid checks every one. More (every boid a hunter): in a
    // spatial hash of their own, cells a flee radius across, so each boid looks only at those
    // near it, a sample of them where many crowd (`threats`); and each boid's flee direction
    // worked out in the flock's hash order, so that neighbours share the predators' blocks,
    // copied once ([`threats`]; in the boids' own order each read the predators' cells from
    // memory: 3x slower), then read by slot.
    let many = entities.len() > FEW_PREDATORS;
    by_slot.clear();
    if many {
        let reach = table
            .rows()
            .iter()
            .map(|r| r.flee_radius)
            .fold(0.0, f32::max)
            .max(FlockParams::MIN_DISTANCE);
        // Counted and placed in parts on every thread, as the flock's own hash is.
        let lens = core::iter::once(entities.len());
        let mut build = by_cell.begin_parted(&bounds, reach, bounds.rect, lens);
        build.count(positions);
        build.place(Points {
            entities,
            positions,
        });
        build.finish();
        by_slot.resize(hash.len(), Vector::ZERO);
        let by_cell = &*by_cell;
        let radius = |slot: usize| table.row(hash.flock_of(slot)).flee_radius;
        for_each_part(
            (0..hash.len(), &mut by_slot[..]),
            Parts::EVEN,
            |(slots, out)| threats::flee_each(by_cell, &hash, slots, radius, out),
        );
    }
    let (by_cell, by_slot) = (&*by_cell, &by_slot[..]);
    let list = || entities.iter().zip(positions.iter());
    add_forces(
        boids
            .contiguous_iter_mut()
            .expect(DENSE)
            .map(|(me, p, v, a, (max_speed, flock, slot))| {
                ((me, p, v, (max_speed, flock, slot)), a)
            }),
        |(me, p, v, (max_speed, flock, slot)), a| {
            for (j, a) in a.iter_mut().enumerate() {
                let row = table.row(flock[j]);
                let dir = if many {
                    // A boid spawned since the hash was built has no slot yet.
                    match slot.and_then(|s| by_slot.get(s[j].0 as usize)) {
                        Some(&dir) => dir,
                        None => threats::flee_among(by_cell, me[j], p[j].0, row.flee_radius),
                    }
                } else {
                    let mut dir = Vector::ZERO;
                    for (i, (&predator, q)) in list().enumerate() {
                        if predator != me[j] {
                            // `i` tells predators apart for the tie-break of one on the very spot.
                            let tie = || tie_break(i, usize::MAX);
                            dir += flee_direction(bounds.delta(p[j].0, q.0), row.flee_radius, tie);
                        }
                    }
                    dir
                };
                if dir != Vector::ZERO {
                    let speed = top_speed(max_speed, j, row);
                    a.0 += steer(dir, v[j].0, speed, row.max_force) * row.flee_weight;
                }
            }
        },
    );
}
