//! Hunters: a [`Hunter`] chases the nearest boid, found through the spatial hash, at its own
//! top speed ([`MaxSpeed`]), and the boids flee it (it is a [`Predator`]). While the [`CatchRules`] resource exists, a hunter that
//! comes within the catch radius of a boid catches it ([`BoidCaught`], [`CatchStats`]), rests a
//! moment, then hunts again.
//!
//! The settings are the hunters', not a flock's: [`HuntSettings`] for the chase, [`CatchRules`]
//! for the catch; what a hunter's prey does is its own flock's (its flee radius and weight).

use std::collections::VecDeque;

use bevy::ecs::change_detection::ContiguousMut;
use bevy::prelude::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use crate::bounds::SimulationBounds;
use crate::components::{
    Acceleration, Boid, FlockId, HashSlot, MaxSpeed, Position, PreviousPosition, Velocity,
};
use crate::flee::Predator;
use crate::hash::{HashHit, SpatialHash};
use crate::math::{DIM, Vector, per_axis};
use crate::parallel::{Changing, DENSE, Parts, for_each_part};
use crate::schedule::{AfterMove, SteeringSystems, schedule_of};
use crate::steering::{steer, steer_to_velocity};
use crate::table::FlockTable;
use crate::threats::{self, FEW_PREDATORS};

/// [`Hunter`]s chase the nearest boid ([`HuntSettings`], in [`SteeringSystems::Hunt`]) and,
/// with [`CatchRules`], catch it ([`BoidCaught`], [`CatchStats`]).
#[derive(Debug, Clone, Default)]
pub struct HuntingPlugin;

impl Plugin for HuntingPlugin {
    fn is_unique(&self) -> bool {
        // Added twice, the second does nothing (see `StepPlugin`).
        false
    }

    fn build(&self, app: &mut App) {
        if app.is_plugin_added::<Self>() {
            return;
        }
        let schedule = schedule_of(app, "HuntingPlugin");
        app.register_type::<Hunter>()
            .register_type::<HuntSettings>()
            .register_type::<CatchRules>()
            .register_type::<CatchStats>()
            .register_type::<OnCatch>()
            .init_resource::<HuntSettings>()
            .init_resource::<CatchStats>()
            .add_message::<BoidCaught>()
            .add_systems(schedule, hunt.in_set(SteeringSystems::Hunt))
            .add_systems(
                schedule,
                catch_prey
                    .run_if(resource_exists::<CatchRules>)
                    .in_set(AfterMove::Catch),
            );
    }
}

/// How hunters chase: one resource for every [`Hunter`].
#[derive(Resource, Reflect, Debug, Clone, PartialEq)]
#[reflect(Resource, Default, Debug, Clone)]
pub struct HuntSettings {
    /// Weight of a hunter's steering toward its prey: how hard it turns, as a multiple of its
    /// flock's largest force (its top speed is its own [`MaxSpeed`]). Default 2.5: fleeing
    /// boids turn hard (a flee weight of 4 in the default flock), and a hunter that turns no
    /// harder than one boid's rule loses them, in 3D above all (two hunters among 300 boids
    /// in the `catching` test: at weight 1, 11 catches a minute in 2D and none in 3D; at 2.5,
    /// 22 and 20). Leading the prey (Reynolds' pursuit) was measured too and dropped: it
    /// helped a clumsy hunter (11 -> 17 a minute in 2D, still none in 3D) and hurt an agile one
    /// (20 -> 4 in 3D), which the prey's own turns mislead.
    pub weight: f32,
}

impl Default for HuntSettings {
    fn default() -> Self {
        Self { weight: 2.5 }
    }
}

