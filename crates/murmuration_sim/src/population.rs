//! [`FlockPopulation`]: keep a seeded flock at a target size, change its species count, and reset
//! it to its first state, as a settings panel or a game needs; [`Population`] does the same for
//! a [`Flock`] entity.

use bevy::prelude::*;

use crate::bounds::SimulationBounds;
use crate::components::{Boid, Species};
use crate::flock::{Flock, InFlock};
use crate::math::Region;
use crate::schedule::{BoidsSystems, schedule_of};
use crate::spawn::{FlockIndex, FlockSpawn};

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

/// The default flock the app wants: `count` seeded boids over `species` species. While this
/// resource exists, a system before [`BoidsSystems::First`] spawns
/// or despawns boids of the default flock with a [`FlockIndex`] until there are exactly `count`,
/// keeps every boid's species at `index % species`, and answers [`ResetFlock`]. A [`Flock`]
/// entity with a [`Population`] is kept the same way.
///
/// New boids get the next indices, and boid `i` of a seed always starts the same way, so growing
/// a flock from 100 to 200 adds the same 100 boids a fresh 200-boid spawn would have. Shrinking
/// despawns the highest indices first.
#[derive(Resource, Reflect, Debug, Clone, PartialEq)]
#[reflect(Resource, Debug, Clone)]
pub struct FlockPopulation {
    /// How many boids.
    pub count: usize,
    /// How many species, at least 1.
    pub species: u16,
    /// The spawn seed.
    pub seed: u64,
    /// Where new boids start, world units; `None` for the whole [`SimulationBounds`].
    pub region: Option<Region>,
}

impl FlockPopulation {
    /// `count` boids of one species from `seed`, anywhere in the bounds.
    pub fn new(count: usize, seed: u64) -> Self {
        Self {
            count,
            species: 1,
            seed,
            region: None,
        }
    }

    /// With `species` species.
    pub fn with_species(mut self, species: u16) -> Self {
        self.species = species;
        self
    }
}

/// A [`Flock`]'s own [`FlockPopulation`]: put it on the flock's entity, and the flock is kept at
/// its size as the resource keeps the default flock.
#[derive(Component, Reflect, Debug, Clone, PartialEq, Deref, DerefMut)]
#[reflect(Component, Debug, Clone)]
pub struct Population(pub FlockPopulation);

/// Despawns every population ([`FlockPopulation`] and every [`Population`]) and spawns it again
/// from its seed: the same flocks as at the start.
#[derive(Message, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResetFlock;

/// Brings every flock to what its [`FlockPopulation`] asks.
pub(crate) fn maintain_population(
    mut commands: Commands,
    default_population: Option<Res<FlockPopulation>>,
    flocks: Query<(Entity, &Population), With<Flock>>,
    bounds: Option<Res<SimulationBounds>>,
    mut resets: MessageReader<ResetFlock>,
    mut boids: Query<(Entity, &FlockIndex, &mut Species, Option<&InFlock>), With<Boid>>,
    mut members: Local<Vec<(u32, Entity)>>,
) {
    let reset = resets.read().count() > 0;
    let bounds = bounds.map_or(SimulationBounds::default().rect, |b| b.rect);
    let wanted = default_population
        .as_deref()
        .map(|p| (None, p))
        .into_iter()
        .chain(flocks.iter().map(|(e, p)| (Some(e), &p.0)));
    for (flock, population) in wanted {
        let region = population.region.unwrap_or(bounds);
        let spawn = |first: u32, count: usize| FlockSpawn {
            count,
            species: population.species,
            seed: population.seed,
            region,
            first_index: first,
            flock,
        };
        let species = population.species.max(1);
        members.clear();
        for (entity, index, mut s, in_flock) in &mut boids {
            if in_flock.map(|f| f.0) != flock {
                continue;
            }
            if reset {
                commands.entity(entity).despawn();
                continue;
            }
            members.push((index.0, entity));
            let wanted = Species((index.0 % u32::from(species)) as u16);
            s.set_if_neq(wanted);
        }
        if reset {
            commands.queue(spawn(0, population.count));
            continue;
        }
        let have = members.len();
        if have < population.count {
            let next = members.iter().map(|m| m.0 + 1).max().unwrap_or(0);
            commands.queue(spawn(next, population.count - have));
        } else if have > population.count {
            members.sort_unstable();
            for &(_, entity) in &members[population.count..] {
                commands.entity(entity).despawn();
            }
        }
    }
}
