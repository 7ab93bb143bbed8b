//! The cameras and the trail canvas: the view fits the simulation bounds, and boids leave
//! fading trails the way the tutorial paints them.
//!
//! The flock camera renders the boids (on [`FLOCK_LAYER`]) into an off-screen canvas that it
//! never clears; each frame a see-through rectangle of the background colour is drawn behind the
//! boids first, so what was drawn before fades a little. That costs one rectangle a frame however
//! many boids there are. The canvas is HDR (16-bit float), so trails fade all the way out instead
//! of leaving the faint ghosts 8-bit blending would. The screen camera shows the canvas, with the
//! debug gizmos and the UI on top. With trails off the rectangle is opaque: a plain clear.
//!
//! The view scales to fit: the whole [`SimulationBounds`] stays visible in any window shape,
//! centred in the part of the window not covered by [`ViewInsets`] (the settings panel); the
//! world continues under the panel.

use bevy::camera::Hdr;
use bevy::camera::visibility::RenderLayers;
use bevy::camera::{RenderTarget, ScalingMode};
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;
use bevy::window::PrimaryWindow;
use murmuration_sim::prelude::SimulationBounds;

use crate::controls::ViewInsets;
use crate::look::FlockLook;

/// The render layer of everything that leaves trails: boids, hunters, units, obstacles.
pub const FLOCK_LAYER: RenderLayers = RenderLayers::layer(1);

/// The camera that draws the flock into the trail canvas.
#[derive(Component, Debug, Default)]
pub struct FlockCamera;

/// The camera that draws the canvas, the gizmos and the UI to the window.
#[derive(Component, Debug, Default)]
pub struct ScreenCamera;

/// The sprite that shows the trail canvas.
#[derive(Component, Debug, Default)]
pub(crate) struct Canvas;

/// The see-through rectangle that fades the canvas each frame.
#[derive(Component, Debug, Default)]
pub(crate) struct Fade;

/// The part of the world the window shows this frame, world units.
#[derive(Resource, Reflect, Debug, Clone, Copy, PartialEq)]
#[reflect(Resource, Debug, Clone)]
pub struct WorldView {
    /// The visible world rectangle (the whole window).
    pub rect: Rect,
    /// The window's logical size it was fitted to.
    pub window: Vec2,
}

impl WorldView {
    /// Fits `bounds` into a window of `window` logical pixels whose left `inset` pixels are
    /// covered: one scale for both axes, the bounds centred in the uncovered part.
    pub fn fit(bounds: Rect, window: Vec2, inset: f32) -> Self {
        let window = window.max(Vec2::ONE);
        let free = Vec2::new((window.x - inset).max(1.0), window.y);
        let size = bounds.size().max(Vec2::splat(1e-3));
        let scale = (size.x / free.x).max(size.y / free.y);
        let extent = window * scale;
        // The bounds' centre sits at the centre of the free part.
        let centre = bounds.center() - Vec2::new(inset * scale * 0.5, 0.0);
        Self {
            rect: Rect::from_center_size(centre, extent),
            window,
        }
    }

    /// The world point under `cursor` (logical pixels from the window's top-left corner).
    pub fn cursor_to_world(&self, cursor: Vec2) -> Vec2 {
        let t = cursor / self.window;
        Vec2::new(
            self.rect.min.x + t.x * self.rect.width(),
            self.rect.max.y - t.y * self.rect.height(),
        )
    }

    /// World units per logical pixel.
    pub fn scale(&self) -> f32 {
        self.rect.width() / self.window.x
    }
}

/// The canvas the flock camera draws into.
#[derive(Resource, Debug, Clone)]
pub struct TrailCanvas {
    /// Its image.
    pub image: Handle<Image>,
    /// Its size, physical pixels.
    pub size: UVec2,
    fade_material: Handle<ColorMaterial>,
    /// Frames drawn so far; the first ones clear fully.
    frames: u32,
}

/// The canvas's pixel format: 16-bit float, so a slow fade reaches the background exactly.
const CANVAS_FORMAT: TextureFormat = TextureFormat::Rgba16Float;
/// Depth of the fade rectangle: behind everything on the flock layer.
const FADE_Z: f32 = -100.0;

fn canvas_image(size: UVec2) -> Image {
    Image::new_target_texture(size.x.max(1), size.y.max(1), CANVAS_FORMAT, None)
}

