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
//! 0.54 ms); a moved wall, which lays the grid again, about 7 ms. A grid of up to
//! [`RouteSettings::background_above`] cells (by default every grid the default settings lay)
//! is planned in the step, so a route is ready in the step its order is given and a replay is
//! the same; a larger one is laid and searched on Bevy's
//! [`AsyncComputeTaskPool`], so an order never holds up a frame, and its routes are followed
//! from the step they are ready. Following a route is a few cell lookups per follower.

mod field;
mod grid;

use std::sync::Arc;

use bevy::platform::collections::HashSet;
use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};

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
    /// A grid of more cells than this is laid, and its routes planned, on Bevy's
    /// [`AsyncComputeTaskPool`], so that the step goes on meanwhile: a new route is followed
    /// from the step it is ready (followers steer straight, or by the route to the same goal
    /// on the grid before, until then). Up to this size, routes are planned in the step, ready
    /// in the step their order is given and the same on every replay. Default 65,536: the
    /// default grid is planned in the step (an order for 500 units about 2 ms; a moved wall
    /// among 2,000 about 8 ms), a larger one in the background. 0 plans every route in the
    /// background.
    pub background_above: u32,
}

impl Default for RouteSettings {
    fn default() -> Self {
        Self {
            cell_size: 8.0,
            clearance: 10.0,
            max_cells: 65_536,
            background_above: 65_536,
        }
    }
}

impl RouteSettings {
    /// The pool to plan a grid of `cells` cells on: `None` plans it in the step (a grid no
    /// larger than [`RouteSettings::background_above`], or an app without Bevy's task pools).
    fn background(&self, cells: usize) -> Option<&'static AsyncComputeTaskPool> {
        (cells as u64 > u64::from(self.background_above))
            .then(AsyncComputeTaskPool::try_get)
            .flatten()
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

/// What a grid is laid for: the obstacle index's build, the world and the settings.
type LaidFor = (u64, SimulationBounds, RouteSettings);

/// A flow field with the grid it was planned on.
#[derive(Debug)]
struct Planned {
    grid: Arc<NavGrid>,
    field: FlowField,
}

impl Planned {
    /// Whether this field's goal is `target`'s cell.
    fn goes_to(&self, target: Vector) -> bool {
        self.grid.goal_cell(target) == Some(self.field.goal_cell)
    }
}

/// A flow field being planned in the background.
#[derive(Debug)]
struct Planning {
    grid: Arc<NavGrid>,
    /// The goal's cell on `grid`.
    goal_cell: usize,
    task: Task<Option<FlowField>>,
}

impl Planning {
    /// Whether this field's goal is `target`'s cell.
    fn goes_to(&self, target: Vector) -> bool {
        self.grid.goal_cell(target) == Some(self.goal_cell)
    }
}

/// The routes to this step's goals: the grid of open cells and a flow field per goal. Read it
/// with [`Routes::toward`] (where to head) or [`Routes::path`] (the whole route, to draw).
#[derive(Resource, Default, Debug)]
pub struct Routes {
    /// The newest grid laid.
    grid: Option<Arc<NavGrid>>,
    /// The fields in use: on the newest grid, and on an older one for a goal whose field on
    /// the newest is still being planned.
    fields: Vec<Planned>,
    /// The goals asked for this step.
    wanted: Vec<Vector>,
    /// What the newest grid was laid for.
    laid_for: Option<LaidFor>,
    /// A grid being laid in the background, and what for.
    laying: Option<(LaidFor, Task<NavGrid>)>,
    /// Fields being planned in the background, at most one a goal.
    planning: Vec<Planning>,
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

