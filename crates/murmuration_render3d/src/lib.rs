//! Drawing for [bevy_murmuration](https://crates.io/crates/bevy_murmuration)'s 3D simulation
//! (`murmuration_sim3d`): every boid and hunter gets a low-poly mesh made in code ([`shapes`]),
//! one mesh for every boid and one material per colour ([`FlockLook::paints`]: by species, flock,
//! a few bands of heading, or one colour, as [`ColourMode`] says), so that Bevy draws the flock
//! in a few instanced batches; the simulation turns each boid along its velocity, and [`bank`]
//! rolls it into its turns; an [`OrbitCamera`] looks at the flock (drag to turn round it,
//! right-drag to pan, wheel to zoom); the mouse is a predator the flock flees ([`controls`],
//! [`pointer`](mod@pointer)); with feature `debug`, the 2D drawing's gizmo overlays in 3D
//! (`debug`, the same file as the 2D crate's).
//!
//! ```no_run
//! use bevy::prelude::*;
//! use murmuration_render3d::prelude::*;
//! use murmuration_sim3d::prelude::*;
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, BoidsPlugins::default()))
//!     .add_plugins(BoidsRender3dPlugin::new(FlockLook::starlings()))
//!     .run();
//! ```
#![warn(missing_docs)]

// The files shared with the 2D drawing name the simulation `murmuration_sim`.
extern crate murmuration_sim3d as murmuration_sim;

pub mod bank;
pub mod camera;
#[path = "../../murmuration_render/src/colour_mode.rs"]
mod colour_mode;
#[path = "../../murmuration_render/src/controls.rs"]
pub mod controls;
#[cfg(feature = "debug")]
#[path = "../../murmuration_render/src/debug.rs"]
pub mod debug;
#[cfg(feature = "debug")]
mod debug_draw;
pub mod look;
pub mod pointer;
pub mod shapes;

use bevy::prelude::*;
use murmuration_sim3d::{Boid, FlockId, Hunter, Species, TransformSync, Velocity};

pub use bank::Bank;
pub use camera::OrbitCamera;
pub use colour_mode::ColourMode;
pub use controls::{
    BoidsControlsPlugin, ControlledHunter, FlockControls, InputBlocked, PointerPosition,
    PointerProxy, PointerRole, ViewInsets,
};
pub use look::{BodyShape, FlockLook, HEADING_HUES};
pub use pointer::HELP;

/// `use murmuration_render3d::prelude::*;` brings the plugin and what configures it.
pub mod prelude {
    pub use crate::{
        Bank, BodyShape, BoidsRender3dPlugin, ColourMode, FlockControls, FlockLook, OrbitCamera,
        PointerRole,
    };
}

/// The systems that move things on screen, in `Update`.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RenderSystems {
    /// Fit the view beside the UI ([`ViewInsets`]).
    View,
    /// Act on input: the orbit camera, the pointer as a predator or an attractor, hunters, keys
    /// ([`controls`]).
    Controls,
    /// Dress and colour the boids, draw overlays.
    Draw,
}

/// Draws the 3D flock: a mesh for every [`Boid`] and [`Hunter`] as it appears, coloured as the
/// [`FlockLook`] says, banking, the [`OrbitCamera`] controls, the mouse as a predator
/// ([`pointer`](mod@pointer)), and with feature `debug` the overlays (`debug::FlockDebugPlugin`).
#[derive(Debug, Clone)]
pub struct BoidsRender3dPlugin {
    /// How the flock looks.
    pub look: FlockLook,
    /// Whether the mouse is a predator (on by default; without it, [`FlockControls::pointer`]
    /// starts [`PointerRole::Off`]).
    pub pointer_predator: bool,
}

impl BoidsRender3dPlugin {
    /// The plugin drawing the flock as `look` says, the mouse a predator.
    pub fn new(look: FlockLook) -> Self {
        Self {
            look,
            pointer_predator: true,
        }
    }

    /// The same, without the mouse as a predator.
    pub fn without_pointer_predator(self) -> Self {
        Self {
            pointer_predator: false,
            ..self
        }
    }
}

impl Plugin for BoidsRender3dPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(self.look.clone())
            .register_type::<FlockLook>()
            .register_type::<ColourMode>()
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
        #[cfg(feature = "debug")]
        app.add_plugins(debug::FlockDebugPlugin);
        if !self.pointer_predator {
            app.insert_resource(FlockControls {
                pointer: PointerRole::Off,
                ..default()
            });
        }
        app.add_plugins(BoidsControlsPlugin);
    }
}

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
        let wanted = look.paint(species.0, *flock, velocity.0);
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
