//! The images every boid, unit and hunter shares, drawn once at start-up in code (no asset
//! files): a dart pointing along +x, and a disc with a notch for units.

use bevy::asset::RenderAssetUsages;
use bevy::image::Image;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};

/// Samples per pixel along each axis when rasterising (so 16 per pixel): smooth edges.
const SUPERSAMPLE: u32 = 4;

/// A white RGBA image of `width` x `height` pixels whose alpha is the share of each pixel
/// inside `inside(x, y)`, with `x` and `y` from 0 to 1 (y up).
pub(crate) fn rasterise(width: u32, height: u32, inside: impl Fn(f32, f32) -> bool) -> Image {
    let mut data = Vec::with_capacity((width * height * 4) as usize);
    for row in 0..height {
        for col in 0..width {
            let mut hits = 0;
            for sy in 0..SUPERSAMPLE {
                for sx in 0..SUPERSAMPLE {
                    let x = (col as f32 + (sx as f32 + 0.5) / SUPERSAMPLE as f32) / width as f32;
                    let y = (row as f32 + (sy as f32 + 0.5) / SUPERSAMPLE as f32) / height as f32;
                    hits += u32::from(inside(x, 1.0 - y));
                }
            }
            let alpha = (hits * 255 / (SUPERSAMPLE * SUPERSAMPLE)) as u8;
            data.extend_from_slice(&[255, 255, 255, alpha]);
        }
    }
    Image::new(
        Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        data,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::RENDER_WORLD,
    )
}

/// Whether `p` is inside the triangle `a b c` (either winding).
fn in_triangle(p: Vec2, a: Vec2, b: Vec2, c: Vec2) -> bool {
    let side = |u: Vec2, v: Vec2| (v - u).perp_dot(p - u);
    let (d1, d2, d3) = (side(a, b), side(b, c), side(c, a));
    let negative = d1 < 0.0 || d2 < 0.0 || d3 < 0.0;
    let positive = d1 > 0.0 || d2 > 0.0 || d3 > 0.0;
    !(negative && positive)
}

/// A dart: nose at the right, two back corners, and a notch in the tail, like the tutorial's
/// triangle with a swallow tail.
pub(crate) fn dart() -> Image {
    let nose = Vec2::new(1.0, 0.5);
    let top = Vec2::new(0.0, 1.0);
    let bottom = Vec2::new(0.0, 0.0);
    let notch = Vec2::new(0.28, 0.5);
    rasterise(64, 48, |x, y| {
        let p = Vec2::new(x, y);
        in_triangle(p, nose, top, notch) || in_triangle(p, nose, notch, bottom)
    })
}

/// A disc with a wedge cut out of its front (+x), so a unit's heading shows.
pub(crate) fn unit_disc() -> Image {
    rasterise(48, 48, |x, y| {
        let p = Vec2::new(x - 0.5, y - 0.5) * 2.0;
        let in_wedge = p.x > 0.3 && p.y.abs() < (p.x - 0.3) * 0.8;
        p.length_squared() <= 1.0 && !in_wedge
    })
}

/// A thin ring, for order markers.
pub(crate) fn ring() -> Image {
    rasterise(48, 48, |x, y| {
        let r2 = Vec2::new(x - 0.5, y - 0.5).length_squared() * 4.0;
        (0.7 * 0.7..=1.0).contains(&r2)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dart_points_right_and_is_mostly_filled_near_the_nose_axis() {
        let image = dart();
        let data = image.data.as_ref().unwrap();
        let alpha = |col: u32, row: u32| data[((row * 64 + col) * 4 + 3) as usize];
        // The middle row is inside from the notch to just before the nose.
        assert_eq!(alpha(40, 24), 255);
        assert_eq!(alpha(5, 24), 0, "the notch in the tail");
        assert_eq!(alpha(63, 0), 0, "outside, top right");
        assert!(alpha(1, 1) > 0, "a back corner");
    }
}
