//! Two schools of fish in deep water, coloured by heading, that turn as one and part around the rocks and the shark you steer with the mouse.

mod common;

use bevy::prelude::*;
use bevy_murmuration::egui::Preset;
use bevy_murmuration::prelude::*;

use common::CapturePlugin;

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_murmuration: fish".into(),
                resolution: (1280, 720).into(),
                ..default()
            }),
            ..default()
        }))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .add_plugins(
            BoidsPlugins::new(FixedUpdate)
                .with_params(FlockParams::fish())
                .with_bounds(SimulationBounds::wrap(Rect::from_center_size(
                    Vec2::ZERO,
                    Vec2::new(1400.0, 1020.0),
                ))),
        )
        .add_plugins(BoidsRenderPlugin::new(FlockLook::fish()))
        .add_plugins(BoidsEguiPlugin::new("Fish", Preset::Fish).without_presets())
        .add_plugins(CapturePlugin)
        .insert_resource(FlockPopulation::new(1500, 2).with_species(2))
        .add_systems(Startup, place_rocks)
        .run();
}

/// A few rocks on the sea floor for the schools to flow around.
fn place_rocks(mut commands: Commands) {
    for (x, y, radius) in [
        (-300.0, 120.0, 45.0),
        (250.0, -150.0, 60.0),
        (420.0, 220.0, 30.0),
    ] {
        commands.spawn((Obstacle::round(radius), Position(Vec2::new(x, y))));
    }
}
