//! The 3D drawing: every boid and hunter gets a low-poly mesh made in code ([`shapes`]), one
//! mesh for every boid and one material per colour ([`FlockLook::paints`]: by species, flock, a
//! few bands of heading, or one colour, as [`ColourMode`](crate::ColourMode) says), so that Bevy
//! draws the flock in a few instanced batches; the simulation turns each boid along its velocity,
//! and [`bank`] rolls it into its turns; an [`OrbitCamera`] looks at the flock (drag to turn
//! round it, right-drag to pan, wheel to zoom); the mouse is a predator where its ray crosses the
//! level of the camera's focus ([`pointer`]).

pub(crate) mod bank;
pub(crate) mod camera;
#[cfg(feature = "debug")]
pub(crate) mod debug;
mod looks;
pub(crate) mod pointer;
pub(crate) mod shapes;

use bevy::prelude::*;
use bevy::transform::TransformSystems;
use murmuration_sim::internal::FlockId;
use murmuration_sim::prelude::*;
use murmuration_sim::step::TransformSync;

use crate::RenderSystems;
use crate::look::{BodyShape, FlockLook};

pub use bank::Bank;
pub use camera::OrbitCamera;
pub use pointer::HELP;

/// How far round the vertical (+y) a heading points, as a share of a full turn (0 to 1), seen
/// from above: +x is 0, turning toward -z, as the 2D drawing's hue turns from +x toward +y.
pub(crate) fn heading_turns(v: Vec3) -> f32 {
    (-v.z).atan2(v.x) / core::f32::consts::TAU
}

/// The 3D side of [`BoidsRenderPlugin`](crate::BoidsRenderPlugin): the meshes and materials,
/// dressing and painting each boid and hunter, and banking.
pub(crate) fn build(app: &mut App) {
    app.register_type::<BodyShape>()
        .add_systems(Startup, make_assets)
        .add_systems(
            Update,
            (
                repaint_on_look_change,
                dress_boids,
                paint_boids,
                dress_hunters,
            )
                .chain()
                .in_set(RenderSystems::Draw),
        )
        .add_systems(
            PostUpdate,
            bank::bank
                .after(TransformSync)
                .before(TransformSystems::Propagate),
        );
}

/// Nothing to finish in 3D: the meshes are made at `Startup`, and boids spawned before are
/// dressed when they are first seen.
pub(crate) fn finish(_: &mut App) {}

/// The meshes and materials every boid of a kind shares (one instanced batch per mesh and
/// material).
#[derive(Resource, Debug, Clone)]
struct Assets3d {
    boid: Handle<Mesh>,
    hunter: Handle<Mesh>,
    /// One per colour of [`FlockLook::paints`].
    paints: Vec<Handle<StandardMaterial>>,
    hunter_material: Handle<StandardMaterial>,
    /// The shape and length the boid and hunter meshes were made with.
    bodies: [(BodyShape, f32); 2],
}

/// A lit, double-sided material of `color`: wings and fins are single sheets.
fn body_material(color: Color) -> StandardMaterial {
    StandardMaterial {
        base_color: color,
        perceptual_roughness: 0.8,
        double_sided: true,
        cull_mode: None,
        ..default()
    }
}

fn make_assets(
    mut commands: Commands,
    look: Res<FlockLook>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let paints = look
        .paints()
        .into_iter()
        .map(|c| materials.add(body_material(c)))
        .collect();
    commands.insert_resource(Assets3d {
        boid: meshes.add(shapes::body(look.shape, look.boid_length)),
        hunter: meshes.add(shapes::body(look.hunter_shape, look.hunter_length)),
        paints,
        hunter_material: materials.add(body_material(look.hunter)),
        bodies: [
            (look.shape, look.boid_length),
            (look.hunter_shape, look.hunter_length),
        ],
    });
}

/// Which of the look's paints a boid wears now (`usize::MAX`: none yet).
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
struct Paint(usize);

