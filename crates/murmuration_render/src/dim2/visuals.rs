//! Gives every boid, hunter, unit and obstacle its look when it appears, and recolours boids each
//! frame.
//!
//! All boids share one image (the look's [`SpriteShape`]: a dart, or a sheep) and so one batch:
//! Bevy draws tens of thousands of them in a single draw call, each sprite only carrying its own
//! colour and transform.

use bevy::prelude::*;
use murmuration_sim::internal::FlockId;
use murmuration_sim::prelude::*;

use super::obstacle_mesh::obstacle_mesh;
use super::view::FLOCK_LAYER;
use super::{heading_turns, shapes};
use crate::look::{FlockLook, SpriteShape};

/// The shared images and meshes.
#[derive(Resource, Debug, Clone)]
pub struct FlockShapes {
    /// The dart hunters, and boids of [`SpriteShape::Dart`], are drawn with.
    pub dart: Handle<Image>,
    /// The sheep boids of [`SpriteShape::Sheep`] are drawn with.
    pub sheep: Handle<Image>,
    /// The notched disc units are drawn with.
    pub unit: Handle<Image>,
    /// A ring, for order markers.
    pub ring: Handle<Image>,
    /// A circle of radius 1, scaled to each obstacle.
    pub circle: Handle<Mesh>,
    /// The obstacles' material.
    pub obstacle_material: Handle<ColorMaterial>,
}

/// Depth of each kind on the flock layer.
const OBSTACLE_Z: f32 = -1.0;
const BOID_Z: f32 = 0.0;
const HUNTER_Z: f32 = 1.0;

impl FlockShapes {
    /// Makes the shared images and meshes in `world` (which must have the asset collections
    /// of Bevy's image, mesh and sprite plugins).
    pub fn new(world: &mut World, look: &FlockLook) -> Self {
        let dart = world.resource_mut::<Assets<Image>>().add(shapes::dart());
        let sheep = world.resource_mut::<Assets<Image>>().add(shapes::sheep());
        let unit = world
            .resource_mut::<Assets<Image>>()
            .add(shapes::unit_disc());
        let ring = world.resource_mut::<Assets<Image>>().add(shapes::ring());
        let circle = world.resource_mut::<Assets<Mesh>>().add(Circle::new(1.0));
        let obstacle_material = world
            .resource_mut::<Assets<ColorMaterial>>()
            .add(ColorMaterial {
                color: look.obstacle,
                alpha_mode: bevy::sprite_render::AlphaMode2d::Blend,
                ..default()
            });
        Self {
            dart,
            sheep,
            unit,
            ring,
            circle,
            obstacle_material,
        }
    }

    /// The image of a boid drawn as `shape`.
    pub fn body(&self, shape: SpriteShape) -> &Handle<Image> {
        match shape {
            SpriteShape::Dart => &self.dart,
            SpriteShape::Sheep => &self.sheep,
        }
    }
}

/// A boid's (or, with `image` the dart, a hunter's) sprite, `scale` times a boid's size.
fn body_sprite(image: &Handle<Image>, look: &FlockLook, scale: f32, color: Color) -> Sprite {
    Sprite {
        image: image.clone(),
        color,
        custom_size: Some(Vec2::new(look.boid_length, look.boid_width) * scale),
        ..default()
    }
}

/// A new boid gets its sprite (the look's [`SpriteShape`]) on the flock layer.
pub(crate) fn on_add_boid(
    add: On<Add, Boid>,
    mut commands: Commands,
    shapes: Option<Res<FlockShapes>>,
    look: Res<FlockLook>,
    boids: Query<(&Species, &FlockId, &Velocity, Has<Arrive>, &Transform)>,
) {
    let Some(shapes) = shapes else { return };
    let Ok((species, flock, velocity, unit, transform)) = boids.get(add.entity) else {
        return;
    };
    let color = look.boid_colour(species.0, *flock, heading_turns(velocity.0));
    let sprite = if unit {
        unit_sprite(&shapes, &look)
    } else {
        body_sprite(shapes.body(look.sprite), &look, 1.0, color)
    };
    let mut transform = *transform;
    transform.translation.z = BOID_Z;
    commands
        .entity(add.entity)
        .insert((sprite, FLOCK_LAYER, transform));
}

fn unit_sprite(shapes: &FlockShapes, look: &FlockLook) -> Sprite {
    Sprite {
        image: shapes.unit.clone(),
        color: look.unit,
        custom_size: Some(Vec2::splat(look.unit_size)),
        ..default()
    }
}

/// A boid that becomes a unit (gets [`Arrive`]) is drawn as a notched disc.
pub(crate) fn on_add_arrive(
    add: On<Add, Arrive>,
    mut commands: Commands,
    shapes: Option<Res<FlockShapes>>,
    look: Res<FlockLook>,
    boids: Query<(), With<Boid>>,
) {
    if let (Some(shapes), Ok(())) = (shapes, boids.get(add.entity)) {
        commands
            .entity(add.entity)
            .insert(unit_sprite(&shapes, &look));
    }
}

