//! [`BoidsPlugin`] and the [`BoidsSystems`] sets a step is made of.

use bevy::app::FixedUpdate;
use bevy::ecs::intern::Interned;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;
use bevy::transform::TransformSystems;

use crate::behaviours::{FlockSums, RuleWeights};
use crate::bounds::{Edges, SimulationBounds};
use crate::components::{
    Acceleration, Arrive, Attractor, Boid, HashSlot, Hunter, MaxSpeed, Obstacle, Position,
    Predator, PreviousPosition, Species, Velocity,
};
use crate::control::{SimulationControl, consume_step};
use crate::hash::{HashHit, KNearest, SpatialHash};
use crate::hunt::{self, BoidCaught, CatchRules, CatchStats, OnCatch};
use crate::metrics::{self, FlockMetrics, MetricsSettings};
use crate::neighbours::{NeighbourSearch, Perception};
use crate::params::{FlockParams, NeighbourMode, ParamIssue};
use crate::population::{FlockPopulation, ResetFlock, maintain_population};
use crate::rts::{self, MoveOrder, OrderMarker, Selected, Unit, UnitCommand, UnitSettings};
use crate::spawn::{FlockIndex, FlockSpawn};
use crate::stats::FlockStats;
use crate::systems::{build, flocking, forces, integrate, prepare, sync};

/// The phases of one simulation step, chained in this order in the plugin's schedule.
///
/// `First` and `Last` are empty: put your own systems there to run before the hash is built
/// (spawn, despawn, move a predator) or after the boids moved (read the new state). A system of
/// yours in `Steer` may add its own forces to [`Acceleration`].
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoidsSystems {
    /// Empty, for users; runs first.
    First,
    /// Validates changed parameters, repairs non-finite state and rebuilds the
    /// [`SpatialHash`].
    BuildHash,
    /// The steering systems, each adding into [`Acceleration`] in parallel over the boids.
    Steer,
    /// Applies the acceleration, clamps speeds, moves and handles the edges.
    Integrate,
    /// Empty, for users; runs last.
    Last,
}

/// Adds the flock simulation to an app.
///
/// ```
/// use bevy::prelude::*;
/// use murmuration_sim::prelude::*;
///
/// App::new()
///     .add_plugins(MinimalPlugins)
///     .add_plugins(
///         BoidsPlugin::new(FixedUpdate)
///             .with_params(FlockParams::starlings())
///             .with_bounds(SimulationBounds::wrap(Rect::new(0.0, 0.0, 800.0, 600.0))),
///     )
///     .update();
/// ```
///
/// Without `with_params` or `with_bounds` the plugin keeps a [`FlockParams`] or
/// [`SimulationBounds`] you inserted before it, else inserts the defaults. Adding the plugin a
/// second time warns and does nothing. If either resource is removed later, the flock pauses
/// with one warning until it is back.
#[derive(Debug, Clone)]
pub struct BoidsPlugin {
    schedule: Interned<dyn ScheduleLabel>,
    params: Option<FlockParams>,
    bounds: Option<SimulationBounds>,
}

impl Default for BoidsPlugin {
    /// Runs in [`FixedUpdate`] with the default parameters and bounds.
    fn default() -> Self {
        Self::new(FixedUpdate)
    }
}

impl BoidsPlugin {
    /// A plugin whose step runs in `schedule` (usually [`FixedUpdate`]; `Update` steps once a
    /// frame with the frame's delta, capped at [`MAX_DT`](crate::MAX_DT)).
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        Self {
            schedule: schedule.intern(),
            params: None,
            bounds: None,
        }
    }

    /// Starts with these parameters.
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

/// Marks an app that already has a [`BoidsPlugin`].
#[derive(Resource)]
struct BoidsPluginAdded;

