//! [`FlockLook3d`]: the shapes, sizes and colours of a 3D flock.

use bevy::prelude::*;

/// The low-poly body a boid is drawn with ([`crate::shapes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyShape {
    /// A bird with swept-back wings and a forked tail.
    Bird,
    /// A fish: a slim diamond body and a tail fin.
    Fish,
}

/// How a 3D flock looks: its body and hunter shapes and lengths (world units, nose to tail),
/// one colour per species (cycled), the hunter's colour, and how far a boid rolls into a turn.
#[derive(Resource, Debug, Clone, PartialEq)]
pub struct FlockLook3d {
    /// The boids' body.
    pub shape: BodyShape,
    /// A boid's length.
    pub length: f32,
    /// A colour per species, cycled.
    pub colors: Vec<Color>,
    /// The hunters' body.
    pub hunter_shape: BodyShape,
    /// A hunter's length.
    pub hunter_length: f32,
    /// The hunters' colour.
    pub hunter_color: Color,
    /// The most a boid rolls into a turn, radians.
    pub max_bank: f32,
    /// Roll per unit of turn rate (radians per radian a second).
    pub bank_gain: f32,
}

impl FlockLook3d {
    /// Dark starlings with a sheen of two tints, and a brown hawk.
    pub fn starlings() -> Self {
        Self {
            shape: BodyShape::Bird,
            length: 9.0,
            colors: vec![Color::srgb(0.16, 0.15, 0.2), Color::srgb(0.22, 0.2, 0.16)],
            hunter_shape: BodyShape::Bird,
            hunter_length: 26.0,
            hunter_color: Color::srgb(0.55, 0.32, 0.18),
            max_bank: 1.0,
            bank_gain: 0.35,
        }
    }

    /// Silver and gold fish, and a grey shark.
    pub fn fish() -> Self {
        Self {
            shape: BodyShape::Fish,
            length: 8.0,
            colors: vec![Color::srgb(0.75, 0.8, 0.85), Color::srgb(0.85, 0.7, 0.3)],
            hunter_shape: BodyShape::Fish,
            hunter_length: 70.0,
            hunter_color: Color::srgb(0.35, 0.38, 0.42),
            max_bank: 0.6,
            bank_gain: 0.2,
        }
    }
}
