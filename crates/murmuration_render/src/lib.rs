//! Drawing for [bevy_murmuration](https://crates.io/crates/bevy_murmuration), in 2D and in 3D
//! from one source, as the simulation is built: `murmuration_render` is this source built with
//! the `2d` feature over `murmuration_sim`, `murmuration_render3d` the same source built with
//! `3d` over `murmuration_sim3d`.
//!
//! [`BoidsRenderPlugin`] draws the flock as [`FlockLook`] says, coloured by heading, species,
//! flock or one colour ([`ColourMode`]), and adds the pointer and key controls
//! ([`controls`]: the mouse as a predator or an attractor, hunters on demand, pause, step,
//! reset) and, with feature `debug`, the gizmo overlays ([`debug`](mod@debug)). In 2D every boid is a
//! batched sprite with a fading trail, and the view fits the simulation bounds; in 3D every boid
//! is a low-poly mesh banking into its turns, seen through an `OrbitCamera` of the game's.
//!
#![cfg_attr(feature = "2d", doc = "```no_run")]
#![cfg_attr(feature = "2d", doc = "use murmuration_render::prelude::*;")]
#![cfg_attr(feature = "2d", doc = "use murmuration_render::sim::prelude::*;")]
#![cfg_attr(feature = "3d", doc = "```no_run")]
#![cfg_attr(feature = "3d", doc = "use murmuration_render3d::prelude::*;")]
#![cfg_attr(feature = "3d", doc = "use murmuration_render3d::sim::prelude::*;")]
//! use bevy::prelude::*;
//!
//! App::new()
//!     .add_plugins(DefaultPlugins)
//!     .add_plugins(BoidsPlugins::default().with_params(FlockParams::fish()))
//!     .add_plugins(BoidsRenderPlugin::new(FlockLook::fish()))
//!     .insert_resource(FlockPopulation::new(1500, 1))
#![cfg_attr(
    feature = "3d",
    doc = "    // In 3D the game brings the camera and the light."
)]
#![cfg_attr(
    feature = "3d",
    doc = "    .add_systems(Startup, |mut commands: Commands| {"
)]
#![cfg_attr(
    feature = "3d",
    doc = "        commands.spawn((Camera3d::default(), OrbitCamera::default()));"
)]
#![cfg_attr(
    feature = "3d",
    doc = "        commands.spawn(DirectionalLight::default());"
)]
#![cfg_attr(feature = "3d", doc = "    })")]
//!     .run();
//! ```
#![warn(missing_docs)]

#[cfg(all(feature = "2d", feature = "3d"))]
compile_error!("murmuration_render draws one dimension: enable `2d` or `3d`, not both");
#[cfg(not(any(feature = "2d", feature = "3d")))]
compile_error!("murmuration_render needs a dimension: enable the `2d` or the `3d` feature");

mod colour_mode;
pub mod controls;
#[cfg(feature = "debug")]
pub mod debug;
#[cfg(feature = "2d")]
mod dim2;
#[cfg(feature = "2d")]
use dim2 as dim;
#[cfg(feature = "3d")]
mod dim3;
#[cfg(feature = "3d")]
use dim3 as dim;
pub mod look;

use bevy::prelude::*;

/// The simulation this crate draws: `murmuration_sim` in 2D, `murmuration_sim3d` in 3D.
pub use murmuration_sim as sim;

pub use colour_mode::ColourMode;
pub use controls::{
    ControlledHunter, FlockControls, InputBlocked, PointerPosition, PointerProxy, PointerRole,
    ViewInsets,
};
#[cfg(feature = "2d")]
pub use dim2::{
    BoidsUnitControlsPlugin, FLOCK_LAYER, FlockCamera, FlockShapes, HELP, ScreenCamera,
    SelectionBox, TrailCanvas, UnitControls, WorldView,
};
#[cfg(feature = "3d")]
pub use dim3::{Bank, HELP, OrbitCamera};
#[cfg(feature = "3d")]
pub use look::BodyShape;
#[cfg(feature = "2d")]
pub use look::SpriteShape;
pub use look::{FlockLook, HEADING_HUES};

/// `use murmuration_render::prelude::*;` brings the plugin and what configures it.
pub mod prelude {
    #[cfg(feature = "2d")]
    pub use crate::BoidsUnitControlsPlugin;
    #[cfg(feature = "3d")]
    pub use crate::OrbitCamera;
    pub use crate::{BoidsRenderPlugin, FlockLook};
}

/// The systems that move things on screen, in `Update`.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RenderSystems {
    /// Fit the view beside the UI ([`ViewInsets`]) and read the pointer.
    View,
    /// Act on input: the pointer as a predator or an attractor, hunters, keys ([`controls`]);
    /// in 2D clicks that place obstacles, in 3D the orbit camera.
    Controls,
    /// Dress and colour the boids, fade the trails, draw overlays.
    Draw,
}

/// Draws the flock as [`FlockLook`] says, with the pointer and key controls
/// ([`BoidsControlsPlugin`]) and, with feature `debug`, the overlays
/// ([`debug::FlockDebugPlugin`]). Needs Bevy's render and window plugins (`DefaultPlugins`) and
/// the simulation's `BoidsPlugins` (or `BoidsPlugin`), added before it: what it does in the
/// simulation's steps goes in the schedule the simulation runs in.
///
/// In 2D it brings its cameras (a view that fits the simulation bounds); in 3D the game spawns
/// a `Camera3d` with an `OrbitCamera`, and its lights.
#[derive(Debug, Clone)]
pub struct BoidsRenderPlugin {
    /// How the flock looks.
    pub look: FlockLook,
    /// Whether the mouse starts as a predator (on by default; without it,
    /// [`FlockControls::pointer`] starts [`PointerRole::Off`], as for strategy-game units).
    pub pointer_predator: bool,
}

impl Default for BoidsRenderPlugin {
    /// The default look, the mouse a predator.
    fn default() -> Self {
        Self::new(FlockLook::default())
    }
}

impl BoidsRenderPlugin {
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

impl Plugin for BoidsRenderPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(self.look.clone())
            .register_type::<FlockLook>()
            .register_type::<ColourMode>();
        if !self.pointer_predator {
            app.insert_resource(FlockControls {
                pointer: PointerRole::Off,
                ..default()
            });
        }
        app.add_plugins(BoidsControlsPlugin);
        dim::build(app);
        #[cfg(feature = "debug")]
        app.add_plugins(debug::FlockDebugPlugin);
    }

    fn finish(&self, app: &mut App) {
        dim::finish(app);
    }
}

/// Pointer and key controls (see [`controls`]), without any drawing: usable headless with a
/// window entity and Bevy's input. Added by [`BoidsRenderPlugin`].
#[derive(Debug, Clone, Default)]
pub struct BoidsControlsPlugin;

impl Plugin for BoidsControlsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<FlockControls>()
            .init_resource::<InputBlocked>()
            .init_resource::<PointerPosition>()
            .init_resource::<ViewInsets>()
            .register_type::<ViewInsets>()
            .register_type::<FlockControls>()
            .register_type::<PointerRole>()
            .register_type::<InputBlocked>()
            .configure_sets(
                Update,
                (
                    RenderSystems::View,
                    RenderSystems::Controls,
                    RenderSystems::Draw,
                )
                    .chain(),
            )
            .add_systems(
                Update,
                (
                    dim::pointer::track_pointer,
                    controls::follow_pointer,
                    controls::keep_hunters,
                    controls::keys,
                )
                    .chain()
                    .in_set(RenderSystems::Controls),
            );
        dim::pointer::build(app);
    }
}
