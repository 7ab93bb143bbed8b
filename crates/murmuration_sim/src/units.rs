//! Strategy-game units: select them, order them to a point, and let them walk there with arrive,
//! separation and obstacle avoidance, stop in a neat crowd without jitter, and slide round an
//! obstacle in their way.
//!
//! A [`Unit`] is a boid with [`Arrive`] (inserted at its own position, so it stands still until
//! ordered). Input reaches this module as [`UnitCommand`] messages in world coordinates, so any
//! camera or input scheme can drive it; `murmuration_render` maps the mouse to them (left click or
//! drag to select, Shift to add, right click to move).
//!
//! How a crowd stops: every ordered unit arrives at the clicked point. A unit is *settled* once it
//! is within [`UnitSettings::settle_distance`] of the point, or touches (is within
//! [`UnitSettings::contact`] separation distances of) a settled unit of the same order while it
//! is inside the disc the order's units fill when packed at the separation distance (radius
//! `0.53 s sqrt(n)` for `n` units, plus one `s`). A settled unit holds where it is (its `Arrive`
//! target follows it, so it only brakes) and can still be nudged by separation, so the crowd packs
//! outward from the point instead of every unit fighting for the centre, and a unit arriving from
//! behind flows round the crowd to an empty place at its edge. That is what keeps it still once it
//! has formed. With separation off (weight 0) units settle only on the point, so they pile up
//! there, as the tutorial shows.
//!
//! How a unit gets round walls and buildings: where obstacles stand between it and its target,
//! [`Routes`] gives it a route (one flow field per order, shared by its units), and it arrives
//! along that instead of straight; distances to the target (for slowing down and settling) are
//! the route's length. An order to a point no door leads to sends its units to the nearest point
//! they can reach, with one warning. As a last resort, a unit with an order that has not got
//! closer to its target for [`UnitSettings::stuck_seconds`] while an obstacle is near slides: it
//! adds a force along the obstacle's rim, on the side that turns toward the target, until it
//! makes progress again.
//!
//! [`Arrive`] itself works on any boid: it is what a unit steers by, with
//! [`UnitSettings::arrive_weight`]. The settings are one resource for every unit, not a flock's:
//! they are how a game's units answer orders, whichever flock they fly in.

use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;

use crate::bounds::{SimulationBounds, StepBounds};
use crate::components::{Acceleration, Boid, FlockId, Position, Velocity};
use crate::dim;
use crate::math::{Region, Vector};
use crate::obstacles::{ObstacleIndex, ObstacleSettings};
use crate::parallel::DENSE;
use crate::routes::{Routes, plan_routes};
use crate::schedule::{BoidsSystems, SteeringSystems, schedule_of};
use crate::steering::{Mover, add_forces, mover_parts_with, steer, top_speed};
use crate::table::FlockTable;

/// Strategy-game [`Unit`]s: [`UnitCommand`]s select and order them; they [`Arrive`], settle
/// into a crowd and slide round obstacles, in [`SteeringSystems::Units`].
#[derive(Debug, Clone, Default)]
pub struct UnitsPlugin;

impl Plugin for UnitsPlugin {
    fn is_unique(&self) -> bool {
        // Added twice, the second does nothing (see `StepPlugin`).
        false
    }

    fn build(&self, app: &mut App) {
        if app.is_plugin_added::<Self>() {
            return;
        }
        let schedule = schedule_of(app, "UnitsPlugin");
        app.register_type::<Arrive>()
            .register_type::<Unit>()
            .register_type::<Selected>()
            .register_type::<MoveOrder>()
            .register_type::<OrderMarker>()
            .register_type::<UnitSettings>()
            .init_resource::<UnitSettings>()
            .init_resource::<NextOrder>()
            .add_message::<UnitCommand>()
            .add_systems(
                schedule,
                (settle_units, arrive_at_targets, slide_round_obstacles)
                    .chain()
                    .in_set(SteeringSystems::Units),
            )
            .add_systems(schedule, apply_unit_commands.before(BoidsSystems::First))
            .add_systems(
                schedule,
                request_routes
                    .before(plan_routes)
                    .in_set(BoidsSystems::BuildHash),
            );
    }
}

