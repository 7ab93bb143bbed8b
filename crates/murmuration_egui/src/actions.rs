//! What the panel asks for beyond a slider's value, as messages, so games and tests can ask the
//! same without a UI.

use bevy::prelude::*;
use murmuration_render::FlockLook;
use murmuration_sim::population::ResetFlock;
use murmuration_sim::prelude::*;

/// A named starting point: flock parameters and a look that go together.
#[derive(Reflect, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[reflect(Debug, Clone, PartialEq, Default)]
pub enum Preset {
    /// The tutorial's values.
    #[default]
    Tutorial,
    /// A murmuration of starlings.
    Starlings,
    /// A school of fish.
    Fish,
    /// A flock of sheep.
    Sheep,
}

impl Preset {
    /// Every preset, in menu order.
    pub const ALL: [Preset; 4] = [
        Preset::Tutorial,
        Preset::Starlings,
        Preset::Fish,
        Preset::Sheep,
    ];

    /// The preset's name.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Tutorial => "Tutorial",
            Preset::Starlings => "Starlings",
            Preset::Fish => "Fish",
            Preset::Sheep => "Sheep",
        }
    }

    /// Its flock parameters.
    pub fn params(self) -> FlockParams {
        match self {
            Preset::Tutorial => FlockParams::default(),
            Preset::Starlings => FlockParams::starlings(),
            Preset::Fish => FlockParams::fish(),
            Preset::Sheep => FlockParams::sheep(),
        }
    }

    /// Its look.
    pub fn look(self) -> FlockLook {
        match self {
            Preset::Tutorial => FlockLook::default(),
            Preset::Starlings => FlockLook::starlings(),
            Preset::Fish => FlockLook::fish(),
            Preset::Sheep => FlockLook::sheep(),
        }
    }
}

/// The preset in use, as the panel shows it.
#[derive(Resource, Reflect, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[reflect(Resource, Debug, Clone, Default)]
pub struct ActivePreset(pub Preset);

/// Something the panel (or a game) asks for.
#[derive(Message, Debug, Clone, Copy, PartialEq)]
pub enum PanelAction {
    /// Retune the live flock: the preset's parameters and look, the same boids.
    Preset(Preset),
    /// Spawn or despawn boids until there are this many (the seed is kept).
    BoidCount(usize),
    /// Back to the first state of the seed.
    Reset,
    /// Remove every obstacle.
    ClearObstacles,
}

/// Carries out [`PanelAction`]s.
pub fn apply_panel_actions(
    mut commands: Commands,
    mut actions: MessageReader<PanelAction>,
    mut params: ResMut<FlockParams>,
    mut look: ResMut<FlockLook>,
    mut active: ResMut<ActivePreset>,
    mut population: Option<ResMut<FlockPopulation>>,
    mut resets: MessageWriter<ResetFlock>,
    obstacles: Query<Entity, With<Obstacle>>,
) {
    for action in actions.read() {
        match *action {
            PanelAction::Preset(preset) => {
                *params = preset.params();
                *look = preset.look();
                active.0 = preset;
            }
            PanelAction::BoidCount(count) => {
                if let Some(population) = population.as_deref_mut() {
                    population.count = count;
                }
            }
            PanelAction::Reset => {
                resets.write(ResetFlock);
            }
            PanelAction::ClearObstacles => {
                for entity in &obstacles {
                    commands.entity(entity).despawn();
                }
            }
        }
    }
}
