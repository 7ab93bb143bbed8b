//! Debug overlays, drawn with gizmos in their own [`FlockDebugGizmos`] group (feature `debug`):
//! for one picked boid its perception circle (a sphere in 3D), field-of-view cone, lines to its
//! neighbours and its velocity and steering arrows; the turn-back margin; the spatial hash's
//! cells.
//!
//! This file is built by both drawings (`murmuration_render3d` names it by path): what to draw
//! and the steering record are the same in 2D and 3D; each crate's `debug_draw` module picks the
//! boid under the pointer and draws in its own dimension.

use bevy::color::palettes::css::{GRAY, LIGHT_SKY_BLUE, ORANGE_RED};
use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;
use murmuration_sim::math::Vector;
use murmuration_sim::{
    Acceleration, Boid, BoidsSchedule, BoidsSystems, Perception, SpatialHash, neighbours_of,
};

use crate::debug_draw::{draw_overlays, pick_boid};

/// The debug overlays: [`FlockDebug`] says which to draw; P (or a middle click) picks the boid.
/// Added by the drawing plugin (`BoidsRenderPlugin`, or `BoidsRender3dPlugin` in 3D); needs
/// Bevy's gizmos and [`BoidsPlugins`](murmuration_sim::BoidsPlugins), added before it. The overlays are drawn in
/// `Update`; the steering they show is recorded in the schedule the simulation runs in, between
/// its steering and its integration.
#[derive(Debug, Clone, Default)]
pub struct FlockDebugPlugin;

impl Plugin for FlockDebugPlugin {
    fn build(&self, app: &mut App) {
        let schedule = app
            .world()
            .get_resource::<BoidsSchedule>()
            .map(|s| s.0)
            .unwrap_or_else(|| {
                warn!(
                    "bevy_murmuration: add BoidsPlugins before the debug overlays; they record \
                     steering in FixedUpdate meanwhile"
                );
                FixedUpdate.intern()
            });
        app.init_gizmo_group::<FlockDebugGizmos>()
            .init_resource::<FlockDebug>()
            .register_type::<FlockDebug>()
            .add_systems(
                Update,
                (pick_boid, draw_overlays)
                    .chain()
                    .in_set(crate::RenderSystems::Draw),
            )
            .add_systems(
                schedule,
                record_steering
                    .after(BoidsSystems::Steer)
                    .before(BoidsSystems::Integrate),
            );
    }
}

/// The gizmo group of the flock's debug overlays; configure its line width or turn it off with
/// `GizmoConfigStore`.
#[derive(Default, Reflect, GizmoConfigGroup)]
#[reflect(Default)]
pub struct FlockDebugGizmos;

/// Which overlays to draw, and for which boid.
#[derive(Resource, Reflect, Debug, Clone, Default, PartialEq)]
#[reflect(Resource, Debug, Clone, Default)]
pub struct FlockDebug {
    /// The boid the per-boid overlays are drawn for; P (or a middle click) picks the boid nearest
    /// the pointer. `None` picks any boid.
    pub picked: Option<Entity>,
    /// Perception circle (sphere) and field-of-view cone of the picked boid.
    pub perception: bool,
    /// Lines from the picked boid to its neighbours.
    pub neighbours: bool,
    /// Velocity and steering arrows of the picked boid.
    pub forces: bool,
    /// The turn-back margin and the bounds.
    pub margin: bool,
    /// The spatial hash's grid.
    pub grid: bool,
}

impl FlockDebug {
    /// Whether any per-boid overlay is on.
    pub fn any_boid_overlay(&self) -> bool {
        self.perception || self.neighbours || self.forces
    }
}

/// The steering force of the picked boid in its last step, kept for the force arrow.
#[derive(Component, Debug, Default, Clone, Copy)]
pub struct LastSteering(pub Vector);

/// Remembers the picked boid's steering before the integrator resets it.
pub(crate) fn record_steering(
    mut commands: Commands,
    debug: Res<FlockDebug>,
    boids: Query<(Entity, &Acceleration, Option<&LastSteering>), With<Boid>>,
) {
    for (entity, acceleration, last) in &boids {
        let picked = debug.picked == Some(entity) && debug.forces;
        match (picked, last) {
            (true, _) => {
                commands.entity(entity).insert(LastSteering(acceleration.0));
            }
            (false, Some(_)) => {
                commands.entity(entity).remove::<LastSteering>();
            }
            (false, None) => {}
        }
    }
}

/// The picked boid's lines to its neighbours and its arrows, drawn alike in both dimensions: a
/// quarter of a second of velocity, the velocity the steering asks for (desired = velocity +
/// steering, as `force = desired - v` for one rule), and the steering between them.
pub(crate) fn draw_neighbours_and_forces(
    gizmos: &mut Gizmos<FlockDebugGizmos>,
    debug: &FlockDebug,
    hash: &SpatialHash,
    perception: &Perception,
    slot: usize,
    (p, v): (Vector, Vector),
    steering: Option<&LastSteering>,
) {
    if debug.neighbours && slot < hash.len() {
        for hit in neighbours_of(hash, perception, slot) {
            line(
                gizmos,
                p,
                p + hit.delta,
                LIGHT_SKY_BLUE.with_alpha(0.8).into(),
            );
        }
    }
    if debug.forces {
        let t = 0.25;
        let steer = steering.map_or(Vector::ZERO, |s| s.0);
        arrow(gizmos, p, p + v * t, LIGHT_SKY_BLUE.into());
        arrow(gizmos, p, p + (v + steer) * t, GRAY.into());
        arrow(gizmos, p + v * t, p + (v + steer) * t, ORANGE_RED.into());
    }
}

/// A line in the simulation's dimension.
fn line(gizmos: &mut Gizmos<FlockDebugGizmos>, a: Vector, b: Vector, color: Color) {
    #[cfg(not(feature = "3d"))]
    gizmos.line_2d(a, b, color);
    #[cfg(feature = "3d")]
    gizmos.line(a, b, color);
}

/// An arrow in the simulation's dimension.
fn arrow(gizmos: &mut Gizmos<FlockDebugGizmos>, a: Vector, b: Vector, color: Color) {
    #[cfg(not(feature = "3d"))]
    gizmos.arrow_2d(a, b, color);
    #[cfg(feature = "3d")]
    gizmos.arrow(a, b, color);
}