/// Steer toward `target` and stop there, slowing down inside `slow_radius` (world units).
///
/// A boid with `Arrive` is a unit, as in a strategy game: it keeps separation and avoids
/// obstacles, but does not align or cohere, and its minimum speed is zero so it can stand still.
/// Keep the component after arrival: it is what holds the unit in place.
#[derive(Component, Reflect, Debug, Clone, Copy, PartialEq)]
#[reflect(Component, Debug, Clone)]
pub struct Arrive {
    /// The point to stop at, in world units.
    pub target: Vector,
    /// Distance from the target, in world units, at which the unit starts to slow down; it
    /// slows linearly to zero at the target. Tutorial default 80.
    pub slow_radius: f32,
}

impl Arrive {
    /// The tutorial's slow radius, in world units.
    pub const DEFAULT_SLOW_RADIUS: f32 = 80.0;

    /// Arrive at `target` with the default slow radius.
    pub fn new(target: Vector) -> Self {
        Self {
            target,
            slow_radius: Self::DEFAULT_SLOW_RADIUS,
        }
    }
}

/// A strategy-game unit: a [`Boid`] that stands still until ordered (it gets an [`Arrive`] at its
/// own position when added, unless it has one).
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug, Clone)]
#[require(Boid)]
#[component(on_add = unit_added)]
pub struct Unit;

fn unit_added(mut world: DeferredWorld, context: HookContext) {
    let entity = context.entity;
    let has_arrive = world.get::<Arrive>(entity).is_some();
    if let (false, Some(position)) = (has_arrive, world.get::<Position>(entity).copied()) {
        world
            .commands()
            .entity(entity)
            .insert(Arrive::new(position.0));
    }
}

/// Marks a selected unit.
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug, Clone)]
pub struct Selected;

/// A unit's current move order.
#[derive(Component, Reflect, Debug, Clone, Copy, PartialEq)]
#[reflect(Component, Debug, Clone)]
pub struct MoveOrder {
    /// Which order (units given the same order share it).
    pub id: u32,
    /// Where to go, world units.
    pub target: Vector,
    /// Whether the unit has settled (arrived, or stopped against a settled unit of this order).
    pub settled: bool,
    /// The closest the unit has been to its target, world units.
    closest: f32,
    /// Seconds since it last got closer.
    stalled: f32,
}

impl MoveOrder {
    fn new(id: u32, target: Vector) -> Self {
        Self {
            id,
            target,
            settled: false,
            closest: f32::INFINITY,
            stalled: 0.0,
        }
    }

    /// Whether the unit is stuck: ordered, not settled, and not getting closer.
    pub fn stuck(&self, settings: &UnitSettings) -> bool {
        !self.settled && self.stalled >= settings.stuck_seconds
    }
}

/// Where an order sends its units, until they have all settled (a marker for the UI).
#[derive(Component, Reflect, Debug, Clone, Copy, PartialEq)]
#[reflect(Component, Debug, Clone)]
#[require(Position)]
pub struct OrderMarker {
    /// The order's id.
    pub id: u32,
}

/// What the player (or a game's AI) asks of the units, in world coordinates.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub enum UnitCommand {
    /// Select the unit under `point` (within [`UnitSettings::pick_radius`]); with `add`, add it
    /// to the selection. Nothing there: clear the selection (unless `add`).
    SelectAt {
        /// The point, world units.
        point: Vector,
        /// Add to the selection instead of replacing it (Shift).
        add: bool,
    },
    /// Select every unit whose centre is inside `rect`; with `add`, add them to the selection.
    SelectIn {
        /// The rectangle, world units.
        rect: Region,
        /// Add to the selection instead of replacing it (Shift).
        add: bool,
    },
    /// Deselect all.
    ClearSelection,
    /// Send every selected unit to `target`.
    MoveTo {
        /// The target, world units.
        target: Vector,
    },
}