impl Plugin for BoidsPlugin {
    fn build(&self, app: &mut App) {
        if app.world().contains_resource::<BoidsPluginAdded>() {
            warn!("bevy_murmuration: BoidsPlugin was added twice; the second one is ignored");
            return;
        }
        app.insert_resource(BoidsPluginAdded);

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
            .register_type::<Hunter>()
            .register_type::<Arrive>()
            .register_type::<Obstacle>()
            .register_type::<FlockParams>()
            .register_type::<NeighbourMode>()
            .register_type::<NeighbourSearch>()
            .register_type::<SimulationBounds>()
            .register_type::<Edges>()
            .register_type::<SpatialHash>()
            .register_type::<FlockStats>()
            .register_type::<FlockSpawn>()
            .register_type::<FlockIndex>()
            .register_type::<FlockPopulation>()
            .register_type::<SimulationControl>()
            .register_type::<FlockMetrics>()
            .register_type::<MetricsSettings>()
            .register_type::<CatchRules>()
            .register_type::<CatchStats>()
            .register_type::<OnCatch>()
            .register_type::<Unit>()
            .register_type::<Selected>()
            .register_type::<MoveOrder>()
            .register_type::<OrderMarker>()
            .register_type::<UnitSettings>()
            .register_type::<HashHit>()
            .register_type::<KNearest>()
            .register_type::<Perception>()
            .register_type::<FlockSums>()
            .register_type::<RuleWeights>()
            .register_type::<ParamIssue>();

        match &self.params {
            Some(params) => app.insert_resource(params.clone()),
            None => app.init_resource::<FlockParams>(),
        };
        match self.bounds {
            Some(bounds) => app.insert_resource(bounds),
            None => app.init_resource::<SimulationBounds>(),
        };
        app.init_resource::<SpatialHash>()
            .init_resource::<NeighbourSearch>()
            .init_resource::<FlockStats>()
            .init_resource::<SimulationControl>()
            .init_resource::<CatchStats>()
            .init_resource::<FlockMetrics>()
            .init_resource::<MetricsSettings>()
            .init_resource::<UnitSettings>()
            .init_resource::<rts::NextOrder>()
            .add_message::<ResetFlock>()
            .add_message::<BoidCaught>()
            .add_message::<UnitCommand>()
            .init_resource::<prepare::StepConfig>();

        let schedule = self.schedule;
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
        app.add_systems(
            schedule,
            prepare::warn_missing_resources.before(BoidsSystems::First),
        );
        app.add_systems(
            schedule,
            (
                prepare::validate_params,
                prepare::repair_non_finite,
                build::build_hash,
            )
                .chain()
                .in_set(BoidsSystems::BuildHash),
        );
        // NOTE: chained, not merely ordered by their conflicting access, so the forces are always
        // summed in the same order and the flock replays bit for bit.
        app.add_systems(
            schedule,
            (
                flocking::flock,
                forces::avoid_edges,
                forces::avoid_obstacles,
                forces::flee_predators,
                forces::seek_attractors,
                rts::settle_units,
                forces::arrive_at_targets,
                rts::slide_round_obstacles,
                forces::hunt,
            )
                .chain()
                .in_set(BoidsSystems::Steer),
        );
        app.add_systems(
            schedule,
            (
                integrate::integrate,
                hunt::catch_prey.run_if(resource_exists::<CatchRules>),
                metrics::refresh_metrics,
                consume_step,
            )
                .chain()
                .in_set(BoidsSystems::Integrate),
        );
        // Before `First`, so a user's systems there already see the flock at its size.
        app.add_systems(
            schedule,
            (
                maintain_population.run_if(resource_exists::<FlockPopulation>),
                rts::apply_unit_commands,
            )
                .before(BoidsSystems::First),
        );
        app.insert_resource(sync::TransformInterpolation(
            self.schedule == FixedUpdate.intern(),
        ))
        .add_systems(
            PostUpdate,
            sync::sync_transforms.before(TransformSystems::Propagate),
        );
    }

    fn is_unique(&self) -> bool {
        // Uniqueness is checked in `build`, with a warning instead of Bevy's panic.
        false
    }
}
