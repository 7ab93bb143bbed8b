//! Drawing for [bevy_murmuration](https://crates.io/crates/bevy_murmuration): every boid a
//! batched sprite turned along its velocity, coloured by heading or species, with fading trails;
//! hunters, units and obstacles drawn apart; a 2D view that fits the simulation bounds; pointer,
//! click and key controls; screenshots for smoke runs; and (feature `debug`) gizmo overlays.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use murmuration_render::prelude::*;
//! use murmuration_sim::prelude::*;
//!
//! App::new()
//!     .add_plugins(DefaultPlugins)
//!     .add_plugins(BoidsPlugins::default().with_params(FlockParams::fish()))
//!     .add_plugins(BoidsRenderPlugin::new(FlockLook::fish()))
//!     .insert_resource(FlockPopulation::new(1500, 1))
//!     .run();
//! ```
#![warn(missing_docs)]

pub mod capture;
mod colour_mode;
pub mod controls;
#[cfg(feature = "debug")]
pub mod debug;
#[cfg(feature = "debug")]
mod debug_draw;
pub mod look;
pub mod pointer;
mod shapes;
pub mod units;
pub mod view;
pub mod visuals;

use bevy::prelude::*;
use murmuration_sim::{Boid, Hunter, Obstacle};

pub use capture::CapturePlugin;
pub use colour_mode::ColourMode;
pub use controls::{
    BoidsControlsPlugin, ControlledHunter, FlockControls, InputBlocked, PointerPosition,
    PointerProxy, PointerRole, ViewInsets,
};
pub use look::FlockLook;
pub use pointer::HELP;
pub use units::{SelectionBox, UnitControls};
pub use view::{FLOCK_LAYER, FlockCamera, ScreenCamera, TrailCanvas, WorldView};
pub use visuals::FlockShapes;

/// `use murmuration_render::prelude::*;` brings the plugins and their settings.
pub mod prelude {
    pub use crate::{
        BoidsControlsPlugin, BoidsRenderPlugin, BoidsUnitControlsPlugin, CapturePlugin, ColourMode,
        FlockControls, FlockLook, PointerRole, UnitControls, ViewInsets, WorldView,
    };
}

/// The flock's drawing: shapes, cameras, trails and colours, plus [`BoidsControlsPlugin`] (and
/// the debug overlays with feature `debug`). Needs Bevy's render, sprite and window plugins
/// (`DefaultPlugins`) and [`murmuration_sim::BoidsPlugins`], added before it: what it does in
/// the simulation's steps goes in the schedule the simulation runs in.
#[derive(Debug, Clone, Default)]
pub struct BoidsRenderPlugin {
    look: FlockLook,
}

impl BoidsRenderPlugin {
    /// Draws the flock with `look`.
    pub fn new(look: FlockLook) -> Self {
        Self { look }
    }
}

/// The systems that move things on screen, in `Update`.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RenderSystems {
    /// Fit the view and read the pointer.
    View,
    /// Act on input: pointer proxy, obstacles, hunters, keys.
    Controls,
    /// Colour and size the sprites, fade the trails, draw overlays.
    Draw,
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

impl Plugin for BoidsRenderPlugin {
    fn finish(&self, app: &mut App) {
        // Here, not in `build`: the asset collections exist once every plugin is built, and the
        // shapes must exist before any `Startup` system spawns an obstacle or a boid.
        let shapes = FlockShapes::new(app.world_mut(), &self.look);
        app.insert_resource(shapes);
        // Boids, hunters and obstacles spawned before this (by code run before `App::run`)
        // found no shapes: add their marker again so the observers dress them now.
        let world = app.world_mut();
        redress::<Boid, Sprite>(world);
        redress::<Hunter, Sprite>(world);
        redress::<Obstacle, Mesh2d>(world);
    }

    fn build(&self, app: &mut App) {
        app.insert_resource(self.look.clone())
            .register_type::<FlockLook>()
            .register_type::<ColourMode>()
            .add_plugins(BoidsControlsPlugin)
            .add_systems(Startup, view::setup_view)
            .add_observer(visuals::on_add_boid)
            .add_observer(visuals::on_add_arrive)
            .add_observer(visuals::on_add_hunter)
            .add_observer(visuals::on_add_obstacle)
            .add_systems(Update, view::fit_view.in_set(RenderSystems::View))
            .add_systems(
                Update,
                (visuals::colour_boids, view::fade_trails).in_set(RenderSystems::Draw),
            );
        #[cfg(feature = "debug")]
        app.add_plugins(debug::FlockDebugPlugin);
    }
}

/// Mouse controls for strategy-game units (see [`units`]): select, drag-select, Shift, right-click
/// orders; highlights and markers when [`BoidsRenderPlugin`] draws. Usable headless with a window
/// entity and Bevy's input. Turn the flock controls' pointer predator and click-to-place obstacles
/// off with it ([`FlockControls`]), as they share the left button.
#[derive(Debug, Clone, Default)]
pub struct BoidsUnitControlsPlugin;

impl Plugin for BoidsUnitControlsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<UnitControls>()
            .init_resource::<units::DragStart>()
            .init_resource::<InputBlocked>()
            .register_type::<UnitControls>()
            .add_systems(Startup, units::setup_selection_box)
            .add_systems(Update, units::unit_input.in_set(RenderSystems::Controls))
            .add_systems(
                Update,
                units::highlight_selected.in_set(RenderSystems::Draw),
            )
            .add_observer(units::on_add_order_marker);
    }
}
