//! The steering systems beyond the three rules, one behaviour each, all adding into
//! [`Acceleration`] in parallel over the boids ([`add_forces`]).

use bevy::ecs::change_detection::ContiguousMut;
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
use crate::hash::{HashHit, Points, SpatialHash};
use crate::math::Vector;
use crate::neighbour_pass::FlockForces;
use crate::parallel::{Changing, DENSE, Parts, Split, for_each_part};
use crate::params::FlockParams;
use crate::systems::prepare::StepBounds;
use crate::table::{FlockRow, FlockTable};
use crate::threats::{self, FEW_PREDATORS};

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

/// Runs `f` over every table of a steering system's query, in parts on every thread (the
/// compute pool's and this one): `tables` gives each table's slices beside its accelerations,
/// `f` adds to one part's accelerations. Every entity's acceleration is marked changed, as it
/// is every step anyway (integration zeroes it).
///
/// Not Bevy's `par_iter`: that runs on the calling thread alone when the compute pool has one
/// thread, which is what Bevy's default pools give a two-core machine.
#[track_caller]
fn add_forces<'w, S: Split>(
    tables: impl Iterator<Item = (S, ContiguousMut<'w, Acceleration>)>,
    f: impl Fn(S, &mut [Acceleration]) + Sync,
) {
    for (slices, a) in tables {
        let (a, mut ticks) = ContiguousMut::bypass_change_detection_split(a);
        let parts = (slices, a, Changing::new(&mut ticks));
        for_each_part(parts, Parts::EVEN, |(slices, a, changing)| {
            changing.mark();
            f(slices, a);
        });
    }
}

/// The top speed mover `i` of a table steers at: its own [`MaxSpeed`] where the table has them,
/// else its flock's (`row`).
#[inline]
fn top_speed(max_speed: Option<&[MaxSpeed]>, i: usize, row: &FlockRow) -> f32 {
    max_speed.map_or(row.max_speed, |m| m[i].0)
}

/// One table of a [`Mover`] query, as Bevy's contiguous access gives it.
type MoverTable<'w> = (
    &'w [Position],
    &'w [Velocity],
    ContiguousMut<'w, Acceleration>,
    Option<&'w [MaxSpeed]>,
    &'w [FlockId],
);

/// What a steering system reads of a [`MoverTable`].
type MoverSlices<'w> = (
    &'w [Position],
    &'w [Velocity],
    Option<&'w [MaxSpeed]>,
    &'w [FlockId],
);

/// A [`MoverTable`] as [`add_forces`] takes it: the slices read, beside the accelerations.
fn mover_parts(
    (p, v, a, max_speed, flock): MoverTable<'_>,
) -> (MoverSlices<'_>, ContiguousMut<'_, Acceleration>) {
    ((p, v, max_speed, flock), a)
}

