//! Debug overlays, drawn with gizmos in their own [`FlockDebugGizmos`] group (feature `debug`):
//! for one picked boid its perception circle (a sphere in 3D), field-of-view cone, lines to its
//! neighbours and its velocity and steering arrows; the turn-back margin; the spatial hash's
//! cells; the routes round walls of the units on their way and of the picked boid to the
//! nearest attractor.
//!
//! What to draw and the steering record are written once for both dimensions; each dimension's
//! drawing picks the boid under the pointer and draws the shapes in its own dimension (a circle
//! or a sphere, a rectangle or a box).

use bevy::color::palettes::css::{GOLD, GRAY, LIGHT_SKY_BLUE, ORANGE_RED, WHITE};
use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;
use murmuration_sim::bounds::Edges;
use murmuration_sim::hash::SpatialHash;
use murmuration_sim::internal::{FlockId, FlockTable, HashSlot, neighbours_of};
use murmuration_sim::math::Vector;
use murmuration_sim::prelude::*;
use murmuration_sim::routes::Routes;
use murmuration_sim::schedule::BoidsSchedule;
use murmuration_sim::units::MoveOrder;

use crate::controls::InputBlocked;
use crate::dim::debug::{self as draw, BoidPicker};

/// The debug overlays: [`FlockDebug`] says which to draw; P (or a middle click) picks the boid.
/// Added by [`BoidsRenderPlugin`](crate::BoidsRenderPlugin); needs Bevy's gizmos and
/// [`BoidsPlugins`], added before it. The overlays are drawn in
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
        #[cfg(feature = "2d")]
        app.add_systems(
            Update,
            crate::dim::pointer::show_wall_draft.in_set(crate::RenderSystems::Draw),
        );
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
    /// The routes round obstacles: each unit's on its way to its order's target, and the picked
    /// boid's to the attractor nearest along its route.
    pub routes: bool,
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

/// P or a middle click picks the boid under the pointer (the nearest the drawing finds there);
/// a picked boid that is gone gives way to any boid.
pub(crate) fn pick_boid(
    mut debug: ResMut<FlockDebug>,
    keys: Res<ButtonInput<KeyCode>>,
    buttons: Res<ButtonInput<MouseButton>>,
    blocked: Res<InputBlocked>,
    picker: BoidPicker,
    boids: Query<Entity, With<Boid>>,
) {
    let wants = keys.just_pressed(KeyCode::KeyP) || buttons.just_pressed(MouseButton::Middle);
    if wants
        && !blocked.pointer
        && let Some(boid) = picker.under_pointer()
    {
        debug.picked = Some(boid);
    }
    if debug.picked.is_none_or(|e| boids.get(e).is_err()) {
        debug.picked = boids.iter().next();
    }
}

/// Draws the overlays that are on: the hash's cells, the bounds and their turn-back margin, and
/// for the picked boid its perception and view, the lines to its neighbours and its arrows (a
/// quarter of a second of velocity, the velocity the steering asks for (desired = velocity +
/// steering, as `force = desired - v` for one rule), and the steering between them).
#[allow(clippy::too_many_arguments)]
pub(crate) fn draw_overlays(
    mut gizmos: Gizmos<FlockDebugGizmos>,
    debug: Res<FlockDebug>,
    table: Res<FlockTable>,
    bounds: Res<SimulationBounds>,
    hash: Res<SpatialHash>,
    boids: Query<
        (
            &HashSlot,
            &Velocity,
            &FlockId,
            &Transform,
            Option<&LastSteering>,
        ),
        With<Boid>,
    >,
    routes: Option<Res<Routes>>,
    orders: Query<(&Position, &MoveOrder)>,
    attractors: Query<&Position, With<Attractor>>,
) {
    if debug.routes
        && let Some(routes) = routes.as_deref()
    {
        let picked = debug
            .picked
            .filter(|&e| orders.get(e).is_err())
            .and_then(|e| boids.get(e).ok())
            .map(|(.., transform, _)| draw::at(transform));
        draw_routes(&mut gizmos, picked, &bounds, routes, &orders, &attractors);
    }
    if debug.grid && !hash.is_empty() {
        draw::grid(&mut gizmos, &hash, GRAY.with_alpha(0.3).into());
    }
    if debug.margin {
        if let Edges::TurnBack { margin, .. } = bounds.edges {
            draw::inset_bounds(
                &mut gizmos,
                bounds.rect,
                margin,
                WHITE.with_alpha(0.5).into(),
            );
        }
        draw::inset_bounds(&mut gizmos, bounds.rect, 0.0, WHITE.with_alpha(0.25).into());
    }
    let Some(picked) = debug.picked else { return };
    let Ok((slot, velocity, flock, transform, steering)) = boids.get(picked) else {
        return;
    };
    // The picked boid sees as its own flock does.
    let perception = table.row(*flock).perception();
    let (p, v) = (draw::at(transform), velocity.0);
    if debug.perception {
        // The whole reach faint, the view's edge bold: the blind spot shows as the gap.
        draw::reach(
            &mut gizmos,
            p,
            perception.radius,
            GOLD.with_alpha(0.22).into(),
        );
        if perception.view_cos > -1.0 && v != Vector::ZERO {
            draw::view_edge(&mut gizmos, p, v, &perception, GOLD.into());
        }
    }
    let slot = slot.0 as usize;
    if debug.neighbours && slot < hash.len() {
        let colour = LIGHT_SKY_BLUE.with_alpha(0.8).into();
        for hit in neighbours_of(&hash, &perception, slot) {
            draw::line(&mut gizmos, p, p + hit.delta, colour);
        }
    }
    if debug.forces {
        let t = 0.25;
        let steer = steering.map_or(Vector::ZERO, |s| s.0);
        draw::arrow(&mut gizmos, p, p + v * t, LIGHT_SKY_BLUE.into());
        draw::arrow(&mut gizmos, p, p + (v + steer) * t, GRAY.into());
        draw::arrow(
            &mut gizmos,
            p + v * t,
            p + (v + steer) * t,
            ORANGE_RED.into(),
        );
    }
}

/// The routes of the units on their way, and of the picked boid to the attractor nearest along
/// its route.
fn draw_routes(
    gizmos: &mut Gizmos<FlockDebugGizmos>,
    picked: Option<Vector>,
    bounds: &SimulationBounds,
    routes: &Routes,
    orders: &Query<(&Position, &MoveOrder)>,
    attractors: &Query<&Position, With<Attractor>>,
) {
    if !routes.is_routing() {
        return;
    }
    let step = 8.0;
    let mut path = |from: Vector, to: Vector, colour: Color| {
        let points = routes.path(bounds, from, to, step, 2_000);
        for pair in points.windows(2) {
            // A wrapping world's seam: no line across the world.
            if pair[0].distance(pair[1]) <= step * 1.5 {
                draw::line(gizmos, pair[0], pair[1], colour);
            }
        }
    };
    let colour: Color = GOLD.with_alpha(0.6).into();
    for (p, order) in orders {
        if !order.settled {
            path(p.0, order.target, colour);
        }
    }
    if let Some(from) = picked {
        let nearest = attractors
            .iter()
            .map(|q| q.0)
            .filter_map(|q| routes.toward(bounds, from, q).map(|d| (d.length(), q)))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((_, to)) = nearest {
            path(from, to, LIGHT_SKY_BLUE.with_alpha(0.8).into());
        }
    }
}
