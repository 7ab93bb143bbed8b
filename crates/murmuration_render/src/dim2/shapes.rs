//! The images every boid, unit and hunter shares, drawn once at start-up in code (no asset
//! files): a dart pointing along +x, a sheep seen from above, and a disc with a notch for units.

use bevy::asset::RenderAssetUsages;
use bevy::image::Image;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat};

/// Samples per pixel along each axis when rasterising (so 16 per pixel): smooth edges.
const SUPERSAMPLE: u32 = 4;

/// A white RGBA image of `width` x `height` pixels whose alpha is the share of each pixel
/// inside `inside(x, y)`, with `x` and `y` from 0 to 1 (y up).
pub(crate) fn rasterise(width: u32, height: u32, inside: impl Fn(f32, f32) -> bool) -> Image {
    paint(width, height, |x, y| inside(x, y).then_some(WHITE))
}

/// White: the part of an image that takes the sprite's colour whole.
const WHITE: [f32; 3] = [1.0, 1.0, 1.0];

/// An RGBA image of `width` x `height` pixels painted by `colour(x, y)` (`x` and `y` from 0
/// to 1, y up; `None` outside): each pixel the mean colour of its samples inside, its alpha
/// the share of them inside. The sprite's colour multiplies it, so white parts take that colour
/// and dark parts stay dark.
pub(crate) fn paint(
    width: u32,
    height: u32,
    colour: impl Fn(f32, f32) -> Option<[f32; 3]>,
) -> Image {
    let mut data = Vec::with_capacity((width * height * 4) as usize);
    for row in 0..height {
        for col in 0..width {
            let (mut hits, mut sum) = (0, [0.0f32; 3]);
            for sy in 0..SUPERSAMPLE {
                for sx in 0..SUPERSAMPLE {
                    let x = (col as f32 + (sx as f32 + 0.5) / SUPERSAMPLE as f32) / width as f32;
                    let y = (row as f32 + (sy as f32 + 0.5) / SUPERSAMPLE as f32) / height as f32;
                    if let Some(c) = colour(x, 1.0 - y) {
                        hits += 1;
                        for (s, c) in sum.iter_mut().zip(c) {
                            *s += c;
                        }
                    }
                }
            }
            let alpha = (hits * 255 / (SUPERSAMPLE * SUPERSAMPLE)) as u8;
            let rgb = sum.map(|s| (s / hits.max(1) as f32 * 255.0).round() as u8);
            let rgb = if hits == 0 { [255; 3] } else { rgb };
            data.extend_from_slice(&[rgb[0], rgb[1], rgb[2], alpha]);
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

/// A sheep seen from above, facing +x: a woolly body (an oval with a scalloped edge, the
/// sprite's colour) and a dark head in front with two ears.
pub(crate) fn sheep() -> Image {
    /// The head's colour: dark, whatever the sprite's.
    const HEAD: [f32; 3] = [0.16, 0.14, 0.13];
    /// How many curls of wool scallop the body's edge.
    const CURLS: usize = 11;
    // The body: an oval from x 0.04 to 0.74, the curls round its edge.
    let (centre, radii) = (Vec2::new(0.40, 0.5), Vec2::new(0.33, 0.40));
    let curl = 0.085;
    let in_body = |p: Vec2| {
        let q = (p - centre) / radii;
        if q.length_squared() <= 0.88 {
            return true;
        }
        (0..CURLS).any(|k| {
            let angle = core::f32::consts::TAU * k as f32 / CURLS as f32;
            let at = centre + Vec2::new(angle.cos(), angle.sin()) * radii * 0.9;
            // Not in front, where the head is.
            angle.cos() < 0.8 && (p - at).length() <= curl
        })
    };
    // The head: an oval in front; the ears: two small ovals either side of its back.
    let in_oval = |p: Vec2, c: Vec2, r: Vec2| ((p - c) / r).length_squared() <= 1.0;
    let in_head = |p: Vec2| {
        in_oval(p, Vec2::new(0.83, 0.5), Vec2::new(0.15, 0.13))
            || in_oval(p, Vec2::new(0.74, 0.30), Vec2::new(0.05, 0.09))
            || in_oval(p, Vec2::new(0.74, 0.70), Vec2::new(0.05, 0.09))
    };
    paint(64, 48, |x, y| {
        let p = Vec2::new(x, y);
        if in_head(p) {
            Some(HEAD)
        } else if in_body(p) {
            Some(WHITE)
        } else {
            None
        }
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

    /// The sheep: a pale body in the middle and behind, a dark head in front, nothing in the
    /// corners.
    #[test]
    fn the_sheep_has_a_pale_body_and_a_dark_head_in_front() {
        let image = sheep();
        let data = image.data.as_ref().unwrap();
        let pixel = |col: u32, row: u32| {
            let at = ((row * 64 + col) * 4) as usize;
            [data[at], data[at + 1], data[at + 2], data[at + 3]]
        };
        assert_eq!(pixel(24, 24), [255, 255, 255, 255], "the body's middle");
        let head = pixel(54, 24);
        assert_eq!(head[3], 255, "the head is solid");
        assert!(
            head[..3].iter().all(|&c| c < 60),
            "the head is dark: {head:?}"
        );
        assert!(pixel(7, 24)[3] > 0, "the body reaches back");
        for (col, row) in [(0, 0), (63, 0), (0, 47), (63, 47)] {
            assert_eq!(pixel(col, row)[3], 0, "a corner ({col}, {row})");
        }
    }
}