/// A predator that moves on its own: it seeks the nearest boid through the spatial hash at its own
/// [`MaxSpeed`], and boids flee it (it is a [`Predator`]). A hunter is not a [`Boid`]: the flock
/// does not align or cohere with it.
///
/// Spawn one with `commands.spawn((Hunter::default(), Position(p)))`, and give it a
/// `MaxSpeed` to change its top speed (default [`Hunter::DEFAULT_MAX_SPEED`]).
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq)]
#[reflect(Component, Default, Debug, Clone)]
#[require(
    Position,
    PreviousPosition,
    Velocity,
    Acceleration,
    Predator,
    FlockId,
    MaxSpeed(Hunter::DEFAULT_MAX_SPEED),
    Transform
)]
pub struct Hunter {
    /// The boid it chased this step (the nearest one), written by the hunt system.
    pub prey: Option<Entity>,
    /// Seconds of rest left after a catch (see [`CatchRules`]); a resting
    /// hunter brakes and does not chase.
    pub resting: f32,
}

impl Hunter {
    /// The hunter's top speed when none is given: a little faster than the tutorial flock (120).
    pub const DEFAULT_MAX_SPEED: f32 = 150.0;
}

/// What becomes of a caught boid.
#[derive(Reflect, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[reflect(Debug, Clone, PartialEq, Default)]
pub enum OnCatch {
    /// It comes back in at a random point on the edge of the bounds, flying inward (drawn from a
    /// generator seeded with [`CatchRules::seed`] and the catch count, so runs replay). The flock
    /// keeps its size.
    #[default]
    Respawn,
    /// It is despawned. (A [`FlockPopulation`](crate::FlockPopulation) then tops the flock up
    /// with new boids.)
    Remove,
}

/// The rules of the chase. Insert this resource to let hunters catch boids.
#[derive(Resource, Reflect, Debug, Clone, PartialEq)]
#[reflect(Resource, Debug, Clone)]
pub struct CatchRules {
    /// A hunter catches a boid whose centre comes this close to its own, world units.
    pub radius: f32,
    /// What becomes of a caught boid.
    pub on_catch: OnCatch,
    /// How long a hunter rests after a catch before it hunts again, seconds. It brakes to a halt
    /// meanwhile.
    pub rest_seconds: f32,
    /// Seed of the respawn positions.
    pub seed: u64,
}

impl Default for CatchRules {
    fn default() -> Self {
        Self {
            radius: 8.0,
            on_catch: OnCatch::Respawn,
            rest_seconds: 1.5,
            seed: 0,
        }
    }
}

/// A catch, sent when it happens.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub struct BoidCaught {
    /// The boid that was caught (respawned or despawned, per [`CatchRules::on_catch`]).
    pub boid: Entity,
    /// The hunter that caught it.
    pub hunter: Entity,
    /// Where, world units.
    pub at: Vector,
}

/// How the hunt is going.
#[derive(Resource, Reflect, Debug, Clone, Default, PartialEq)]
#[reflect(Resource, Debug, Clone, Default)]
pub struct CatchStats {
    /// Catches since the start.
    pub catches: u64,
    /// Simulated time of the catches of the last minute, seconds.
    recent: VecDeque<f32>,
    /// Simulated time now, seconds.
    now: f32,
}

impl CatchStats {
    /// Catches in the last simulated minute (or, before a minute has passed, the rate so far
    /// scaled to a minute).
    pub fn per_minute(&self) -> f32 {
        let window = self.now.clamp(1.0, 60.0);
        self.recent.len() as f32 * 60.0 / window
    }
}