/// Spawns the two cameras, the canvas sprite and the fade rectangle.
pub(crate) fn setup_view(
    mut commands: Commands,
    mut images: ResMut<Assets<Image>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
    look: Res<FlockLook>,
    window: Query<&Window, With<PrimaryWindow>>,
) {
    let size = window
        .single()
        .map(|w| w.physical_size())
        .unwrap_or(UVec2::new(1280, 720));
    let image = images.add(canvas_image(size));
    let fade_material = materials.add(ColorMaterial {
        color: look.background,
        alpha_mode: bevy::sprite_render::AlphaMode2d::Blend,
        ..default()
    });
    commands.spawn((
        Name::new("Flock camera"),
        FlockCamera,
        Camera2d,
        Camera {
            order: -1,
            // NOTE: never cleared: the fade rectangle does that job, a little at a time.
            clear_color: ClearColorConfig::None,
            ..default()
        },
        RenderTarget::Image(image.clone().into()),
        Hdr,
        Tonemapping::None,
        Msaa::Off,
        FLOCK_LAYER,
    ));
    commands.spawn((
        Name::new("Screen camera"),
        ScreenCamera,
        Camera2d,
        Camera {
            clear_color: ClearColorConfig::Custom(look.background),
            ..default()
        },
        Msaa::Off,
        RenderLayers::layer(0),
    ));
    commands.spawn((
        Name::new("Trail canvas"),
        Canvas,
        Sprite::from_image(image.clone()),
        RenderLayers::layer(0),
    ));
    commands.spawn((
        Name::new("Trail fade"),
        Fade,
        Mesh2d(meshes.add(Rectangle::new(1.0, 1.0))),
        MeshMaterial2d(fade_material.clone()),
        Transform::from_xyz(0.0, 0.0, FADE_Z),
        FLOCK_LAYER,
    ));
    commands.insert_resource(TrailCanvas {
        image,
        size,
        fade_material,
        frames: 0,
    });
}

/// Fits both cameras, the canvas and the fade rectangle to the bounds and the window, and
/// resizes the canvas with the window.
pub(crate) fn fit_view(
    mut commands: Commands,
    bounds: Res<SimulationBounds>,
    insets: Res<ViewInsets>,
    window: Query<&Window, With<PrimaryWindow>>,
    mut canvas: ResMut<TrailCanvas>,
    mut images: ResMut<Assets<Image>>,
    mut cameras: Query<
        (&mut Projection, &mut Transform),
        Or<(With<FlockCamera>, With<ScreenCamera>)>,
    >,
    mut sprite: Query<(&mut Sprite, &mut Transform), (With<Canvas>, Without<Projection>)>,
    mut fade: Query<&mut Transform, (With<Fade>, Without<Canvas>, Without<Projection>)>,
    mut applied: Local<Option<WorldView>>,
) {
    let Ok(window) = window.single() else {
        return;
    };
    let fitted = WorldView::fit(bounds.rect, window.size(), insets.left);
    let physical = window.physical_size().max(UVec2::ONE);
    if physical != canvas.size {
        canvas.size = physical;
        canvas.frames = 0;
        if let Some(mut image) = images.get_mut(&canvas.image) {
            *image = canvas_image(physical);
        }
    }
    if *applied == Some(fitted) {
        return;
    }
    *applied = Some(fitted);
    commands.insert_resource(fitted);
    let (centre, size) = (fitted.rect.center(), fitted.rect.size());
    for (mut projection, mut transform) in &mut cameras {
        *projection = Projection::Orthographic(OrthographicProjection {
            scaling_mode: ScalingMode::Fixed {
                width: size.x,
                height: size.y,
            },
            ..OrthographicProjection::default_2d()
        });
        transform.translation = centre.extend(transform.translation.z);
    }
    for (mut sprite, mut transform) in &mut sprite {
        sprite.custom_size = Some(size);
        transform.translation = centre.extend(0.0);
    }
    for mut transform in &mut fade {
        *transform =
            Transform::from_translation(centre.extend(FADE_Z)).with_scale(size.extend(1.0));
    }
}

/// Sets how much the fade rectangle covers this frame: `1 - exp(-dt / trail_seconds)`, so a
/// trail fades at the same rate at any frame rate; fully on the first frames (the canvas starts
/// undefined) and with trails off.
pub(crate) fn fade_trails(
    time: Res<Time<Real>>,
    look: Res<FlockLook>,
    mut canvas: ResMut<TrailCanvas>,
    mut materials: ResMut<Assets<ColorMaterial>>,
    mut screen: Query<&mut Camera, With<ScreenCamera>>,
) {
    canvas.frames = canvas.frames.saturating_add(1);
    let alpha = if !look.trails || canvas.frames <= 3 || look.trail_seconds <= 0.0 {
        1.0
    } else {
        let dt = time.delta_secs().clamp(1.0 / 240.0, 0.25);
        1.0 - (-dt / look.trail_seconds).exp()
    };
    if let Some(mut material) = materials.get_mut(&canvas.fade_material) {
        material.color = look.background.with_alpha(alpha);
    }
    for mut camera in &mut screen {
        camera.clear_color = ClearColorConfig::Custom(look.background);
    }
}
