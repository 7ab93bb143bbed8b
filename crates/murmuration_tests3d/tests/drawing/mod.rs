//! The headless app the drawing's tests share: Bevy's minimal plugins, input and assets without
//! a renderer, the simulation stepping in `Update`, and `BoidsRenderPlugin` with `plugin`.

use bevy::asset::{AssetApp, AssetPlugin};
use bevy::input::InputPlugin;
use bevy::prelude::*;
use murmuration_render::BoidsRenderPlugin;
use murmuration_sim::prelude::*;

/// A headless app drawing the flock of `sim` with `plugin`.
pub fn headless_app(sim: BoidsPlugins, plugin: BoidsRenderPlugin) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, InputPlugin, AssetPlugin::default()))
        .init_asset::<Mesh>()
        .init_asset::<StandardMaterial>();
    // What the debug overlays' gizmo group needs of Bevy's gizmos, without a renderer.
    app.init_asset::<bevy::gizmos::GizmoAsset>();
    app.add_plugins(sim).add_plugins(plugin);
    app
}
