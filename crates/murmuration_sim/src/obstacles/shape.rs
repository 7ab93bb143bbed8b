//! [`Obstacle`]: a static shape of Bevy's own math primitives at the entity's [`Position`],
//! turned by its `Transform`'s rotation.

use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::world::DeferredWorld;
use bevy::prelude::*;

use crate::components::Position;
use crate::math::{DIM, Vector};

/// The shapes an [`Obstacle`] can have, each one of Bevy's math primitives, in the obstacle's
/// own frame (centred on its [`Position`], turned by its `Transform`'s rotation).
#[cfg(feature = "2d")]
#[derive(Reflect, Debug, Clone, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub enum ObstacleShape {
    /// A round obstacle: a rock, a tree, a pond.
    Circle(Circle),
    /// A solid rectangle: a building.
    Rectangle(Rectangle),
    /// A wall of no thickness, blocking from both sides.
    Segment(Segment2d),
    /// A line of walls: a fence, a street front, the walls of a maze.
    Polyline(Polyline2d),
    /// A solid polygon, convex or concave (its vertices a ring, in either order).
    Polygon(Polygon),
}

/// The shapes an [`Obstacle`] can have, each one of Bevy's math primitives, in the obstacle's
/// own frame (centred on its [`Position`], turned by its `Transform`'s rotation).
#[cfg(feature = "3d")]
#[derive(Reflect, Debug, Clone, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub enum ObstacleShape {
    /// A round obstacle: a rock, a balloon.
    Sphere(Sphere),
    /// A solid box: a building, a tank's wall, a wreck's hull.
    Cuboid(Cuboid),
}

/// A static obstacle that boids, units and hunters steer round and never enter or pass
/// through: one of Bevy's primitives at the entity's [`Position`], turned by its `Transform`'s
/// rotation (its scale is not used).
///
/// ```
/// # use bevy::prelude::*;
#[cfg_attr(feature = "2d", doc = "# use murmuration_sim::prelude::*;")]
#[cfg_attr(feature = "3d", doc = "# use murmuration_sim3d::prelude::*;")]
/// # let mut world = World::new();
#[cfg_attr(
    feature = "2d",
    doc = "world.spawn((Obstacle::from(Rectangle::new(200.0, 40.0)), Transform::from_xyz(100.0, 50.0, 0.0)));"
)]
#[cfg_attr(
    feature = "2d",
    doc = "world.spawn((Obstacle::from(Segment2d::new(Vec2::ZERO, Vec2::new(0.0, 300.0))), Position(Vec2::new(-200.0, 0.0))));"
)]
#[cfg_attr(
    feature = "3d",
    doc = "world.spawn((Obstacle::from(Cuboid::new(60.0, 120.0, 60.0)), Transform::from_xyz(100.0, 60.0, 0.0)));"
)]
/// world.spawn((Obstacle::round(30.0), Position::default()));
/// ```
///
/// Where it is placed: at its [`Position`]; spawned with a `Transform` and no `Position`, it
/// takes the `Transform`'s translation. Moving it (its `Position` or rotation), changing its
/// shape or despawning it takes effect on the next step.
#[derive(Component, Reflect, Debug, Clone, PartialEq)]
#[reflect(Component, Debug, Clone)]
#[require(Position, Transform)]
#[component(on_insert = place_from_transform)]
pub struct Obstacle {
    shape: ObstacleShape,
}

impl Obstacle {
    /// A round obstacle of `radius`: a circle in 2D, a sphere in 3D.
    pub fn round(radius: f32) -> Self {
        #[cfg(feature = "2d")]
        let shape = ObstacleShape::Circle(Circle::new(radius));
        #[cfg(feature = "3d")]
        let shape = ObstacleShape::Sphere(Sphere::new(radius));
        Self { shape }
    }

    /// A solid box of `size` (full widths): a rectangle in 2D, a cuboid in 3D.
    pub fn block(size: Vector) -> Self {
        #[cfg(feature = "2d")]
        let shape = ObstacleShape::Rectangle(Rectangle::from_size(size));
        #[cfg(feature = "3d")]
        let shape = ObstacleShape::Cuboid(Cuboid::from_size(size));
        Self { shape }
    }

    /// The obstacle's shape, in its own frame.
    pub fn shape(&self) -> &ObstacleShape {
        &self.shape
    }

    /// The radius of a round obstacle; `None` for any other shape.
    pub fn radius(&self) -> Option<f32> {
        match &self.shape {
            #[cfg(feature = "2d")]
            ObstacleShape::Circle(c) => Some(c.radius),
            #[cfg(feature = "3d")]
            ObstacleShape::Sphere(s) => Some(s.radius),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
}

impl From<ObstacleShape> for Obstacle {
    fn from(shape: ObstacleShape) -> Self {
        Self { shape }
    }
}

/// `impl From<$primitive> for Obstacle` as the shape `$variant`.
macro_rules! from_primitive {
    ($($primitive:ty => $variant:ident),* $(,)?) => {$(
        impl From<$primitive> for Obstacle {
            fn from(shape: $primitive) -> Self {
                Self { shape: ObstacleShape::$variant(shape.into()) }
            }
        }
    )*};
}

#[cfg(feature = "2d")]
from_primitive!(
    Circle => Circle,
    Rectangle => Rectangle,
    Segment2d => Segment,
    Polyline2d => Polyline,
    Polygon => Polygon,
);

#[cfg(feature = "3d")]
from_primitive!(Sphere => Sphere, Cuboid => Cuboid);

#[cfg(feature = "2d")]
impl From<Triangle2d> for Obstacle {
    fn from(triangle: Triangle2d) -> Self {
        Polygon::new(triangle.vertices).into()
    }
}

#[cfg(feature = "2d")]
impl From<ConvexPolygon> for Obstacle {
    fn from(polygon: ConvexPolygon) -> Self {
        Polygon::new(polygon.vertices().iter().copied()).into()
    }
}

/// An obstacle spawned with a `Transform` and no [`Position`] (its required default, zero)
/// takes the `Transform`'s translation.
fn place_from_transform(mut world: DeferredWorld, context: HookContext) {
    let entity = context.entity;
    let Some(translation) = world.get::<Transform>(entity).map(|t| t.translation) else {
        return;
    };
    let at = Vector::from_slice(&translation.to_array()[..DIM]);
    if let Some(mut position) = world.get_mut::<Position>(entity)
        && position.0 == Vector::ZERO
        && at != Vector::ZERO
    {
        position.0 = at;
    }
}