/// A new hunter gets a large dart in the hunter colour.
pub(crate) fn on_add_hunter(
    add: On<Add, Hunter>,
    mut commands: Commands,
    shapes: Option<Res<FlockShapes>>,
    look: Res<FlockLook>,
    transforms: Query<&Transform>,
) {
    let Some(shapes) = shapes else { return };
    let mut transform = transforms.get(add.entity).copied().unwrap_or_default();
    transform.translation.z = HUNTER_Z;
    commands.entity(add.entity).insert((
        body_sprite(&shapes.dart, &look, look.hunter_scale, look.hunter),
        FLOCK_LAYER,
        transform,
    ));
}

/// A new obstacle gets its shape's mesh ([`obstacle_mesh`]).
pub(crate) fn on_add_obstacle(
    add: On<Add, Obstacle>,
    mut commands: Commands,
    shapes: Option<Res<FlockShapes>>,
    mut meshes: ResMut<Assets<Mesh>>,
    obstacles: Query<(&Obstacle, &Transform)>,
) {
    let Some(shapes) = shapes else { return };
    let Ok((obstacle, transform)) = obstacles.get(add.entity) else {
        return;
    };
    let mut transform = *transform;
    transform.translation.z = OBSTACLE_Z;
    let mesh = shape_mesh(obstacle, &shapes, &mut meshes, &mut transform);
    commands.entity(add.entity).insert((
        Mesh2d(mesh),
        MeshMaterial2d(shapes.obstacle_material.clone()),
        FLOCK_LAYER,
        transform,
    ));
}

/// The mesh an obstacle is drawn with, and its transform's scale set for it: the shared unit
/// circle scaled to a circle's radius, else a mesh of its own.
fn shape_mesh(
    obstacle: &Obstacle,
    shapes: &FlockShapes,
    meshes: &mut Assets<Mesh>,
    transform: &mut Transform,
) -> Handle<Mesh> {
    let (mesh, scale) = obstacle_mesh(obstacle.shape());
    transform.scale = Vec3::new(scale, scale, 1.0);
    match mesh {
        Some(mesh) => meshes.add(mesh),
        None => shapes.circle.clone(),
    }
}

/// An obstacle whose shape changed is drawn with its new shape.
pub(crate) fn reshape_obstacles(
    shapes: Option<Res<FlockShapes>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut obstacles: Query<(&Obstacle, &mut Transform, &mut Mesh2d), Changed<Obstacle>>,
) {
    let Some(shapes) = shapes else { return };
    for (obstacle, mut transform, mut mesh) in &mut obstacles {
        let handle = shape_mesh(obstacle, &shapes, &mut meshes, &mut transform);
        if mesh.0 != handle {
            mesh.0 = handle;
        }
    }
}

/// Colours every boid by the look's colour mode, sizes them, and follows look changes for
/// hunters, units and obstacles.
pub(crate) fn colour_boids(
    look: Res<FlockLook>,
    shapes: Option<Res<FlockShapes>>,
    mut boids: Query<
        (&Species, &FlockId, &Velocity, &mut Sprite, Has<Hunter>),
        (With<Boid>, Without<Arrive>),
    >,
    mut units: Query<&mut Sprite, (With<Boid>, With<Arrive>, Without<Hunter>)>,
    mut hunters: Query<&mut Sprite, (With<Hunter>, Without<Boid>)>,
    mut materials: ResMut<Assets<ColorMaterial>>,
) {
    let size = Vec2::new(look.boid_length, look.boid_width);
    // A boid that became a unit (or stopped being one) in the same frame it was spawned can end
    // up with the other image, depending on the order its observers ran: put it right.
    if let Some(shapes) = shapes.as_deref() {
        for mut sprite in &mut units {
            if sprite.image != shapes.unit {
                *sprite = unit_sprite(shapes, &look);
            }
        }
    }
    let image = shapes.as_deref().map(|s| s.body(look.sprite));
    // Every frame: headings change all the time, and species when the population changes.
    boids
        .par_iter_mut()
        .for_each(|(species, flock, velocity, mut sprite, hunter)| {
            let color = look.boid_colour(species.0, *flock, heading_turns(velocity.0));
            if sprite.color != color {
                sprite.color = color;
            }
            // (A hunter that is a boid too keeps its dart.)
            if let Some(image) = image
                && !hunter
                && sprite.image != *image
            {
                sprite.image = image.clone();
            }
            if sprite.custom_size != Some(size) {
                sprite.custom_size = Some(size);
            }
        });
    if look.is_changed() {
        // (Their colour follows the selection: `units::highlight_selected`.)
        for mut sprite in &mut units {
            sprite.custom_size = Some(Vec2::splat(look.unit_size));
        }
        for mut sprite in &mut hunters {
            sprite.color = look.hunter;
            sprite.custom_size = Some(size * look.hunter_scale);
        }
        if let Some(mut material) = shapes
            .as_ref()
            .and_then(|s| materials.get_mut(&s.obstacle_material))
        {
            material.color = look.obstacle;
        }
    }
}
