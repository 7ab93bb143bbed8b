//! Seeking: boids steer toward the nearest [`Attractor`] (a roost, food, the mouse), at any
//! distance, weighted by their flock's [`seek_weight`](crate::FlockParams::seek_weight), as far as
//! their crowding lets them: the pull gives way as cohesion does, so a flock pulled to one point
//! keeps its spacing.
//!
//! Where walls stand between a boid and an attractor, it seeks along the route round them
//! ([`routes`](crate::routes)), so a school finds its way through a maze to food.
//!
//! The weight is per flock ([`FlockParams`](crate::FlockParams)): in the `sky` example the roost pulls the starlings
//! and not the swallows.

use bevy::prelude::*;

use crate::bounds::StepBounds;
use crate::components::{Boid, HashSlot, Position};
use crate::math::Vector;
use crate::neighbour_pass::FlockForces;
use crate::parallel::DENSE;
use crate::routes::{Routes, plan_routes};
use crate::schedule::{BoidsSystems, SteeringSystems, schedule_of};
use crate::steering::{Mover, add_forces, mover_parts_with, steer, top_speed};
use crate::table::FlockTable;
use crate::units::Arrive;

/// Boids seek [`Attractor`]s, in [`SteeringSystems::Seek`].
#[derive(Debug, Clone, Default)]
pub struct SeekPlugin;

impl Plugin for SeekPlugin {
    fn is_unique(&self) -> bool {
        // Added twice, the second does nothing (see `StepPlugin`).
        false
    }

    fn build(&self, app: &mut App) {
        if app.is_plugin_added::<Self>() {
            return;
        }
        let schedule = schedule_of(app, "SeekPlugin");
        app.register_type::<Attractor>()
            .add_systems(schedule, seek_attractors.in_set(SteeringSystems::Seek))
            .add_systems(
                schedule,
                request_routes
                    .before(plan_routes)
                    .in_set(BoidsSystems::BuildHash),
            );
    }
}

/// Something boids seek (steer toward, at any distance), weighted by
/// [`FlockParams::seek_weight`](crate::FlockParams::seek_weight). Each boid seeks the nearest one.
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug, Clone)]
#[require(Position)]
pub struct Attractor;

/// Asks [`Routes`] for a route to each attractor.
pub(crate) fn request_routes(
    routes: Option<ResMut<Routes>>,
    attractors: Query<&Position, With<Attractor>>,
) {
    let Some(mut routes) = routes else { return };
    for p in &attractors {
        routes.request(p.0);
    }
}

/// Boids seek the nearest [`Attractor`], at any distance, as far as their crowding lets them
/// (the pull gives way as cohesion does, see [`give_way`](crate::rules::give_way)).
pub(crate) fn seek_attractors(
    bounds: Res<StepBounds>,
    table: Res<FlockTable>,
    flocking: Res<FlockForces>,
    routes: Option<Res<Routes>>,
    attractors: Query<&Position, With<Attractor>>,
    mut boids: Query<(Mover, Option<&HashSlot>), (With<Boid>, Without<Arrive>)>,
    mut list: Local<Vec<Vector>>,
) {
    // Round walls, along the route to each (and the nearest by route).
    let routes = routes.as_deref().filter(|r| r.is_routing());
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
                    .map(|&q| {
                        routes
                            .and_then(|r| r.toward(&bounds, p[j].0, q))
                            .unwrap_or_else(|| bounds.delta(p[j].0, q))
                    })
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
