//! The debug overlays' shapes in 3D (what to draw is [`crate::debug`]'s): spheres, the view
//! cone's rim, boxes and arrows in space, and the boid drawn nearest the pointer on screen.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use murmuration_sim::hash::SpatialHash;
use murmuration_sim::internal::Perception;
use murmuration_sim::math::Box3;
use murmuration_sim::prelude::Boid;

use super::camera::OrbitCamera;

/// Finds the boid under the pointer: the one drawn nearest the cursor on screen.
#[derive(SystemParam)]
pub(crate) struct BoidPicker<'w, 's> {
    windows: Query<'w, 's, &'static Window, With<PrimaryWindow>>,
    cameras: Query<'w, 's, (&'static Camera, &'static GlobalTransform), With<OrbitCamera>>,
    boids: Query<'w, 's, (Entity, &'static GlobalTransform), With<Boid>>,
}

impl BoidPicker<'_, '_> {
    /// The boid drawn nearest the cursor, if the cursor is in the window and a camera looks.
    pub(crate) fn under_pointer(&self) -> Option<Entity> {
        let cursor = self.windows.single().ok()?.cursor_position()?;
        let (camera, eye) = self.cameras.iter().next()?;
        let on_screen = |at: &GlobalTransform| {
            let p = camera.world_to_viewport(eye, at.translation()).ok()?;
            Some(p.distance_squared(cursor))
        };
        self.boids
            .iter()
            .filter_map(|(entity, at)| Some((entity, on_screen(at)?)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(entity, _)| entity)
    }
}

/// Where a boid is drawn.
pub(crate) fn at(transform: &Transform) -> Vec3 {
    transform.translation
}

/// The hash's cells: the grid's outer edges.
pub(crate) fn grid<C: GizmoConfigGroup>(gizmos: &mut Gizmos<C>, hash: &SpatialHash, color: Color) {
    let cell = hash.cell_size();
    let centre = hash.origin() + cell * hash.dims().as_vec3() * 0.5;
    gizmos
        .grid_3d(
            Isometry3d::from_translation(centre),
            hash.dims(),
            cell,
            color,
        )
        .outer_edges();
}

/// The box of the bounds `inset` inside their faces (the turn-back margin), if any is left.
pub(crate) fn inset_bounds<C: GizmoConfigGroup>(
    gizmos: &mut Gizmos<C>,
    rect: Box3,
    inset: f32,
    color: Color,
) {
    let size = rect.size() - Vec3::splat(2.0 * inset);
    if size.min_element() > 0.0 {
        gizmos.cube(
            Transform::from_translation(rect.center()).with_scale(size),
            color,
        );
    }
}

/// The perception radius round `p`: a sphere.
pub(crate) fn reach<C: GizmoConfigGroup>(
    gizmos: &mut Gizmos<C>,
    p: Vec3,
    radius: f32,
    color: Color,
) {
    gizmos.sphere(Isometry3d::from_translation(p), radius, color);
}

/// The field of view of a boid at `p` flying along `v`: the cone's rim, a circle round the
/// heading where the view's edge meets the perception sphere, and four lines to it.
pub(crate) fn view_edge<C: GizmoConfigGroup>(
    gizmos: &mut Gizmos<C>,
    p: Vec3,
    v: Vec3,
    perception: &Perception,
    color: Color,
) {
    let Some(heading) = v.try_normalize() else {
        return;
    };
    let radius = perception.radius;
    let (cos, sin) = (
        perception.view_cos,
        (1.0 - perception.view_cos.powi(2)).sqrt(),
    );
    let centre = p + heading * radius * cos;
    let turn = Quat::from_rotation_arc(Vec3::Z, heading);
    gizmos.circle(Isometry3d::new(centre, turn), radius * sin, color);
    for k in 0..4 {
        let round = turn * Quat::from_rotation_z(k as f32 * core::f32::consts::FRAC_PI_2);
        let edge = centre + round * Vec3::X * radius * sin;
        gizmos.line(p, edge, color.with_alpha(0.6));
    }
}

/// A line.
pub(crate) fn line<C: GizmoConfigGroup>(gizmos: &mut Gizmos<C>, a: Vec3, b: Vec3, color: Color) {
    gizmos.line(a, b, color);
}

/// An arrow.
pub(crate) fn arrow<C: GizmoConfigGroup>(gizmos: &mut Gizmos<C>, a: Vec3, b: Vec3, color: Color) {
    gizmos.arrow(a, b, color);
}
