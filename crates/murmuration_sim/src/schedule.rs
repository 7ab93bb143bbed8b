//! The sets a step is made of ([`BoidsSystems`], and inside `Steer` the [`SteeringSystems`]),
//! and the schedule the simulation runs in ([`BoidsSchedule`]).
//!
//! [`StepPlugin`](crate::step::StepPlugin) chains the sets; every behaviour's plugin puts its
//! systems in its own set, so the forces are always added in the same order.

use bevy::ecs::intern::Interned;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;

/// The phases of one simulation step, chained in this order in the simulation's schedule.
///
/// `First` and `Last` are empty: put your own systems there to run before the hash is built
/// (spawn, despawn, move a predator) or after the boids moved (read the new state). A system of
/// yours in `Steer` may add its own forces to [`Acceleration`](crate::Acceleration) (order it
/// against [`SteeringSystems`] to run between the plugin's forces; the `custom_rule` example
/// does).
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoidsSystems {
    /// Empty, for users; runs first.
    First,
    /// Validates changed parameters and bounds, repairs non-finite state and rebuilds the
    /// [`SpatialHash`](crate::hash::SpatialHash).
    BuildHash,
    /// The steering systems, each adding into [`Acceleration`](crate::Acceleration) in
    /// parallel over the boids.
    Steer,
    /// Applies the acceleration, clamps speeds, moves and handles the edges; then catches and
    /// metrics.
    Integrate,
    /// Empty, for users; runs last.
    Last,
}

/// The steering forces inside [`BoidsSystems::Steer`], chained in this order, so that the
/// forces are always added in the same order and a flock replays bit for bit. Each behaviour's
/// plugin puts its systems in its own set; a set whose plugin is disabled is empty.
///
/// A new behaviour of the crate gets a set here, where its place in the order is decided; a
/// game's own force needs none: put it in [`BoidsSystems::Steer`] after
/// [`SteeringSystems::Hunt`].
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SteeringSystems {
    /// Separation, alignment and cohesion ([`StepPlugin`](crate::step::StepPlugin)).
    Flocking,
    /// Turn back at the edges ([`EdgesPlugin`](crate::edges::EdgesPlugin)).
    Edges,
    /// Steer round obstacles ([`ObstaclesPlugin`](crate::obstacles::ObstaclesPlugin)).
    Obstacles,
    /// Flee predators ([`FleePlugin`](crate::flee::FleePlugin)).
    Flee,
    /// Seek attractors ([`SeekPlugin`](crate::seek::SeekPlugin)).
    Seek,
    /// Units settle and arrive ([`UnitsPlugin`](crate::units::UnitsPlugin)).
    Units,
    /// Hunters chase ([`HuntingPlugin`](crate::hunting::HuntingPlugin)).
    Hunt,
}

/// After the move, inside [`BoidsSystems::Integrate`], in this order.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum AfterMove {
    /// Integration.
    Move,
    /// Hunters catch what they reached.
    Catch,
    /// The metrics are refreshed.
    Measure,
    /// The step's bookkeeping.
    Finish,
}

/// The schedule the simulation runs in, as [`BoidsPlugins::new`](crate::BoidsPlugins::new) was
/// given it: the behaviours' plugins, and the drawing crates, put their systems there.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoidsSchedule(pub Interned<dyn ScheduleLabel>);

/// The schedule [`StepPlugin`](crate::step::StepPlugin) put the simulation in, for the plugin
/// `part`, which needs it.
pub(crate) fn schedule_of(app: &App, part: &str) -> Interned<dyn ScheduleLabel> {
    app.world()
        .get_resource::<BoidsSchedule>()
        .unwrap_or_else(|| {
            panic!("bevy_murmuration: {part} needs StepPlugin (add BoidsPlugins, which has both)")
        })
        .0
}
