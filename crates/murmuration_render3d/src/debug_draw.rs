//! The debug overlays in 3D ([`crate::debug`]): picking the boid drawn nearest the pointer, and
//! drawing the overlays as spheres, cones, boxes and arrows.

use bevy::color::palettes::css::{GOLD, GRAY, WHITE};
use bevy::prelude::*;
use bevy::window::PrimaryWindow;
use murmuration_sim3d::{
    Boid, Edges, FlockId, FlockTable, HashSlot, SimulationBounds, SpatialHash, Velocity,
};

use crate::OrbitCamera;
use crate::controls::InputBlocked;
use crate::debug::{FlockDebug, FlockDebugGizmos, LastSteering, draw_neighbours_and_forces};

/// P or a middle click picks the boid drawn nearest the pointer on screen.
pub(crate) fn pick_boid(
    mut debug: ResMut<FlockDebug>,
    keys: Res<ButtonInput<KeyCode>>,
    buttons: Res<ButtonInput<MouseButton>>,
    blocked: Res<InputBlocked>,
    windows: Query<&Window, With<PrimaryWindow>>,
    cameras: Query<(&Camera, &GlobalTransform), With<OrbitCamera>>,
    boids: Query<(Entity, &GlobalTransform), With<Boid>>,
) {
    let wants = keys.just_pressed(KeyCode::KeyP) || buttons.just_pressed(MouseButton::Middle);
    if wants
        && !blocked.pointer
        && let Some(cursor) = windows.single().ok().and_then(Window::cursor_position)
        && let Some((camera, eye)) = cameras.iter().next()
    {
        let on_screen = |at: &GlobalTransform| {
            let p = camera.world_to_viewport(eye, at.translation()).ok()?;
            Some(p.distance_squared(cursor))
        };
        let nearest = boids
            .iter()
            .filter_map(|(entity, at)| Some((entity, on_screen(at)?)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((entity, _)) = nearest {
            debug.picked = Some(entity);
        }
    }
    if debug.picked.is_none_or(|e| boids.get(e).is_err()) {
        debug.picked = boids.iter().next().map(|(e, _)| e);
    }
}

/// Draws the overlays that are on.
pub(crate) fn draw_overlays(
    mut gizmos: Gizmos<FlockDebugGizmos>,
    debug: Res<FlockDebug>,
    table: Res<FlockTable>,
    bounds: Res<SimulationBounds>,
    hash: Res<SpatialHash>,
    boids: Query<
        (
            &HashSlot,
            &Velocity,
            &FlockId,
            &Transform,
            Option<&LastSteering>,
        ),
        With<Boid>,
    >,
) {
    if debug.grid && !hash.is_empty() {
        let cell = hash.cell_size();
        let centre = hash.origin() + cell * hash.dims().as_vec3() * 0.5;
        gizmos
            .grid_3d(
                Isometry3d::from_translation(centre),
                hash.dims(),
                cell,
                GRAY.with_alpha(0.2),
            )
            .outer_edges();
    }
    if debug.margin {
        if let Edges::TurnBack { margin, .. } = bounds.edges {
            let inner = bounds.rect.size() - Vec3::splat(2.0 * margin);
            if inner.min_element() > 0.0 {
                draw_box(
                    &mut gizmos,
                    bounds.rect.center(),
                    inner,
                    WHITE.with_alpha(0.5),
                );
            }
        }
        draw_box(
            &mut gizmos,
            bounds.rect.center(),
            bounds.rect.size(),
            WHITE.with_alpha(0.25),
        );
    }
    let Some(picked) = debug.picked else { return };
    let Ok((slot, velocity, flock, transform, steering)) = boids.get(picked) else {
        return;
    };
    // The picked boid sees as its own flock does.
    let perception = table.row(*flock).perception();
    let p = transform.translation;
    let v = velocity.0;
    if debug.perception {
        let radius = perception.radius;
        gizmos.sphere(
            Isometry3d::from_translation(p),
            radius,
            GOLD.with_alpha(0.2),
        );
        if perception.view_cos > -1.0
            && let Some(heading) = v.try_normalize()
        {
            // The cone's rim: a circle round the heading where the view's edge meets the
            // sphere, and four lines to it from the boid.
            let (cos, sin) = (
                perception.view_cos,
                (1.0 - perception.view_cos.powi(2)).sqrt(),
            );
            let centre = p + heading * radius * cos;
            let turn = Quat::from_rotation_arc(Vec3::Z, heading);
            gizmos.circle(Isometry3d::new(centre, turn), radius * sin, GOLD);
            for k in 0..4 {
                let round = turn * Quat::from_rotation_z(k as f32 * core::f32::consts::FRAC_PI_2);
                let edge = centre + round * Vec3::X * radius * sin;
                gizmos.line(p, edge, GOLD.with_alpha(0.6));
            }
        }
    }
    draw_neighbours_and_forces(
        &mut gizmos,
        &debug,
        &hash,
        &perception,
        slot.0 as usize,
        (p, v),
        steering,
    );
}

/// The twelve edges of the box of `size` round `centre`.
fn draw_box(
    gizmos: &mut Gizmos<FlockDebugGizmos>,
    centre: Vec3,
    size: Vec3,
    color: impl Into<Color>,
) {
    gizmos.cube(Transform::from_translation(centre).with_scale(size), color);
}
