//! Flocks as entities: a [`Flock`] holds its own [`FlockParams`]; boids join it with
//! [`InFlock`], a Bevy relationship whose other side, [`FlockMembers`], lists them.
//!
//! Boids that join no flock fly by the [`FlockParams`] resource, the default flock, so a game
//! with one kind of flock never needs a `Flock` entity. Between flocks, separation acts on
//! everyone (no flock flies through another); alignment and cohesion only within a boid's own
//! flock and species.
//!
//! ```
//! use bevy::prelude::*;
#![cfg_attr(
    feature = "2d",
    doc = "use murmuration_sim::{math::Vector, prelude::*};"
)]
#![cfg_attr(
    feature = "3d",
    doc = "use murmuration_sim3d::{math::Vector, prelude::*};"
)]
//!
//! fn setup(mut commands: Commands) {
//!     let swallows = commands
//!         .spawn((Name::new("Swallows"), Flock::new(FlockParams::swallows())))
//!         .id();
//!     commands.queue(FlockSpawn::new(300, 7).in_flock(swallows));
//!     // One boid by hand: the flock's own speeds, radii and weights apply to it.
//!     commands.spawn((Boid, InFlock(swallows), Velocity(Vector::X * 100.0)));
//! }
//! ```
//!
//! Despawning a `Flock` despawns its members with it (as despawning a parent despawns its
//! children); remove `InFlock` from boids first to keep them, and they join the default flock.
//! A boid moves to another flock when its `InFlock` changes, from the next step on.

use bevy::prelude::*;

use crate::components::{FlockId, Joined};
use crate::params::{FlockParams, warn_issues};
use crate::table::FlockTable;

/// A flock with parameters of its own: spawn one, then spawn boids with [`InFlock`] pointing at
/// it. Change `params` at run time and its boids follow on the next step (after
/// [`FlockParams::validate`], which clamps bad values with one warning).
///
/// It brings a [`Name`] (for logs and the settings panel) and [`FlockMembers`]; with
/// [`MetricsPlugin`](crate::metrics::MetricsPlugin), also its
/// [`FlockShape`](crate::metrics::FlockShape).
#[derive(Component, Reflect, Debug, Clone, Default, PartialEq)]
#[reflect(Component, Default, Debug, Clone)]
#[require(Name::new("Flock"), FlockMembers)]
pub struct Flock {
    /// The flock's parameters.
    pub params: FlockParams,
}

impl Flock {
    /// A flock flying by `params`.
    pub fn new(params: FlockParams) -> Self {
        Self { params }
    }
}

/// Puts a boid (or a hunter, or a unit) in the [`Flock`] entity it holds.
#[derive(Component, Reflect, Debug, Clone, Copy, PartialEq, Eq)]
#[reflect(Component, Debug, Clone)]
#[relationship(relationship_target = FlockMembers)]
pub struct InFlock(#[entities] pub Entity);

/// The boids, hunters and units in a [`Flock`] ([`InFlock`]'s other side, kept by Bevy).
/// Despawning the flock despawns them.
#[derive(Component, Reflect, Debug, Default, PartialEq, Eq)]
#[reflect(Component, Debug, Default)]
#[relationship_target(relationship = InFlock, linked_spawn)]
pub struct FlockMembers(Vec<Entity>);

impl FlockMembers {
    /// The members, in the order they joined.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Entity> + '_ {
        self.0.iter().copied()
    }

    /// How many members.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the flock has no members.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Validates the [`FlockParams`] resource and every changed [`Flock`] (writing clamped values
/// back, with one warning per change), resolves them into the [`FlockTable`], and gives every
/// boid and hunter whose flock changed its [`FlockId`].
pub(crate) fn resolve_flocks(
    mut params: ResMut<FlockParams>,
    mut table: ResMut<FlockTable>,
    mut flocks: Query<(Entity, &mut Flock, &Name, &FlockMembers)>,
    mut removed_flocks: RemovedComponents<Flock>,
    mut members: ParamSet<(
        Query<&mut FlockId>,
        Query<(Entity, Option<&InFlock>, &mut FlockId), Or<(Changed<InFlock>, Added<FlockId>)>>,
    )>,
    mut left: RemovedComponents<InFlock>,
    mut joined: ResMut<Joined>,
    mut warned_full: Local<bool>,
) {
    if params.is_changed() {
        let mut p = params.clone();
        let issues = p.validate();
        if !issues.is_empty() {
            warn_issues("FlockParams", &issues);
            *params.bypass_change_detection() = p.clone();
        }
        table.set_default(&p);
    }
    // Flocks gone: their rows freed, and anyone still in one (whose `InFlock` was removed by
    // hand first) back in the default flock.
    let mut freed = Vec::new();
    for flock in removed_flocks.read() {
        if flocks.get(flock).is_err()
            && let Some(id) = table.remove(flock)
        {
            freed.push(id);
        }
    }
    if !freed.is_empty() {
        for mut id in &mut members.p0() {
            if freed.contains(&id) {
                *id = FlockId::DEFAULT;
            }
        }
    }
    for (entity, mut flock, name, in_flock) in &mut flocks {
        if !flock.is_changed() {
            continue;
        }
        let mut p = flock.params.clone();
        let issues = p.validate();
        if !issues.is_empty() {
            warn_issues(name.as_str(), &issues);
            flock.bypass_change_detection().params = p.clone();
        }
        let new = table.id_of(entity).is_none();
        let Some(id) = table.set(entity, &p) else {
            if !*warned_full {
                *warned_full = true;
                warn!(
                    "bevy_murmuration: more than {} flocks; the flock {name} and its boids fly \
                     as the default flock",
                    FlockTable::MAX_FLOCKS
                );
            }
            continue;
        };
        if new {
            // Members that joined before the flock had a row.
            for member in in_flock.iter() {
                if let Ok(mut member_id) = members.p0().get_mut(member) {
                    member_id.set_if_neq(id);
                }
            }
        }
    }
    // NOTE: only after a join or a new boid: the query's filter checks every boid's change
    // ticks, 0.2 ms a step at 100,000 boids on one thread, for what happens at spawns.
    if core::mem::take(&mut joined.0) {
        for (entity, in_flock, mut id) in &mut members.p1() {
            let wanted = match in_flock {
                None => FlockId::DEFAULT,
                Some(flock) => table.id_of(flock.0).unwrap_or_else(|| {
                    warn!(
                        "bevy_murmuration: {entity} joined {} (InFlock), which is no Flock; it flies \
                         with the default flock",
                        flock.0
                    );
                    FlockId::DEFAULT
                }),
            };
            id.set_if_neq(wanted);
        }
    }
    for entity in left.read() {
        if let Ok(mut id) = members.p0().get_mut(entity) {
            id.set_if_neq(FlockId::DEFAULT);
        }
    }
}

/// Notes a join ([`InFlock`] inserted or replaced; it cannot be changed in place).
pub(crate) fn note_join(_: On<Insert, InFlock>, mut joined: ResMut<Joined>) {
    joined.0 = true;
}
