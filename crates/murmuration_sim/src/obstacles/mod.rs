//! Obstacles that boids, units and hunters steer round and never enter or pass through: static
//! shapes of Bevy's math primitives ([`Obstacle`]): in 2D circles, rectangles, solid polygons
//! (convex or concave), wall segments and polylines; in 3D spheres and boxes.
//!
//! **Steering** ([`ObstacleSettings`]): a boid looks ahead along its velocity
//! ([`ObstacleSettings::look_ahead`] seconds of flight, Reynolds' containment). Where that path
//! meets an obstacle, it turns toward the surface's direction there ([`flow_along`]: its heading
//! without the part into the surface, and away from it as much as the meeting is near). Within
//! [`ObstacleSettings::avoid_distance`] of the nearest surface it is also pushed straight out
//! ([`obstacle_push`]). Of the two only the part across its heading is kept: it turns without
//! braking, so a flock flows along a wall instead of stalling and bouncing off it. Both are
//! weighted by [`ObstacleSettings::weight`].
//!
//! **The guarantee**: integration sweeps each move from the old position to the new against the
//! obstacles; a move that would enter one or cross a wall stops just short of it and slides
//! along it (the velocity loses its part into the surface). No boid, unit or hunter ends a
//! step inside an obstacle or on the far side of a wall, at any speed and any step up to
//! [`MAX_DT`]. One that is inside all the same (an obstacle was put on it) leaves
//! by the nearest surface.
//!
//! **The index** ([`ObstacleIndex`]): obstacles are split into parts and binned into a grid once,
//! when one is added, moved, changed or removed; each boid reads the parts listed in its own
//! cell. A world without obstacles pays nothing.
//!
//! The settings are one resource for the whole world, not a flock's: an obstacle is part of the
//! world, and every flock keeps the same berth from it (what differs between flocks, their
//! speed and force, already scales how they turn).

use bevy::prelude::*;

use bevy::ecs::entity::EntityHashSet;

mod contact;
#[cfg(feature = "2d")]
mod dim2;
#[cfg(feature = "3d")]
mod dim3;
mod index;
mod shape;

pub use contact::{Hit, Surface};
pub use index::ObstacleIndex;
pub use shape::{Obstacle, ObstacleShape};

use crate::bounds::StepBounds;
use crate::components::{Agents, FlockId, Position};
use crate::dim;
use crate::lanes::Coords;
use crate::math::Vector;
use crate::motion::MAX_DT;
use crate::parallel::DENSE;
use crate::params::{FlockParams, ParamIssue, Validate, validate_on_change};
use crate::schedule::{BoidsSystems, SteeringSystems, schedule_of};
use crate::steering::{Mover, add_forces, mover_parts, steer, tie_break, top_speed};
use crate::table::FlockTable;
pub(crate) use index::Placed;

/// How boids keep clear of [`Obstacle`]s, for the whole world. Inserted by [`ObstaclesPlugin`];
/// checked by [`ObstacleSettings::validate`] after each change.
#[derive(Resource, Reflect, Debug, Clone, PartialEq)]
#[reflect(Resource, Default, Debug, Clone)]
pub struct ObstacleSettings {
    /// Boids start to steer away from an obstacle this far from its edge, world units.
    /// Tutorial default 30.
    pub avoid_distance: f32,
    /// Weight of the steering; keep it above the flocks' separation weight. Tutorial default 3.
    pub weight: f32,
    /// How far ahead a boid looks for obstacles, in seconds of flight at its velocity. Default
    /// 0.5.
    pub look_ahead: f32,
}

impl Default for ObstacleSettings {
    fn default() -> Self {
        Self {
            avoid_distance: 30.0,
            weight: 3.0,
            look_ahead: 0.5,
        }
    }
}

