//! What the two 3D examples share: [`Stage`], the window, the light and the camera a flock in 3D
//! is seen through, with a far fog and a [`Sky`] round the whole scene whose horizon is the
//! fog's colour, so that far boids and the far ground fade into the sky or the water, and no
//! edge of the scene ends in the void.

use bevy::camera::visibility::NoFrustumCulling;
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::mesh::VertexAttributeValues;
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
    /// The sky (or the water's light) round the scene.
    pub sky: Sky,
}

/// The sky round a 3D scene, seen from inside a far sphere that no fog reaches: the air's colour
/// at the horizon and below (where the fogged ground meets it), `zenith` overhead, a glow of
/// `glow` round the sun and, where `disc`, the sun's disc.
#[derive(Clone, Copy)]
pub struct Sky {
    /// The colour overhead.
    pub zenith: Color,
    /// The light round the sun.
    pub glow: Color,
    /// Whether the sun's disc shows.
    pub disc: bool,
}

/// The sky sphere's radius: far beyond everything else, and beyond the fog's end.
const SKY_RADIUS: f32 = 30_000.0;

impl Sky {
    /// The sky's colour looking along `dir` (a unit vector), with the air's colour `air` and
    /// the sun toward `sun` (a unit vector).
    fn colour(&self, dir: Vec3, air: Color, sun: Vec3) -> LinearRgba {
        let (air, zenith, glow) = (
            LinearRgba::from(air),
            LinearRgba::from(self.zenith),
            LinearRgba::from(self.glow),
        );
        let up = dir.y.max(0.0).powf(0.5);
        let toward = dir.dot(sun).max(0.0);
        // A wide warm band along the horizon on the sun's side, and a tighter halo.
        let halo = toward.powi(6) * (1.0 - up) * 0.55 + toward.powi(48) * 0.6;
        air * (1.0 - up) + zenith * up + glow * halo
    }

    /// Spawns the sky round a scene with the air's colour `air` and the sun toward `sun`.
    fn spawn(
        &self,
        commands: &mut Commands,
        meshes: &mut Assets<Mesh>,
        materials: &mut Assets<StandardMaterial>,
        air: Color,
        sun: Vec3,
    ) {
        let sun = sun.normalize();
        let mut mesh = Sphere::new(SKY_RADIUS).mesh().uv(160, 80);
        let colours: Vec<[f32; 4]> = match mesh.attribute(Mesh::ATTRIBUTE_POSITION) {
            Some(VertexAttributeValues::Float32x3(positions)) => positions
                .iter()
                .map(|p| {
                    self.colour(Vec3::from(*p).normalize(), air, sun)
                        .to_f32_array()
                })
                .collect(),
            _ => unreachable!("a sphere's positions are Float32x3"),
        };
        mesh.insert_attribute(Mesh::ATTRIBUTE_COLOR, colours);
        // Seen from inside: no face culled, no light, no fog.
        let inside = |color: Color| StandardMaterial {
            base_color: color,
            unlit: true,
            fog_enabled: false,
            cull_mode: None,
            ..default()
        };
        commands.spawn((
            Name::new("Sky"),
            Mesh3d(meshes.add(mesh)),
            MeshMaterial3d(materials.add(inside(Color::WHITE))),
            NoFrustumCulling,
        ));
        if self.disc {
            // The sun's disc, about a degree across, just inside the sky.
            let disc = LinearRgba::from(self.glow) * 2.0 + LinearRgba::WHITE;
            commands.spawn((
                Name::new("Sun"),
                Mesh3d(meshes.add(Sphere::new(SKY_RADIUS * 0.012).mesh().ico(3).unwrap())),
                MeshMaterial3d(materials.add(inside(disc.into()))),
                Transform::from_translation(sun * SKY_RADIUS * 0.95),
                NoFrustumCulling,
            ));
        }
    }
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
            sky,
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
        .add_systems(
            Startup,
            move |mut commands: Commands,
                  mut meshes: ResMut<Assets<Mesh>>,
                  mut materials: ResMut<Assets<StandardMaterial>>| {
                sky.spawn(&mut commands, &mut meshes, &mut materials, air, sun.2);
            },
        )
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
