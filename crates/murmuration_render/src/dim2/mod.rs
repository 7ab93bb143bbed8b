//! The 2D drawing: every boid a batched sprite turned along its velocity ([`visuals`]),
//! coloured by heading, species, flock or one colour, with fading trails drawn into a canvas
//! that is never cleared ([`view`]); hunters, units and obstacles drawn apart; a view that fits
//! the simulation bounds beside the UI; clicks that place and remove obstacles ([`pointer`]);
//! and the mouse controls of strategy-game units ([`units`]).

#[cfg(feature = "debug")]
pub(crate) mod debug;
mod looks;
mod obstacle_mesh;
pub(crate) mod pointer;
mod shapes;
pub(crate) mod units;
pub(crate) mod view;
pub(crate) mod visuals;

use bevy::prelude::*;
use murmuration_sim::prelude::*;

use crate::RenderSystems;
use crate::look::FlockLook;

pub use pointer::HELP;
pub use units::{BoidsUnitControlsPlugin, SelectionBox, UnitControls};
pub use view::{FLOCK_LAYER, FlockCamera, ScreenCamera, TrailCanvas, WorldView};
pub use visuals::FlockShapes;

/// How far round a heading points, as a share of a full turn (0 to 1): +x is 0, turning toward
/// +y.
pub(crate) fn heading_turns(v: Vec2) -> f32 {
    v.to_angle() / core::f32::consts::TAU
}

/// The 2D side of [`BoidsRenderPlugin`](crate::BoidsRenderPlugin): the cameras and the trail
/// canvas, the sprites of boids, units, hunters and obstacles as they appear, their colours, and
/// the trails' fade.
pub(crate) fn build(app: &mut App) {
    app.add_systems(Startup, view::setup_view)
        .add_observer(visuals::on_add_boid)
        .add_observer(visuals::on_add_arrive)
        .add_observer(visuals::on_add_hunter)
        .add_observer(visuals::on_add_obstacle)
        .add_systems(Update, view::fit_view.in_set(RenderSystems::View))
        .add_systems(
            Update,
            (
                visuals::colour_boids,
                visuals::reshape_obstacles,
                view::fade_trails,
            )
                .in_set(RenderSystems::Draw),
        );
}

/// Makes the sprites' shapes, once every plugin is built: the asset collections exist then, and
/// the shapes must exist before any `Startup` system spawns an obstacle or a boid.
pub(crate) fn finish(app: &mut App) {
    let look = app.world().resource::<FlockLook>().clone();
    let shapes = FlockShapes::new(app.world_mut(), &look);
    app.insert_resource(shapes);
    // Boids, hunters and obstacles spawned before this (by code run before `App::run`) found no
    // shapes: add their marker again so the observers dress them now.
    let world = app.world_mut();
    redress::<Boid, Sprite>(world);
    redress::<Hunter, Sprite>(world);
    redress::<Obstacle, Mesh2d>(world);
}

/// Removes and inserts `C` again on every entity that has it but no `Visual`, which runs the
/// `Add` observers for `C` once more.
fn redress<C: Component + Clone, Visual: Component>(world: &mut World) {
    let undressed: Vec<(Entity, C)> = world
        .query_filtered::<(Entity, &C), Without<Visual>>()
        .iter(world)
        .map(|(entity, c)| (entity, c.clone()))
        .collect();
    for (entity, c) in undressed {
        world.entity_mut(entity).remove::<C>().insert(c);
    }
    world.flush();
}

#[cfg(test)]
mod tests {
    use bevy::math::Vec2;

    use super::heading_turns;

    /// The heading's share of a turn: +x none, +y a quarter, -y three quarters.
    #[test]
    fn heading_turns_round_the_plane() {
        let turns = |x, y| heading_turns(Vec2::new(x, y)).rem_euclid(1.0);
        assert_eq!(turns(1.0, 0.0), 0.0);
        assert!((turns(0.0, 1.0) - 0.25).abs() < 1e-6);
        assert!((turns(0.0, -1.0) - 0.75).abs() < 1e-6);
    }
}
