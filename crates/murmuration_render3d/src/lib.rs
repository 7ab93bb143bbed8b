//! Drawing for [bevy_murmuration](https://crates.io/crates/bevy_murmuration)'s 3D simulation
//! (`murmuration_sim3d`): every boid and hunter gets a low-poly mesh made in code ([`shapes`]),
//! one mesh and one material per species so that Bevy draws each kind in one instanced batch;
//! the simulation turns it along its velocity, and [`bank`] rolls it into its turns; an
//! [`OrbitCamera`] looks at the flock (drag to turn round it, wheel to zoom); the mouse is a
//! predator the flock flees ([`pointer`](mod@pointer)).
//!
//! ```no_run
//! use bevy::prelude::*;
//! use murmuration_render3d::prelude::*;
//! use murmuration_sim3d::prelude::*;
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, BoidsPlugins::default()))
//!     .add_plugins(BoidsRender3dPlugin::new(FlockLook3d::starlings()))
//!     .run();
//! ```
#![warn(missing_docs)]

pub mod bank;
pub mod camera;
pub mod look;
pub mod pointer;
pub mod shapes;

use bevy::prelude::*;
use murmuration_sim3d::{Boid, Hunter, Species, TransformSync};

pub use bank::Bank;
pub use camera::OrbitCamera;
pub use look::{BodyShape, FlockLook3d};
pub use pointer::PointerPredator;

/// `use murmuration_render3d::prelude::*;` brings the plugin and what configures it.
pub mod prelude {
    pub use crate::{
        Bank, BodyShape, BoidsRender3dPlugin, FlockLook3d, OrbitCamera, PointerPredator,
    };
}

/// Draws the 3D flock: a mesh for every [`Boid`] and [`Hunter`] as it appears, banking, the
/// [`OrbitCamera`] controls, and the mouse as a predator ([`pointer`](mod@pointer)).
#[derive(Debug, Clone)]
pub struct BoidsRender3dPlugin {
    /// How the flock looks.
    pub look: FlockLook3d,
    /// Whether the mouse is a predator (on by default).
    pub pointer_predator: bool,
}

impl BoidsRender3dPlugin {
    /// The plugin drawing the flock as `look` says, the mouse a predator.
    pub fn new(look: FlockLook3d) -> Self {
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
            .add_systems(Startup, make_assets)
            .add_systems(Update, (dress_boids, dress_hunters, camera::orbit))
            .add_systems(
                PostUpdate,
                bank::bank
                    .after(TransformSync)
                    .before(TransformSystems::Propagate),
            );
        if self.pointer_predator {
            app.add_systems(Update, pointer::follow_pointer);
        }
    }
}

/// The meshes and materials every boid of a kind shares (one batch each).
#[derive(Resource, Debug, Clone)]
struct Assets3d {
    boid: Handle<Mesh>,
    hunter: Handle<Mesh>,
    /// One per colour of the look, for species `s` the `s % len`-th.
    species: Vec<Handle<StandardMaterial>>,
    hunter_material: Handle<StandardMaterial>,
}

fn make_assets(
    mut commands: Commands,
    look: Res<FlockLook3d>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let material = |color: Color| StandardMaterial {
        base_color: color,
        perceptual_roughness: 0.8,
        // The wings and fins are single sheets: lit and drawn from both sides.
        double_sided: true,
        cull_mode: None,
        ..default()
    };
    let species = look
        .colors
        .iter()
        .map(|&c| materials.add(material(c)))
        .collect();
    commands.insert_resource(Assets3d {
        boid: meshes.add(shapes::body(look.shape, look.length)),
        hunter: meshes.add(shapes::body(look.hunter_shape, look.hunter_length)),
        species,
        hunter_material: materials.add(material(look.hunter_color)),
    });
}

/// Gives each new boid its kind's mesh and its species' material.
fn dress_boids(
    mut commands: Commands,
    assets: Option<Res<Assets3d>>,
    boids: Query<(Entity, &Species), (Added<Boid>, Without<Hunter>)>,
) {
    let Some(assets) = assets else { return };
    for (entity, species) in &boids {
        let material = &assets.species[usize::from(species.0) % assets.species.len().max(1)];
        commands.entity(entity).insert((
            Mesh3d(assets.boid.clone()),
            MeshMaterial3d(material.clone()),
            Bank::default(),
        ));
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
