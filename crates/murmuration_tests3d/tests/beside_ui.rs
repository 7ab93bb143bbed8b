//! The orbit camera's image centres in the part of the window the UI leaves: with a 200-pixel
//! panel over an 800-pixel window the camera draws the left 800 pixels of a 1,000-pixel image,
//! whose centre (the focus) is then in the middle of the 600 pixels beside the panel; without a
//! panel, the plain image. Headless: a window entity, no renderer.

mod drawing;

use bevy::camera::SubCameraView;
use bevy::prelude::*;
use bevy::window::{PrimaryWindow, WindowResolution};
use murmuration_render::{BoidsRenderPlugin, FlockLook, OrbitCamera, ViewInsets};
use murmuration_sim::prelude::*;

use drawing::headless_app;

#[test]
fn the_image_centres_beside_the_panel() {
    let mut app = headless_app(
        BoidsPlugins::new(Update),
        BoidsRenderPlugin::new(FlockLook::default()),
    );
    app.world_mut().spawn((
        Window {
            resolution: WindowResolution::new(800, 600),
            ..default()
        },
        PrimaryWindow,
    ));
    let camera = app
        .world_mut()
        .spawn((
            Camera::default(),
            OrbitCamera {
                focus: Vec3::ZERO,
                distance: 500.0,
                yaw: 0.0,
                pitch: 0.3,
            },
        ))
        .id();
    let sub_view = |app: &mut App, left: f32| {
        app.insert_resource(ViewInsets { left });
        app.update();
        app.world().get::<Camera>(camera).unwrap().sub_camera_view
    };
    assert_eq!(
        sub_view(&mut app, 200.0),
        Some(SubCameraView {
            full_size: UVec2::new(1000, 600),
            offset: Vec2::ZERO,
            size: UVec2::new(800, 600),
        })
    );
    assert_eq!(sub_view(&mut app, 0.0), None, "no panel, the plain image");
}
