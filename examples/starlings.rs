//! A murmuration of starlings at dusk: thousands of fast birds in one cloud that stretches and folds, splits around a hawk and the mouse and closes up behind them.

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
                title: "bevy_murmuration: starlings".into(),
                resolution: (1280, 720).into(),
                ..default()
            }),
            ..default()
        }))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .add_plugins(
            BoidsPlugins::new(FixedUpdate)
                // A gentle pull toward the roost keeps the murmuration one wheeling cloud.
                .with_params(FlockParams {
                    seek_weight: 0.2,
                    ..FlockParams::starlings()
                })
                // A sky wide enough for the cloud: the birds keep about two body lengths apart,
                // so 3,000 of them cover about a quarter of it.
                .with_bounds(SimulationBounds::wrap(Rect::from_center_size(
                    Vec2::ZERO,
                    Vec2::new(2400.0, 1740.0),
                ))),
        )
        .add_plugins(BoidsRenderPlugin::new(FlockLook::starlings()))
        .add_plugins(BoidsEguiPlugin::new("Starlings", Preset::Starlings).without_presets())
        .add_plugins(CapturePlugin)
        // A hawk hunts the cloud (without catching), so it splits and closes up again.
        .insert_resource(FlockControls {
            hunters: 1,
            hunter_speed: 200.0,
            ..default()
        })
        // One cloud to start with, in the middle of the sky.
        .insert_resource(FlockPopulation {
            region: Some(Rect::from_center_size(Vec2::ZERO, Vec2::new(600.0, 400.0))),
            ..FlockPopulation::new(3000, 1)
        })
        .add_systems(Startup, roost)
        .run();
}

/// The reed bed the starlings wheel over before they settle: an attractor in the middle of the
/// sky. (Tick "mouse attracts" in the panel and the birds follow whichever is nearer.)
fn roost(mut commands: Commands) {
    commands.spawn((Name::new("Roost"), Attractor, Position(Vec2::ZERO)));
}
