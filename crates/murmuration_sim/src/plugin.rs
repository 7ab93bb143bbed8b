//! [`BoidsPlugins`], the plugin group that adds the simulation, its parts, and the
//! [`BoidsSystems`] sets a step is made of.

use bevy::app::{FixedUpdate, PluginGroupBuilder};
use bevy::ecs::intern::Interned;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;
use bevy::transform::TransformSystems;

use crate::bounds::{Edges, SimulationBounds};
use crate::components::{
    Acceleration, Arrive, Attractor, Boid, HashSlot, Hunter, MaxSpeed, Obstacle, Position,
    Predator, PreviousPosition, Species, Velocity,
};
use crate::components::{FlockId, Joined};
use crate::control::{SimulationControl, consume_step};
use crate::flock::{Flock, FlockMembers, InFlock, note_join, resolve_flocks};
use crate::hash::{HashHit, KNearest, SpatialHash};
use crate::hunt::{self, BoidCaught, CatchRules, CatchStats, OnCatch};
use crate::metrics::{self, FlockMetrics, FlockShape, MetricsSettings};
use crate::neighbour_pass::FlockForces;
use crate::neighbours::NeighbourSearch;
use crate::params::{FlockParams, NeighbourMode, ParamIssue};
use crate::population::{FlockPopulation, Population, ResetFlock, maintain_population};
use crate::rts::{self, MoveOrder, OrderMarker, Selected, Unit, UnitCommand, UnitSettings};
use crate::spawn::{FlockIndex, FlockSpawn};
use crate::stats::FlockStats;
use crate::systems::{build, flocking, forces, integrate, prepare, sync};
use crate::table::{FlockRow, FlockTable, Perception};

/// The phases of one simulation step, chained in this order in the simulation's schedule.
///
/// `First` and `Last` are empty: put your own systems there to run before the hash is built
/// (spawn, despawn, move a predator) or after the boids moved (read the new state). A system of
/// yours in `Steer` may add its own forces to [`Acceleration`] (order it against
/// [`SteeringSystems`] to run between the plugin's forces).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoidsSystems {
    /// Empty, for users; runs first.
    First,
    /// Validates changed parameters and bounds, repairs non-finite state and rebuilds the
    /// [`SpatialHash`].
    BuildHash,
    /// The steering systems, each adding into [`Acceleration`] in parallel over the boids.
    Steer,
    /// Applies the acceleration, clamps speeds, moves and handles the edges; then catches and
    /// metrics.
    Integrate,
    /// Empty, for users; runs last.
    Last,
}

/// The steering forces inside [`BoidsSystems::Steer`], chained in this order, so that the
/// forces are always added in the same order and a flock replays bit for bit. Each part of
/// [`BoidsPlugins`] puts its systems in its own set; a set whose part is disabled is empty.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SteeringSystems {
    /// Separation, alignment and cohesion ([`StepPlugin`]).
    Flocking,
    /// Turn back at the edges, steer round obstacles, flee predators, seek attractors
    /// ([`SteeringPlugin`]).
    Forces,
    /// Units settle and arrive ([`UnitsPlugin`]).
    Units,
    /// Hunters chase ([`HuntingPlugin`]).
    Hunt,
}

/// After the move, inside [`BoidsSystems::Integrate`], in this order.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum AfterMove {
    Move,
    Catch,
    Measure,
    Finish,
}

/// The schedule the simulation runs in, as [`BoidsPlugins::new`] was given it: the parts of the
/// plugin group, and the drawing crates, put their systems there.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoidsSchedule(pub Interned<dyn ScheduleLabel>);

