//! A murmuration in three dimensions above a roost at dusk: thousands of low-poly birds banking through their turns, a hawk hunting among them (the panel counts its catches); drag to fly round it, right-drag to pan, scroll to zoom; the settings panel edits the flock live.

mod common;
mod stage3d;

use bevy::prelude::*;
use bevy_murmuration::d3::egui::Preset;
use bevy_murmuration::d3::prelude::*;
use bevy_murmuration::d3::sim::bounds::Edges;

use common::CapturePlugin;
use stage3d::{Sky, Stage};

/// The sky the birds fly in: 2,400 wide and deep, 800 high, above the ground at y = 0.
const SKY: Vec3 = Vec3::new(2400.0, 800.0, 2400.0);

/// Where the reed bed is, on the ground in the middle.
const ROOST: Vec3 = Vec3::new(0.0, 120.0, 0.0);

fn main() {
    let sky = Box3::from_center_size(Vec3::new(0.0, 120.0 + SKY.y / 2.0, 0.0), SKY);
    App::new()
        // A dusk sky, warm at the horizon and deep blue overhead, far birds fading into it, and
        // the low sun behind the cloud: the birds dark against it.
        .add_plugins(Stage {
            title: "bevy_murmuration: starlings in 3D",
            air: DUSK,
            fog: (900.0, 3600.0),
            ambient: (Color::srgb(0.7, 0.6, 0.7), 400.0),
            sun: (
                Color::srgb(1.0, 0.75, 0.55),
                6000.0,
                Vec3::new(-1.0, 0.35, -1.0),
            ),
            camera: OrbitCamera {
                focus: ROOST + Vec3::Y * 300.0,
                distance: 1500.0,
                yaw: 0.5,
                pitch: 0.12,
            },
            sky: Sky {
                zenith: Color::srgb(0.2, 0.24, 0.45),
                glow: Color::srgb(1.0, 0.6, 0.3),
                disc: true,
            },
        })
        .add_plugins(
            BoidsPlugins::new(FixedUpdate)
                // A gentle pull toward the roost keeps the murmuration one wheeling cloud.
                .with_params(FlockParams {
                    seek_weight: 0.2,
                    ..FlockParams::starlings()
                })
                // They turn back well before the edge of the sky.
                .with_bounds(SimulationBounds {
                    rect: sky,
                    edges: Edges::TurnBack {
                        margin: 200.0,
                        weight: 2.0,
                    },
                }),
        )
        .add_plugins(BoidsRenderPlugin::new(FlockLook::starlings()))
        .add_plugins(BoidsEguiPlugin::new("Starlings in 3D", Preset::Starlings).without_presets())
        .add_plugins(CapturePlugin)
        // One cloud to start with, above the roost.
        .insert_resource(FlockPopulation {
            region: Some(Box3::from_center_size(
                ROOST + Vec3::Y * 300.0,
                Vec3::new(600.0, 250.0, 600.0),
            )),
            ..FlockPopulation::new(3000, 1)
        })
        .insert_resource(CatchRules::default())
        .add_systems(Startup, setup)
        .run();
}

/// The evening sky's colour at the horizon, where the far fields fade into it.
const DUSK: Color = Color::srgb(0.72, 0.55, 0.55);

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    // The fields, and the dark reed bed the birds wheel over.
    commands.spawn((
        Mesh3d(meshes.add(Plane3d::default().mesh().size(12_000.0, 12_000.0))),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: Color::srgb(0.25, 0.27, 0.18),
            perceptual_roughness: 1.0,
            ..default()
        })),
    ));
    commands.spawn((
        Mesh3d(meshes.add(Cylinder::new(260.0, 30.0))),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: Color::srgb(0.18, 0.16, 0.1),
            perceptual_roughness: 1.0,
            ..default()
        })),
        Transform::from_xyz(0.0, 15.0, 0.0),
    ));
    commands.spawn((Name::new("Roost"), Attractor, Position(ROOST)));
    // A hawk hunts the cloud, so it splits and closes up again; now and then it catches a bird
    // (the panel counts them), which joins the flock again at the edge of the sky.
    commands.spawn((
        Name::new("Hawk"),
        Hunter::default(),
        MaxSpeed(200.0),
        Position(ROOST + Vec3::new(500.0, 450.0, 300.0)),
        Velocity(Vec3::new(-150.0, 0.0, 0.0)),
    ));
}
