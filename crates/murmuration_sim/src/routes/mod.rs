//! Routes round walls: where a unit ordered to a point, or a boid seeking an
//! [`Attractor`](crate::seek::Attractor), heads when obstacles stand between it and its goal.
//!
//! Steering alone finds no way through a maze: seeking pulls a boid straight at its goal and
//! obstacle avoidance only turns it along the wall in front of it. As the source texts say, a
//! real route is a job for pathfinding, and steering keeps the units apart along the way. This
//! module is that pathfinding, in the way strategy games move crowds: one *flow field* per goal,
//! shared by every unit and boid that goes there.
//!
//! - The [`Routes`] resource lays a grid over the world ([`RouteSettings::cell_size`]) and opens
//!   the cells whose centre is at least [`RouteSettings::clearance`] from every obstacle; it does
//!   this again only when the [`ObstacleIndex`] is rebuilt (an obstacle added, moved or gone).
//! - For each goal asked for this step (a [`MoveOrder`](crate::units::MoveOrder)'s target, an
//!   attractor), one Dijkstra search from the goal over the open cells gives every cell its
//!   route length and its next cell: a flow field, kept while the goal stays in its cell.
//! - A follower at `p` reads [`Routes::toward`]: a heading along the route, to the farthest of
//!   the next few cells in a straight open line (so it does not zigzag from cell to cell), as
//!   long as the whole route. [`Arrive`](crate::units::Arrive) and seeking steer by that vector
//!   where they would steer by the straight one, so a unit slows down by the route's length,
//!   not the straight distance. A unit pushed off its route is on another cell's route.
//! - A goal in a closed cell (inside a wall) moves to the nearest open cell; a follower that
//!   cannot reach its goal at all (another room with no door) goes to the open cell of its own
//!   room nearest the goal. A game is told of each once for a unit order (not for an
//!   attractor, which may sit anywhere, such as on the pointer).
//!
//! Without obstacles nothing is built and followers steer straight, as before. Routes are a
//! guide: obstacle avoidance and the swept integration still keep every boid out of every
//! obstacle. Without [`RoutesPlugin`] (it can be disabled in [`BoidsPlugins`](crate::BoidsPlugins))
//! followers steer straight at their goals.
//!
//! Cost (BENCHMARKS.md, Intel Xeon VM, two threads): an order for 500 units across a map of
//! 256 x 256 cells with 2,000 walls is planned in about 2 ms (the step with it 2.6 ms, without
//! 0.54 ms); a moved wall, which lays the grid again, about 7 ms. It runs in the step, not on a
//! task pool, so a route is ready in the step its order is given and a replay is the same.
//! Following a route is a few cell lookups per follower.

mod field;
mod grid;

use bevy::platform::collections::HashSet;
use bevy::prelude::*;

use crate::bounds::{SimulationBounds, StepBounds};
use crate::math::Vector;
use crate::obstacles::ObstacleIndex;
use crate::params::{ParamIssue, Validate, validate_on_change};
use crate::schedule::{BoidsSystems, schedule_of};

use field::FlowField;
use grid::NavGrid;

/// Routes round obstacles for units and seeking boids: the [`Routes`] resource, planned in
/// [`BoidsSystems::BuildHash`] after the obstacle index, with [`RouteSettings`].
#[derive(Debug, Clone, Default)]
pub struct RoutesPlugin;

impl Plugin for RoutesPlugin {
    fn is_unique(&self) -> bool {
        // Added twice, the second does nothing (see `StepPlugin`).
        false
    }

    fn build(&self, app: &mut App) {
        if app.is_plugin_added::<Self>() {
            return;
        }
        let schedule = schedule_of(app, "RoutesPlugin");
        app.register_type::<RouteSettings>()
            .init_resource::<RouteSettings>()
            .init_resource::<Routes>()
            .add_systems(
                schedule,
                (validate_on_change::<RouteSettings>, plan_routes)
                    .chain()
                    .after(crate::obstacles::index_obstacles)
                    .in_set(BoidsSystems::BuildHash),
            );
    }
}