/// Adds the flock simulation to an app: a group of plugins, one per part, in the manner of
/// Avian's `PhysicsPlugins`.
///
/// ```
/// use bevy::prelude::*;
/// use murmuration_sim::prelude::*;
///
/// App::new()
///     .add_plugins(MinimalPlugins)
///     .add_plugins(
///         BoidsPlugins::new(FixedUpdate)
///             .with_params(FlockParams::starlings())
///             .with_bounds(SimulationBounds::wrap(Rect::new(0.0, 0.0, 800.0, 600.0)))
///             // A game with no strategy units can leave them out.
///             .build()
///             .disable::<UnitsPlugin>(),
///     )
///     .update();
/// ```
///
/// The parts: [`StepPlugin`] (the step itself: parameters, flocks, the hash, flocking,
/// integration, the transform sync; the others need it), [`SteeringPlugin`] (edges, obstacles,
/// flee, seek), [`HuntingPlugin`] (hunters chase and catch), [`UnitsPlugin`] (strategy-game
/// units), [`PopulationPlugin`] ([`FlockPopulation`]) and [`MetricsPlugin`] ([`FlockMetrics`]).
///
/// The step runs in the schedule given to [`BoidsPlugins::new`]: usually [`FixedUpdate`];
/// `Update` steps once a frame with the frame's delta (capped at [`MAX_DT`](crate::MAX_DT)); a
/// schedule label of your own steps whenever you run that schedule. Without `with_params` or
/// `with_bounds` the plugin keeps a [`FlockParams`] or [`SimulationBounds`] you inserted before
/// it, else inserts the defaults. If either resource is removed later, the flock pauses with one
/// warning until it is back.
#[derive(Debug, Clone)]
pub struct BoidsPlugins {
    schedule: Interned<dyn ScheduleLabel>,
    params: Option<FlockParams>,
    bounds: Option<SimulationBounds>,
}

impl Default for BoidsPlugins {
    /// Runs in [`FixedUpdate`] with the default parameters and bounds.
    fn default() -> Self {
        Self::new(FixedUpdate)
    }
}

impl BoidsPlugins {
    /// The simulation, stepping in `schedule`.
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        Self {
            schedule: schedule.intern(),
            params: None,
            bounds: None,
        }
    }

    /// Starts the default flock with these parameters.
    pub fn with_params(mut self, params: FlockParams) -> Self {
        self.params = Some(params);
        self
    }

    /// Starts with these bounds.
    pub fn with_bounds(mut self, bounds: SimulationBounds) -> Self {
        self.bounds = Some(bounds);
        self
    }
}

impl PluginGroup for BoidsPlugins {
    fn build(self) -> PluginGroupBuilder {
        PluginGroupBuilder::start::<Self>()
            .add(StepPlugin {
                schedule: self.schedule,
                params: self.params,
                bounds: self.bounds,
            })
            .add(SteeringPlugin)
            .add(HuntingPlugin)
            .add(UnitsPlugin)
            .add(PopulationPlugin)
            .add(MetricsPlugin)
    }
}

/// The step itself: [`FlockParams`], [`Flock`]s and the [`FlockTable`], validation, the repair
/// of non-finite state, the [`SpatialHash`], flocking, integration and the transform sync, in
/// the [`BoidsSystems`] sets. Every other part of [`BoidsPlugins`] needs it.
#[derive(Debug, Clone)]
pub struct StepPlugin {
    schedule: Interned<dyn ScheduleLabel>,
    params: Option<FlockParams>,
    bounds: Option<SimulationBounds>,
}

impl Plugin for StepPlugin {
    fn is_unique(&self) -> bool {
        // Checked in `build`, with a warning instead of Bevy's panic.
        false
    }