/// How units select, settle and slide.
#[derive(Resource, Reflect, Debug, Clone, PartialEq)]
#[reflect(Resource, Debug, Clone)]
pub struct UnitSettings {
    /// A click selects the nearest unit within this distance, world units.
    pub pick_radius: f32,
    /// A unit this close to its target has arrived, world units.
    pub settle_distance: f32,
    /// A unit within this many separation distances of a settled unit of its order settles too.
    pub contact: f32,
    /// Seconds without getting closer before a unit near an obstacle slides round it.
    pub stuck_seconds: f32,
    /// Weight of the slide.
    pub slide_weight: f32,
    /// Weight of [`Arrive`]. Tutorial default 1.
    pub arrive_weight: f32,
}

impl Default for UnitSettings {
    fn default() -> Self {
        Self {
            pick_radius: 12.0,
            settle_distance: 4.0,
            contact: 1.15,
            stuck_seconds: 0.75,
            slide_weight: 2.0,
            arrive_weight: 1.0,
        }
    }
}

/// The next order id.
#[derive(Resource, Debug, Default)]
pub(crate) struct NextOrder(u32);

/// Which units a selection command selects. `units` are every unit's entity, position and
/// whether it is selected now; the result is the new selection, in `units` order.
pub fn select(
    command: &UnitCommand,
    units: &[(Entity, Vector, bool)],
    pick_radius: f32,
) -> Option<Vec<Entity>> {
    let kept = |add: bool| -> Vec<Entity> {
        if add {
            units.iter().filter(|u| u.2).map(|u| u.0).collect()
        } else {
            Vec::new()
        }
    };
    match *command {
        UnitCommand::SelectAt { point, add } => {
            let mut selection = kept(add);
            let nearest = units
                .iter()
                .map(|u| (u.0, u.1.distance_squared(point)))
                .filter(|u| u.1 <= pick_radius * pick_radius)
                .min_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((entity, _)) = nearest
                && !selection.contains(&entity)
            {
                selection.push(entity);
            }
            Some(selection)
        }
        UnitCommand::SelectIn { rect, add } => {
            let rect = Region::from_corners(rect.min, rect.max);
            let mut selection = kept(add);
            for u in units {
                if rect.contains(u.1) && !selection.contains(&u.0) {
                    selection.push(u.0);
                }
            }
            Some(selection)
        }
        UnitCommand::ClearSelection => Some(Vec::new()),
        UnitCommand::MoveTo { .. } => None,
    }
}

/// Carries out [`UnitCommand`]s, in order (a selection then a move in the same frame moves the
/// new selection).
pub(crate) fn apply_unit_commands(
    mut commands: Commands,
    mut messages: MessageReader<UnitCommand>,
    settings: Res<UnitSettings>,
    mut next: ResMut<NextOrder>,
    units: Query<(Entity, &Position, Has<Selected>), With<Unit>>,
    mut arrive: Query<&mut Arrive, With<Unit>>,
    mut list: Local<Vec<(Entity, Vector, bool)>>,
) {
    if messages.is_empty() {
        return;
    }
    list.clear();
    list.extend(units.iter().map(|(e, p, s)| (e, p.0, s)));
    let before: Vec<bool> = list.iter().map(|u| u.2).collect();
    for command in messages.read() {
        if let UnitCommand::MoveTo { target } = *command {
            if !target.is_finite() || !list.iter().any(|u| u.2) {
                continue;
            }
            next.0 += 1;
            let id = next.0;
            for &(entity, _, selected) in list.iter() {
                if selected {
                    if let Ok(mut a) = arrive.get_mut(entity) {
                        a.target = target;
                    }
                    commands.entity(entity).insert(MoveOrder::new(id, target));
                }
            }
            commands.spawn((Name::new("Order"), OrderMarker { id }, Position(target)));
            continue;
        }
        if let Some(selection) = select(command, &list, settings.pick_radius) {
            for unit in list.iter_mut() {
                unit.2 = selection.contains(&unit.0);
            }
        }
    }
    for (&(entity, _, now), &was) in list.iter().zip(&before) {
        if now && !was {
            commands.entity(entity).insert(Selected);
        } else if was && !now {
            commands.entity(entity).remove::<Selected>();
        }
    }
}