impl Validate for ObstacleSettings {
    /// `avoid_distance` is at least [`FlockParams::MIN_DISTANCE`] (the push divides by it) and
    /// `look_ahead` at least 0; a non-finite value becomes its default. The weight may be any
    /// finite number.
    fn validate(&mut self) -> Vec<ParamIssue> {
        let defaults = Self::default();
        let mut issues = Vec::new();
        let min = FlockParams::MIN_DISTANCE;
        ParamIssue::check(
            &mut issues,
            "avoid_distance",
            &mut self.avoid_distance,
            defaults.avoid_distance,
            min..=f32::INFINITY,
        );
        ParamIssue::check(
            &mut issues,
            "weight",
            &mut self.weight,
            defaults.weight,
            f32::NEG_INFINITY..=f32::INFINITY,
        );
        ParamIssue::check(
            &mut issues,
            "look_ahead",
            &mut self.look_ahead,
            defaults.look_ahead,
            0.0..=f32::INFINITY,
        );
        issues
    }
}

/// Boids, units and hunters steer round [`Obstacle`]s ([`ObstacleSettings`]) in
/// [`SteeringSystems::Obstacles`], and integration keeps them out; the [`ObstacleIndex`] is
/// rebuilt in [`BoidsSystems::BuildHash`] when obstacles change. Without this plugin obstacles
/// are ignored.
#[derive(Debug, Clone, Default)]
pub struct ObstaclesPlugin;

impl Plugin for ObstaclesPlugin {
    fn is_unique(&self) -> bool {
        // Added twice, the second does nothing (see `StepPlugin`).
        false
    }

    fn build(&self, app: &mut App) {
        if app.is_plugin_added::<Self>() {
            return;
        }
        let schedule = schedule_of(app, "ObstaclesPlugin");
        app.register_type::<Obstacle>()
            .register_type::<ObstacleSettings>()
            .init_resource::<ObstacleSettings>()
            .init_resource::<ObstacleIndex>()
            .add_systems(
                schedule,
                index_obstacles
                    .after(crate::step::build::build_hash)
                    .in_set(BoidsSystems::BuildHash),
            )
            .add_systems(
                schedule,
                (validate_on_change::<ObstacleSettings>, avoid_obstacles)
                    .chain()
                    .in_set(SteeringSystems::Obstacles),
            );
    }
}

/// The push out of an obstacle whose nearest surface is `distance` away along `normal` (its
/// unit direction out of the obstacle): within `avoid_distance`, `normal` times
/// `(avoid_distance - distance) / avoid_distance` (0 at the berth's edge, 1 on the surface, more
/// inside); zero beyond.
#[inline]
pub fn obstacle_push(distance: f32, normal: Vector, avoid_distance: f32) -> Vector {
    if distance >= avoid_distance {
        return Vector::ZERO;
    }
    normal * ((avoid_distance - distance) / avoid_distance)
}

/// Where a boid heading along `heading` (a unit vector) wants to go where its look-ahead meets a
/// surface (`hit`): along the surface (its heading without the part into it; across it, by the
/// tie-break, when it heads straight in), and away from it as much as the meeting is near
/// (`1 - t`, `t` the fraction of the look-ahead travelled to it).
#[inline]
pub fn flow_along(heading: Vector, hit: Hit) -> Vector {
    let n = hit.normal;
    let along = heading - n * heading.dot(n);
    let along = along
        .try_normalize()
        .unwrap_or_else(|| dim::left_of(Coords::of(n)).to_vector());
    along + n * (1.0 - hit.t)
}

/// The part of `force` across `heading` (a unit vector, or zero): the force turns a boid without
/// braking it.
#[inline]
fn across(force: Vector, heading: Vector) -> Vector {
    force - heading * force.dot(heading)
}

/// The reach the index is built for: the longest look-ahead and step of any flock, plus the
/// berth (the settings as validation will make them: the index is built before it runs).
fn index_reach(table: &FlockTable, settings: &ObstacleSettings) -> f32 {
    let mut settings = settings.clone();
    settings.validate();
    let fastest = table
        .rows()
        .iter()
        .map(|row| row.max_speed)
        .fold(table.default_row().max_speed, f32::max);
    fastest * settings.look_ahead.max(MAX_DT) + settings.avoid_distance
}