    fn build(&self, app: &mut App) {
        if app.is_plugin_added::<Self>() {
            warn!("bevy_murmuration: BoidsPlugins was added twice; the second one is ignored");
            return;
        }
        app.register_type::<Boid>()
            .register_type::<Position>()
            .register_type::<Velocity>()
            .register_type::<Acceleration>()
            .register_type::<Species>()
            .register_type::<PreviousPosition>()
            .register_type::<sync::TransformInterpolation>()
            .register_type::<MaxSpeed>()
            .register_type::<HashSlot>()
            .register_type::<Predator>()
            .register_type::<Attractor>()
            .register_type::<Obstacle>()
            .register_type::<Flock>()
            .register_type::<InFlock>()
            .register_type::<FlockMembers>()
            .register_type::<FlockId>()
            .register_type::<FlockTable>()
            .register_type::<FlockRow>()
            .register_type::<FlockParams>()
            .register_type::<NeighbourMode>()
            .register_type::<NeighbourSearch>()
            .register_type::<SimulationBounds>()
            .register_type::<Edges>()
            .register_type::<SpatialHash>()
            .register_type::<FlockStats>()
            .register_type::<FlockSpawn>()
            .register_type::<FlockIndex>()
            .register_type::<SimulationControl>()
            .register_type::<HashHit>()
            .register_type::<KNearest>()
            .register_type::<Perception>()
            .register_type::<ParamIssue>();

        match &self.params {
            Some(params) => app.insert_resource(params.clone()),
            None => app.init_resource::<FlockParams>(),
        };
        match self.bounds {
            Some(bounds) => app.insert_resource(bounds),
            None => app.init_resource::<SimulationBounds>(),
        };
        let schedule = self.schedule;
        app.insert_resource(BoidsSchedule(schedule))
            .init_resource::<FlockTable>()
            .init_resource::<SpatialHash>()
            .init_resource::<FlockForces>()
            .init_resource::<NeighbourSearch>()
            .init_resource::<FlockStats>()
            .init_resource::<SimulationControl>()
            .init_resource::<prepare::StepBounds>();

        app.configure_sets(
            schedule,
            (
                BoidsSystems::First,
                BoidsSystems::BuildHash,
                BoidsSystems::Steer,
                BoidsSystems::Integrate,
                BoidsSystems::Last,
            )
                .chain(),
        );
        for set in [
            BoidsSystems::BuildHash,
            BoidsSystems::Steer,
            BoidsSystems::Integrate,
        ] {
            app.configure_sets(schedule, set.run_if(prepare::can_step));
        }
        // NOTE: chained, not merely ordered by their conflicting access, so the forces are always
        // summed in the same order and the flock replays bit for bit.
        app.configure_sets(
            schedule,
            (
                SteeringSystems::Flocking,
                SteeringSystems::Forces,
                SteeringSystems::Units,
                SteeringSystems::Hunt,
            )
                .chain()
                .in_set(BoidsSystems::Steer),
        );
        app.configure_sets(
            schedule,
            (
                AfterMove::Move,
                AfterMove::Catch,
                AfterMove::Measure,
                AfterMove::Finish,
            )
                .chain()
                .in_set(BoidsSystems::Integrate),
        );
        app.add_systems(
            schedule,
            prepare::warn_missing_resources.before(BoidsSystems::First),
        );
        app.init_resource::<Joined>().add_observer(note_join);
        app.add_systems(
            schedule,
            (
                resolve_flocks,
                prepare::validate_bounds,
                prepare::repair_non_finite,
                build::build_hash,
            )
                .chain()
                .in_set(BoidsSystems::BuildHash),
        );
        app.add_systems(schedule, flocking::flock.in_set(SteeringSystems::Flocking));
        app.add_systems(schedule, integrate::integrate.in_set(AfterMove::Move));
        app.add_systems(schedule, consume_step.in_set(AfterMove::Finish));
        app.insert_resource(sync::TransformInterpolation(
            schedule == FixedUpdate.intern(),
        ))
        .add_systems(
            PostUpdate,
            sync::sync_transforms
                .in_set(sync::TransformSync)
                .before(TransformSystems::Propagate),
        );
    }
}

/// The schedule [`StepPlugin`] put the simulation in.
fn schedule_of(app: &App, part: &str) -> Interned<dyn ScheduleLabel> {
    app.world()
        .get_resource::<BoidsSchedule>()
        .unwrap_or_else(|| {
            panic!("bevy_murmuration: {part} needs StepPlugin (add BoidsPlugins, which has both)")
        })
        .0
}

/// Turn back at the edges ([`Edges::TurnBack`]), steer round [`Obstacle`]s, flee
/// [`Predator`]s, seek [`Attractor`]s: each its own system, in [`SteeringSystems::Forces`].
#[derive(Debug, Clone, Default)]
pub struct SteeringPlugin;

impl Plugin for SteeringPlugin {
    fn is_unique(&self) -> bool {
        // Added twice, the second does nothing (see `StepPlugin`).
        false
    }

