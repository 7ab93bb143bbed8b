//! A flock of sheep milling on a meadow: slow, hardly aligned, always together, scattering from the sheepdog that is your mouse.

mod common;

use bevy::prelude::*;
use bevy_murmuration::egui::Preset;
use bevy_murmuration::prelude::*;

use common::CapturePlugin;

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_murmuration: sheep".into(),
                resolution: (1280, 720).into(),
                ..default()
            }),
            ..default()
        }))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .add_plugins(
            BoidsPlugins::new(FixedUpdate)
                .with_params(FlockParams::sheep())
                .with_bounds(SimulationBounds::turn_back(Rect::from_center_size(
                    Vec2::ZERO,
                    Vec2::new(1200.0, 870.0),
                ))),
        )
        .add_plugins(BoidsRenderPlugin::new(FlockLook::sheep()))
        .add_plugins(BoidsEguiPlugin::new("Sheep", Preset::Sheep).without_presets())
        .add_plugins(CapturePlugin)
        .insert_resource(FlockPopulation {
            region: Some(Rect::from_center_size(
                Vec2::new(100.0, 0.0),
                Vec2::new(420.0, 300.0),
            )),
            ..FlockPopulation::new(180, 3)
        })
        .add_systems(Startup, place_trees)
        .run();
}

/// Trees and boulders on the meadow.
fn place_trees(mut commands: Commands) {
    for (x, y, radius) in [
        (-380.0, 160.0, 38.0),
        (-420.0, -180.0, 26.0),
        (380.0, 200.0, 30.0),
        (300.0, -220.0, 44.0),
    ] {
        commands.spawn((Obstacle::round(radius), Position(Vec2::new(x, y))));
    }
}
