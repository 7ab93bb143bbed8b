//! Obstacle geometry in 3D, in world space: spheres and turned boxes.

use bevy::math::{Quat, Vec3};

use super::contact::{Hit, Surface, ball_surface, sweep_ball};
use super::shape::ObstacleShape;

/// One piece of an obstacle, in world space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Part {
    /// A solid sphere.
    Sphere { centre: Vec3, radius: f32 },
    /// A solid box of half size `half` about `centre`, turned by `rotation`.
    Cuboid {
        centre: Vec3,
        rotation: Quat,
        half: Vec3,
    },
}

impl Part {
    /// The box the part lies in.
    pub(crate) fn bounds(&self) -> (Vec3, Vec3) {
        match *self {
            Part::Sphere { centre, radius } => (centre - radius, centre + radius),
            Part::Cuboid {
                centre,
                rotation,
                half,
            } => {
                let axes = bevy::math::Mat3::from_quat(rotation);
                let reach = axes.x_axis.abs() * half.x
                    + axes.y_axis.abs() * half.y
                    + axes.z_axis.abs() * half.z;
                (centre - reach, centre + reach)
            }
        }
    }

    /// Whether the part may come within `reach` of `centre` (conservative: `true` when unsure).
    pub(crate) fn may_reach(&self, centre: Vec3, reach: f32) -> bool {
        match *self {
            Part::Sphere { centre: c, radius } => centre.distance(c) <= reach + radius,
            Part::Cuboid { .. } => true,
        }
    }

    /// What tells two parts apart: equal keys, the same part.
    pub(crate) fn key(&self, _vertices: &[Vec3]) -> String {
        format!("{self:?}")
    }

    /// The part's nearest surface to `p`.
    pub(crate) fn surface(&self, p: Vec3, _vertices: &[Vec3]) -> Option<Surface> {
        Some(match *self {
            Part::Sphere { centre, radius } => ball_surface(p - centre, radius),
            Part::Cuboid {
                centre,
                rotation,
                half,
            } => {
                let local = rotation.inverse() * (p - centre);
                let clamped = local.clamp(-half, half);
                if clamped != local {
                    let d = local - clamped;
                    let distance = d.length();
                    Surface {
                        distance,
                        normal: rotation * (d / distance),
                    }
                } else {
                    // Inside: out through the nearest face.
                    let gap = half - local.abs();
                    let axis = if gap.x <= gap.y && gap.x <= gap.z {
                        0
                    } else if gap.y <= gap.z {
                        1
                    } else {
                        2
                    };
                    let mut out = Vec3::ZERO;
                    out[axis] = if local[axis] < 0.0 { -1.0 } else { 1.0 };
                    Surface {
                        distance: -gap[axis],
                        normal: rotation * out,
                    }
                }
            }
        })
    }

    /// Where the move `d` from `p` first enters the part; `None` if it does not.
    pub(crate) fn sweep(&self, p: Vec3, d: Vec3) -> Option<Hit> {
        match *self {
            Part::Sphere { centre, radius } => sweep_ball(p - centre, d, radius),
            Part::Cuboid {
                centre,
                rotation,
                half,
            } => {
                let inverse = rotation.inverse();
                let (p, d) = (inverse * (p - centre), inverse * d);
                if p.abs().cmple(half).all() {
                    // Inside already: leaving is free.
                    return None;
                }
                let (mut enter, mut exit, mut axis) = (f32::NEG_INFINITY, f32::INFINITY, 0);
                for i in 0..3 {
                    if d[i] == 0.0 {
                        if p[i].abs() > half[i] {
                            return None;
                        }
                        continue;
                    }
                    let a = (-half[i] - p[i]) / d[i];
                    let b = (half[i] - p[i]) / d[i];
                    let (near, far) = (a.min(b), a.max(b));
                    if near > enter {
                        enter = near;
                        axis = i;
                    }
                    exit = exit.min(far);
                }
                if enter > exit || !(0.0..=1.0).contains(&enter) {
                    return None;
                }
                let mut normal = Vec3::ZERO;
                normal[axis] = if d[axis] > 0.0 { -1.0 } else { 1.0 };
                Some(Hit {
                    t: enter,
                    normal: rotation * normal,
                })
            }
        }
    }
}

/// Adds the part of `shape`, centred on `at` and turned by `rotation`, to `parts`; an error says
/// why a shape gave none.
pub(crate) fn compile(
    shape: &ObstacleShape,
    at: Vec3,
    rotation: Quat,
    parts: &mut Vec<Part>,
    _vertices: &mut Vec<Vec3>,
) -> Result<(), String> {
    match shape {
        ObstacleShape::Sphere(sphere) => {
            if !sphere.radius.is_finite() || sphere.radius <= 0.0 {
                return Err(format!("a sphere of radius {} is ignored", sphere.radius));
            }
            parts.push(Part::Sphere {
                centre: at,
                radius: sphere.radius,
            });
        }
        ObstacleShape::Cuboid(cuboid) => {
            let half = cuboid.half_size;
            if !half.is_finite() || half.min_element() <= 0.0 {
                return Err(format!("a cuboid of half size {half} is ignored"));
            }
            parts.push(Part::Cuboid {
                centre: at,
                rotation: rotation.normalize(),
                half,
            });
        }
    }
    Ok(())
}
