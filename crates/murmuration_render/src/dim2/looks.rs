//! The 2D looks of the presets: [`FlockLook::starlings`], [`FlockLook::fish`],
//! [`FlockLook::sheep`], on their backgrounds: darts, and sheep seen from above.

use bevy::prelude::*;

use crate::colour_mode::ColourMode;
use crate::look::{FlockLook, SpriteShape};

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

    /// Sheep on grass: woolly pale bodies with dark heads, seen from above, no trails.
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
            sprite: SpriteShape::Sheep,
            trails: false,
            ..Self::default()
        }
    }
}
