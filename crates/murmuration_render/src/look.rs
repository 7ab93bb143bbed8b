//! [`FlockLook`]: how the flock is drawn, its colours worked out once for both dimensions; the
//! looks of the presets are in each dimension's drawing (`FlockLook::starlings()` and so on).

use bevy::prelude::*;
use murmuration_sim::internal::FlockId;

use crate::colour_mode::ColourMode;

/// The low-poly body a boid is drawn with in 3D.
#[cfg(feature = "3d")]
#[derive(Reflect, Debug, Clone, Copy, PartialEq, Eq)]
#[reflect(Debug, Clone, PartialEq)]
pub enum BodyShape {
    /// A bird with swept-back wings and a forked tail.
    Bird,
    /// A fish: a slim diamond body and a tail fin.
    Fish,
}

/// The image a boid is drawn with in 2D, seen from above and tinted by its colour.
#[cfg(feature = "2d")]
#[derive(Reflect, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[reflect(Debug, Clone, PartialEq, Default)]
pub enum SpriteShape {
    /// A dart with a notched tail: birds, fish and the tutorial's boids.
    #[default]
    Dart,
    /// A sheep: a woolly body in the boid's colour and a dark head with ears.
    Sheep,
}

/// How many hues [`ColourMode::Heading`] uses in 3D ([`FlockLook::paints`]): the headings round
/// the vertical fall into this many bands, one material each, so that the flock is still drawn
/// in a few instanced batches. (In 2D every sprite takes its own hue.)
pub const HEADING_HUES: usize = 24;

/// How the flock is drawn. Change it at run time; the next frame follows.
///
/// Sizes are in world units (the 2D examples show one unit as one pixel when the window fits the
/// bounds exactly). The colours are the same in both dimensions; the rest is what each
/// dimension's drawing needs: in 2D the background, the trails, obstacles and units; in 3D the
/// bodies and how far a boid banks.
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
    /// A boid's length, nose to tail, world units.
    pub boid_length: f32,
    /// Hunters' colour.
    pub hunter: Color,
    /// The colour behind the flock.
    #[cfg(feature = "2d")]
    pub background: Color,
    /// A boid's width, world units.
    #[cfg(feature = "2d")]
    pub boid_width: f32,
    /// Hunters' size as a multiple of a boid's.
    #[cfg(feature = "2d")]
    pub hunter_scale: f32,
    /// Obstacles' colour.
    #[cfg(feature = "2d")]
    pub obstacle: Color,
    /// Strategy-game units' colour (boids with `Arrive`).
    #[cfg(feature = "2d")]
    pub unit: Color,
    /// Strategy-game units' diameter, world units.
    #[cfg(feature = "2d")]
    pub unit_size: f32,
    /// Selected units, the selection box and order markers.
    #[cfg(feature = "2d")]
    pub selected: Color,
    /// The boids' image (hunters and units keep theirs).
    #[cfg(feature = "2d")]
    pub sprite: SpriteShape,
    /// Whether boids leave fading trails.
    #[cfg(feature = "2d")]
    pub trails: bool,
    /// How long a trail takes to fade to about a third (the fade's time constant), seconds.
    #[cfg(feature = "2d")]
    pub trail_seconds: f32,
    /// The boids' body.
    #[cfg(feature = "3d")]
    pub shape: BodyShape,
    /// The hunters' body.
    #[cfg(feature = "3d")]
    pub hunter_shape: BodyShape,
    /// A hunter's length, world units.
    #[cfg(feature = "3d")]
    pub hunter_length: f32,
    /// The most a boid rolls into a turn, radians.
    #[cfg(feature = "3d")]
    pub max_bank: f32,
    /// Roll per unit of turn rate (radians per radian a second).
    #[cfg(feature = "3d")]
    pub bank_gain: f32,
}

