//! The 3D looks of the presets: [`FlockLook::starlings`], [`FlockLook::fish`],
//! [`FlockLook::sheep`], as low-poly bodies.

use bevy::prelude::*;

use crate::colour_mode::ColourMode;
use crate::look::{BodyShape, FlockLook};

impl FlockLook {
    /// Dark starlings with a sheen of two tints, and a brown hawk.
    pub fn starlings() -> Self {
        Self {
            colour: ColourMode::Species,
            palette: vec![Color::srgb(0.16, 0.15, 0.2), Color::srgb(0.22, 0.2, 0.16)],
            single: Color::srgb(0.16, 0.15, 0.2),
            heading_saturation: 0.6,
            heading_lightness: 0.45,
            shape: BodyShape::Bird,
            boid_length: 9.0,
            hunter_shape: BodyShape::Bird,
            hunter_length: 26.0,
            hunter: Color::srgb(0.55, 0.32, 0.18),
            max_bank: 1.0,
            bank_gain: 0.35,
        }
    }

    /// Silver and gold fish, and a grey shark.
    pub fn fish() -> Self {
        Self {
            colour: ColourMode::Species,
            palette: vec![Color::srgb(0.75, 0.8, 0.85), Color::srgb(0.85, 0.7, 0.3)],
            single: Color::srgb(0.75, 0.8, 0.85),
            heading_saturation: 0.55,
            heading_lightness: 0.62,
            shape: BodyShape::Fish,
            boid_length: 8.0,
            hunter_shape: BodyShape::Fish,
            hunter_length: 70.0,
            hunter: Color::srgb(0.35, 0.38, 0.42),
            max_bank: 0.6,
            bank_gain: 0.2,
        }
    }

    /// The sheep preset's look in 3D: pale, plump bodies (the fish's diamond, larger), hardly
    /// rolling, and a dark dog.
    pub fn sheep() -> Self {
        Self {
            colour: ColourMode::Species,
            palette: vec![
                Color::srgb_u8(0xf6, 0xf1, 0xe4),
                Color::srgb_u8(0x3b, 0x33, 0x2c),
            ],
            single: Color::srgb_u8(0xf6, 0xf1, 0xe4),
            shape: BodyShape::Fish,
            boid_length: 16.0,
            hunter_shape: BodyShape::Fish,
            hunter_length: 24.0,
            hunter: Color::srgb_u8(0x2a, 0x2a, 0x2a),
            max_bank: 0.2,
            bank_gain: 0.1,
            ..Self::default()
        }
    }
}
