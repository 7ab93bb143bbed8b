//! Avian's static colliders as obstacles (feature `avian`): a game that builds its walls and
//! buildings with avian2d (or avian3d, in 3D) gets them as [`Obstacle`]s without spawning them
//! twice. Each entity with `RigidBody::Static` and a `Collider` of a shape the obstacles have
//! (in 2D a circle, a rectangle, a segment, a polyline, a convex polygon or a triangle; in 3D a
//! sphere or a cuboid, at the collider's scale) gets an `Obstacle` of that shape, kept in step:
//! a changed collider changes it, a moved body moves it (its `Transform`), and a body that stops
//! being static, loses its collider or is despawned stops being an obstacle. A collider of any
//! other shape (a capsule, a compound) is told of once and left out.

use bevy::ecs::entity::EntityHashSet;
use bevy::prelude::*;

#[cfg(feature = "2d")]
use avian2d::prelude::{Collider, RigidBody};
#[cfg(feature = "3d")]
use avian3d::prelude::{Collider, RigidBody};

use crate::components::Position;
use crate::math::{Vector, per_axis};
use crate::obstacles::Obstacle;
use crate::schedule::{BoidsSystems, schedule_of};

/// Static Avian colliders become [`Obstacle`]s, in [`BoidsSystems::First`]. Part of
/// [`BoidsPlugins`](crate::BoidsPlugins) with the feature `avian`.
#[derive(Debug, Clone, Default)]
pub struct AvianObstaclesPlugin;

impl Plugin for AvianObstaclesPlugin {
    fn is_unique(&self) -> bool {
        // Added twice, the second does nothing (see `StepPlugin`).
        false
    }

    fn build(&self, app: &mut App) {
        if app.is_plugin_added::<Self>() {
            return;
        }
        let schedule = schedule_of(app, "AvianObstaclesPlugin");
        app.add_systems(
            schedule,
            (follow_colliders, forget_colliders)
                .chain()
                .in_set(BoidsSystems::First),
        );
    }
}

/// Marks an [`Obstacle`] made from an Avian collider (and so kept in step with it).
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct FromCollider;

/// The obstacle a collider's shape makes, or why it makes none.
pub fn obstacle_of(collider: &Collider) -> Result<Obstacle, String> {
    let shape = collider.shape_scaled();
    if let Some(ball) = shape.as_ball() {
        return Ok(Obstacle::round(ball.radius));
    }
    if let Some(cuboid) = shape.as_cuboid() {
        let half = cuboid.half_extents;
        return Ok(Obstacle::block(per_axis(|a| half[a] * 2.0)));
    }
    #[cfg(feature = "2d")]
    {
        let v = |p: avian2d::parry::math::Vector| Vec2::new(p.x, p.y);
        if let Some(s) = shape.as_segment() {
            return Ok(Obstacle::from(Segment2d::new(v(s.a), v(s.b))));
        }
        if let Some(line) = shape.as_polyline() {
            return Ok(Obstacle::from(Polyline2d::new(
                line.vertices().iter().map(|&p| v(p)),
            )));
        }
        if let Some(polygon) = shape.as_convex_polygon() {
            return Ok(Obstacle::from(Polygon::new(
                polygon.points().iter().map(|&p| v(p)),
            )));
        }
        if let Some(t) = shape.as_triangle() {
            return Ok(Obstacle::from(Triangle2d::new(v(t.a), v(t.b), v(t.c))));
        }
    }
    Err(format!(
        "a {:?} collider is not an obstacle shape (2D: circle, rectangle, segment, polyline, \
         convex polygon, triangle; 3D: sphere, cuboid)",
        shape.shape_type()
    ))
}

/// Gives each static collider its obstacle (again when its shape or body changed) and keeps the
/// obstacle's [`Position`] at the body's `Transform`; warns once of a shape that is not one.
#[allow(clippy::type_complexity)]
pub(crate) fn follow_colliders(
    mut commands: Commands,
    changed: Query<
        (Entity, &RigidBody, &Collider, Has<FromCollider>),
        Or<(Changed<Collider>, Changed<RigidBody>)>,
    >,
    mut moved: Query<(&Transform, &mut Position), (With<FromCollider>, Changed<Transform>)>,
    mut warned: Local<EntityHashSet>,
) {
    for (entity, body, collider, made) in &changed {
        if !body.is_static() {
            if made {
                commands.entity(entity).remove::<(Obstacle, FromCollider)>();
            }
            continue;
        }
        match obstacle_of(collider) {
            Ok(obstacle) => {
                commands.entity(entity).insert((obstacle, FromCollider));
            }
            Err(why) => {
                if made {
                    commands.entity(entity).remove::<(Obstacle, FromCollider)>();
                }
                if warned.insert(entity) {
                    warn!("bevy_murmuration: collider {entity}: {why}");
                }
            }
        }
    }
    for (transform, mut position) in &mut moved {
        let at: Vector = per_axis(|a| transform.translation[a]);
        if position.0 != at {
            position.0 = at;
        }
    }
}