    fn build(&self, app: &mut App) {
        if app.is_plugin_added::<Self>() {
            return;
        }
        let schedule = schedule_of(app, "SteeringPlugin");
        app.add_systems(
            schedule,
            (
                forces::avoid_edges,
                forces::avoid_obstacles,
                forces::flee_predators,
                forces::seek_attractors,
            )
                .chain()
                .in_set(SteeringSystems::Forces),
        );
    }
}

/// [`Hunter`]s chase the nearest boid and, with [`CatchRules`], catch it
/// ([`BoidCaught`], [`CatchStats`]).
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
            .register_type::<CatchRules>()
            .register_type::<CatchStats>()
            .register_type::<OnCatch>()
            .init_resource::<CatchStats>()
            .add_message::<BoidCaught>()
            .add_systems(schedule, forces::hunt.in_set(SteeringSystems::Hunt))
            .add_systems(
                schedule,
                hunt::catch_prey
                    .run_if(resource_exists::<CatchRules>)
                    .in_set(AfterMove::Catch),
            );
    }
}

/// Strategy-game [`Unit`]s: [`UnitCommand`]s select and order them; they [`Arrive`], settle
/// into a crowd and slide round obstacles (see [`rts`]).
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
            .init_resource::<rts::NextOrder>()
            .add_message::<UnitCommand>()
            .add_systems(
                schedule,
                (
                    rts::settle_units,
                    forces::arrive_at_targets,
                    rts::slide_round_obstacles,
                )
                    .chain()
                    .in_set(SteeringSystems::Units),
            )
            .add_systems(
                schedule,
                rts::apply_unit_commands.before(BoidsSystems::First),
            );
    }
}

/// Keeps seeded flocks at the size their [`FlockPopulation`] asks (the resource for the default
/// flock, [`Population`] on a [`Flock`]), and answers [`ResetFlock`].
#[derive(Debug, Clone, Default)]
pub struct PopulationPlugin;

impl Plugin for PopulationPlugin {
    fn is_unique(&self) -> bool {
        // Added twice, the second does nothing (see `StepPlugin`).
        false
    }

    fn build(&self, app: &mut App) {
        if app.is_plugin_added::<Self>() {
            return;
        }
        let schedule = schedule_of(app, "PopulationPlugin");
        app.register_type::<FlockPopulation>()
            .register_type::<Population>()
            .add_message::<ResetFlock>()
            // Before `First`, so a user's systems there already see the flock at its size.
            .add_systems(schedule, maintain_population.before(BoidsSystems::First));
    }
}

/// Measures the flocks' shapes every [`MetricsSettings::every`] steps: [`FlockMetrics`] for the
/// default flock, [`FlockShape`] on each [`Flock`].
#[derive(Debug, Clone, Default)]
pub struct MetricsPlugin;

impl Plugin for MetricsPlugin {
    fn is_unique(&self) -> bool {
        // Added twice, the second does nothing (see `StepPlugin`).
        false
    }

    fn build(&self, app: &mut App) {
        if app.is_plugin_added::<Self>() {
            return;
        }
        let schedule = schedule_of(app, "MetricsPlugin");
        if app
            .try_register_required_components::<Flock, FlockShape>()
            .is_err()
        {
            // A `Flock` spawned before the plugin: Bevy no longer lets `FlockShape` become
            // required, so the flocks there get it now and those to come from an observer.
            let world = app.world_mut();
            let flocks: Vec<Entity> = world
                .query_filtered::<Entity, (With<Flock>, Without<FlockShape>)>()
                .iter(world)
                .collect();
            for flock in flocks {
                world.entity_mut(flock).insert(FlockShape::default());
            }
            app.add_observer(|add: On<Add, Flock>, mut commands: Commands| {
                commands
                    .entity(add.entity)
                    .insert_if_new(FlockShape::default());
            });
        }
        app.register_type::<FlockMetrics>()
            .register_type::<FlockShape>()
            .register_type::<MetricsSettings>()
            .init_resource::<FlockMetrics>()
            .init_resource::<MetricsSettings>()
            .add_systems(
                schedule,
                metrics::refresh_metrics.in_set(AfterMove::Measure),
            );
    }
}
