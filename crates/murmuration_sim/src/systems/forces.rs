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
use crate::hash::SpatialHash;
use crate::neighbour_pass::FlockForces;
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
            if dir != Vec2::ZERO {
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
    mut list: Local<Vec<(Vec2, f32)>>,
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
            let mut dir = Vec2::ZERO;
            for (i, &(centre, radius)) in list.iter().enumerate() {
                let d = bounds.delta(p.0, centre);
                dir += obstacle_push(d, radius, row.avoid_distance, || tie_break(i, usize::MAX));
            }
            if dir != Vec2::ZERO {
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
    predators: Query<(Entity, &Position), With<Predator>>,
    mut boids: Query<
        (
            Entity,
            &Position,
            &Velocity,
            &mut Acceleration,
            Option<&MaxSpeed>,
            &FlockId,
        ),
        With<Boid>,
    >,
    mut list: Local<Vec<(Entity, Vec2)>>,
    mut by_cell: Local<SpatialHash>,
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
    // across, so each boid looks only at those near it rather than at every one.
    let many = list.len() > FEW_PREDATORS;
    if many {
        let reach = table
            .rows()
            .iter()
            .map(|r| r.flee_radius)
            .fold(0.0, f32::max)
            .max(FlockParams::MIN_DISTANCE);
        let mut build = by_cell.begin(&bounds, reach, bounds.rect, list.len());
        for &(_, q) in list.iter() {
            build.count(q);
        }
        for &(predator, q) in list.iter() {
            build.place(predator, q, Vec2::ZERO, 0);
        }
    }
    let (by_cell, list) = (&*by_cell, &list[..]);
    boids
        .par_iter_mut()
        .for_each(|(me, p, v, mut a, max_speed, flock)| {
            let row = table.row(*flock);
            let mut dir = Vec2::ZERO;
            // `i` tells predators apart for the tie-break of one on the boid's very spot.
            let mut flee = |i: usize, predator: Entity, delta: Vec2| {
                if predator != me {
                    dir += flee_direction(delta, row.flee_radius, || tie_break(i, usize::MAX));
                }
            };
            if many {
                // The flee steers along the sum's direction only, so a sample needs no weight.
                by_cell.for_each_within_sampled(p.0, row.flee_radius, FEW_PREDATORS, |hit| {
                    flee(hit.slot, by_cell.entity(hit.slot), hit.delta);
                });
            } else {
                for (i, &(predator, q)) in list.iter().enumerate() {
                    flee(i, predator, bounds.delta(p.0, q));
                }
            }
            if dir != Vec2::ZERO {
                let speed = max_speed.map_or(row.max_speed, |m| m.0);
                a.0 += steer(dir, v.0, speed, row.max_force) * row.flee_weight;
            }
        });
}

/// Boids seek the nearest [`Attractor`], at any distance, as far as their crowding lets them
/// (the pull gives way as cohesion does, see [`give_way`](crate::rules::give_way)).
pub(crate) fn seek_attractors(
    bounds: Res<StepBounds>,
    table: Res<FlockTable>,
    flocking: Res<FlockForces>,
    attractors: Query<&Position, With<Attractor>>,
    mut boids: Query<(Mover, Option<&HashSlot>), (With<Boid>, Without<Arrive>)>,
    mut list: Local<Vec<Vec2>>,
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

/// Every [`Hunter`] seeks the nearest boid, found through the hash, at its own top speed, and
/// remembers it in [`Hunter::prey`].
pub(crate) fn hunt(
    table: Res<FlockTable>,
    hash: Res<SpatialHash>,
    mut hunters: Query<(
        &Position,
        &Velocity,
        &mut Acceleration,
        &MaxSpeed,
        &FlockId,
        &mut Hunter,
    )>,
) {
    hunters
        .par_iter_mut()
        .for_each(|(p, v, mut a, max_speed, flock, mut hunter)| {
            let row = table.row(*flock);
            if hunter.resting > 0.0 {
                // Resting after a catch: brake to a halt.
                a.0 += steer_to_velocity(Vec2::ZERO, v.0, row.max_force);
                return;
            }
            let prey = hash.nearest(p.0, f32::INFINITY, |_| true);
            let entity = prey.map(|hit| hash.entity(hit.slot));
            if hunter.prey != entity {
                hunter.prey = entity;
            }
            if let Some(hit) = prey {
                a.0 += steer(hit.delta, v.0, max_speed.0, row.max_force) * row.hunt_weight;
            }
        });
}
