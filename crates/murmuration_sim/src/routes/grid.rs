//! [`NavGrid`]: which cells of the world a unit may stand in, which moves join them, and which
//! cells are joined at all (the components), built from the obstacle index when it changes.
//!
//! A cell is open when its centre is at least the clearance from every obstacle (and outside
//! each); the obstacles' parts are rasterised onto the grid, so laying it costs in proportion to
//! the obstacles' area. The clearance is at least a little more than half a cell, which is what makes the
//! moves safe: a wall that crosses the straight line between two open neighbours' centres would
//! pass within half a cell of one of them, so it would close that cell. A diagonal move also
//! needs the cells it passes between open, so a route never cuts a corner.

use crate::bounds::SimulationBounds;
use crate::lattice::Lattice;
use crate::math::{DIM, Vector};
use crate::obstacles::ObstacleIndex;

/// The cost of one cell's length; a diagonal costs this times its length in cells, rounded.
pub(crate) const UNIT: u32 = 70;

/// No route: a closed cell, or one no route reaches.
pub(crate) const NONE: u32 = u32::MAX;

/// One move from a cell to a neighbour.
#[derive(Debug, Clone)]
pub(crate) struct Move {
    /// The neighbour's offset, cells.
    pub offset: [i32; DIM],
    /// Its cost, [`UNIT`] a cell length.
    pub cost: u32,
    /// The change in index for a cell away from the grid's sides.
    pub stride: isize,
    /// The other cells a diagonal move passes between, as offsets: each must be open.
    pub between: Vec<[i32; DIM]>,
    /// The same as changes in index, for a cell away from the grid's sides.
    pub between_strides: Vec<isize>,
}

/// The walkable cells of the world.
#[derive(Debug, Clone)]
pub(crate) struct NavGrid {
    /// The cells.
    pub lattice: Lattice,
    /// Whether each cell is open.
    pub open: Vec<bool>,
    /// For each cell, bit `m` set when [`NavGrid::moves`]`[m]` leads to an open cell without
    /// cutting a corner.
    pub links: Vec<u32>,
    /// Each cell's component (cells joined by moves share one); [`NONE`] for a closed cell.
    pub component: Vec<u32>,
    /// How many components there are.
    pub components: u32,
    /// The moves, every offset in `{-1, 0, 1}^DIM` but zero.
    pub moves: Vec<Move>,
    /// The world units one [`UNIT`] of cost stands for.
    pub unit_length: f32,
}

impl NavGrid {
    /// Lays cells about `cell_size` across over `bounds` (larger where more than `max_cells`
    /// would be needed) and opens those whose centre is at least `clearance` from every
    /// obstacle in `index`.
    pub fn build(
        index: &ObstacleIndex,
        bounds: &SimulationBounds,
        cell_size: f32,
        clearance: f32,
        max_cells: u32,
    ) -> Self {
        let lattice = Self::lattice(bounds, cell_size, max_cells);
        let cell_length = lattice.cell.to_array().iter().sum::<f32>() / DIM as f32;
        let clearance = clearance.max(0.51 * lattice.cell.max_element());
        let n = lattice.len();
        let mut open = vec![true; n];
        index.close_cells(&lattice, clearance, &mut open);
        let moves = moves(&lattice, cell_length);
        let mut grid = Self {
            lattice,
            open,
            links: vec![0; n],
            component: vec![NONE; n],
            components: 0,
            moves,
            unit_length: cell_length / UNIT as f32,
        };
        grid.link();
        grid.label();
        grid
    }

    /// The cells a grid over `bounds` has: about `cell_size` across, larger where more than
    /// `max_cells` would be needed.
    pub fn lattice(bounds: &SimulationBounds, cell_size: f32, max_cells: u32) -> Lattice {
        Lattice::over(
            bounds.rect.min,
            bounds.rect.size(),
            cell_size,
            max_cells as f32,
            bounds.wraps(),
        )
    }

    /// How many cells it has.
    pub fn len(&self) -> usize {
        self.open.len()
    }

    /// The open cell at `c`, offset by `offset`, if the grid has it (it wraps where the world
    /// does).
    fn at(&self, c: [i32; DIM], offset: [i32; DIM]) -> Option<usize> {
        self.lattice
            .index(std::array::from_fn(|i| c[i] + offset[i]))
            .filter(|&j| self.open[j])
    }

    /// Sets each open cell's links.
    fn link(&mut self) {
        for i in 0..self.len() {
            if !self.open[i] {
                continue;
            }
            let c = self.lattice.coords(i);
            let inside = (0..DIM).all(|a| c[a] > 0 && c[a] < self.lattice.dims[a] - 1);
            let mut links = 0u32;
            for (m, step) in self.moves.iter().enumerate() {
                let linked = if inside {
                    // Away from the sides: strides, no coordinates.
                    let at = |stride: isize| self.open[(i as isize + stride) as usize];
                    at(step.stride) && step.between_strides.iter().all(|&s| at(s))
                } else {
                    let target = self.at(c, step.offset);
                    target.is_some_and(|t| t != i)
                        && step.between.iter().all(|&o| self.at(c, o).is_some())
                };
                if linked {
                    links |= 1 << m;
                }
            }
            self.links[i] = links;
        }
    }

