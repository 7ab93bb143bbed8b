//! Obstacles that boids, units and hunters steer round: today circles (spheres in 3D), each an
//! [`Obstacle`] entity at its [`Position`].
//!
//! Within [`ObstacleSettings::avoid_distance`] of an obstacle's rim a boid is pushed away with
//! [`obstacle_push`], weighted by [`ObstacleSettings::weight`]; integration then makes sure that
//! no boid ends a step inside one (it is put back on the rim and slides along it).
//!
//! The settings are one resource for the whole world, not a flock's: an obstacle is part of the
//! world, and every flock keeps the same berth from it (what differs between flocks, their
//! speed and force, already scales how they turn).

use bevy::prelude::*;

use crate::bounds::StepBounds;
use crate::components::{Agents, Position};
use crate::math::Vector;
use crate::parallel::DENSE;
use crate::params::{FlockParams, ParamIssue, Validate, validate_on_change};
use crate::schedule::{SteeringSystems, schedule_of};
use crate::steering::{Mover, add_forces, mover_parts, steer, tie_break, top_speed};
use crate::table::FlockTable;

/// A round obstacle centred on the entity's [`Position`] that boids, units and hunters steer
/// around.
#[derive(Component, Reflect, Debug, Clone, Copy, PartialEq)]
#[reflect(Component, Debug, Clone)]
#[require(Position, Transform)]
pub struct Obstacle {
    /// Radius of the obstacle in world units.
    pub radius: f32,
}

/// How boids keep clear of [`Obstacle`]s, for the whole world. Inserted by [`ObstaclesPlugin`];
/// checked by [`ObstacleSettings::validate`] after each change.
#[derive(Resource, Reflect, Debug, Clone, PartialEq)]
#[reflect(Resource, Default, Debug, Clone)]
pub struct ObstacleSettings {
    /// Boids start to steer away from an obstacle this far from its edge, world units.
    /// Tutorial default 30.
    pub avoid_distance: f32,
    /// Weight of the push; keep it above the flocks' separation weight. Tutorial default 3.
    pub weight: f32,
}

impl Default for ObstacleSettings {
    fn default() -> Self {
        Self {
            avoid_distance: 30.0,
            weight: 3.0,
        }
    }
}

impl Validate for ObstacleSettings {
    /// `avoid_distance` is at least [`FlockParams::MIN_DISTANCE`] (the push divides by it); a
    /// non-finite value becomes its default. The weight may be any finite number.
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
        issues
    }
}

/// Boids, units and hunters steer round [`Obstacle`]s ([`ObstacleSettings`]), in
/// [`SteeringSystems::Obstacles`].
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
            .add_systems(
                schedule,
                (validate_on_change::<ObstacleSettings>, avoid_obstacles)
                    .chain()
                    .in_set(SteeringSystems::Obstacles),
            );
    }
}

/// Obstacle avoidance from one round obstacle at delta `d` (from the boid to its centre):
/// within `safe = radius + avoid_distance`, push away along `-d / |d|` with strength
/// `(safe - |d|) / avoid_distance` (0 at the safe distance, 1 at the obstacle's edge, more inside).
/// Sum it over obstacles and steer along the sum. A boid exactly on the centre is pushed along
/// `tie_break()` (only asked for then).
#[inline]
pub fn obstacle_push(
    d: Vector,
    radius: f32,
    avoid_distance: f32,
    tie_break: impl FnOnce() -> Vector,
) -> Vector {
    let safe = radius + avoid_distance;
    let d2 = d.length_squared();
    if d2 >= safe * safe {
        return Vector::ZERO;
    }
    let distance = d2.sqrt();
    let away = if distance > 0.0 {
        -d / distance
    } else {
        tie_break()
    };
    away * ((safe - distance) / avoid_distance)
}

/// Steer around every round [`Obstacle`] within its radius plus the avoid distance.
pub(crate) fn avoid_obstacles(
    bounds: Res<StepBounds>,
    table: Res<FlockTable>,
    settings: Res<ObstacleSettings>,
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
                    dir += obstacle_push(d, radius, settings.avoid_distance, || {
                        tie_break(i, usize::MAX)
                    });
                }
                if dir != Vector::ZERO {
                    let speed = top_speed(max_speed, j, row);
                    a.0 += steer(dir, v[j].0, speed, row.max_force) * settings.weight;
                }
            }
        },
    );
}
