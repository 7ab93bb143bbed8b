//! A strategy game's units: drag to select, Shift to add, right-click to send them; they spread into a neat crowd around the point, go round the rocks, and stop without jitter.

mod common;

use bevy::prelude::*;
use bevy_murmuration::bounds::Edges;
use bevy_murmuration::egui::Preset;
use bevy_murmuration::prelude::*;
use bevy_murmuration::render::FlockControls;
use bevy_murmuration::render::PointerRole;

use common::CapturePlugin;

const HELP: &str = "Left click / drag: select   Shift: add   Right click: move   S: separation \
     on / off   Space: pause   H: hide panel";

/// The units' separation weight while separation is on.
const SEPARATION: f32 = 1.6;

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_murmuration: strategy".into(),
                resolution: (1280, 720).into(),
                ..default()
            }),
            ..default()
        }))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .add_plugins(
            BoidsPlugins::new(FixedUpdate)
                .with_params(FlockParams {
                    max_speed: 90.0,
                    max_force: 300.0,
                    perception_radius: 40.0,
                    separation_distance: 20.0,
                    separation_weight: SEPARATION,
                    field_of_view: 360.0,
                    ..FlockParams::default()
                })
                .with_bounds(SimulationBounds {
                    rect: Rect::from_center_size(Vec2::ZERO, Vec2::new(1200.0, 870.0)),
                    edges: Edges::TurnBack {
                        margin: 20.0,
                        weight: 2.0,
                    },
                }),
        )
        .add_plugins(BoidsRenderPlugin::new(FlockLook {
            background: Color::srgb_u8(0x5d, 0x6b, 0x45),
            obstacle: Color::srgb_u8(0x8b, 0x83, 0x74),
            unit: Color::srgb_u8(0x2b, 0x6c, 0xb0),
            unit_size: 16.0,
            trails: false,
            ..FlockLook::default()
        }))
        .add_plugins(BoidsUnitControlsPlugin)
        .add_plugins(
            BoidsEguiPlugin::new("Strategy", Preset::Tutorial)
                .without_presets()
                .with_help(HELP),
        )
        .add_plugins(CapturePlugin)
        // The left button selects here: no pointer predator, no click-to-place obstacles.
        .insert_resource(FlockControls {
            pointer: PointerRole::Off,
            click_obstacles: false,
            ..default()
        })
        .add_systems(Startup, (spawn_units, place_rocks))
        .add_systems(PostStartup, first_order)
        .add_systems(Update, toggle_separation)
        .run();
}

/// Two squads of eighteen.
fn spawn_units(mut commands: Commands) {
    for (squad, origin) in [Vec2::new(-420.0, -200.0), Vec2::new(-420.0, 120.0)]
        .into_iter()
        .enumerate()
    {
        for i in 0..18 {
            let offset = Vec2::new((i % 6) as f32 * 26.0, (i / 6) as f32 * 26.0);
            commands.spawn((
                Name::new(format!("Unit {squad}.{i}")),
                Unit,
                Position(origin + offset),
            ));
        }
    }
}

/// The first squad starts selected and on its way across the field past the big rock, so the
/// field is not still when the window opens; click anywhere to take over.
fn first_order(mut orders: MessageWriter<UnitCommand>) {
    orders.write(UnitCommand::SelectIn {
        rect: Rect::new(-440.0, -220.0, -250.0, -130.0),
        add: false,
    });
    orders.write(UnitCommand::MoveTo {
        target: Vec2::new(300.0, -160.0),
    });
}

/// Rocks across the field, one right in the way of a straight march.
fn place_rocks(mut commands: Commands) {
    for (x, y, radius) in [(0.0, -150.0, 55.0), (60.0, 170.0, 40.0), (260.0, 0.0, 30.0)] {
        commands.spawn((Obstacle::round(radius), Position(Vec2::new(x, y))));
    }
}

/// S switches separation off and on, to show the stacking the tutorial describes.
fn toggle_separation(keys: Res<ButtonInput<KeyCode>>, mut params: ResMut<FlockParams>) {
    if keys.just_pressed(KeyCode::KeyS) {
        params.separation_weight = if params.separation_weight > 0.0 {
            0.0
        } else {
            SEPARATION
        };
    }
}
