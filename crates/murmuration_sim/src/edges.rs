//! Turning back at the edges of the world: inside the margin of
//! [`Edges::TurnBack`], a boid steers toward the inside
//! ([`turn_back_direction`]); under [`Edges::Wrap`] it does
//! nothing, as the world has no edge.
//!
//! Its settings (the margin and the weight) are part of
//! [`SimulationBounds`](crate::SimulationBounds), not of a flock: every flock shares one world,
//! and integration reads the same edge mode to wrap or to keep the boids in.

use bevy::prelude::*;

use crate::bounds::{Edges, StepBounds};
use crate::components::Agents;
use crate::math::{Region, Vector, per_axis};
use crate::parallel::DENSE;
use crate::schedule::{SteeringSystems, schedule_of};
use crate::steering::{Mover, add_forces, mover_parts, steer, top_speed};
use crate::table::FlockTable;

/// Boids and hunters turn back inside the margin of [`Edges::TurnBack`], in
/// [`SteeringSystems::Edges`].
#[derive(Debug, Clone, Default)]
pub struct EdgesPlugin;

impl Plugin for EdgesPlugin {
    fn is_unique(&self) -> bool {
        // Added twice, the second does nothing (see `StepPlugin`).
        false
    }

    fn build(&self, app: &mut App) {
        if app.is_plugin_added::<Self>() {
            return;
        }
        let schedule = schedule_of(app, "EdgesPlugin");
        app.add_systems(schedule, avoid_edges.in_set(SteeringSystems::Edges));
    }
}

/// Turn-back direction: `+1` on an axis when `p` is within `margin` of the low edge, `-1` near the
/// high edge, `0` elsewhere; steer along it with weight `edge_weight`.
#[inline]
pub fn turn_back_direction(p: Vector, rect: Region, margin: f32) -> Vector {
    let axis = |x: f32, lo: f32, hi: f32| {
        if x < lo + margin {
            1.0
        } else if x > hi - margin {
            -1.0
        } else {
            0.0
        }
    };
    per_axis(|i| axis(p[i], rect.min[i], rect.max[i]))
}

/// Turn back inside the margin of [`Edges::TurnBack`]; nothing under [`Edges::Wrap`].
pub(crate) fn avoid_edges(
    bounds: Res<StepBounds>,
    table: Res<FlockTable>,
    mut movers: Query<Mover, Agents>,
) {
    let Edges::TurnBack { margin, weight } = bounds.edges else {
        return;
    };
    let rect = bounds.rect;
    add_forces(
        movers.contiguous_iter_mut().expect(DENSE).map(mover_parts),
        |(p, v, max_speed, flock), a| {
            for (i, a) in a.iter_mut().enumerate() {
                let dir = turn_back_direction(p[i].0, rect, margin);
                if dir != Vector::ZERO {
                    let row = table.row(flock[i]);
                    let speed = top_speed(max_speed, i, row);
                    a.0 += steer(dir, v[i].0, speed, row.max_force) * weight;
                }
            }
        },
    );
}
