//! The settings panel of [bevy_murmuration](https://crates.io/crates/bevy_murmuration), in
//! [bevy_egui](https://crates.io/crates/bevy_egui): sliders for every flock parameter (of the
//! flock picked from the list, where a world has several), presets that retune the live flock,
//! the boid and species counts, the predator, obstacles, drawing and debug overlays, and live
//! readouts (FPS, step and hash-build time, distance checks, neighbours).
//!
//! Clicks and drags on the panel never reach the flock: the plugin tells the controls through
//! [`InputBlocked`](murmuration_render::InputBlocked).
//!
//! One source, two crates, as the simulation: `murmuration_egui3d` builds this source with
//! feature `3d` over the 3D simulation and drawing (where the panel has no trails or
//! click-placed obstacles).
#![warn(missing_docs)]

pub mod actions;
pub mod panel;

use bevy::prelude::*;
#[cfg(not(feature = "3d"))]
use bevy_egui::{EguiGlobalSettings, PrimaryEguiContext};
use bevy_egui::{EguiPlugin, EguiPrimaryContextPass};
use murmuration_render::RenderSystems;
#[cfg(not(feature = "3d"))]
use murmuration_render::ScreenCamera;

pub use actions::{ActivePreset, PanelAction, Preset, apply_panel_actions};
pub use panel::{MAX_BOIDS, PANEL_WIDTH, PanelFlock, PanelOptions};

/// Adds the panel (and [`EguiPlugin`] if the app has none yet). Needs the drawing plugin:
/// `BoidsRenderPlugin` (in 2D or in 3D).
#[derive(Debug, Clone, Default)]
pub struct BoidsEguiPlugin {
    options: PanelOptions,
    preset: Preset,
}

impl BoidsEguiPlugin {
    /// A panel titled `title`, showing `preset` as the active one.
    pub fn new(title: impl Into<String>, preset: Preset) -> Self {
        Self {
            options: PanelOptions {
                title: title.into(),
                ..default()
            },
            preset,
        }
    }

    /// Hides the preset picker (for an example that is about one preset).
    pub fn without_presets(mut self) -> Self {
        self.options.presets = false;
        self
    }

    /// Shows `help` as the help line instead of the flock controls' keys.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.options.help = Some(help.into());
        self
    }
}

impl Plugin for BoidsEguiPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<EguiPlugin>() {
            app.add_plugins(EguiPlugin::default());
        }
        // In 2D the UI goes on the screen camera, not on the one that draws into the trail
        // canvas; in 3D on the one camera, as bevy_egui does by itself.
        #[cfg(not(feature = "3d"))]
        match app.world_mut().get_resource_mut::<EguiGlobalSettings>() {
            Some(mut settings) => settings.auto_create_primary_context = false,
            None => {
                app.insert_resource(EguiGlobalSettings {
                    auto_create_primary_context: false,
                    ..default()
                });
            }
        }
        #[cfg(not(feature = "3d"))]
        app.add_observer(use_screen_camera);
        app.insert_resource(self.options.clone())
            .insert_resource(ActivePreset(self.preset))
            .init_resource::<PanelFlock>()
            .register_type::<PanelFlock>()
            .register_type::<PanelOptions>()
            .register_type::<ActivePreset>()
            .register_type::<Preset>()
            .add_message::<PanelAction>()
            .add_systems(EguiPrimaryContextPass, panel::draw_panel)
            .add_systems(
                Update,
                (panel::block_input, apply_panel_actions).before(RenderSystems::Controls),
            );
    }
}

/// Puts the UI on the screen camera when it appears.
#[cfg(not(feature = "3d"))]
fn use_screen_camera(add: On<Add, ScreenCamera>, mut commands: Commands) {
    commands.entity(add.entity).insert(PrimaryEguiContext);
}
