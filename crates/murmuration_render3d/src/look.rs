//! [`FlockLook`]: the shapes, sizes and colours of a 3D flock.

use bevy::prelude::*;
use murmuration_sim::FlockId;

use crate::ColourMode;

/// The low-poly body a boid is drawn with ([`crate::shapes`]).
#[derive(Reflect, Debug, Clone, Copy, PartialEq, Eq)]
#[reflect(Debug, Clone, PartialEq)]
pub enum BodyShape {
    /// A bird with swept-back wings and a forked tail.
    Bird,
    /// A fish: a slim diamond body and a tail fin.
    Fish,
}

/// How many hues [`ColourMode::Heading`] uses: the headings round the vertical fall into this
/// many bands, one material each, so that the flock is still drawn in a few instanced batches.
pub const HEADING_HUES: usize = 24;

/// How a 3D flock looks: its body and hunter shapes and lengths (world units, nose to tail), its
/// colours, and how far a boid rolls into a turn. Change it at run time; the next frame follows.
#[derive(Resource, Reflect, Debug, Clone, PartialEq)]
#[reflect(Resource, Debug, Clone)]
pub struct FlockLook {
    /// How boids are coloured.
    pub colour: ColourMode,
    /// Species (or flock) colours, used in turn by index.
    pub palette: Vec<Color>,
    /// The colour of every boid under [`ColourMode::Single`].
    pub single: Color,
    /// Saturation of [`ColourMode::Heading`] (0 to 1).
    pub heading_saturation: f32,
    /// Lightness of [`ColourMode::Heading`] (0 to 1).
    pub heading_lightness: f32,
    /// The boids' body.
    pub shape: BodyShape,
    /// A boid's length.
    pub boid_length: f32,
    /// The hunters' body.
    pub hunter_shape: BodyShape,
    /// A hunter's length.
    pub hunter_length: f32,
    /// The hunters' colour.
    pub hunter: Color,
    /// The most a boid rolls into a turn, radians.
    pub max_bank: f32,
    /// Roll per unit of turn rate (radians per radian a second).
    pub bank_gain: f32,
}

impl Default for FlockLook {
    /// The tutorial's look: birds by species in teal, coral and charcoal, a red hunter.
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
            shape: BodyShape::Bird,
            boid_length: 12.0,
            hunter_shape: BodyShape::Bird,
            hunter_length: 28.0,
            hunter: Color::srgb_u8(0xd6, 0x28, 0x28),
            max_bank: 0.8,
            bank_gain: 0.3,
        }
    }
}

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

    /// Every colour a boid can take, in the order [`Self::paint`] indexes: the palette, then
    /// [`HEADING_HUES`] hues round the vertical, then the single colour.
    pub fn paints(&self) -> Vec<Color> {
        let hues = (0..HEADING_HUES).map(|i| {
            let hue = 360.0 * i as f32 / HEADING_HUES as f32;
            Color::hsl(hue, self.heading_saturation, self.heading_lightness)
        });
        let palette = self.palette.iter().copied();
        palette.chain(hues).chain([self.single]).collect()
    }

    /// Which of [`Self::paints`] a boid of `species` in `flock` flying along `velocity` takes.
    /// By heading, the hue is the heading's angle round the vertical (+y), seen from above, as
    /// the 2D drawing's hue is the heading's angle: +x red, turning toward -z.
    pub fn paint(&self, species: u16, flock: FlockId, velocity: Vec3) -> usize {
        let palette = self.palette.len();
        let from_palette = |i: usize| {
            if palette == 0 {
                palette + HEADING_HUES
            } else {
                i % palette
            }
        };
        match self.colour {
            ColourMode::Single => palette + HEADING_HUES,
            ColourMode::Species => from_palette(usize::from(species)),
            ColourMode::Flock => from_palette(flock.index()),
            ColourMode::Heading => {
                let turns = (-velocity.z).atan2(velocity.x) / core::f32::consts::TAU;
                let band = (turns.rem_euclid(1.0) * HEADING_HUES as f32).round() as usize;
                palette + band % HEADING_HUES
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every mode picks a paint that exists, and by heading the hue follows the heading.
    #[test]
    fn paints_cover_every_mode_and_heading() {
        let mut look = FlockLook::fish();
        let paints = look.paints();
        assert_eq!(paints.len(), look.palette.len() + HEADING_HUES + 1);
        let flock = FlockId::default();
        for colour in [
            ColourMode::Heading,
            ColourMode::Species,
            ColourMode::Flock,
            ColourMode::Single,
        ] {
            look.colour = colour;
            for species in 0..5 {
                for v in [Vec3::X, Vec3::NEG_Z, Vec3::new(-1.0, 3.0, 0.2), Vec3::ZERO] {
                    assert!(look.paint(species, flock, v) < paints.len(), "{colour:?}");
                }
            }
        }
        look.colour = ColourMode::Species;
        assert_eq!(
            look.paint(3, flock, Vec3::X),
            1,
            "species 3 of a palette of 2"
        );
        look.colour = ColourMode::Heading;
        let hue = |v: Vec3| look.paint(0, flock, v) - look.palette.len();
        assert_eq!(hue(Vec3::X), 0, "+x: the first hue");
        assert_eq!(hue(Vec3::NEG_Z), HEADING_HUES / 4, "a quarter turn");
        assert_eq!(
            hue(Vec3::new(1.0, 5.0, 0.0)),
            0,
            "climbing does not change the hue"
        );
        assert_eq!(
            hue(Vec3::new(1.0, 0.0, 0.01)),
            0,
            "just short of a full turn rounds to +x"
        );
        look.palette.clear();
        look.colour = ColourMode::Species;
        assert_eq!(
            look.paint(1, flock, Vec3::X),
            HEADING_HUES,
            "no palette: the single colour"
        );
    }
}
