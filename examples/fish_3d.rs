//! A school in a glass tank with rocks and a sunken wreck, and a shark: the school turns along the glass, flows round the rocks and the wreck and opens round the shark; drag to swim round the tank, right-drag to pan, scroll to zoom; the settings panel edits the school live.

mod common;
mod stage3d;

use bevy::prelude::*;
use bevy_murmuration::d3::egui::Preset;
use bevy_murmuration::d3::prelude::*;
use bevy_murmuration::d3::sim::bounds::Edges;

use common::CapturePlugin;
use stage3d::{Sky, Stage};

/// The tank: 1,200 long, 500 high, 700 deep, its floor at y = 0.
const TANK: Vec3 = Vec3::new(1200.0, 500.0, 700.0);

/// The rocks: where they are and how big.
const ROCKS: [(Vec3, f32); 4] = [
    (Vec3::new(-300.0, 40.0, -100.0), 110.0),
    (Vec3::new(200.0, 20.0, 150.0), 90.0),
    (Vec3::new(380.0, 60.0, -180.0), 70.0),
    (Vec3::new(-60.0, 250.0, 60.0), 45.0),
];

/// The water's colour, which far fish fade into.
const WATER: Color = Color::srgb(0.05, 0.22, 0.3);

/// How far the world reaches past the glass on each side: the glass walls, not the world's
/// edge, turn the school.
const BEYOND_GLASS: f32 = 150.0;

