//! The debug overlays in 2D ([`crate::debug`]): picking the boid under the pointer, and drawing.

use bevy::color::palettes::css::{GOLD, GRAY, WHITE};
use bevy::prelude::*;
use murmuration_sim::{
    Boid, Edges, FlockId, FlockTable, HashSlot, SimulationBounds, SpatialHash, Velocity,
};

use crate::controls::InputBlocked;
use crate::debug::{FlockDebug, FlockDebugGizmos, LastSteering, draw_neighbours_and_forces};
use crate::pointer::pointer_world;
use crate::view::WorldView;

/// P or a middle click picks the boid nearest the pointer.
pub(crate) fn pick_boid(
    mut debug: ResMut<FlockDebug>,
    keys: Res<ButtonInput<KeyCode>>,
    buttons: Res<ButtonInput<MouseButton>>,
    blocked: Res<InputBlocked>,
    hash: Res<SpatialHash>,
    view: Option<Res<WorldView>>,
    window: Query<&Window>,
    boids: Query<Entity, With<Boid>>,
) {
    let wants = keys.just_pressed(KeyCode::KeyP) || buttons.just_pressed(MouseButton::Middle);
    if wants
        && !blocked.pointer
        && let (Some(view), Ok(window)) = (view, window.single())
        && let Some(point) = pointer_world(window, None, &view)
        && let Some(hit) = hash.nearest(point, f32::INFINITY, |_| true)
    {
        debug.picked = Some(hash.entity(hit.slot));
    }
    if debug.picked.is_none_or(|e| boids.get(e).is_err()) {
        debug.picked = boids.iter().next();
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
        let dims = hash.dims();
        let cell = hash.cell_size();
        let centre = hash.origin() + cell * dims.as_vec2() * 0.5;
        gizmos.grid_2d(
            Isometry2d::from_translation(centre),
            dims,
            cell,
            GRAY.with_alpha(0.35),
        );
    }
    if debug.margin
        && let Edges::TurnBack { margin, .. } = bounds.edges
    {
        let inner = bounds.rect.inflate(-margin);
        dashed_rect(&mut gizmos, inner, 12.0, WHITE.with_alpha(0.5).into());
        gizmos.rect_2d(
            Isometry2d::from_translation(bounds.rect.center()),
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
    let p = transform.translation.truncate();
    let v = velocity.0;
    if debug.perception {
        let radius = perception.radius;
        // The whole circle faint, the part in view bold: the blind spot shows as the gap.
        gizmos.circle_2d(
            Isometry2d::from_translation(p),
            radius,
            GOLD.with_alpha(0.25),
        );
        if perception.view_cos > -1.0 && v != Vec2::ZERO {
            let fov = 2.0 * perception.view_cos.acos();
            // The arc is centred on the isometry's +y: turn +y onto the heading.
            let rotation = Rot2::radians(v.to_angle() - core::f32::consts::FRAC_PI_2);
            gizmos.arc_2d(Isometry2d::new(p, rotation), fov, radius, GOLD);
            for side in [-0.5, 0.5] {
                let edge = Vec2::from_angle(v.to_angle() + side * fov) * radius;
                gizmos.line_2d(p, p + edge, GOLD.with_alpha(0.6));
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

/// A rectangle drawn as dashes of about `dash` world units.
fn dashed_rect(gizmos: &mut Gizmos<FlockDebugGizmos>, rect: Rect, dash: f32, color: Color) {
    let corners = [
        rect.min,
        Vec2::new(rect.max.x, rect.min.y),
        rect.max,
        Vec2::new(rect.min.x, rect.max.y),
    ];
    for i in 0..4 {
        let (a, b) = (corners[i], corners[(i + 1) % 4]);
        let n = ((a.distance(b) / dash) as usize).max(1);
        for k in (0..n).step_by(2) {
            let from = a.lerp(b, k as f32 / n as f32);
            let to = a.lerp(b, ((k + 1) as f32 / n as f32).min(1.0));
            gizmos.line_2d(from, to, color);
        }
    }
}
