//! The step itself and its systems, in the order [`BoidsSystems`] runs them; [`StepPlugin`]
//! adds them. Every behaviour's plugin needs it.
//!
//! - `prepare`: validate the bounds, repair non-finite state, the run conditions.
//! - `build`: rebuild the [`SpatialHash`].
//! - `flocking`: separation, alignment and cohesion: every boid's neighbour sums, then its
//!   force.
//! - `integrate`: apply the acceleration, clamp the speed, move, wrap or keep in bounds.
//! - `sync`: copy position and heading into `Transform`, outside the step, eight entities at
//!   a time.

pub(crate) mod build;
pub(crate) mod flocking;
pub(crate) mod integrate;
pub(crate) mod prepare;
pub(crate) mod sync;

pub use sync::{TransformInterpolation, TransformSync};

use bevy::app::FixedUpdate;
use bevy::ecs::intern::Interned;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::prelude::*;
use bevy::transform::TransformSystems;

use crate::bounds::{Edges, SimulationBounds, StepBounds};
use crate::components::{
    Acceleration, Boid, FlockId, HashSlot, Joined, MaxSpeed, Position, PreviousPosition, Species,
    Velocity,
};
use crate::control::{SimulationControl, consume_step};
use crate::flock::{Flock, FlockMembers, InFlock, note_join, resolve_flocks};
use crate::hash::{HashHit, KNearest, SpatialHash};
use crate::neighbour_pass::FlockForces;
use crate::neighbours::NeighbourSearch;
use crate::params::{FlockParams, NeighbourMode, ParamIssue};
use crate::schedule::{AfterMove, BoidsSchedule, BoidsSystems, SteeringSystems};
use crate::spawn::{FlockIndex, FlockSpawn};
use crate::stats::FlockStats;
use crate::table::{FlockRow, FlockTable, Perception};

/// The step itself: [`FlockParams`], [`Flock`]s and the [`FlockTable`], validation, the repair
/// of non-finite state, the [`SpatialHash`], flocking, integration and the transform sync, in
/// the [`BoidsSystems`] sets. Every other part of [`BoidsPlugins`](crate::BoidsPlugins) needs it.
#[derive(Debug, Clone)]
pub struct StepPlugin {
    pub(crate) schedule: Interned<dyn ScheduleLabel>,
    pub(crate) params: Option<FlockParams>,
    pub(crate) bounds: Option<SimulationBounds>,
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
            .init_resource::<StepBounds>();

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
                SteeringSystems::Edges,
                SteeringSystems::Obstacles,
                SteeringSystems::Flee,
                SteeringSystems::Seek,
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
