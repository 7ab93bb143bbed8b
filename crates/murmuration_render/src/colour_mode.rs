//! [`ColourMode`]: how boids are coloured, the same choices in 2D and in 3D.

use bevy::prelude::*;

/// How boids are coloured.
#[derive(Reflect, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[reflect(Debug, Clone, PartialEq, Default)]
pub enum ColourMode {
    /// Hue by heading, so alignment shows as bands of one colour.
    #[default]
    Heading,
    /// One colour per species, from [`FlockLook::palette`](crate::FlockLook::palette).
    Species,
    /// One colour per flock, from [`FlockLook::palette`](crate::FlockLook::palette) by the flock's
    /// flock's row (the default flock takes the first).
    Flock,
    /// Every boid in [`FlockLook::single`](crate::FlockLook::single).
    Single,
}
