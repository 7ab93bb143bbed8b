//! The steering systems beyond the three rules, one behaviour each, all adding into
//! [`Acceleration`] in parallel over the boids.

use bevy::prelude::*;

use crate::behaviours::{
    arrive, flee_direction, obstacle_push, steer, steer_to_velocity, tie_break, turn_back_direction,
};
use crate::bounds::Edges;
use crate::components::FlockId;
use crate::components::{
    Acceleration, Arrive, Attractor, Boid, HashSlot, Hunter, MaxSpeed, Obstacle, Position,
    Predator, Velocity,
};
use crate::hash::{HashHit, SpatialHash};
use crate::math::Vector;
use crate::neighbour_pass::FlockForces;
use crate::parallel::{Parts, for_each_part};
use crate::params::FlockParams;
use crate::systems::prepare::StepBounds;
use crate::table::FlockTable;

/// Everything that flies: boids and hunters.
pub(crate) type Agents = Or<(With<Boid>, With<Hunter>)>;

/// The state a force needs of one boid or hunter.
type Mover<'a> = (
    &'a Position,
    &'a Velocity,
    &'a mut Acceleration,
    Option<&'a MaxSpeed>,
    &'a FlockId,
);

/// Turn back inside the margin of [`Edges::TurnBack`]; nothing under [`Edges::Wrap`].
pub(crate) fn avoid_edges(
    bounds: Res<StepBounds>,
    table: Res<FlockTable>,
    mut movers: Query<Mover, Agents>,
) {
    let Edges::TurnBack { margin, weight } = bounds.edges else {
        return;
    };
    let rect = bounds.rect;
    movers
        .par_iter_mut()
        .for_each(|(p, v, mut a, max_speed, flock)| {
            let dir = turn_back_direction(p.0, rect, margin);
            if dir != Vector::ZERO {
                let row = table.row(*flock);
                let speed = max_speed.map_or(row.max_speed, |m| m.0);
                a.0 += steer(dir, v.0, speed, row.max_force) * weight;
            }
        });
}

/// Steer around every round [`Obstacle`] within its radius plus the avoid distance.
pub(crate) fn avoid_obstacles(
    bounds: Res<StepBounds>,
    table: Res<FlockTable>,
    obstacles: Query<(&Position, &Obstacle)>,
    mut movers: Query<Mover, Agents>,
    mut list: Local<Vec<(Vector, f32)>>,
) {
    list.clear();
    list.extend(obstacles.iter().filter_map(|(p, o)| {
        (p.is_finite() && o.radius.is_finite()).then_some((p.0, o.radius.max(0.0)))
    }));
    if list.is_empty() {
        return;
    }
    movers
        .par_iter_mut()
        .for_each(|(p, v, mut a, max_speed, flock)| {
            let row = table.row(*flock);
            let mut dir = Vector::ZERO;
            for (i, &(centre, radius)) in list.iter().enumerate() {
                let d = bounds.delta(p.0, centre);
                dir += obstacle_push(d, radius, row.avoid_distance, || tie_break(i, usize::MAX));
            }
            if dir != Vector::ZERO {
                let speed = max_speed.map_or(row.max_speed, |m| m.0);
                a.0 += steer(dir, v.0, speed, row.max_force) * row.obstacle_weight;
            }
        });
}

