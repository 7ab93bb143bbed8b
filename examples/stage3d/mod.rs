//! What the two 3D examples share: [`Stage`], the window, the light and the camera a flock in 3D
//! is seen through, with a far fog and a background of one colour, so that far boids fade into
//! the sky or the water.

use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::prelude::*;
use bevy_murmuration::d3::prelude::*;

/// A 3D example's stage: a 1280 x 720 window, 60 steps a second, the air (or water) as the
/// background and the fog, an ambient light, a sun, and an [`OrbitCamera`].
#[derive(Clone, Copy)]
pub struct Stage {
    /// The window's title.
    pub title: &'static str,
    /// The colour of the air or the water: the background, and the fog far boids fade into.
    pub air: Color,
    /// Where the fog begins and where it hides everything, world units from the camera.
    pub fog: (f32, f32),
    /// The ambient light's colour and brightness.
    pub ambient: (Color, f32),
    /// The sun's colour and illuminance, and the direction it shines from.
    pub sun: (Color, f32, Vec3),
    /// Where the camera looks from.
    pub camera: OrbitCamera,
}

impl Plugin for Stage {
    fn build(&self, app: &mut App) {
        let Stage {
            title,
            air,
            fog,
            ambient,
            sun,
            camera,
        } = *self;
        app.add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: title.into(),
                resolution: (1280, 720).into(),
                ..default()
            }),
            ..default()
        }))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .insert_resource(ClearColor(air))
        .insert_resource(GlobalAmbientLight {
            color: ambient.0,
            brightness: ambient.1,
            ..default()
        })
        .add_systems(Startup, move |mut commands: Commands| {
            commands.spawn((
                Name::new("Camera"),
                Camera3d::default(),
                Tonemapping::ReinhardLuminance,
                camera,
                DistanceFog {
                    color: air,
                    falloff: FogFalloff::Linear {
                        start: fog.0,
                        end: fog.1,
                    },
                    ..default()
                },
            ));
            commands.spawn((
                DirectionalLight {
                    color: sun.0,
                    illuminance: sun.1,
                    ..default()
                },
                Transform::from_translation(sun.2).looking_at(Vec3::ZERO, Vec3::Y),
            ));
        });
    }
}