/// Hunters catch the boids they reach, rest, and hunt again.
pub(crate) fn catch_prey(
    mut commands: Commands,
    rules: Res<CatchRules>,
    time: Res<Time>,
    hash: Res<SpatialHash>,
    bounds: Res<SimulationBounds>,
    table: Res<FlockTable>,
    mut stats: ResMut<CatchStats>,
    mut hunters: Query<(Entity, &Position, &mut Hunter)>,
    mut boids: Query<
        (
            &mut Position,
            &mut Velocity,
            &mut PreviousPosition,
            &FlockId,
        ),
        (With<Boid>, Without<Hunter>),
    >,
    mut caught: MessageWriter<BoidCaught>,
    mut taken: Local<Vec<Entity>>,
) {
    let dt = time.delta_secs();
    stats.now += dt;
    let now = stats.now;
    while stats.recent.front().is_some_and(|&t| t < now - 60.0) {
        stats.recent.pop_front();
    }
    taken.clear();
    let r2 = rules.radius * rules.radius;
    // The fastest any boid may have flown since the hash was built.
    let fastest = table.rows().iter().map(|r| r.max_speed).fold(0.0, f32::max);
    for (hunter_entity, hunter_position, mut hunter) in &mut hunters {
        if hunter.resting > 0.0 {
            hunter.resting = (hunter.resting - dt).max(0.0);
            continue;
        }
        // The hash holds the boids as they were at the start of the step; check where they are
        // now, among those that were near.
        let mut prey = None;
        let reach = rules.radius + fastest * dt * 2.0;
        hash.for_each_within(hunter_position.0, reach, |hit| {
            let entity = hash.entity(hit.slot);
            if prey.is_none()
                && !taken.contains(&entity)
                && let Ok((p, ..)) = boids.get(entity)
                && bounds.delta(hunter_position.0, p.0).length_squared() <= r2
            {
                prey = Some((entity, p.0));
            }
        });
        let Some((boid, at)) = prey else { continue };
        taken.push(boid);
        stats.catches += 1;
        stats.recent.push_back(now);
        hunter.resting = rules.rest_seconds.max(0.0);
        hunter.prey = None;
        caught.write(BoidCaught {
            boid,
            hunter: hunter_entity,
            at,
        });
        match rules.on_catch {
            OnCatch::Remove => commands.entity(boid).despawn(),
            OnCatch::Respawn => {
                if let Ok((mut p, mut v, mut previous, flock)) = boids.get_mut(boid) {
                    let (edge, inward) = edge_point(&bounds, rules.seed, stats.catches);
                    p.0 = edge;
                    v.0 = inward * table.row(*flock).max_speed * 0.75;
                    previous.0 = None;
                }
            }
        }
    }
}

/// A seeded point on the edge of the bounds, and the unit vector pointing inside from it: on a
/// side picked at random (low or high on an axis), anywhere along the others.
fn edge_point(bounds: &SimulationBounds, seed: u64, n: u64) -> (Vector, Vector) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ n.wrapping_mul(0xA076_1D64_78BD_642F));
    let r = bounds.rect;
    let size = r.size();
    let t = rng.random::<f32>();
    let inset = 1.0_f32.min(size.min_element() * 0.01);
    let side = rng.random_range(0..2 * DIM as u32) as usize;
    let (axis, high) = (side / 2, side % 2 == 1);
    // The first other axis takes `t`; any further one (in 3D) a draw of its own.
    let mut along = Some(t);
    let p = per_axis(|a| {
        if a == axis {
            if high {
                r.max[a] - inset
            } else {
                r.min[a] + inset
            }
        } else {
            r.min[a] + along.take().unwrap_or_else(|| rng.random::<f32>()) * size[a]
        }
    });
    let mut inward = Vector::ZERO;
    inward[axis] = if high { -1.0 } else { 1.0 };
    (p, inward)
}

/// Every [`Hunter`] seeks the nearest boid other than itself, found through the hash, at its own
/// top speed, and remembers it in [`Hunter::prey`].
///
/// With many hunters (over [`FEW_PREDATORS`]) that are boids too (every boid a hunter), their
/// prey is found first in the hash's order, the hunters of a cell sharing its block of cells,
/// copied once ([`threats::prey_of`]), then looked up by slot.
pub(crate) fn hunt(
    table: Res<FlockTable>,
    settings: Res<HuntSettings>,
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
    mut switched: Local<Vec<u32>>,
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
                            * settings.weight;
                    }
                }
            },
        );
        // Where Bevy records where changes come from (its `track_location` feature), the hunters
        // whose prey changed record this system, as a write through `Mut` would: found after
        // the parts, on this thread, as the ticks and the locations cannot be lent together.
        if hunter_ticks.changed_by().into_option().is_some() {
            switched.clear();
            let changed = hunter_ticks.changed().iter();
            switched.extend(
                (0u32..)
                    .zip(changed)
                    .filter(|(_, t)| **t == now)
                    .map(|(j, _)| j),
            );
            let caller = core::panic::Location::caller();
            hunter_ticks.changed_by_mut().map(|by| {
                for &j in switched.iter() {
                    by[j as usize] = caller;
                }
            });
        }
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