/// Settles units that arrived or touch a settled unit of their order; settled units hold where
/// they are. Tracks progress for sliding, and removes the markers of finished orders.
///
/// The touch test compares each moving unit with the settled ones, which suits the dozens to
/// hundreds of units a player commands.
pub(crate) fn settle_units(
    mut commands: Commands,
    time: Res<Time>,
    settings: Res<UnitSettings>,
    table: Res<FlockTable>,
    bounds: Res<SimulationBounds>,
    mut units: Query<(Entity, &Position, &mut Arrive, &mut MoveOrder, &FlockId), With<Unit>>,
    markers: Query<(Entity, &OrderMarker)>,
    mut routes: Option<ResMut<Routes>>,
    mut settled_now: Local<Vec<(u32, Vector)>>,
    mut sizes: Local<Vec<(u32, usize)>>,
    mut shut_off: Local<Vec<(Vector, usize)>>,
) {
    let dt = time.delta_secs();
    shut_off.clear();
    settled_now.clear();
    sizes.clear();
    for (_, p, _, order, _) in &units {
        if order.settled {
            settled_now.push((order.id, p.0));
        }
        match sizes.iter_mut().find(|(id, _)| *id == order.id) {
            Some((_, n)) => *n += 1,
            None => sizes.push((order.id, 1)),
        }
    }
    for (_, p, mut arrive, mut order, flock) in &mut units {
        let row = table.row(*flock);
        let s = row.separation_distance;
        let contact = s * settings.contact;
        let separating = row.weights.separation > 0.0 && s > 0.0;
        if order.settled {
            // Hold here: the arrive target follows the unit, so it only brakes, and separation
            // can still make room for a newcomer.
            if arrive.target != p.0 {
                arrive.target = p.0;
            }
            continue;
        }
        // The route's length where walls stand between the unit and its target.
        let route = routes
            .as_deref()
            .and_then(|r| r.toward(&bounds, p.0, order.target));
        let distance = route
            .unwrap_or_else(|| bounds.delta(p.0, order.target))
            .length();
        if let Some(routes) = routes.as_deref()
            && let Some(reaches) = routes.reaches(p.0, order.target)
        {
            let count = usize::from(!reaches);
            match shut_off.iter_mut().find(|(t, _)| *t == order.target) {
                Some((_, n)) => *n += count,
                None => shut_off.push((order.target, count)),
            }
        }
        if distance + 0.5 < order.closest {
            order.closest = distance;
            order.stalled = 0.0;
        } else {
            order.stalled += dt;
        }
        let n = sizes
            .iter()
            .find(|(id, _)| *id == order.id)
            .map_or(1, |(_, n)| *n);
        let crowd_radius = 0.53 * s * (n as f32).sqrt() + s;
        let touching = separating
            && distance < crowd_radius
            && settled_now.iter().any(|&(id, q)| {
                id == order.id && bounds.delta(p.0, q).length_squared() < contact * contact
            });
        if distance < settings.settle_distance || touching {
            order.settled = true;
            arrive.target = p.0;
        }
    }
    if let Some(routes) = routes.as_deref_mut() {
        for &(target, count) in shut_off.iter() {
            routes.warn_out_of_reach(target, count);
        }
    }
    for (marker_entity, marker) in &markers {
        let open = units
            .iter()
            .any(|(_, _, _, order, _)| order.id == marker.id && !order.settled);
        if !open {
            commands.entity(marker_entity).despawn();
        }
    }
}

