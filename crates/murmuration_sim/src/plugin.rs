//! [`BoidsPlugin`], the whole simulation with its defaults, and [`BoidsPlugins`], the same as a
//! group whose parts a game can choose, and whose schedule, parameters and bounds it can set.
//!
//! Each part is the plugin of one module: [`StepPlugin`] (the step itself; every other part
//! needs it), and one plugin per behaviour, each in its own module with its components,
//! settings and systems. A new behaviour is one module with its plugin, its set in
//! [`SteeringSystems`](crate::schedule::SteeringSystems) (where the order the forces add up in is fixed)
//! and one line here.

use bevy::app::{FixedUpdate, PluginGroupBuilder};
use bevy::ecs::intern::Interned;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;

use crate::bounds::SimulationBounds;
use crate::edges::EdgesPlugin;
use crate::flee::FleePlugin;
use crate::hunting::HuntingPlugin;
use crate::metrics::MetricsPlugin;
use crate::obstacles::ObstaclesPlugin;
use crate::params::FlockParams;
use crate::population::PopulationPlugin;
use crate::routes::RoutesPlugin;
use crate::seek::SeekPlugin;
use crate::step::StepPlugin;
use crate::units::UnitsPlugin;

/// The whole simulation with its defaults: `app.add_plugins(BoidsPlugin)`.
///
/// It steps in [`FixedUpdate`], with every behaviour, and keeps a [`FlockParams`] or
/// [`SimulationBounds`] inserted before it (else the defaults). To choose the schedule, the
/// starting parameters or the parts, add [`BoidsPlugins`] instead.
///
/// ```
/// use bevy::prelude::*;
#[cfg_attr(feature = "2d", doc = "use murmuration_sim::prelude::*;")]
#[cfg_attr(feature = "3d", doc = "use murmuration_sim3d::prelude::*;")]
///
/// App::new()
///     .add_plugins((MinimalPlugins, BoidsPlugin))
///     .insert_resource(FlockParams::starlings())
///     .update();
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct BoidsPlugin;

impl Plugin for BoidsPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(BoidsPlugins::default());
    }
}

/// The simulation as a group of plugins, one per part, in the manner of Avian's
/// `PhysicsPlugins`: choose the schedule, the starting parameters and bounds, and leave out the
/// parts a game does not need.
///
/// ```
/// use bevy::prelude::*;
#[cfg_attr(
    feature = "2d",
    doc = "use murmuration_sim::{math::*, prelude::*, units::UnitsPlugin};"
)]
#[cfg_attr(
    feature = "3d",
    doc = "use murmuration_sim3d::{math::*, prelude::*, units::UnitsPlugin};"
)]
///
/// // A world 800 units across (a square in 2D, a cube in 3D).
/// let world = Region::from_center_size(Vector::ZERO, Vector::splat(800.0));
/// App::new()
///     .add_plugins(MinimalPlugins)
///     .add_plugins(
///         BoidsPlugins::new(FixedUpdate)
///             .with_params(FlockParams::starlings())
///             .with_bounds(SimulationBounds::wrap(world))
///             // A game with no strategy units can leave them out.
///             .build()
///             .disable::<UnitsPlugin>(),
///     )
///     .update();
/// ```
///
/// The parts: [`StepPlugin`] (the step itself: parameters, flocks, the hash, flocking,
/// integration, the transform sync; the others need it), [`EdgesPlugin`], [`ObstaclesPlugin`],
/// [`RoutesPlugin`] (routes round obstacles for units and seeking boids), [`FleePlugin`], [`SeekPlugin`], [`UnitsPlugin`] (strategy-game units), [`HuntingPlugin`],
/// [`PopulationPlugin`] ([`FlockPopulation`](crate::FlockPopulation)), [`MetricsPlugin`]
/// ([`FlockMetrics`](crate::metrics::FlockMetrics)) and, with the feature `avian`, the
/// `AvianObstaclesPlugin` (Avian's static colliders as obstacles).
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
        let group = PluginGroupBuilder::start::<Self>()
            .add(StepPlugin {
                schedule: self.schedule,
                params: self.params,
                bounds: self.bounds,
            })
            .add(EdgesPlugin)
            .add(ObstaclesPlugin)
            .add(RoutesPlugin)
            .add(FleePlugin)
            .add(SeekPlugin)
            .add(UnitsPlugin)
            .add(HuntingPlugin)
            .add(PopulationPlugin)
            .add(MetricsPlugin);
        #[cfg(feature = "avian")]
        let group = group.add(crate::avian::AvianObstaclesPlugin);
        group
    }
}
