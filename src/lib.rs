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

/// The 3D simulation and its drawing (feature `3d`): the same simulation as the 2D one, built
/// over `Vec3` (`murmuration_sim3d`), with low-poly meshes, banking and an orbit camera
/// (`murmuration_render3d`). `use bevy_murmuration::d3::prelude::*;` instead of the 2D prelude.
#[cfg(feature = "3d")]
pub mod d3 {
    /// The settings panel for 3D flocks (feature `egui3d`): the 2D panel's source over the 3D
    /// crates.
    #[cfg(feature = "egui3d")]
    pub use murmuration_egui3d as egui;
    /// Drawing in 3D.
    pub use murmuration_render3d as render;
    /// The simulation in 3D: the same components, resources and plugins as [`crate::sim`].
    pub use murmuration_sim3d as sim;

    /// `use bevy_murmuration::d3::prelude::*;` brings the 3D plugins, components and resources.
    pub mod prelude {
        #[cfg(feature = "egui3d")]
        pub use murmuration_egui3d::{BoidsEguiPlugin, PanelAction, Preset};
        pub use murmuration_render3d::prelude::*;
        pub use murmuration_sim3d::prelude::*;
    }
}

/// `use bevy_murmuration::prelude::*;` brings the plugins, the components and the resources of
/// every enabled feature.
pub mod prelude {
    #[cfg(feature = "egui")]
    pub use murmuration_egui::{BoidsEguiPlugin, PanelAction, Preset};
    #[cfg(feature = "render")]
    pub use murmuration_render::prelude::*;
    pub use murmuration_sim::prelude::*;
}
