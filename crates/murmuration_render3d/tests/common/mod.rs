//! The headless app the drawing's tests share: Bevy's minimal plugins, input and assets without
//! a renderer, the simulation stepping in `Update`, and `BoidsRender3dPlugin` with `plugin`.

use bevy::asset::{AssetApp, AssetPlugin};
use bevy::input::InputPlugin;
use bevy::prelude::*;
use murmuration_render3d::BoidsRender3dPlugin;
use murmuration_sim3d::prelude::*;

/// A headless app drawing the flock of `sim` with `plugin`.
pub fn headless_app(sim: BoidsPlugins, plugin: BoidsRender3dPlugin) -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, InputPlugin, AssetPlugin::default()))
        .init_asset::<Mesh>()
        .init_asset::<StandardMaterial>();
    // What the debug overlays' gizmo group needs of Bevy's gizmos, without a renderer.
    #[cfg(feature = "debug")]
    app.init_asset::<bevy::gizmos::GizmoAsset>();
    app.add_plugins(sim).add_plugins(plugin);
    app
}