/// Up to this many predators, every boid checks every one; with more, the flee system puts them
/// in a [`SpatialHash`] of their own first, and a boid heeds at most about this many of those
/// around it (where more crowd its cells, every `k`-th:
/// [`SpatialHash::for_each_within_sampled`]), so that a crowd of predators costs each boid a
/// bounded walk.
const FEW_PREDATORS: usize = 32;

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
    mut list: Local<Vec<(Entity, Vector)>>,
    mut by_cell: Local<SpatialHash>,
    mut by_slot: Local<Vec<Vector>>,
) {
    list.clear();
    list.extend(
        predators
            .iter()
            .filter(|(_, p)| p.is_finite())
            .map(|(e, p)| (e, p.0)),
    );
    if list.is_empty() {
        return;
    }
    // Many predators (every boid a hunter): in a spatial hash of their own, cells a flee radius
    // across, so each boid looks only at those near it rather than at every one; and each
    // boid's flee direction worked out in the flock's hash order, cell by cell, so that
    // neighbours read the same predators while they are in cache (in the boids' own order each
    // read the predators' cells from memory: 3x slower), then read by slot.
    let many = list.len() > FEW_PREDATORS;
    by_slot.clear();
    if many {
        let reach = table
            .rows()
            .iter()
            .map(|r| r.flee_radius)
            .fold(0.0, f32::max)
            .max(FlockParams::MIN_DISTANCE);
        {
            let mut build = by_cell.begin(&bounds, reach, bounds.rect, list.len());
            for &(_, q) in list.iter() {
                build.count(q);
            }
            for &(predator, q) in list.iter() {
                build.place(predator, q, Vector::ZERO, 0);
            }
        }
        by_slot.resize(hash.len(), Vector::ZERO);
        let by_cell = &*by_cell;
        for_each_part(
            (0..hash.len(), &mut by_slot[..]),
            Parts::EVEN,
            |(slots, out)| {
                for (slot, out) in slots.zip(out) {
                    let radius = table.row(hash.flock_of(slot)).flee_radius;
                    *out = flee_among(by_cell, hash.entity(slot), hash.position(slot), radius);
                }
            },
        );
    }
    let (by_cell, list, by_slot) = (&*by_cell, &list[..], &by_slot[..]);
    boids
        .par_iter_mut()
        .for_each(|(me, p, v, mut a, (max_speed, flock, slot))| {
            let row = table.row(*flock);
            let dir = if many {
                // A boid spawned since the hash was built has no slot yet.
                match slot.and_then(|s| by_slot.get(s.0 as usize)) {
                    Some(&dir) => dir,
                    None => flee_among(by_cell, me, p.0, row.flee_radius),
                }
            } else {
                let mut dir = Vector::ZERO;
                for (i, &(predator, q)) in list.iter().enumerate() {
                    if predator != me {
                        // `i` tells predators apart for the tie-break of one on the very spot.
                        let tie = || tie_break(i, usize::MAX);
                        dir += flee_direction(bounds.delta(p.0, q), row.flee_radius, tie);
                    }
                }
                dir
            };
            if dir != Vector::ZERO {
                let speed = max_speed.map_or(row.max_speed, |m| m.0);
                a.0 += steer(dir, v.0, speed, row.max_force) * row.flee_weight;
            }
        });
}

/// The flee direction of the boid `me` at `p` from the predators of `by_cell` within `radius`:
/// about [`FEW_PREDATORS`] of them where more crowd its cells. The flee steers along the sum's
/// direction only, so a sample needs no weight.
fn flee_among(by_cell: &SpatialHash, me: Entity, p: Vector, radius: f32) -> Vector {
    let mut dir = Vector::ZERO;
    by_cell.for_each_within_sampled(p, radius, FEW_PREDATORS, |hit| {
        if by_cell.entity(hit.slot) != me {
            dir += flee_direction(hit.delta, radius, || tie_break(hit.slot, usize::MAX));
        }
    });
    dir
}

/// Boids seek the nearest [`Attractor`], at any distance, as far as their crowding lets them
/// (the pull gives way as cohesion does, see [`give_way`](crate::rules::give_way)).
pub(crate) fn seek_attractors(
    bounds: Res<StepBounds>,
    table: Res<FlockTable>,
    flocking: Res<FlockForces>,
    attractors: Query<&Position, With<Attractor>>,
    mut boids: Query<(Mover, Option<&HashSlot>), (With<Boid>, Without<Arrive>)>,
    mut list: Local<Vec<Vector>>,
) {
    list.clear();
    list.extend(attractors.iter().filter(|p| p.is_finite()).map(|p| p.0));
    if list.is_empty() {
        return;
    }
    boids
        .par_iter_mut()
        .for_each(|((p, v, mut a, max_speed, flock), slot)| {
            let nearest = list
                .iter()
                .map(|&q| bounds.delta(p.0, q))
                .min_by(|x, y| x.length_squared().total_cmp(&y.length_squared()));
            if let Some(d) = nearest {
                let row = table.row(*flock);
                let speed = max_speed.map_or(row.max_speed, |m| m.0);
                // A boid spawned since the hash was built has no slot yet: it does not give way.
                let yields = slot
                    .and_then(|s| flocking.give_way.get(s.0 as usize))
                    .copied()
                    .unwrap_or(0.0);
                a.0 += steer(d, v.0, speed, row.max_force) * row.seek_weight * (1.0 - yields);
            }
        });
}

