//! A strategy game's units in a small base: drag to select, Shift to add, right-click to send them; they route round the buildings, through the gates and past the fence, spread into a neat crowd around the point, and stop without jitter. O draws their routes.

mod common;

use bevy::prelude::*;
use bevy_murmuration::bounds::Edges;
use bevy_murmuration::egui::Preset;
use bevy_murmuration::prelude::*;
use bevy_murmuration::render::FlockControls;
use bevy_murmuration::render::PointerRole;
use bevy_murmuration::render::debug::FlockDebug;

use common::CapturePlugin;

const HELP: &str = "Left click / drag: select   Shift: add   Right click: move   O: routes   \
     S: separation on / off   Space: pause   H: hide panel";

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
        .insert_resource(FlockDebug {
            routes: true,
            ..default()
        })
        .add_systems(Startup, (spawn_units, build_base))
        .add_systems(PostStartup, first_order)
        .add_systems(Update, (toggle_separation, toggle_routes))
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

/// The first squad starts selected and on its way into the base, behind the hall, so the field
/// is not still when the window opens; click anywhere to take over.
fn first_order(mut orders: MessageWriter<UnitCommand>) {
    orders.write(UnitCommand::SelectIn {
        rect: Rect::new(-440.0, -220.0, -250.0, -130.0),
        add: false,
    });
    orders.write(UnitCommand::MoveTo {
        target: Vec2::new(330.0, 40.0),
    });
}

/// A walled base with two gates, three buildings inside (one turned, one an L), a fence line
/// across the field and two rocks.
fn build_base(mut commands: Commands) {
    let mut wall = |from: Vec2, to: Vec2| {
        let (middle, d) = ((from + to) * 0.5, to - from);
        let size = Vec2::new(d.x.abs().max(14.0), d.y.abs().max(14.0));
        commands.spawn((
            Name::new("Wall"),
            Obstacle::from(Rectangle::from_size(size)),
            Position(middle),
        ));
    };
    // The base runs from x -60 to 480 and y -260 to 260; a gate in the west wall and one in
    // the north wall.
    wall(Vec2::new(-60.0, -260.0), Vec2::new(480.0, -260.0));
    wall(Vec2::new(480.0, -260.0), Vec2::new(480.0, 260.0));
    wall(Vec2::new(-60.0, 260.0), Vec2::new(170.0, 260.0));
    wall(Vec2::new(250.0, 260.0), Vec2::new(480.0, 260.0));
    wall(Vec2::new(-60.0, -260.0), Vec2::new(-60.0, -40.0));
    wall(Vec2::new(-60.0, 40.0), Vec2::new(-60.0, 260.0));
    // The hall, in the way from the west gate.
    commands.spawn((
        Name::new("Hall"),
        Obstacle::from(Rectangle::new(90.0, 220.0)),
        Position(Vec2::new(130.0, 20.0)),
    ));
    // A barracks turned a little, by the north gate.
    commands.spawn((
        Name::new("Barracks"),
        Obstacle::from(Rectangle::new(130.0, 60.0)),
        Transform::from_xyz(340.0, 170.0, 0.0).with_rotation(Quat::from_rotation_z(0.35)),
    ));
    // An L-shaped depot in the south-east corner.
    let depot = [
        Vec2::new(0.0, 0.0),
        Vec2::new(140.0, 0.0),
        Vec2::new(140.0, 50.0),
        Vec2::new(50.0, 50.0),
        Vec2::new(50.0, 120.0),
        Vec2::new(0.0, 120.0),
    ];
    commands.spawn((
        Name::new("Depot"),
        Obstacle::from(Polygon::new(depot)),
        Position(Vec2::new(270.0, -220.0)),
    ));
    // A fence line across the north-west field.
    let fence = [
        Vec2::new(-520.0, 170.0),
        Vec2::new(-380.0, 230.0),
        Vec2::new(-240.0, 190.0),
        Vec2::new(-150.0, 300.0),
    ];
    commands.spawn((
        Name::new("Fence"),
        Obstacle::from(Polyline2d::new(fence)),
        Position(Vec2::ZERO),
    ));
    for (x, y, radius) in [(-230.0, -150.0, 45.0), (-300.0, 30.0, 30.0)] {
        commands.spawn((Obstacle::round(radius), Position(Vec2::new(x, y))));
    }
}

/// O shows and hides the units' routes.
fn toggle_routes(keys: Res<ButtonInput<KeyCode>>, mut debug: ResMut<FlockDebug>) {
    if keys.just_pressed(KeyCode::KeyO) {
        debug.routes = !debug.routes;
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