/// How routes are laid out.
#[derive(Resource, Reflect, Debug, Clone, PartialEq)]
#[reflect(Resource, Default, Debug, Clone)]
pub struct RouteSettings {
    /// The size of a route cell, world units (cells are larger where the world would need more
    /// than `max_cells`). Default 8.
    pub cell_size: f32,
    /// How far a route keeps from every obstacle, world units: a gap narrower than twice this
    /// is closed to routes. It is at least a little more than half a cell. Default 10.
    pub clearance: f32,
    /// The most cells the grid may have. Default 65,536 (256 x 256).
    pub max_cells: u32,
}

impl Default for RouteSettings {
    fn default() -> Self {
        Self {
            cell_size: 8.0,
            clearance: 10.0,
            max_cells: 65_536,
        }
    }
}

impl Validate for RouteSettings {
    /// `cell_size` is at least 0.5 and `clearance` at least 0 (a non-finite one becomes its
    /// default); `max_cells` is at least 1.
    fn validate(&mut self) -> Vec<ParamIssue> {
        let defaults = Self::default();
        let mut issues = Vec::new();
        ParamIssue::check(
            &mut issues,
            "cell_size",
            &mut self.cell_size,
            defaults.cell_size,
            0.5..=f32::INFINITY,
        );
        ParamIssue::check(
            &mut issues,
            "clearance",
            &mut self.clearance,
            defaults.clearance,
            0.0..=f32::INFINITY,
        );
        let mut cells = self.max_cells as f32;
        ParamIssue::check(
            &mut issues,
            "max_cells",
            &mut cells,
            defaults.max_cells as f32,
            1.0..=f32::INFINITY,
        );
        self.max_cells = cells as u32;
        issues
    }
}

/// The routes to this step's goals: the grid of open cells and a flow field per goal. Read it
/// with [`Routes::toward`] (where to head) or [`Routes::path`] (the whole route, to draw).
#[derive(Resource, Default, Debug)]
pub struct Routes {
    grid: Option<NavGrid>,
    fields: Vec<FlowField>,
    /// The goals asked for this step.
    wanted: Vec<Vector>,
    /// The obstacle index build, bounds and settings the grid was laid for.
    laid_for: Option<(u64, SimulationBounds, RouteSettings)>,
    /// Orders' goals already warned of: the cell a goal was in, and whether it was closed (or
    /// out of some unit's reach).
    warned: HashSet<(usize, bool)>,
    plans: u64,
}

impl Routes {
    /// Asks for a route to `goal` this step (units ask for their orders' targets, seeking asks
    /// for the attractors). Routes not asked for are dropped.
    pub fn request(&mut self, goal: Vector) {
        if goal.is_finite() {
            self.wanted.push(goal);
        }
    }

    /// Whether any route is planned (there are obstacles and goals).
    pub fn is_routing(&self) -> bool {
        !self.fields.is_empty()
    }

    /// How many flow fields have been planned since the app started (each a search of the
    /// grid).
    pub fn plans(&self) -> u64 {
        self.plans
    }

    /// How many cells the grid has, and how many of them are open (none: no grid, as without
    /// obstacles).
    pub fn cells(&self) -> (usize, usize) {
        self.grid
            .as_ref()
            .map_or((0, 0), |g| (g.len(), g.open.iter().filter(|&&o| o).count()))
    }

    /// The field whose goal is in the cell of `target`, with the grid.
    fn field(&self, target: Vector) -> Option<(&NavGrid, &FlowField)> {
        let grid = self.grid.as_ref()?;
        let cell = grid.goal_cell(target)?;
        self.fields
            .iter()
            .find(|f| f.goal_cell == cell)
            .map(|f| (grid, f))
    }

    /// Where a follower at `p` going to `target` heads: along its route, a vector as long as the
    /// route. `None` where no route was asked for `target`, or `p` has none (outside the
    /// world): head straight.
    #[inline]
    pub fn toward(&self, bounds: &SimulationBounds, p: Vector, target: Vector) -> Option<Vector> {
        if self.fields.is_empty() {
            return None;
        }
        let (grid, field) = self.field(target)?;
        field.toward(grid, bounds, p, target)
    }

