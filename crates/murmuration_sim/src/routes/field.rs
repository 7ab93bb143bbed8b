//! [`FlowField`]: the length of the shortest route from every cell of a [`NavGrid`] to one goal,
//! and the next cell along it, shared by every unit and boid that goes there.
//!
//! It is one Dijkstra search from the goal over the grid's moves (straight and diagonal, with
//! integer costs, so a bucket queue orders it in time proportional to the cells). A cell that
//! cannot reach the goal routes to the cell of its own component nearest the goal instead: each
//! component is searched from its own end, so a unit shut off from its goal still goes as near
//! as it can.

use super::grid::{NONE, NavGrid, UNIT};
use crate::bounds::SimulationBounds;
use crate::math::{DIM, Vector, per_axis};

/// Routes from every cell to one goal.
#[derive(Debug, Clone)]
pub(crate) struct FlowField {
    /// The cell the goal is in.
    pub goal_cell: usize,
    /// Each cell's route length to its end, [`UNIT`] a cell; [`NONE`] for a closed cell.
    pub cost: Vec<u32>,
    /// The next cell along each cell's route (the cell itself at the end).
    pub next: Vec<u32>,
    /// Each component's end: the goal for the goal's own component (unless the goal is in a
    /// closed cell), the open cell nearest the goal for the others.
    pub ends: Vec<Vector>,
    /// The goal's component.
    pub goal_component: u32,
    /// Whether the goal's cell is closed (inside an obstacle or too near one): its component's
    /// end is then the nearest open cell.
    pub goal_closed: bool,
}

impl FlowField {
    /// The routes to `goal` over `grid`; `None` when the grid has no open cell or the goal is
    /// not a finite point.
    pub fn build(grid: &NavGrid, bounds: &SimulationBounds, goal: Vector) -> Option<Self> {
        if !goal.is_finite() || grid.components == 0 {
            return None;
        }
        let goal_cell = grid.goal_cell(goal)?;
        // Each component's cell nearest the goal: where its routes end.
        let mut nearest = vec![(f32::INFINITY, 0usize); grid.components as usize];
        for i in 0..grid.len() {
            let k = grid.component[i];
            if k == NONE {
                continue;
            }
            let d = bounds.delta(grid.centre(i), goal).length_squared();
            if d < nearest[k as usize].0 {
                nearest[k as usize] = (d, i);
            }
        }
        let goal_closed = !grid.open[goal_cell];
        let goal_component = if goal_closed {
            let best = nearest
                .iter()
                .enumerate()
                .min_by(|a, b| a.1.0.total_cmp(&b.1.0))?;
            best.0 as u32
        } else {
            grid.component[goal_cell]
        };
        if !goal_closed {
            nearest[goal_component as usize].1 = goal_cell;
        }
        let ends = nearest
            .iter()
            .enumerate()
            .map(|(k, &(_, i))| {
                if k as u32 == goal_component && !goal_closed {
                    goal
                } else {
                    grid.centre(i)
                }
            })
            .collect();
        let seeds: Vec<usize> = nearest.iter().map(|&(_, i)| i).collect();
        let (cost, next) = search(grid, &seeds);
        Some(Self {
            goal_cell,
            cost,
            next,
            ends,
            goal_component,
            goal_closed,
        })
    }

    /// The end of the route from cell `i`, when the caller's goal is `target` (any point of the
    /// goal's cell).
    fn end(&self, grid: &NavGrid, i: usize, target: Vector) -> Vector {
        let k = grid.component[i];
        if k == self.goal_component && !self.goal_closed {
            target
        } else {
            self.ends[k as usize]
        }
    }

    /// Whether a follower at cell `i` is in the goal's component: it can reach the goal (or,
    /// for a closed goal, the open point nearest it).
    pub fn reaches_goal(&self, grid: &NavGrid, i: usize) -> bool {
        grid.component[i] == self.goal_component
    }

