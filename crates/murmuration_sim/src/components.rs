//! The components every boid has: [`Boid`] and what it requires ([`Position`], [`Velocity`],
//! [`Acceleration`], [`Species`]), and a boid's own top speed ([`MaxSpeed`]). Each behaviour's
//! own components are in its module (an [`Obstacle`](crate::obstacles::Obstacle), a
//! [`Hunter`](crate::hunting::Hunter), a [`Unit`](crate::units::Unit)...).
//!
//! Units are world units and seconds throughout: a [`Velocity`] is in units per second, an
//! [`Acceleration`] in units per second squared. The 2D camera of the examples shows one unit as
//! one pixel.

use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;

use crate::math::Vector;

/// Marks an entity as a member of the flock.
///
/// Inserting `Boid` brings everything the simulation reads and writes with it (required
/// components): [`Position`], [`Velocity`], [`Acceleration`], [`Species`], [`FlockId`],
/// [`HashSlot`] and a [`Transform`] that the plugin keeps in step with the position and heading.
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq, Eq)]
#[reflect(Component, Default, Debug, Clone)]
#[require(
    Position,
    PreviousPosition,
    Velocity,
    Acceleration,
    Species,
    FlockId,
    HashSlot,
    Transform
)]
pub struct Boid;

/// Where an entity is, in world units. The simulation's source of truth; [`Transform`] follows it.
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq, Deref, DerefMut)]
#[reflect(Component, Default, Debug, Clone)]
#[repr(transparent)]
pub struct Position(pub Vector);

/// Where a boid or hunter was before its last step (`None` before its first), so `Transform` can
/// show it between steps: a frame drawn a third of the way into the next fixed step shows the
/// entity a third of the way from here to its [`Position`]. Under wrapping edges it is the image
/// nearest to the new position, so an entity crossing the seam does not streak across the world.
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq, Deref, DerefMut)]
#[reflect(Component, Default, Debug, Clone)]
pub struct PreviousPosition(pub Option<Vector>);

/// How fast and which way an entity moves, in world units per second.
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq, Deref, DerefMut)]
#[reflect(Component, Default, Debug, Clone)]
#[repr(transparent)]
pub struct Velocity(pub Vector);

/// The steering force summed this step, in world units per second squared.
///
/// Every steering system adds into it; the integrate system applies it to [`Velocity`] and resets
/// it to zero. User systems in [`BoidsSystems::Steer`](crate::BoidsSystems::Steer) may add their
/// own forces here.
#[derive(Component, Reflect, Debug, Clone, Copy, Default, PartialEq, Deref, DerefMut)]
#[reflect(Component, Default, Debug, Clone)]
#[repr(transparent)]
pub struct Acceleration(pub Vector);

/// Which flock a boid belongs to. Boids align and cohere only with their own species, but keep
/// their distance from every species.
#[derive(
    Component, Reflect, Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Deref,
)]
#[reflect(Component, Default, Debug, Clone)]
pub struct Species(pub u16);

/// This entity's own top speed in world units per second, instead of
/// [`FlockParams::max_speed`](crate::FlockParams::max_speed). Used for steering and for the speed
/// clamp.
#[derive(Component, Reflect, Debug, Clone, Copy, PartialEq, Deref, DerefMut)]
#[reflect(Component, Debug, Clone)]
pub struct MaxSpeed(pub f32);

/// A boid's index into the [`SpatialHash`](crate::hash::SpatialHash) arrays for the current step.
///
/// Written by the hash build; steering systems use it to find their own entry (and to skip it
/// among their neighbours). [`HashSlot::NONE`] until the boid's first step.
#[derive(Component, Reflect, Debug, Clone, Copy, PartialEq, Eq)]
#[reflect(Component, Default, Debug, Clone)]
pub struct HashSlot(pub u32);

impl HashSlot {
    /// The slot of a boid that is not in the hash (yet).
    pub const NONE: Self = Self(u32::MAX);
}

impl Default for HashSlot {
    fn default() -> Self {
        Self::NONE
    }
}

/// Everything that flies: boids and hunters, which both carry a [`FlockId`] (the row of the
/// flock whose limits they fly by).
pub(crate) type Agents = With<FlockId>;

/// Which row of the flock table a boid or hunter flies by: its flock's. Kept by the plugin
/// from [`InFlock`](crate::InFlock) (0, the default flock, without it); read it, do not set it.
#[derive(
    Component, Reflect, Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Deref,
)]
#[reflect(Component, Default, Debug, Clone)]
#[component(on_add = note_new_member)]
pub struct FlockId(pub(crate) u16);

/// Whether a boid joined a flock ([`InFlock`](crate::InFlock) inserted) or a boid or hunter was
/// spawned ([`FlockId`] added) since the plugin last looked: only then does it look for whose
/// [`FlockId`] to set. Set at first, for what was spawned before the plugin was added.
#[derive(Resource, Debug)]
pub(crate) struct Joined(pub bool);

impl Default for Joined {
    fn default() -> Self {
        Self(true)
    }
}

/// Notes a new [`FlockId`] in [`Joined`] (its `on_add` hook; a hook declared here, not
/// registered by the plugin, which cannot once the world holds one).
fn note_new_member(mut world: DeferredWorld, _: HookContext) {
    if let Some(mut joined) = world.get_resource_mut::<Joined>() {
        joined.0 = true;
    }
}

impl FlockId {
    /// The default flock: boids in no [`Flock`](crate::Flock), flying by the [`FlockParams`](crate::FlockParams)
    /// resource.
    pub const DEFAULT: Self = Self(0);

    /// The row index.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}