/// Units with [`Arrive`] steer to their target, slowing inside the slow radius.
pub(crate) fn arrive_at_targets(
    bounds: Res<StepBounds>,
    table: Res<FlockTable>,
    mut units: Query<(Mover, &Arrive)>,
) {
    units
        .par_iter_mut()
        .for_each(|((p, v, mut a, max_speed, flock), order)| {
            if !order.target.is_finite() {
                return;
            }
            let row = table.row(*flock);
            let d = bounds.delta(p.0, order.target);
            let speed = max_speed.map_or(row.max_speed, |m| m.0);
            let slow = order.slow_radius.max(0.0);
            a.0 += arrive(d, v.0, slow, speed, row.max_force) * row.arrive_weight;
        });
}

/// Every [`Hunter`] seeks the nearest boid other than itself, found through the hash, at its own
/// top speed, and remembers it in [`Hunter::prey`].
///
/// With many hunters (over [`FEW_PREDATORS`]) that are boids too (every boid a hunter), their
/// prey is found first in the hash's order, cell by cell, so that neighbouring hunters read the same cells while they are
/// in cache, then looked up by slot.
pub(crate) fn hunt(
    table: Res<FlockTable>,
    hash: Res<SpatialHash>,
    mut hunters: Query<(
        (Entity, Option<&HashSlot>),
        &Position,
        &Velocity,
        &mut Acceleration,
        &MaxSpeed,
        &FlockId,
        &mut Hunter,
    )>,
    mut by_slot: Local<Vec<(u32, Entity, Vector)>>,
    mut found: Local<Vec<Option<HashHit>>>,
) {
    // A hunter that is a boid too is in the hash: never its own prey.
    let prey_of =
        |me: Entity, p: Vector| hash.nearest(p, f32::INFINITY, |h| hash.entity(h.slot) != me);
    by_slot.clear();
    if hunters.iter().len() > FEW_PREDATORS {
        by_slot.extend(hunters.iter().filter_map(|((me, slot), p, ..)| {
            let slot = slot?.0;
            let ok = (slot as usize) < hash.len() && hash.entity(slot as usize) == me;
            ok.then_some((slot, me, p.0))
        }));
        by_slot.sort_unstable_by_key(|&(slot, ..)| slot);
        found.clear();
        found.resize(by_slot.len(), None);
        for_each_part(
            (&by_slot[..], &mut found[..]),
            Parts::EVEN,
            |(hunters, found)| {
                for (&(slot, _, p), found) in hunters.iter().zip(found) {
                    // The hunter is the boid in `slot` (checked above): never its own prey.
                    let slot = slot as usize;
                    *found = hash.nearest(p, f32::INFINITY, |h| h.slot != slot);
                }
            },
        );
    }
    let (by_slot, found) = (&by_slot[..], &found[..]);
    hunters
        .par_iter_mut()
        .for_each(|((me, slot), p, v, mut a, max_speed, flock, mut hunter)| {
            let row = table.row(*flock);
            if hunter.resting > 0.0 {
                // Resting after a catch: brake to a halt.
                a.0 += steer_to_velocity(Vector::ZERO, v.0, row.max_force);
                return;
            }
            let looked_up = slot.and_then(|s| {
                let i = by_slot
                    .binary_search_by_key(&s.0, |&(slot, ..)| slot)
                    .ok()?;
                (by_slot[i].1 == me).then_some(found[i])
            });
            let prey = looked_up.unwrap_or_else(|| prey_of(me, p.0));
            let entity = prey.map(|hit| hash.entity(hit.slot));
            if hunter.prey != entity {
                hunter.prey = entity;
            }
            if let Some(hit) = prey {
                a.0 += steer(hit.delta, v.0, max_speed.0, row.max_force) * row.hunt_weight;
            }
        });
}