/// [`mover_parts`] for a query of a [`Mover`] and one more component `x`, read beside it.
fn mover_parts_with<'w, X>(
    ((p, v, a, max_speed, flock), x): (MoverTable<'w>, X),
) -> (
    (
        &'w [Position],
        &'w [Velocity],
        (Option<&'w [MaxSpeed]>, &'w [FlockId]),
        X,
    ),
    ContiguousMut<'w, Acceleration>,
) {
    ((p, v, (max_speed, flock), x), a)
}

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
    add_forces(
        movers.contiguous_iter_mut().expect(DENSE).map(mover_parts),
        |(p, v, max_speed, flock), a| {
            for (i, a) in a.iter_mut().enumerate() {
                let dir = turn_back_direction(p[i].0, rect, margin);
                if dir != Vector::ZERO {
                    let row = table.row(flock[i]);
                    let speed = top_speed(max_speed, i, row);
                    a.0 += steer(dir, v[i].0, speed, row.max_force) * weight;
                }
            }
        },
    );
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
    let list = &list[..];
    add_forces(
        movers.contiguous_iter_mut().expect(DENSE).map(mover_parts),
        |(p, v, max_speed, flock), a| {
            for (j, a) in a.iter_mut().enumerate() {
                let row = table.row(flock[j]);
                let mut dir = Vector::ZERO;
                for (i, &(centre, radius)) in list.iter().enumerate() {
                    let d = bounds.delta(p[j].0, centre);
                    dir +=
                        obstacle_push(d, radius, row.avoid_distance, || tie_break(i, usize::MAX));
                }
                if dir != Vector::ZERO {
                    let speed = top_speed(max_speed, j, row);
                    a.0 += steer(dir, v[j].0, speed, row.max_force) * row.obstacle_weight;
                }
            }
        },
    );
}

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
    // near it, at most about `FEW_PREDATORS` of them; and each boid's flee direction worked out
    // in the flock's hash order, so that neighbours share the predators' blocks, copied once
    // ([`threats`]; in the boids' own order each read the predators' cells from memory: 3x
    // slower), then read by slot.
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
    let list = &list[..];
    add_forces(
        boids
            .contiguous_iter_mut()
            .expect(DENSE)
            .map(mover_parts_with),
        |(p, v, (max_speed, flock), slot), a| {
            for (j, a) in a.iter_mut().enumerate() {
                let nearest = list
                    .iter()
                    .map(|&q| bounds.delta(p[j].0, q))
                    .min_by(|x, y| x.length_squared().total_cmp(&y.length_squared()));
                if let Some(d) = nearest {
                    let row = table.row(flock[j]);
                    let speed = top_speed(max_speed, j, row);
                    // A boid spawned since the hash was built has no slot yet: it does not give
                    // way.
                    let yields = slot
                        .and_then(|s| flocking.give_way.get(s[j].0 as usize))
                        .copied()
                        .unwrap_or(0.0);
                    a.0 +=
                        steer(d, v[j].0, speed, row.max_force) * row.seek_weight * (1.0 - yields);
                }
            }
        },
    );
}

/// Units with [`Arrive`] steer to their target, slowing inside the slow radius.
pub(crate) fn arrive_at_targets(
    bounds: Res<StepBounds>,
    table: Res<FlockTable>,
    mut units: Query<(Mover, &Arrive)>,
) {
    add_forces(
        units
            .contiguous_iter_mut()
            .expect(DENSE)
            .map(mover_parts_with),
        |(p, v, (max_speed, flock), orders), a| {
            for (j, a) in a.iter_mut().enumerate() {
                let order = &orders[j];
                if !order.target.is_finite() {
                    continue;
                }
                let row = table.row(flock[j]);
                let d = bounds.delta(p[j].0, order.target);
                let speed = top_speed(max_speed, j, row);
                let slow = order.slow_radius.max(0.0);
                a.0 += arrive(d, v[j].0, slow, speed, row.max_force) * row.arrive_weight;
            }
        },
    );
}