/// Gives each new boid its kind's mesh; [`paint_boids`] gives it its colour.
fn dress_boids(
    mut commands: Commands,
    assets: Option<Res<Assets3d>>,
    boids: Query<Entity, (Added<Boid>, Without<Hunter>)>,
) {
    let Some(assets) = assets else { return };
    for entity in &boids {
        commands.entity(entity).insert((
            Mesh3d(assets.boid.clone()),
            MeshMaterial3d(assets.paints[0].clone()),
            Paint(usize::MAX),
            Bank::default(),
        ));
    }
}

/// When the look changes, makes its colours and bodies again and has every boid painted anew.
fn repaint_on_look_change(
    look: Res<FlockLook>,
    assets: Option<ResMut<Assets3d>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut painted: Query<&mut Paint>,
) {
    let Some(mut assets) = assets else { return };
    if !look.is_changed() || look.is_added() {
        return;
    }
    let paints = look.paints();
    if paints.len() == assets.paints.len() {
        for (handle, color) in assets.paints.iter().zip(paints) {
            if let Some(mut material) = materials.get_mut(handle) {
                material.base_color = color;
            }
        }
    } else {
        assets.paints = paints
            .into_iter()
            .map(|c| materials.add(body_material(c)))
            .collect();
    }
    if let Some(mut material) = materials.get_mut(&assets.hunter_material) {
        material.base_color = look.hunter;
    }
    let bodies = [
        (look.shape, look.boid_length),
        (look.hunter_shape, look.hunter_length),
    ];
    if assets.bodies != bodies {
        assets.bodies = bodies;
        for (handle, (shape, length)) in [assets.boid.clone(), assets.hunter.clone()]
            .into_iter()
            .zip(bodies)
        {
            if let Some(mut mesh) = meshes.get_mut(&handle) {
                *mesh = shapes::body(shape, length);
            }
        }
    }
    for mut paint in &mut painted {
        paint.0 = usize::MAX;
    }
}

/// Gives every boid the material of its colour ([`FlockLook::paint`]): by species or flock once,
/// by heading whenever it turns into another band of hue.
fn paint_boids(
    look: Res<FlockLook>,
    assets: Option<Res<Assets3d>>,
    mut boids: Query<(
        &Species,
        &FlockId,
        &Velocity,
        &mut Paint,
        &mut MeshMaterial3d<StandardMaterial>,
    )>,
) {
    let Some(assets) = assets else { return };
    for (species, flock, velocity, mut paint, mut material) in &mut boids {
        let wanted = look.paint(species.0, *flock, heading_turns(velocity.0));
        if paint.0 != wanted
            && let Some(handle) = assets.paints.get(wanted)
        {
            paint.0 = wanted;
            material.0 = handle.clone();
        }
    }
}

/// Gives each new hunter the hunter's mesh and material.
fn dress_hunters(
    mut commands: Commands,
    assets: Option<Res<Assets3d>>,
    hunters: Query<Entity, Added<Hunter>>,
) {
    let Some(assets) = assets else { return };
    for entity in &hunters {
        commands.entity(entity).insert((
            Mesh3d(assets.hunter.clone()),
            MeshMaterial3d(assets.hunter_material.clone()),
            Bank::default(),
        ));
    }
}

#[cfg(test)]
mod tests {
    use bevy::math::Vec3;

    use super::heading_turns;

    /// The heading's share of a turn is its angle round the vertical, seen from above: +x none,
    /// -z a quarter, whatever the climb; just short of a full turn is nearly one.
    #[test]
    fn heading_turns_round_the_vertical() {
        let turns = |x, y, z| heading_turns(Vec3::new(x, y, z)).rem_euclid(1.0);
        assert_eq!(turns(1.0, 0.0, 0.0), 0.0);
        assert!(
            (turns(0.0, 0.0, -1.0) - 0.25).abs() < 1e-6,
            "-z: a quarter turn"
        );
        assert_eq!(turns(1.0, 5.0, 0.0), 0.0, "climbing does not turn it");
        assert!(turns(1.0, 0.0, 0.01) > 0.99, "just short of a full turn");
    }
}
