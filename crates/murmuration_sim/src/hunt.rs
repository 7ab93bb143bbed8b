//! Catching: a [`Hunter`] that comes within the catch radius of a boid catches it, rests a
//! moment, then hunts again. Active while the [`CatchRules`] resource exists.

use std::collections::VecDeque;

use bevy::prelude::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use crate::bounds::SimulationBounds;
use crate::components::FlockId;
use crate::components::{Boid, Hunter, Position, PreviousPosition, Velocity};
use crate::hash::SpatialHash;
use crate::math::{DIM, Vector, per_axis};
use crate::table::FlockTable;

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