fn main() {
    let tank = Box3::from_center_size(
        Vec3::Y * TANK.y / 2.0,
        TANK + Vec3::new(2.0, 0.0, 2.0) * BEYOND_GLASS,
    );
    App::new()
        // Water far fish fade into, and light from the surface.
        .add_plugins(Stage {
            title: "bevy_murmuration: fish in 3D",
            air: WATER,
            fog: (700.0, 2600.0),
            ambient: (Color::srgb(0.6, 0.8, 0.9), 500.0),
            sun: (
                Color::srgb(0.85, 0.95, 1.0),
                5000.0,
                Vec3::new(0.3, 1.0, 0.2),
            ),
            camera: OrbitCamera {
                focus: Vec3::new(0.0, 220.0, 0.0),
                distance: 1250.0,
                yaw: 0.35,
                pitch: 0.18,
            },
            // Light from the surface above, the deep water below.
            sky: Sky {
                zenith: Color::srgb(0.25, 0.5, 0.6),
                glow: Color::srgb(0.3, 0.45, 0.45),
                disc: false,
            },
        })
        .add_plugins(
            BoidsPlugins::new(FixedUpdate)
                .with_params(FlockParams::fish())
                .with_bounds(SimulationBounds {
                    rect: tank,
                    edges: Edges::TurnBack {
                        margin: 90.0,
                        weight: 2.5,
                    },
                }),
        )
        .add_plugins(BoidsRenderPlugin::new(FlockLook::fish()))
        .add_plugins(BoidsEguiPlugin::new("Fish in 3D", Preset::Fish).without_presets())
        .add_plugins(CapturePlugin)
        .insert_resource(FlockPopulation {
            region: Some(Box3::from_center_size(
                Vec3::new(0.0, 300.0, 0.0),
                Vec3::new(500.0, 200.0, 300.0),
            )),
            ..FlockPopulation::new(1500, 3)
        })
        .add_systems(Startup, setup)
        .run();
}

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    params: Res<FlockParams>,
) {
    // The tank's sandy floor, and the seabed it stands on, reaching into the fog.
    let sand = |color: Color| StandardMaterial {
        base_color: color,
        perceptual_roughness: 1.0,
        ..default()
    };
    commands.spawn((
        Mesh3d(meshes.add(Plane3d::default().mesh().size(TANK.x, TANK.z))),
        MeshMaterial3d(materials.add(sand(Color::srgb(0.6, 0.55, 0.4)))),
        Transform::from_xyz(0.0, 0.5, 0.0),
    ));
    commands.spawn((
        Mesh3d(meshes.add(Plane3d::default().mesh().size(12_000.0, 12_000.0))),
        MeshMaterial3d(materials.add(sand(Color::srgb(0.3, 0.32, 0.28)))),
    ));
    // The tank's frame: dark bars along the top and bottom edges and up the corners.
    let frame = materials.add(StandardMaterial {
        base_color: Color::srgb(0.1, 0.12, 0.13),
        perceptual_roughness: 0.6,
        ..default()
    });
    let half = TANK / 2.0;
    let bar = 14.0;
    let mut bars = Vec::new();
    for y in [0.0, TANK.y] {
        for z in [-half.z, half.z] {
            bars.push((Vec3::new(0.0, y, z), Vec3::new(TANK.x + bar, bar, bar)));
        }
        for x in [-half.x, half.x] {
            bars.push((Vec3::new(x, y, 0.0), Vec3::new(bar, bar, TANK.z + bar)));
        }
    }
    for x in [-half.x, half.x] {
        for z in [-half.z, half.z] {
            bars.push((Vec3::new(x, half.y, z), Vec3::new(bar, TANK.y, bar)));
        }
    }
    for (at, size) in bars {
        commands.spawn((
            Name::new("Frame"),
            Mesh3d(meshes.add(Cuboid::from_size(size))),
            MeshMaterial3d(frame.clone()),
            Transform::from_translation(at),
        ));
    }
    let stone = materials.add(StandardMaterial {
        base_color: Color::srgb(0.32, 0.32, 0.3),
        perceptual_roughness: 0.9,
        ..default()
    });
    for (i, (at, radius)) in ROCKS.into_iter().enumerate() {
        commands.spawn((
            Name::new(format!("Rock {i}")),
            Obstacle::round(radius),
            Position(at),
            Mesh3d(meshes.add(Sphere::new(radius).mesh().ico(2).unwrap())),
            MeshMaterial3d(stone.clone()),
            Transform::from_translation(at),
        ));
    }
    // A shark cruising a little faster than the fish.
    // The glass: four walls the school turns along, seen through.
    let glass = materials.add(StandardMaterial {
        base_color: Color::srgba(0.7, 0.9, 1.0, 0.07),
        alpha_mode: AlphaMode::Blend,
        perceptual_roughness: 0.1,
        ..default()
    });
    for (at, size) in [
        (
            Vec3::new(half.x, half.y, 0.0),
            Vec3::new(8.0, TANK.y, TANK.z),
        ),
        (
            Vec3::new(-half.x, half.y, 0.0),
            Vec3::new(8.0, TANK.y, TANK.z),
        ),
        (
            Vec3::new(0.0, half.y, half.z),
            Vec3::new(TANK.x, TANK.y, 8.0),
        ),
        (
            Vec3::new(0.0, half.y, -half.z),
            Vec3::new(TANK.x, TANK.y, 8.0),
        ),
    ] {
        let wall = Cuboid::from_size(size);
        commands.spawn((
            Name::new("Glass"),
            Obstacle::from(wall),
            Mesh3d(meshes.add(wall.mesh())),
            MeshMaterial3d(glass.clone()),
            Transform::from_translation(at),
        ));
    }
    // A wreck on the floor: a hull lying askew, its cabin, and a broken mast.
    let timber = materials.add(StandardMaterial {
        base_color: Color::srgb(0.3, 0.22, 0.15),
        perceptual_roughness: 0.95,
        ..default()
    });
    let askew = Quat::from_rotation_y(0.6) * Quat::from_rotation_x(0.15);
    let hull_at = Vec3::new(80.0, 45.0, -60.0);
    for (name, offset, size, tilt) in [
        (
            "Hull",
            Vec3::ZERO,
            Vec3::new(380.0, 90.0, 120.0),
            Quat::IDENTITY,
        ),
        (
            "Cabin",
            Vec3::new(-80.0, 85.0, 0.0),
            Vec3::new(110.0, 80.0, 90.0),
            Quat::IDENTITY,
        ),
        (
            "Mast",
            Vec3::new(60.0, 150.0, 0.0),
            Vec3::new(16.0, 240.0, 16.0),
            Quat::from_rotation_z(-0.5),
        ),
    ] {
        let part = Cuboid::from_size(size);
        commands.spawn((
            Name::new(name),
            Obstacle::from(part),
            Mesh3d(meshes.add(part.mesh())),
            MeshMaterial3d(timber.clone()),
            Transform::from_translation(hull_at + askew * offset).with_rotation(askew * tilt),
        ));
    }
    commands.spawn((
        Name::new("Shark"),
        Hunter::default(),
        MaxSpeed(params.max_speed * 1.1),
        Position(Vec3::new(-450.0, 200.0, 200.0)),
        Velocity(Vec3::new(60.0, 0.0, 0.0)),
    ));
}
