//! The debug overlays' shapes in 2D (what to draw is [`crate::debug`]'s): circles, arcs,
//! rectangles and arrows in the plane, and the boid nearest the pointer.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use murmuration_sim::hash::SpatialHash;
use murmuration_sim::internal::Perception;

use super::pointer::pointer_world;
use super::view::WorldView;

/// Finds the boid under the pointer: the one nearest the point of the world the cursor is over.
#[derive(SystemParam)]
pub(crate) struct BoidPicker<'w, 's> {
    hash: Res<'w, SpatialHash>,
    view: Option<Res<'w, WorldView>>,
    window: Query<'w, 's, &'static Window, With<PrimaryWindow>>,
}

impl BoidPicker<'_, '_> {
    /// The boid nearest the pointer, if the pointer is over the window and there are boids.
    pub(crate) fn under_pointer(&self) -> Option<Entity> {
        let view = self.view.as_deref()?;
        let point = pointer_world(self.window.single().ok()?, None, view)?;
        let hit = self.hash.nearest(point, f32::INFINITY, |_| true)?;
        Some(self.hash.entity(hit.slot))
    }
}

/// Where a boid is drawn.
pub(crate) fn at(transform: &Transform) -> Vec2 {
    transform.translation.truncate()
}

/// The hash's cells.
pub(crate) fn grid<C: GizmoConfigGroup>(gizmos: &mut Gizmos<C>, hash: &SpatialHash, color: Color) {
    let (dims, cell) = (hash.dims(), hash.cell_size());
    let centre = hash.origin() + cell * dims.as_vec2() * 0.5;
    gizmos.grid_2d(Isometry2d::from_translation(centre), dims, cell, color);
}

/// The bounds `inset` inside their edges: solid, or dashed where inset (the turn-back margin).
pub(crate) fn inset_bounds<C: GizmoConfigGroup>(
    gizmos: &mut Gizmos<C>,
    rect: Rect,
    inset: f32,
    color: Color,
) {
    if inset <= 0.0 {
        gizmos.rect_2d(
            Isometry2d::from_translation(rect.center()),
            rect.size(),
            color,
        );
        return;
    }
    let rect = rect.inflate(-inset);
    if rect.is_empty() {
        return;
    }
    // Dashes of about 12 world units.
    let corners = [
        rect.min,
        Vec2::new(rect.max.x, rect.min.y),
        rect.max,
        Vec2::new(rect.min.x, rect.max.y),
    ];
    for i in 0..4 {
        let (a, b) = (corners[i], corners[(i + 1) % 4]);
        let n = ((a.distance(b) / 12.0) as usize).max(1);
        for k in (0..n).step_by(2) {
            let from = a.lerp(b, k as f32 / n as f32);
            let to = a.lerp(b, ((k + 1) as f32 / n as f32).min(1.0));
            gizmos.line_2d(from, to, color);
        }
    }
}

/// The perception radius round `p`: a circle.
pub(crate) fn reach<C: GizmoConfigGroup>(
    gizmos: &mut Gizmos<C>,
    p: Vec2,
    radius: f32,
    color: Color,
) {
    gizmos.circle_2d(Isometry2d::from_translation(p), radius, color);
}

/// The field of view of a boid at `p` flying along `v`: the arc it sees, and its two edges.
pub(crate) fn view_edge<C: GizmoConfigGroup>(
    gizmos: &mut Gizmos<C>,
    p: Vec2,
    v: Vec2,
    perception: &Perception,
    color: Color,
) {
    let (radius, fov) = (perception.radius, 2.0 * perception.view_cos.acos());
    // The arc is centred on the isometry's +y: turn +y onto the heading.
    let rotation = Rot2::radians(v.to_angle() - core::f32::consts::FRAC_PI_2);
    gizmos.arc_2d(Isometry2d::new(p, rotation), fov, radius, color);
    for side in [-0.5, 0.5] {
        let edge = Vec2::from_angle(v.to_angle() + side * fov) * radius;
        gizmos.line_2d(p, p + edge, color.with_alpha(0.6));
    }
}

/// A line.
pub(crate) fn line<C: GizmoConfigGroup>(gizmos: &mut Gizmos<C>, a: Vec2, b: Vec2, color: Color) {
    gizmos.line_2d(a, b, color);
}

/// An arrow.
pub(crate) fn arrow<C: GizmoConfigGroup>(gizmos: &mut Gizmos<C>, a: Vec2, b: Vec2, color: Color) {
    gizmos.arrow_2d(a, b, color);
}