/// An obstacle whose collider or body is gone stops being one.
pub(crate) fn forget_colliders(
    mut commands: Commands,
    mut gone: RemovedComponents<Collider>,
    mut unbodied: RemovedComponents<RigidBody>,
    made: Query<(), With<FromCollider>>,
) {
    for entity in gone.read().chain(unbodied.read()) {
        if made.contains(entity) {
            commands.entity(entity).remove::<(Obstacle, FromCollider)>();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use bevy::time::TimeUpdateStrategy;

    use super::*;
    use crate::bounds::SimulationBounds;
    use crate::math::{Region, xyz};
    use crate::obstacles::ObstacleIndex;
    use crate::plugin::BoidsPlugins;

    #[cfg(feature = "2d")]
    use avian2d::prelude::PhysicsPlugins;
    #[cfg(feature = "3d")]
    use avian3d::prelude::PhysicsPlugins;

    fn app() -> App {
        let mut app = App::new();
        app.add_plugins((
            MinimalPlugins,
            TransformPlugin,
            PhysicsPlugins::default(),
            BoidsPlugins::new(FixedUpdate).with_bounds(SimulationBounds::turn_back(
                Region::from_center_size(Vector::ZERO, Vector::splat(400.0)),
            )),
        ))
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
            16,
        )));
        app.finish();
        app
    }

    fn steps(app: &mut App, n: usize) {
        for _ in 0..n {
            app.update();
        }
    }

    /// How far `p` is from the nearest obstacle the index holds, if any is within 200.
    fn distance(app: &App, p: Vector) -> Option<f32> {
        let index = app.world().resource::<ObstacleIndex>();
        index.surface(p, 200.0).map(|s| s.distance)
    }

    /// A static box collider is an obstacle where its body is, moves with it and goes with its
    /// collider; a dynamic body is none, and a capsule is told of and left out.
    #[test]
    fn static_colliders_are_obstacles_kept_in_step() {
        let mut app = app();
        #[cfg(feature = "2d")]
        let collider = Collider::rectangle(40.0, 40.0);
        #[cfg(feature = "3d")]
        let collider = Collider::cuboid(40.0, 40.0, 40.0);
        let wall = app
            .world_mut()
            .spawn((
                RigidBody::Static,
                collider.clone(),
                Transform::from_xyz(100.0, 0.0, 0.0),
            ))
            .id();
        app.world_mut().spawn((
            RigidBody::Dynamic,
            collider,
            Transform::from_xyz(-100.0, 0.0, 0.0),
        ));
        let capsule = app
            .world_mut()
            .spawn((
                RigidBody::Static,
                Collider::capsule(5.0, 20.0),
                Transform::from_xyz(0.0, -150.0, 0.0),
            ))
            .id();
        steps(&mut app, 5);
        assert!(
            app.world().get::<Obstacle>(capsule).is_none(),
            "a capsule is no obstacle"
        );
        let d = distance(&app, xyz([100.0, 0.0, 0.0])).expect("the wall is an obstacle");
        assert!((d + 20.0).abs() < 0.01, "inside the wall by 20, not {d}");
        assert!(
            distance(&app, xyz([-100.0, 0.0, 0.0])).is_none_or(|d| d > 100.0),
            "a dynamic body is an obstacle"
        );
        // The body moves: the obstacle with it.
        app.world_mut()
            .get_mut::<Transform>(wall)
            .unwrap()
            .translation
            .y = 100.0;
        steps(&mut app, 5);
        let d = distance(&app, xyz([100.0, 100.0, 0.0])).expect("the wall moved");
        assert!((d + 20.0).abs() < 0.01, "{d}");
        // Its collider goes: so does the obstacle.
        app.world_mut().entity_mut(wall).remove::<Collider>();
        steps(&mut app, 5);
        assert!(app.world().resource::<ObstacleIndex>().is_empty());
        assert!(app.world().get::<Obstacle>(wall).is_none());
    }
}