    /// Where the route from `p` toward `target` (a point of the goal's cell) heads: down the
    /// field's slope, as long as the whole route. `None` where the grid has no route from `p`
    /// (outside the grid, or closed in): go straight.
    ///
    /// The heading is the field's upwind slope (on each axis, toward the neighbour the route
    /// falls to), blended between the cells round `p` so it turns smoothly. Down the slope of
    /// the grid's straight-and-diagonal costs a follower heads at a multiple of 22.5 degrees,
    /// which keeps its path within about 2% of a straight line across open ground, where
    /// stepping from cell to cell would take up to 8% more. Next to the end, in a straight
    /// open line, it heads straight for the end.
    pub fn toward(
        &self,
        grid: &NavGrid,
        bounds: &SimulationBounds,
        p: Vector,
        target: Vector,
    ) -> Option<Vector> {
        let here = grid.cell(p)?;
        if self.cost[here] == NONE {
            // Pushed off the routes (into a closed cell): back to the open neighbour nearest
            // along its route.
            let c = grid.lattice.cell_of(p);
            let mut best: Option<(f32, usize)> = None;
            for step in &grid.moves {
                let Some(j) = grid
                    .lattice
                    .index(std::array::from_fn(|a| c[a] + step.offset[a]))
                else {
                    continue;
                };
                if self.cost[j] == NONE {
                    continue;
                }
                let d = self.cost[j] as f32 * grid.unit_length
                    + bounds.delta(p, grid.centre(j)).length();
                if best.is_none_or(|b| d < b.0) {
                    best = Some((d, j));
                }
            }
            let (length, j) = best?;
            let d = bounds.delta(p, grid.centre(j));
            return Some(d.try_normalize().map_or(d, |u| u * length));
        }
        let rest = self.cost[here] as f32 * grid.unit_length;
        if self.next[here] as usize == here || rest <= grid.lattice.cell.max_element() * 2.0 {
            let end = bounds.delta(p, self.end(grid, here, target));
            if self.next[here] as usize == here || grid.line_open(p, end) {
                return Some(end);
            }
        }
        // Down the slope, unless that cuts into a closed cell round a corner: then to the next
        // cell along the route.
        let reach = grid.lattice.cell.max_element();
        let slope = self
            .slope_at(grid, p)
            .filter(|&slope| grid.line_open(p, slope * reach))
            .or_else(|| {
                bounds
                    .delta(p, grid.centre(self.next[here] as usize))
                    .try_normalize()
            })?;
        Some(slope * rest)
    }

    /// The unit heading down the field at `p`: each cell's [`FlowField::slope`] round it,
    /// weighted by how near its centre is (bilinear); `None` where they cancel.
    fn slope_at(&self, grid: &NavGrid, p: Vector) -> Option<Vector> {
        let lattice = &grid.lattice;
        let f = (p - lattice.origin) / lattice.cell - 0.5;
        let base = f.floor();
        let t = f - base;
        let mut sum = Vector::ZERO;
        for corner in 0..1usize << DIM {
            let mut weight = 1.0;
            let c: [i32; DIM] = std::array::from_fn(|a| {
                let up = corner >> a & 1 == 1;
                weight *= if up { t[a] } else { 1.0 - t[a] };
                base[a] as i32 + up as i32
            });
            if let Some(i) = lattice.index(c)
                && self.cost[i] != NONE
            {
                sum += self.slope(grid, i) * weight;
            }
        }
        sum.try_normalize()
    }

    /// Cell `i`'s upwind slope: on each axis, the fall in cost to the lower of its two
    /// neighbours (zero where neither is lower), per world unit, pointing to it; the direction
    /// to its next cell where no axis falls (a route that leaves diagonally).
    fn slope(&self, grid: &NavGrid, i: usize) -> Vector {
        let lattice = &grid.lattice;
        let c = lattice.coords(i);
        let here = self.cost[i] as f32;
        let fall = |a: usize, side: i32| {
            let mut n = c;
            n[a] += side;
            lattice
                .index(n)
                .map(|j| self.cost[j])
                .filter(|&cost| cost != NONE)
                .map_or(0.0, |cost| (here - cost as f32).max(0.0))
        };
        let slope = per_axis(|a| {
            let (down, up) = (fall(a, -1), fall(a, 1));
            if up > down { up } else { -down }
        }) / lattice.cell;
        if slope == Vector::ZERO {
            let next = lattice.coords(self.next[i] as usize);
            // One cell on each axis; across a wrapping seam the coordinates jump the other way.
            let step = per_axis(|a| {
                let d = (next[a] - c[a]) as f32;
                if d.abs() > 1.5 { -d.signum() } else { d }
            });
            return step.try_normalize().unwrap_or(Vector::ZERO);
        }
        slope.normalize()
    }
}

/// Dijkstra's search over `grid` from `seeds` (each at cost zero): each open cell's cost and the
/// next cell toward its seed. Costs are whole numbers no more than [`UNIT`] times two per move,
/// so a ring of buckets one longer than the dearest move orders the search.
pub(crate) fn search(grid: &NavGrid, seeds: &[usize]) -> (Vec<u32>, Vec<u32>) {
    let n = grid.len();
    let mut cost = vec![NONE; n];
    let mut next = vec![NONE; n];
    let ring = grid.moves.iter().map(|m| m.cost).max().unwrap_or(UNIT) as usize + 1;
    let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); ring];
    let mut pending = 0usize;
    for &s in seeds {
        if cost[s] != 0 {
            cost[s] = 0;
            next[s] = s as u32;
            buckets[0].push(s as u32);
            pending += 1;
        }
    }
    let mut now = 0u32;
    let mut bucket = Vec::new();
    while pending > 0 {
        let slot = now as usize % ring;
        std::mem::swap(&mut bucket, &mut buckets[slot]);
        for &i in &bucket {
            pending -= 1;
            let i = i as usize;
            if cost[i] != now {
                // Reached more cheaply since it was queued.
                continue;
            }
            let c = grid.lattice.coords(i);
            grid.for_each_link(i, c, |j, step| {
                let through = now + step;
                if through < cost[j] {
                    cost[j] = through;
                    next[j] = i as u32;
                    buckets[through as usize % ring].push(j as u32);
                    pending += 1;
                }
            });
        }
        bucket.clear();
        now += 1;
    }
    (cost, next)
}
