//! [`SimulationBounds`]: the rectangle the flock lives in and what happens at its edges.

use bevy::prelude::*;

use crate::dim;
use crate::math::{DIM, Region, Vector, per_axis};
use crate::params::ParamIssue;

/// What a boid does at the edge of the [`SimulationBounds`].
#[derive(Reflect, Debug, Clone, Copy, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub enum Edges {
    /// The world is a torus: a boid leaving one side comes back on the other, and distances are
    /// measured to the nearest image across the seam, so a flock crosses an edge without tearing.
    Wrap,
    /// Inside `margin` of an edge a boid steers back toward the inside with weight `weight`.
    /// A boid that still slips out is put back on the edge and its outward velocity reflected.
    TurnBack {
        /// Width of the band along each edge where boids turn, world units. Tutorial default 50.
        margin: f32,
        /// Weight of the turn-back force. Tutorial default 2.
        weight: f32,
    },
}

impl Edges {
    /// [`Edges::TurnBack`] with the tutorial's margin (50) and weight (2).
    pub const TURN_BACK: Self = Self::TurnBack {
        margin: 50.0,
        weight: 2.0,
    };
}

/// The rectangle the flock lives in, in world units, and its [`Edges`] mode.
#[derive(Resource, Reflect, Debug, Clone, Copy, PartialEq)]
#[reflect(Resource, Default, Debug, Clone, PartialEq)]
pub struct SimulationBounds {
    /// The world rectangle.
    pub rect: Region,
    /// Wrap around or turn back at the edges.
    pub edges: Edges,
}

impl Default for SimulationBounds {
    /// A 1280 x 720 rectangle (in 3D a 1280 x 720 x 720 box) centred on the origin, wrapping.
    fn default() -> Self {
        Self::wrap(Region::from_center_size(
            Vector::ZERO,
            dim::DEFAULT_WORLD_SIZE,
        ))
    }
}

impl SimulationBounds {
    /// The smallest width or height a world may have, in world units.
    pub const MIN_SIZE: f32 = 1.0;

    /// A wrapping world.
    pub fn wrap(rect: Region) -> Self {
        Self {
            rect,
            edges: Edges::Wrap,
        }
    }

    /// A world whose boids turn back at the edges, with the tutorial's margin and weight.
    pub fn turn_back(rect: Region) -> Self {
        Self {
            rect,
            edges: Edges::TURN_BACK,
        }
    }

    /// Whether the edges wrap.
    pub fn wraps(&self) -> bool {
        matches!(self.edges, Edges::Wrap)
    }

    /// The vector from `from` to `to`: across the seam to the nearest image when the edges wrap,
    /// straight otherwise.
    #[inline]
    pub fn delta(&self, from: Vector, to: Vector) -> Vector {
        let d = to - from;
        if self.wraps() {
            let size = self.rect.size();
            let fold = |d: f32, size: f32| {
                // Points inside the bounds are less than one size apart: a compare instead of
                // `round` (a library call without SSE4.1).
                if d.abs() <= size {
                    if d > size * 0.5 {
                        d - size
                    } else if d < -size * 0.5 {
                        d + size
                    } else {
                        d
                    }
                } else {
                    d - size * (d / size).round()
                }
            };
            per_axis(|i| fold(d[i], size[i]))
        } else {
            d
        }
    }

    /// `p` brought into the rectangle across the seam (`min` inclusive, `max` exclusive).
    /// Non-finite coordinates are returned unchanged.
    #[inline]
    pub fn wrap_point(&self, p: Vector) -> Vector {
        if self.contains_half_open(p) {
            // Nearly always: no remainder (a slow library call) for a point already inside.
            return p;
        }
        let size = self.rect.size();
        let mut q = self.rect.min + (p - self.rect.min).rem_euclid(size);
        // `rem_euclid` can round up to exactly `size` for tiny negative offsets.
        for axis in 0..DIM {
            if q[axis] >= self.rect.max[axis] {
                q[axis] = self.rect.min[axis];
            }
        }
        q
    }

    /// Whether `p` is inside the rectangle, `min` inclusive and `max` exclusive.
    #[inline]
    pub fn contains_half_open(&self, p: Vector) -> bool {
        let r = self.rect;
        (0..DIM).all(|axis| p[axis] >= r.min[axis] && p[axis] < r.max[axis])
    }

    /// Makes the bounds usable and reports what it changed: an inverted rectangle is put the
    /// right way round, a non-finite one becomes the default, one thinner than
    /// [`SimulationBounds::MIN_SIZE`] grows to it around its centre, and a negative or non-finite
    /// turn-back margin or weight becomes the tutorial's.
    pub fn validate(&mut self) -> Vec<ParamIssue> {
        let mut issues = Vec::new();
        let r = self.rect;
        if !(r.min.is_finite() && r.max.is_finite()) {
            issues.push(ParamIssue {
                field: "bounds.rect",
                given: r.width(),
                used: Self::default().rect.width(),
            });
            self.rect = Self::default().rect;
        }
        let fixed = Region::from_corners(self.rect.min, self.rect.max);
        if fixed != self.rect {
            issues.push(ParamIssue {
                field: "bounds.rect (inverted)",
                given: self.rect.width(),
                used: fixed.width(),
            });
            self.rect = fixed;
        }
        let size = self.rect.size();
        let grown = size.max(Vector::splat(Self::MIN_SIZE));
        if grown != size {
            issues.push(ParamIssue {
                field: "bounds.rect (size)",
                given: size.min_element(),
                used: Self::MIN_SIZE,
            });
            self.rect = Region::from_center_size(self.rect.center(), grown);
        }
        if let Edges::TurnBack { margin, weight } = &mut self.edges {
            for (field, value, default) in [
                ("bounds.edges.margin", margin, 50.0),
                ("bounds.edges.weight", weight, 2.0),
            ] {
                if !value.is_finite() || (field.ends_with("margin") && *value < 0.0) {
                    issues.push(ParamIssue {
                        field,
                        given: *value,
                        used: default,
                    });
                    *value = default;
                }
            }
        }
        issues
    }
}

/// The validated [`SimulationBounds`] of this step, rebuilt only when they change: what every
/// system of the step reads, so that bounds changed in the middle of a step (by a user system in
/// `Steer`, say) wait for the next step's validation.
#[derive(Resource, Debug, Clone, Default, Deref)]
pub(crate) struct StepBounds(pub SimulationBounds);
