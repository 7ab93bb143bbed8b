//! Hawks hunting a flock: each hunter chases the nearest bird through the spatial hash, catches it, rests and goes again, while the flock splits around it and closes up behind.

mod common;

use bevy::prelude::*;
use bevy_murmuration::egui::Preset;
use bevy_murmuration::prelude::*;
use bevy_murmuration::render::ColourMode;
use bevy_murmuration::render::FlockControls;

use common::CapturePlugin;

const HELP: &str = "Hunters chase the flock   + / -: more or fewer hunters   Mouse: a second \
     predator   Space: pause   R: reset   H: hide panel";

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_murmuration: hunter".into(),
                resolution: (1280, 720).into(),
                ..default()
            }),
            ..default()
        }))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .add_plugins(
            BoidsPlugins::new(FixedUpdate).with_bounds(SimulationBounds::wrap(
                Rect::from_center_size(Vec2::ZERO, Vec2::new(1400.0, 1020.0)),
            )),
        )
        .add_plugins(BoidsRenderPlugin::new(FlockLook {
            colour: ColourMode::Single,
            ..FlockLook::default()
        }))
        .add_plugins(
            BoidsEguiPlugin::new("Hunter", Preset::Tutorial)
                .without_presets()
                .with_help(HELP),
        )
        .add_plugins(CapturePlugin)
        .insert_resource(FlockPopulation::new(1200, 11))
        .insert_resource(CatchRules::default())
        .insert_resource(FlockControls {
            hunters: 2,
            ..default()
        })
        .add_systems(Update, hunter_keys)
        .run();
}

/// `+` and `-` add and remove hunters.
fn hunter_keys(keys: Res<ButtonInput<KeyCode>>, mut controls: ResMut<FlockControls>) {
    if keys.any_just_pressed([KeyCode::Equal, KeyCode::NumpadAdd]) {
        controls.hunters = (controls.hunters + 1).min(8);
    }
    if keys.any_just_pressed([KeyCode::Minus, KeyCode::NumpadSubtract]) {
        controls.hunters = controls.hunters.saturating_sub(1);
    }
}