/// Rebuilds the [`ObstacleIndex`] on a step when an obstacle was added, moved, turned, changed
/// or removed, or the world, the flocks' speeds or the settings changed its reach. An obstacle
/// that gives no parts (a degenerate shape, a non-finite position) is warned of once; so are
/// obstacles that repeat another exactly (kept once), when there are more of them than the
/// last warning said.
#[allow(clippy::too_many_arguments)]
pub(crate) fn index_obstacles(
    bounds: Res<StepBounds>,
    table: Res<FlockTable>,
    settings: Res<ObstacleSettings>,
    changed: Query<
        (),
        (
            With<Obstacle>,
            Or<(Changed<Obstacle>, Changed<Position>, Changed<Transform>)>,
        ),
    >,
    mut removed: RemovedComponents<Obstacle>,
    obstacles: Query<(Entity, &Obstacle, &Position, &Transform), Without<FlockId>>,
    mut index: ResMut<ObstacleIndex>,
    mut warned: Local<EntityHashSet>,
    mut repeats_told: Local<usize>,
) {
    let reach = index_reach(&table, &settings);
    let built = index.reach();
    let gone = removed.read().count() > 0;
    let stale_reach = reach > built * 1.01 || reach < built * 0.5;
    if !(gone || stale_reach || bounds.is_changed() || !changed.is_empty()) {
        return;
    }
    let placed = obstacles.iter().map(|(entity, obstacle, p, transform)| {
        let placed = Placed {
            shape: obstacle.shape(),
            at: p.0,
            rotation: transform.rotation,
        };
        (entity, placed)
    });
    index.rebuild(placed, &bounds, reach, |entity, why| {
        if warned.insert(entity) {
            warn!("bevy_murmuration: obstacle {entity}: {why}");
        }
    });
    let repeated = index.repeated();
    if repeated > *repeats_told {
        warn!(
            "bevy_murmuration: {repeated} obstacle part(s) repeat another exactly (obstacles \
             spawned on one spot): each is kept once"
        );
        *repeats_told = repeated;
    }
}

/// Steer along and away from the [`Obstacle`]s each boid is near or heading for.
pub(crate) fn avoid_obstacles(
    table: Res<FlockTable>,
    settings: Res<ObstacleSettings>,
    index: Res<ObstacleIndex>,
    mut movers: Query<Mover, Agents>,
) {
    if index.is_empty() {
        return;
    }
    let avoid = settings.avoid_distance;
    add_forces(
        movers.contiguous_iter_mut().expect(DENSE).map(mover_parts),
        |(p, v, max_speed, flock), a| {
            for (j, a) in a.iter_mut().enumerate() {
                let v = v[j].0;
                let (near, hit) = index.look(p[j].0, v * settings.look_ahead, avoid);
                let mut push = Vector::ZERO;
                if let Some(surface) = near {
                    let normal = if surface.normal == Vector::ZERO {
                        tie_break(j, usize::MAX)
                    } else {
                        surface.normal
                    };
                    push = obstacle_push(surface.distance, normal, avoid);
                }
                if push == Vector::ZERO && hit.is_none() {
                    continue;
                }
                let row = table.row(flock[j]);
                let speed = top_speed(max_speed, j, row);
                let heading = v.normalize_or_zero();
                let mut force = steer(push, v, speed, row.max_force);
                if let Some(hit) = hit {
                    force += steer(flow_along(heading, hit), v, speed, row.max_force);
                }
                // Turn, never brake: braking would stall a boid at the surface and send it
                // back the way it came. (A unit standing still is pushed straight out.)
                force = across(force, heading);
                a.0 += force * settings.weight;
            }
        },
    );
}