/// Every [`Hunter`] seeks the nearest boid other than itself, found through the hash, at its own
/// top speed, and remembers it in [`Hunter::prey`].
///
/// With many hunters (over [`FEW_PREDATORS`]) that are boids too (every boid a hunter), their
/// prey is found first in the hash's order, the hunters of a cell sharing its block of cells,
/// copied once ([`threats::prey_of`]), then looked up by slot.
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
    mut own: Local<Vec<u32>>,
    mut in_hash: Local<SlotSet>,
    mut order: Local<Vec<u32>>,
    mut found: Local<Vec<Option<HashHit>>>,
) {
    // The slot of a hunter that is the boid there.
    let own_slot = |me: Entity, slot: &HashSlot| {
        let slot = slot.0 as usize;
        (slot < hash.len() && hash.entity(slot) == me).then_some(slot as u32)
    };
    let count = hunters.iter().len();
    let many = count > FEW_PREDATORS;
    in_hash.clear(if many { hash.len() } else { 0 });
    order.clear();
    own.clear();
    if many {
        // Each hunter's own slot ([`NO_SLOT`] for none), in query order: looked up in parts, as
        // each is a read from anywhere in the hash.
        own.resize(count, NO_SLOT);
        let mut rest = &mut own[..];
        for ((me, slot), ..) in hunters.contiguous_iter().expect(DENSE) {
            let (own, tail) = rest.split_at_mut(me.len());
            rest = tail;
            let Some(slot) = slot else { continue };
            for_each_part((me, slot, own), Parts::EVEN, |(me, slot, own)| {
                for ((&me, slot), own) in me.iter().zip(slot).zip(own) {
                    *own = own_slot(me, slot).unwrap_or(NO_SLOT);
                }
            });
        }
        for &slot in own.iter().filter(|&&s| s != NO_SLOT) {
            in_hash.insert(slot as usize);
        }
        in_hash.rank_into(&mut order);
        found.clear();
        found.resize(order.len(), None);
        for_each_part(
            (&order[..], &mut found[..]),
            Parts::EVEN,
            |(hunters, found)| threats::prey_of(&hash, hunters, found),
        );
    }
    let (in_hash, found) = (&*in_hash, &found[..]);
    // The tables' own slots, table by table, in the same order.
    let mut own_left = (!own.is_empty()).then_some(&own[..]);
    for ((me, _), p, v, a, max_speed, flock, hunter) in hunters.contiguous_iter_mut().expect(DENSE)
    {
        let (own, rest) = match own_left {
            Some(left) => {
                let (own, rest) = left.split_at(me.len());
                (Some(own), Some(rest))
            }
            None => (None, None),
        };
        own_left = rest;
        let (a, mut a_ticks) = ContiguousMut::bypass_change_detection_split(a);
        // A hunter is marked changed only where its prey changed, as writing through `Mut` would.
        let (hunter, mut hunter_ticks) = ContiguousMut::bypass_change_detection_split(hunter);
        let now = hunter_ticks.this_run();
        let parts = (
            (me, own, p, v),
            (max_speed, flock),
            a,
            Changing::new(&mut a_ticks),
            (hunter, hunter_ticks.changed_mut()),
        );
        for_each_part(
            parts,
            Parts::EVEN,
            |((me, own, p, v), (max_speed, flock), a, changing, (hunter, changed))| {
                changing.mark();
                for (j, a) in a.iter_mut().enumerate() {
                    let row = table.row(flock[j]);
                    if hunter[j].resting > 0.0 {
                        // Resting after a catch: brake to a halt.
                        a.0 += steer_to_velocity(Vector::ZERO, v[j].0, row.max_force);
                        continue;
                    }
                    let me = me[j];
                    let slot = own.map_or(NO_SLOT, |own| own[j]);
                    let prey = match (slot != NO_SLOT)
                        .then(|| in_hash.rank(slot as usize))
                        .flatten()
                    {
                        Some(i) => found[i],
                        // A hunter that is a boid too is in the hash: never its own prey.
                        None => hash.nearest(p[j].0, f32::INFINITY, |h| hash.entity(h.slot) != me),
                    };
                    let entity = prey.map(|hit| hash.entity(hit.slot));
                    if hunter[j].prey != entity {
                        hunter[j].prey = entity;
                        changed[j] = now;
                    }
                    if let Some(hit) = prey {
                        a.0 += steer(hit.delta, v[j].0, max_speed[j].0, row.max_force)
                            * row.hunt_weight;
                    }
                }
            },
        );
    }
}

/// No slot in the hash, in [`hunt`]'s list of the hunters' own slots.
const NO_SLOT: u32 = u32::MAX;

/// A set of hash slots (the hunters that are boids too), listed in slot order and ranked in
/// constant time: no sort, no search.
#[derive(Default)]
pub(crate) struct SlotSet {
    /// One bit a slot.
    words: Vec<u64>,
    /// The members before each word.
    before: Vec<u32>,
}

impl SlotSet {
    /// Empties the set, for slots below `slots`.
    fn clear(&mut self, slots: usize) {
        self.words.clear();
        self.words.resize(slots.div_ceil(64), 0);
        self.before.clear();
    }

    /// Adds `slot`.
    fn insert(&mut self, slot: usize) {
        self.words[slot / 64] |= 1 << (slot % 64);
    }

    /// Lists the members in slot order into `out`, and ranks them for [`Self::rank`].
    fn rank_into(&mut self, out: &mut Vec<u32>) {
        self.before.clear();
        for (w, &word) in self.words.iter().enumerate() {
            self.before.push(out.len() as u32);
            let mut bits = word;
            while bits != 0 {
                out.push((w * 64) as u32 + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
    }

    /// Where `slot` is in the list of [`Self::rank_into`], if it is a member.
    fn rank(&self, slot: usize) -> Option<usize> {
        let (w, bit) = (slot / 64, slot % 64);
        let word = *self.words.get(w)?;
        let below = word & ((1u64 << bit) - 1);
        if word >> bit & 1 == 0 {
            return None;
        }
        Some(*self.before.get(w)? as usize + below.count_ones() as usize)
    }
}
