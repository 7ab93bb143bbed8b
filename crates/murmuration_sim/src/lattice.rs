//! [`Lattice`]: a regular grid of cells laid over a box of the world, in any dimension, wrapping
//! or not. The obstacle index bins its parts in one, the routes lay their walkable cells on one.

use crate::math::{DIM, Vector, per_axis};

/// A grid of `dims` cells of size `cell` from `origin`; in a wrapping world its cells tile the
/// world and a cell beyond one side is the cell at the other.
#[derive(Default, Debug, Clone, PartialEq)]
pub(crate) struct Lattice {
    /// The corner of cell zero.
    pub origin: Vector,
    /// A cell's size on each axis.
    pub cell: Vector,
    /// How many cells on each axis (zero: an empty lattice).
    pub dims: [i32; DIM],
    /// Whether cell coordinates wrap round.
    pub wraps: bool,
}

impl Lattice {
    /// Cells about `cell` across over the box from `origin` of `size` (a whole number of them on
    /// each axis, so they tile it), larger where more than `max_cells` would be needed.
    pub fn over(origin: Vector, size: Vector, cell: f32, max_cells: f32, wraps: bool) -> Self {
        let mut counts = per_axis(|i| (size[i] / cell).round().max(1.0));
        let total: f32 = counts.to_array().iter().product();
        if total > max_cells {
            let shrink = (total / max_cells).powf(1.0 / DIM as f32);
            counts = per_axis(|i| (counts[i] / shrink).floor().max(1.0));
        }
        Self {
            origin,
            cell: size / counts,
            dims: std::array::from_fn(|i| counts[i] as i32),
            wraps,
        }
    }

    /// How many cells it has.
    pub fn len(&self) -> usize {
        self.dims.iter().map(|&n| n.max(0) as usize).product()
    }

    /// The cell `p` is in (outside the grid's range where it is outside the grid).
    #[inline]
    pub fn cell_of(&self, p: Vector) -> [i32; DIM] {
        let c = (p - self.origin) / self.cell;
        std::array::from_fn(|i| c[i].floor() as i32)
    }

    /// The index of cell `c` (brought into the grid when it wraps); `None` outside it.
    #[inline]
    pub fn index(&self, c: [i32; DIM]) -> Option<usize> {
        let mut index = 0usize;
        for i in (0..DIM).rev() {
            let n = self.dims[i];
            let mut x = c[i];
            if self.wraps {
                x = x.rem_euclid(n.max(1));
            } else if x < 0 || x >= n {
                return None;
            }
            index = index * n as usize + x as usize;
        }
        Some(index)
    }

    /// The coordinates of the cell at `index`.
    #[inline]
    pub fn coords(&self, mut index: usize) -> [i32; DIM] {
        std::array::from_fn(|i| {
            let n = self.dims[i].max(1) as usize;
            let x = index % n;
            index /= n;
            x as i32
        })
    }

    /// The centre of cell `c`.
    #[inline]
    pub fn centre(&self, c: [i32; DIM]) -> Vector {
        self.origin + (Vector::from_array(c.map(|x| x as f32)) + 0.5) * self.cell
    }

    /// Calls `f` with each cell that overlaps the box `lo..hi` (each once), and its centre.
    pub fn for_each_cell(&self, lo: Vector, hi: Vector, mut f: impl FnMut(usize, Vector)) {
        let (a, b) = (self.cell_of(lo), self.cell_of(hi));
        let mut from = [0i32; DIM];
        let mut to = [0i32; DIM];
        for i in 0..DIM {
            let n = self.dims[i];
            if self.wraps {
                if b[i] - a[i] + 1 >= n {
                    (from[i], to[i]) = (0, n - 1);
                } else {
                    (from[i], to[i]) = (a[i], b[i]);
                }
            } else {
                (from[i], to[i]) = (a[i].max(0), b[i].min(n - 1));
                if from[i] > to[i] {
                    return;
                }
            }
        }
        let mut c = from;
        loop {
            if let Some(index) = self.index(c) {
                f(index, self.centre(c));
            }
            // The next cell, the first axis fastest.
            let mut axis = 0;
            loop {
                if axis == DIM {
                    return;
                }
                if c[axis] < to[axis] {
                    c[axis] += 1;
                    break;
                }
                c[axis] = from[axis];
                axis += 1;
            }
        }
    }
}