    /// Whether a grid or a route is being planned in the background
    /// ([`RouteSettings::background_above`]).
    pub fn is_planning(&self) -> bool {
        self.laying.is_some() || !self.planning.is_empty()
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

    /// The field to `target`'s cell, with its grid: the one on the newest grid, else one on
    /// an older grid while the newest one's is planned.
    fn field(&self, target: Vector) -> Option<(&NavGrid, &FlowField)> {
        let mut found = None;
        for planned in self.fields.iter().filter(|f| f.goes_to(target)) {
            found = Some((&*planned.grid, &planned.field));
            if self.is_newest(planned) {
                break;
            }
        }
        found
    }

    /// Whether `planned` is on the newest grid.
    fn is_newest(&self, planned: &Planned) -> bool {
        self.grid
            .as_ref()
            .is_some_and(|g| Arc::ptr_eq(g, &planned.grid))
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

    /// Forgets every grid and route (no obstacles to route round).
    fn clear(&mut self) {
        *self = Self {
            plans: self.plans,
            ..default()
        };
    }

    /// Makes `grid` the newest; the fields on older grids, and those being planned on them,
    /// stay until their goals' fields on this one are ready.
    fn install(&mut self, grid: NavGrid, laid_for: LaidFor) {
        self.grid = Some(Arc::new(grid));
        self.laid_for = Some(laid_for);
        self.warned.clear();
    }

    /// Makes sure the newest grid is laid for `laid_for`, or is being laid for it: in the step,
    /// or in the background. A grid laid in the background that is ready becomes the newest
    /// even when the obstacles have changed again since (it is newer than the one in use), and
    /// the next is laid after it, so that obstacles that move every step still get a grid.
    fn lay(&mut self, index: &ObstacleIndex, laid_for: LaidFor) {
        if let Some((_, task)) = &mut self.laying
            && let Some(grid) = check_ready(task)
        {
            let (done_for, _) = self.laying.take().expect("a grid was being laid");
            self.install(grid, done_for);
        }
        if self.laid_for.as_ref() == Some(&laid_for) || self.laying.is_some() {
            return;
        }
        let (_, bounds, settings) = &laid_for;
        let cells = NavGrid::lattice(bounds, settings.cell_size, settings.max_cells).len();
        let lay = |index: &ObstacleIndex, (_, bounds, settings): &LaidFor| {
            let (size, clearance) = (settings.cell_size, settings.clearance);
            NavGrid::build(index, bounds, size, clearance, settings.max_cells)
        };
        match settings.background(cells) {
            Some(pool) => {
                let index = index.clone();
                let key = laid_for.clone();
                let task = pool.spawn(async move { lay(&index, &key) });
                self.laying = Some((laid_for, task));
            }
            None => {
                let grid = lay(index, &laid_for);
                self.install(grid, laid_for);
            }
        }
    }

    /// Keeps a field for each goal in `wanted` on the newest grid (planning the new ones, in
    /// the step or in the background) and drops the rest; a field on an older grid stays until
    /// its goal's field on the newest is ready. A goal has at most one field being planned at a
    /// time: one on an older grid finishes, and is used, before the next is planned, so that
    /// a grid laid again every step still gets its fields.
    fn plan(&mut self, wanted: &[Vector], bounds: &SimulationBounds, settings: &RouteSettings) {
        let mut i = 0;
        while i < self.planning.len() {
            let Some(field) = check_ready(&mut self.planning[i].task) else {
                i += 1;
                continue;
            };
            let done = self.planning.remove(i);
            if let Some(field) = field {
                self.plans += 1;
                self.fields.push(Planned {
                    grid: done.grid,
                    field,
                });
            }
        }
        let Some(grid) = self.grid.clone() else {
            self.fields.clear();
            self.planning.clear();
            return;
        };
        self.planning
            .retain(|p| wanted.iter().any(|&goal| p.goes_to(goal)));
        for &goal in wanted {
            let Some(cell) = grid.goal_cell(goal) else {
                continue;
            };
            let newest = |f: &Planned| Arc::ptr_eq(&f.grid, &grid) && f.field.goal_cell == cell;
            if self.fields.iter().any(newest) || self.planning.iter().any(|p| p.goes_to(goal)) {
                continue;
            }
            if let Some(pool) = settings.background(grid.len()) {
                let (on, bounds) = (grid.clone(), *bounds);
                let task = pool.spawn(async move { FlowField::build(&on, &bounds, goal) });
                self.planning.push(Planning {
                    grid: grid.clone(),
                    goal_cell: cell,
                    task,
                });
            } else if let Some(field) = FlowField::build(&grid, bounds, goal) {
                self.plans += 1;
                self.fields.push(Planned {
                    grid: grid.clone(),
                    field,
                });
            }
        }
        // Keep the fields whose goal is still wanted: on the newest grid, or on an older one
        // while the newest one's field to that goal is not ready.
        let kept: Vec<bool> = self
            .fields
            .iter()
            .map(|f| {
                wanted.iter().any(|&g| f.goes_to(g))
                    && (Arc::ptr_eq(&f.grid, &grid)
                        || !self.fields.iter().any(|n| {
                            Arc::ptr_eq(&n.grid, &grid)
                                && wanted.iter().any(|&g| f.goes_to(g) && n.goes_to(g))
                        }))
            })
            .collect();
        let mut keep = kept.into_iter();
        self.fields.retain(|_| keep.next().unwrap_or(false));
    }
}

/// Lays the grid again when the obstacles, the world or the settings changed, then keeps a flow
/// field for each goal asked for this step (planning the new ones) and drops the rest: in the
/// step, or on the [`AsyncComputeTaskPool`] for a grid larger than
/// [`RouteSettings::background_above`].
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
        if routes.grid.is_some() || routes.is_planning() {
            routes.clear();
        }
        return;
    };
    if wanted.is_empty() && routes.fields.is_empty() && !routes.is_planning() {
        return;
    }
    routes.lay(&index, (index.builds(), **bounds, settings.clone()));
    routes.plan(&wanted, &bounds, &settings);
}

#[cfg(test)]
mod tests;