/// Asks [`Routes`] for a route to each order's target while some unit of it is on its way.
pub(crate) fn request_routes(routes: Option<ResMut<Routes>>, orders: Query<&MoveOrder>) {
    let Some(mut routes) = routes else { return };
    for order in &orders {
        if !order.settled {
            routes.request(order.target);
        }
    }
}

/// Units stuck against an obstacle slide along its rim, on the side that turns toward their
/// target.
pub(crate) fn slide_round_obstacles(
    settings: Res<UnitSettings>,
    avoidance: Option<Res<ObstacleSettings>>,
    index: Option<Res<ObstacleIndex>>,
    table: Res<FlockTable>,
    bounds: Res<SimulationBounds>,
    mut units: Query<
        (
            &Position,
            &Velocity,
            &MoveOrder,
            &mut Acceleration,
            &FlockId,
        ),
        With<Unit>,
    >,
) {
    let Some(index) = index.filter(|index| !index.is_empty()) else {
        return;
    };
    for (p, v, order, mut a, flock) in &mut units {
        if !order.stuck(&settings) {
            continue;
        }
        let row = table.row(*flock);
        let avoid_distance = avoidance.as_ref().map_or(0.0, |a| a.avoid_distance);
        let reach = avoid_distance + row.separation_distance;
        let Some(surface) = index
            .surface(p.0, reach)
            .filter(|s| s.distance < reach && s.normal != Vector::ZERO)
        else {
            continue;
        };
        let to_target = bounds.delta(p.0, order.target);
        let side = dim::side_toward(-surface.normal, to_target);
        let force = steer(side, v.0, row.max_speed, row.max_force);
        a.0 += force * settings.slide_weight;
    }
}

/// Arrive: steer toward a target at delta `d` with desired speed
/// `max_speed * min(|d| / slow_radius, 1)`, so the desired speed falls linearly to zero at the
/// target, where the force brakes the boid.
///
/// The force is `4 k (desired - v)` with `k = max_speed / slow_radius`, capped at `max_force`.
/// Plain `desired - v` (a gain of 1/s, as in the tutorial's `steer`) would make the approach an
/// underdamped spring (`d'' + d' + k d = 0`): a unit overshoots its target by a quarter of the slow
/// radius and rocks around it for many seconds. The gain `4k` makes the approach critically
/// damped, so a unit stops on its target without overshooting.
#[inline]
pub fn arrive(d: Vector, v: Vector, slow_radius: f32, max_speed: f32, max_force: f32) -> Vector {
    let distance = d.length();
    let (speed, gain) = if slow_radius > 0.0 {
        let k = max_speed / slow_radius;
        (max_speed * (distance / slow_radius).min(1.0), 4.0 * k)
    } else {
        (max_speed, 1.0)
    };
    let desired = d.try_normalize().map_or(Vector::ZERO, |u| u * speed);
    ((desired - v) * gain).clamp_length_max(max_force.max(0.0))
}

/// Units with [`Arrive`] steer to their target, slowing inside the slow radius.
pub(crate) fn arrive_at_targets(
    bounds: Res<StepBounds>,
    table: Res<FlockTable>,
    settings: Res<UnitSettings>,
    routes: Option<Res<Routes>>,
    mut units: Query<(Mover, &Arrive)>,
) {
    let routes = routes.as_deref().filter(|r| r.is_routing());
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
                let d = routes
                    .and_then(|r| r.toward(&bounds, p[j].0, order.target))
                    .unwrap_or_else(|| bounds.delta(p[j].0, order.target));
                let speed = top_speed(max_speed, j, row);
                let slow = order.slow_radius.max(0.0);
                a.0 += arrive(d, v[j].0, slow, speed, row.max_force) * settings.arrive_weight;
            }
        },
    );
}
