//! [`FlockLook`]: how the flock is drawn, with a look for each preset.

use bevy::prelude::*;
use murmuration_sim::FlockId;

use crate::ColourMode;

/// How the flock is drawn. Change it at run time; the next frame follows.
///
/// Sizes are in world units (the examples show one unit as one pixel when the window fits the
/// bounds exactly).
#[derive(Resource, Reflect, Debug, Clone, PartialEq)]
#[reflect(Resource, Debug, Clone)]
pub struct FlockLook {
    /// How boids are coloured.
    pub colour: ColourMode,
    /// Species colours, used in turn by species index.
    pub palette: Vec<Color>,
    /// The colour of every boid under [`ColourMode::Single`].
    pub single: Color,
    /// Saturation and lightness of [`ColourMode::Heading`] (0 to 1).
    pub heading_saturation: f32,
    /// Lightness of [`ColourMode::Heading`] (0 to 1).
    pub heading_lightness: f32,
    /// The colour behind the flock.
    pub background: Color,
    /// A boid's length, nose to tail, world units.
    pub boid_length: f32,
    /// A boid's width, world units.
    pub boid_width: f32,
    /// Hunters' colour.
    pub hunter: Color,
    /// Hunters' size as a multiple of a boid's.
    pub hunter_scale: f32,
    /// Obstacles' colour.
    pub obstacle: Color,
    /// Strategy-game units' colour (boids with `Arrive`).
    pub unit: Color,
    /// Strategy-game units' diameter, world units.
    pub unit_size: f32,
    /// Selected units, the selection box and order markers.
    pub selected: Color,
    /// Whether boids leave fading trails.
    pub trails: bool,
    /// How long a trail takes to fade to about a third (the fade's time constant), seconds.
    pub trail_seconds: f32,
}

impl Default for FlockLook {
    /// The tutorial's look: teal darts on white, species in teal, coral and charcoal.
    fn default() -> Self {
        Self {
            colour: ColourMode::Species,
            palette: vec![
                Color::srgb_u8(0x00, 0x99, 0xb0),
                Color::srgb_u8(0xff, 0x80, 0x80),
                Color::srgb_u8(0x30, 0x30, 0x30),
            ],
            single: Color::srgb_u8(0x00, 0x99, 0xb0),
            heading_saturation: 0.75,
            heading_lightness: 0.55,
            background: Color::srgb_u8(0xf7, 0xf7, 0xf2),
            boid_length: 14.0,
            boid_width: 9.0,
            hunter: Color::srgb_u8(0xd6, 0x28, 0x28),
            hunter_scale: 2.0,
            obstacle: Color::srgb_u8(0x8a, 0x8a, 0x8a),
            unit: Color::srgb_u8(0x2b, 0x6c, 0xb0),
            unit_size: 14.0,
            selected: Color::srgb_u8(0xf2, 0xb1, 0x34),
            trails: true,
            trail_seconds: 0.25,
        }
    }
}

impl FlockLook {
    /// Starlings at dusk: small dark birds on a peach sky, short trails.
    pub fn starlings() -> Self {
        Self {
            colour: ColourMode::Single,
            single: Color::srgb_u8(0x1c, 0x1a, 0x2e),
            palette: vec![
                Color::srgb_u8(0x1c, 0x1a, 0x2e),
                Color::srgb_u8(0x4a, 0x2c, 0x4f),
            ],
            background: Color::srgb_u8(0xf0, 0xb8, 0x8e),
            boid_length: 8.0,
            boid_width: 5.0,
            hunter: Color::srgb_u8(0x7a, 0x12, 0x12),
            obstacle: Color::srgb_u8(0x6b, 0x4e, 0x5c),
            trail_seconds: 0.2,
            ..Self::default()
        }
    }

    /// A school of fish in deep water, coloured by heading so the turns show, with long trails.
    pub fn fish() -> Self {
        Self {
            colour: ColourMode::Heading,
            heading_saturation: 0.55,
            heading_lightness: 0.62,
            palette: vec![
                Color::srgb_u8(0x9a, 0xd9, 0xe6),
                Color::srgb_u8(0xf2, 0xc1, 0x4e),
            ],
            background: Color::srgb_u8(0x07, 0x22, 0x3d),
            boid_length: 13.0,
            boid_width: 6.0,
            hunter: Color::srgb_u8(0xe8, 0x4a, 0x5f),
            obstacle: Color::srgb_u8(0x3d, 0x5a, 0x6c),
            trail_seconds: 0.45,
            ..Self::default()
        }
    }

    /// Sheep on grass: big pale bodies, no trails.
    pub fn sheep() -> Self {
        Self {
            colour: ColourMode::Species,
            palette: vec![
                Color::srgb_u8(0xf6, 0xf1, 0xe4),
                Color::srgb_u8(0x3b, 0x33, 0x2c),
            ],
            single: Color::srgb_u8(0xf6, 0xf1, 0xe4),
            background: Color::srgb_u8(0x6a, 0x99, 0x4e),
            boid_length: 18.0,
            boid_width: 13.0,
            hunter: Color::srgb_u8(0x2a, 0x2a, 0x2a),
            hunter_scale: 1.4,
            obstacle: Color::srgb_u8(0x8d, 0x7b, 0x5f),
            trails: false,
            ..Self::default()
        }
    }

    /// The colour of a boid of `species` in `flock` flying along `velocity`.
    pub fn boid_colour(&self, species: u16, flock: FlockId, velocity: Vec2) -> Color {
        let from_palette = |i: usize| {
            self.palette
                .get(i % self.palette.len().max(1))
                .copied()
                .unwrap_or(self.single)
        };
        match self.colour {
            ColourMode::Single => self.single,
            ColourMode::Species => from_palette(usize::from(species)),
            ColourMode::Flock => from_palette(flock.index()),
            ColourMode::Heading => {
                let hue = (velocity.to_angle().to_degrees() + 360.0) % 360.0;
                Color::hsl(hue, self.heading_saturation, self.heading_lightness)
            }
        }
    }
}