    /// Labels the components, one flood fill each.
    fn label(&mut self) {
        let (mut stack, mut near) = (Vec::new(), Vec::new());
        for start in 0..self.len() {
            if !self.open[start] || self.component[start] != NONE {
                continue;
            }
            let label = self.components;
            self.components += 1;
            self.component[start] = label;
            stack.push(start);
            while let Some(i) = stack.pop() {
                let c = self.lattice.coords(i);
                near.clear();
                self.for_each_link(i, c, |j, _| near.push(j));
                for &j in &near {
                    if self.component[j] == NONE {
                        self.component[j] = label;
                        stack.push(j);
                    }
                }
            }
        }
    }

    /// Calls `f` with each cell cell `i` (at coordinates `c`) links to, and the move's cost.
    #[inline]
    pub fn for_each_link(&self, i: usize, c: [i32; DIM], mut f: impl FnMut(usize, u32)) {
        let mut links = self.links[i];
        let inside = (0..DIM).all(|a| c[a] > 0 && c[a] < self.lattice.dims[a] - 1);
        while links != 0 {
            let m = links.trailing_zeros() as usize;
            links &= links - 1;
            let step = &self.moves[m];
            let j = if inside {
                (i as isize + step.stride) as usize
            } else {
                // Linked, so the grid has it.
                self.lattice
                    .index(std::array::from_fn(|a| c[a] + step.offset[a]))
                    .unwrap_or(i)
            };
            f(j, step.cost);
        }
    }

    /// The centre of cell `i`.
    #[inline]
    pub fn centre(&self, i: usize) -> Vector {
        self.lattice.centre(self.lattice.coords(i))
    }

    /// The cell `p` is in, if the grid has it.
    #[inline]
    pub fn cell(&self, p: Vector) -> Option<usize> {
        self.lattice.index(self.lattice.cell_of(p))
    }

    /// The cell a goal at `p` belongs to: the cell it is in, or the grid's nearest cell to it
    /// when it lies outside the grid (a goal beyond a world that does not wrap).
    pub fn goal_cell(&self, p: Vector) -> Option<usize> {
        let c = self.lattice.cell_of(p);
        self.lattice.index(std::array::from_fn(|a| {
            c[a].clamp(0, self.lattice.dims[a] - 1)
        }))
    }

    /// Whether the straight line from `a` along `d` stays in open cells (checked every half
    /// cell, and at its end).
    pub fn line_open(&self, a: Vector, d: Vector) -> bool {
        let step = self.lattice.cell.min_element() * 0.5;
        let samples = (d.length() / step).ceil().max(1.0) as usize;
        (0..=samples).all(|k| {
            let p = a + d * (k as f32 / samples as f32);
            self.cell(p).is_some_and(|i| self.open[i])
        })
    }
}

/// Every move: each offset in `{-1, 0, 1}^DIM` but zero, its cost and the cells it passes
/// between.
fn moves(lattice: &Lattice, cell_length: f32) -> Vec<Move> {
    let mut out = Vec::new();
    let count = 3usize.pow(DIM as u32);
    for code in 0..count {
        let mut rest = code;
        let offset: [i32; DIM] = std::array::from_fn(|_| {
            let o = (rest % 3) as i32 - 1;
            rest /= 3;
            o
        });
        if offset == [0; DIM] {
            continue;
        }
        let length = (Vector::from_array(offset.map(|o| o as f32)) * lattice.cell).length();
        let cost = (UNIT as f32 * length / cell_length).round() as u32;
        let stride_of = |offset: &[i32; DIM]| {
            let mut stride = 0isize;
            let mut scale = 1isize;
            for (a, &o) in offset.iter().enumerate() {
                stride += o as isize * scale;
                scale *= lattice.dims[a].max(1) as isize;
            }
            stride
        };
        let stride = stride_of(&offset);
        // The offsets that keep some of this one's non-zero axes and zero the rest.
        let axes: Vec<usize> = (0..DIM).filter(|&a| offset[a] != 0).collect();
        let between: Vec<[i32; DIM]> = (1..(1u32 << axes.len()) - 1)
            .map(|mask| {
                let mut o = [0; DIM];
                for (k, &a) in axes.iter().enumerate() {
                    if mask & (1 << k) != 0 {
                        o[a] = offset[a];
                    }
                }
                o
            })
            .collect();
        out.push(Move {
            offset,
            cost,
            stride,
            between_strides: between.iter().map(stride_of).collect(),
            between,
        });
    }
    out
}