    /// The route from `from` to `target` as points, from `from` to where it ends (the target,
    /// or the nearest point to it that can be reached), following [`Routes::toward`] in steps of
    /// at most `step` world units; at most `max_points` points. Empty without a route.
    pub fn path(
        &self,
        bounds: &SimulationBounds,
        from: Vector,
        target: Vector,
        step: f32,
        max_points: usize,
    ) -> Vec<Vector> {
        let mut out = Vec::new();
        let step = step.max(0.01);
        let mut p = from;
        out.push(p);
        while out.len() < max_points {
            let Some(d) = self.toward(bounds, p, target) else {
                return if out.len() > 1 { out } else { Vec::new() };
            };
            let length = d.length();
            if length <= step {
                out.push(p + d);
                break;
            }
            p += d / length * step;
            out.push(p);
        }
        out
    }

    /// Whether a follower at `p` can reach `target` itself along its route (not only the
    /// nearest point to it). `None` without a route to `target`.
    pub fn reaches(&self, p: Vector, target: Vector) -> Option<bool> {
        let (grid, field) = self.field(target)?;
        let i = grid.cell(p)?;
        Some(field.reaches_goal(grid, i))
    }

    /// Warns once per goal cell of an order to `target` that routes cannot reach: the target is
    /// inside an obstacle (or nearer one than the clearance), or `shut_off` of its units cannot
    /// reach it at all (walls shut them off).
    pub(crate) fn warn_out_of_reach(&mut self, target: Vector, shut_off: usize) {
        let Some((_, field)) = self.field(target) else {
            return;
        };
        let (cell, closed) = (field.goal_cell, field.goal_closed);
        let end = field.ends[field.goal_component as usize];
        if closed && self.warned.insert((cell, true)) {
            warn!(
                "bevy_murmuration: the order's target {target} is inside an obstacle or nearer \
                 one than the route clearance: its units go to the nearest open point, {end}"
            );
        }
        if shut_off > 0 && self.warned.insert((cell, false)) {
            warn!(
                "bevy_murmuration: {shut_off} unit(s) cannot reach {target} (walls shut it \
                 off): they go to the nearest point they can reach"
            );
        }
    }
}

/// Lays the grid again when the obstacles, the world or the settings changed, then keeps a flow
/// field for each goal asked for this step (planning the new ones) and drops the rest.
pub(crate) fn plan_routes(
    bounds: Res<StepBounds>,
    settings: Res<RouteSettings>,
    index: Option<Res<ObstacleIndex>>,
    mut routes: ResMut<Routes>,
) {
    let routes = &mut *routes;
    let wanted = std::mem::take(&mut routes.wanted);
    let index = index.filter(|index| !index.is_empty());
    let Some(index) = index else {
        // Nothing to route round.
        routes.grid = None;
        routes.fields.clear();
        routes.laid_for = None;
        return;
    };
    if wanted.is_empty() && routes.fields.is_empty() {
        return;
    }
    let key = (index.builds(), **bounds, settings.clone());
    if routes.laid_for.as_ref() != Some(&key) {
        routes.grid = Some(NavGrid::build(
            &index,
            &bounds,
            settings.cell_size,
            settings.clearance,
            settings.max_cells,
        ));
        routes.fields.clear();
        routes.warned.clear();
        routes.laid_for = Some(key);
    }
    let Some(grid) = routes.grid.as_ref() else {
        return;
    };
    let cells: Vec<Option<usize>> = wanted.iter().map(|&g| grid.goal_cell(g)).collect();
    routes.fields.retain(|f| cells.contains(&Some(f.goal_cell)));
    for (&goal, &cell) in wanted.iter().zip(&cells) {
        let Some(cell) = cell else { continue };
        if routes.fields.iter().any(|f| f.goal_cell == cell) {
            continue;
        }
        let Some(field) = FlowField::build(grid, &bounds, goal) else {
            continue;
        };
        routes.plans += 1;
        routes.fields.push(field);
    }
}

#[cfg(test)]
mod tests;
