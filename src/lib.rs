#![doc = include_str!("../README.md")]

/// The simulation crate: components, resources, the spatial hash, behaviours and systems.
pub use murmuration_sim as sim;
pub use murmuration_sim::*;

/// Drawing, controls and screenshots (feature `render`).
#[cfg(feature = "render")]
pub use murmuration_render as render;

/// The settings panel (feature `egui`).
#[cfg(feature = "egui")]
pub use murmuration_egui as egui;

/// `use bevy_murmuration::prelude::*;` brings the plugins, the components and the resources of
/// every enabled feature.
pub mod prelude {
    #[cfg(feature = "egui")]
    pub use murmuration_egui::{BoidsEguiPlugin, PanelAction, Preset};
    #[cfg(feature = "render")]
    pub use murmuration_render::prelude::*;
    pub use murmuration_sim::prelude::*;
}
