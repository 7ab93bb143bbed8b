//! Starlings and swallows sharing one evening sky with a hawk: two flocks with their own speeds, spacing and weights, each tuned on its own from the panel's list.

mod common;

use bevy::prelude::*;
use bevy_murmuration::egui::Preset;
use bevy_murmuration::prelude::*;
use bevy_murmuration::render::ColourMode;
use bevy_murmuration::render::FlockControls;

use common::CapturePlugin;

const HELP: &str = "A hawk hunts both flocks   Mouse: a second predator   Panel: pick a flock \
     to tune it   Space: pause   R: reset   H: hide panel";

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_murmuration: sky".into(),
                resolution: (1280, 720).into(),
                ..default()
            }),
            ..default()
        }))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .add_plugins(
            BoidsPlugins::new(FixedUpdate).with_bounds(SimulationBounds::wrap(
                Rect::from_center_size(Vec2::ZERO, Vec2::new(1800.0, 1200.0)),
            )),
        )
        .add_plugins(BoidsRenderPlugin::new(FlockLook {
            // Each flock its own colour: the palette by flock (the default flock is unused).
            colour: ColourMode::Flock,
            palette: vec![
                Color::srgb_u8(0x30, 0x30, 0x30),
                Color::srgb_u8(0x1c, 0x1a, 0x2e),
                Color::srgb_u8(0x1f, 0x4e, 0xa8),
            ],
            ..FlockLook::starlings()
        }))
        .add_plugins(
            BoidsEguiPlugin::new("Sky", Preset::Starlings)
                .without_presets()
                .with_help(HELP),
        )
        .add_plugins(CapturePlugin)
        .insert_resource(CatchRules::default())
        .insert_resource(FlockControls {
            hunters: 1,
            hunter_speed: 200.0,
            ..default()
        })
        .add_systems(Startup, sky)
        .run();
}

/// Two flocks, each with its own parameters and population, and the roost the starlings wheel
/// over.
fn sky(mut commands: Commands) {
    let starlings = Flock::new(FlockParams {
        // A gentle pull toward the roost keeps the murmuration one wheeling cloud.
        seek_weight: 0.2,
        ..FlockParams::starlings()
    });
    commands.spawn((
        Name::new("Starlings"),
        starlings,
        Population(FlockPopulation {
            region: Some(Rect::from_center_size(Vec2::ZERO, Vec2::new(600.0, 400.0))),
            ..FlockPopulation::new(2000, 1)
        }),
    ));
    let swallows = Flock::new(FlockParams {
        // Swallows hunt insects all over the sky: no roost for them.
        seek_weight: 0.0,
        ..FlockParams::swallows()
    });
    commands.spawn((
        Name::new("Swallows"),
        swallows,
        Population(FlockPopulation::new(300, 2)),
    ));
    commands.spawn((Name::new("Roost"), Attractor, Position(Vec2::ZERO)));
}
