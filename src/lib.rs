#![doc = include_str!("../README.md")]

/// The simulation crate: components, resources, the spatial hash, each behaviour's module and
/// plugin. Its prelude and its root names are also this crate's.
pub use murmuration_sim as sim;
pub use murmuration_sim::*;

/// Drawing, the pointer and key controls, and (feature `debug`) the debug overlays (feature
/// `render`).
#[cfg(feature = "render")]
pub use murmuration_render as render;

/// The settings panel (feature `egui`).
#[cfg(feature = "egui")]
pub use murmuration_egui as egui;

/// The 3D simulation and its drawing (feature `3d`): the same simulation as the 2D one, built
/// over `Vec3` (`murmuration_sim3d`), with low-poly meshes, banking and an orbit camera
/// (`murmuration_render3d`, the 2D drawing's source built in 3D).
/// `use bevy_murmuration::d3::prelude::*;` instead of the 2D prelude.
///
/// ```no_run
/// use bevy::prelude::*;
/// use bevy_murmuration::d3::prelude::*;
///
/// App::new()
///     .add_plugins(DefaultPlugins)
///     .add_plugins(
///         BoidsPlugins::new(FixedUpdate)
///             .with_params(FlockParams::starlings())
///             .with_bounds(SimulationBounds::turn_back(Box3::from_center_size(
///                 Vec3::ZERO,
///                 Vec3::splat(1500.0),
///             ))),
///     )
///     .add_plugins(BoidsRenderPlugin::new(FlockLook::starlings()))
///     .add_systems(Startup, |mut commands: Commands| {
///         // In 3D the game brings the camera and the light.
///         commands.spawn((
///             Camera3d::default(),
///             OrbitCamera { distance: 2500.0, ..default() },
///         ));
///         commands.spawn(DirectionalLight::default());
///         commands.queue(FlockSpawn::new(2000, 42));
///     })
///     .run();
/// ```
#[cfg(feature = "3d")]
pub mod d3 {
    /// The settings panel for 3D flocks (feature `egui3d`): the 2D panel's source over the 3D
    /// crates.
    #[cfg(feature = "egui3d")]
    pub use murmuration_egui3d as egui;
    /// Drawing in 3D.
    pub use murmuration_render3d as render;
    /// The simulation in 3D: the same modules, components, resources and plugins as
    /// [`crate::sim`].
    pub use murmuration_sim3d as sim;

    /// `use bevy_murmuration::d3::prelude::*;` brings the 3D plugins, components and resources.
    pub mod prelude {
        #[cfg(feature = "egui3d")]
        pub use murmuration_egui3d::BoidsEguiPlugin;
        pub use murmuration_render3d::prelude::*;
        pub use murmuration_sim3d::prelude::*;
    }
}

/// `use bevy_murmuration::prelude::*;` brings what a game types every day: the plugins, the
/// components and the resources of every enabled feature.
pub mod prelude {
    #[cfg(feature = "egui")]
    pub use murmuration_egui::BoidsEguiPlugin;
    #[cfg(feature = "render")]
    pub use murmuration_render::prelude::*;
    pub use murmuration_sim::prelude::*;
}
