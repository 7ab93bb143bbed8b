//! Everything in one place: switch between the starlings, fish and sheep presets live, tune every parameter, pick a predator, place obstacles, draw walls (right-drag) and turn on the debug overlays.

mod common;

use bevy::prelude::*;
use bevy_murmuration::egui::Preset;
use bevy_murmuration::prelude::*;
use bevy_murmuration::render::FlockControls;

use common::CapturePlugin;

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_murmuration: playground".into(),
                resolution: (1280, 720).into(),
                ..default()
            }),
            ..default()
        }))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .add_plugins(
            BoidsPlugins::new(FixedUpdate).with_bounds(SimulationBounds::turn_back(
                Rect::from_center_size(Vec2::ZERO, Vec2::new(1100.0, 800.0)),
            )),
        )
        .add_plugins(BoidsRenderPlugin::new(FlockLook::default()))
        .add_plugins(BoidsEguiPlugin::new("Playground", Preset::Tutorial))
        .add_plugins(CapturePlugin)
        .insert_resource(FlockPopulation::new(1200, 4).with_species(3))
        // Right-drag draws a wall, a right click on one removes it.
        .insert_resource(FlockControls {
            draw_walls: true,
            ..default()
        })
        .add_systems(Startup, place_obstacles)
        .run();
}

/// The tutorial's three obstacles, moved to this world's centre.
fn place_obstacles(mut commands: Commands) {
    for (x, y, radius) in [
        (-145.0, 50.0, 40.0),
        (145.0, 90.0, 30.0),
        (95.0, -20.0, 25.0),
    ] {
        commands.spawn((Obstacle::round(radius), Position(Vec2::new(x, y))));
    }
}