impl Default for FlockLook {
    /// The tutorial's look: boids by species in teal, coral and charcoal, a red hunter; in 2D
    /// darts on white, in 3D birds.
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
            hunter: Color::srgb_u8(0xd6, 0x28, 0x28),
            #[cfg(feature = "2d")]
            boid_length: 14.0,
            #[cfg(feature = "2d")]
            background: Color::srgb_u8(0xf7, 0xf7, 0xf2),
            #[cfg(feature = "2d")]
            boid_width: 9.0,
            #[cfg(feature = "2d")]
            hunter_scale: 2.0,
            #[cfg(feature = "2d")]
            obstacle: Color::srgb_u8(0x8a, 0x8a, 0x8a),
            #[cfg(feature = "2d")]
            unit: Color::srgb_u8(0x2b, 0x6c, 0xb0),
            #[cfg(feature = "2d")]
            unit_size: 14.0,
            #[cfg(feature = "2d")]
            selected: Color::srgb_u8(0xf2, 0xb1, 0x34),
            #[cfg(feature = "2d")]
            sprite: SpriteShape::Dart,
            #[cfg(feature = "2d")]
            trails: true,
            #[cfg(feature = "2d")]
            trail_seconds: 0.25,
            #[cfg(feature = "3d")]
            boid_length: 12.0,
            #[cfg(feature = "3d")]
            shape: BodyShape::Bird,
            #[cfg(feature = "3d")]
            hunter_shape: BodyShape::Bird,
            #[cfg(feature = "3d")]
            hunter_length: 28.0,
            #[cfg(feature = "3d")]
            max_bank: 0.8,
            #[cfg(feature = "3d")]
            bank_gain: 0.3,
        }
    }
}

impl FlockLook {
    /// The palette's colour for index `i` (a species or a flock), in turn; `None` for an empty
    /// palette.
    fn palette_index(&self, i: usize) -> Option<usize> {
        (!self.palette.is_empty()).then(|| i % self.palette.len())
    }

    /// The colour of a boid of `species` in `flock` whose heading is `turns` of a full turn
    /// round (0 to 1; see each dimension's heading angle): every hue its own.
    pub fn boid_colour(&self, species: u16, flock: FlockId, turns: f32) -> Color {
        let from_palette = |i: usize| {
            self.palette_index(i)
                .map_or(self.single, |i| self.palette[i])
        };
        match self.colour {
            ColourMode::Single => self.single,
            ColourMode::Species => from_palette(usize::from(species)),
            ColourMode::Flock => from_palette(flock.index()),
            ColourMode::Heading => self.hue(turns.rem_euclid(1.0) * 360.0),
        }
    }

    /// Every colour a boid can take when the colours are a few shared materials, in the order
    /// [`Self::paint`] indexes: the palette, then [`HEADING_HUES`] hues round the circle, then
    /// the single colour.
    pub fn paints(&self) -> Vec<Color> {
        let hues = (0..HEADING_HUES).map(|i| self.hue(360.0 * i as f32 / HEADING_HUES as f32));
        let palette = self.palette.iter().copied();
        palette.chain(hues).chain([self.single]).collect()
    }

    /// Which of [`Self::paints`] a boid of `species` in `flock` whose heading is `turns` of a
    /// full turn takes: by heading, the nearest of the [`HEADING_HUES`] bands.
    pub fn paint(&self, species: u16, flock: FlockId, turns: f32) -> usize {
        let single = self.palette.len() + HEADING_HUES;
        match self.colour {
            ColourMode::Single => single,
            ColourMode::Species => self.palette_index(usize::from(species)).unwrap_or(single),
            ColourMode::Flock => self.palette_index(flock.index()).unwrap_or(single),
            ColourMode::Heading => {
                let band = (turns.rem_euclid(1.0) * HEADING_HUES as f32).round() as usize;
                self.palette.len() + band % HEADING_HUES
            }
        }
    }

    /// The heading colour of `degrees` round the circle.
    fn hue(&self, degrees: f32) -> Color {
        Color::hsl(degrees, self.heading_saturation, self.heading_lightness)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every mode picks a paint that exists, and by heading the band follows the heading.
    #[test]
    fn paints_cover_every_mode_and_heading() {
        let mut look = FlockLook::default();
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
                for turns in [0.0, 0.25, -0.3, 0.999, 7.5] {
                    assert!(
                        look.paint(species, flock, turns) < paints.len(),
                        "{colour:?}"
                    );
                }
            }
        }
        look.colour = ColourMode::Species;
        assert_eq!(look.paint(4, flock, 0.0), 1, "species 4 of a palette of 3");
        look.colour = ColourMode::Heading;
        let band = |turns: f32| look.paint(0, flock, turns) - look.palette.len();
        assert_eq!(band(0.0), 0, "no turn: the first hue");
        assert_eq!(band(0.25), HEADING_HUES / 4, "a quarter turn");
        assert_eq!(
            band(0.999),
            0,
            "just short of a full turn rounds to the first"
        );
        look.palette.clear();
        look.colour = ColourMode::Species;
        assert_eq!(
            look.paint(1, flock, 0.0),
            HEADING_HUES,
            "no palette: the single colour"
        );
        assert_eq!(look.boid_colour(1, flock, 0.0), look.single);
    }
}
