//! [`PredatorGrid`]: where the predators are, by cell, so that a boid fleeing them looks only at
//! those that can be within its flee radius. With a handful of predators (the mouse, a hawk or
//! two) every boid simply checks each one; with many (every boid a hunter), checking each would
//! cost the square of the flock.

use bevy::prelude::*;

use crate::bounds::SimulationBounds;

/// Up to this many predators, every boid checks every one (and the grid is not built).
pub(crate) const FEW_PREDATORS: usize = 32;

/// The predators' indices in the flee system's list, sorted by the cell they are in: cells a
/// flee radius across over the world, counting-sorted like the [`SpatialHash`](crate::SpatialHash).
#[derive(Debug, Default)]
pub(crate) struct PredatorGrid {
    origin: Vec2,
    /// Each axis's cell size: the world tiled exactly, each cell at least the reach across.
    cell: Vec2,
    dims: [usize; 2],
    wrap: bool,
    /// `starts[c]..starts[c + 1]` are cell `c`'s entries of `items`.
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl PredatorGrid {
    /// Sorts `positions` into cells at least `reach` across over `bounds`. Returns `false` (and
    /// the caller checks every predator) where the world is under three cells across with wrap,
    /// so that the cells around a boid would fold onto each other.
    pub fn build(&mut self, bounds: &SimulationBounds, reach: f32, positions: &[Vec2]) -> bool {
        let size = bounds.rect.size();
        if !(reach > 0.0 && reach.is_finite()) {
            return false;
        }
        let dims = [0, 1].map(|a| ((size[a] / reach).floor() as usize).clamp(1, 1 << 12));
        self.wrap = bounds.wraps();
        if self.wrap && (dims[0] < 3 || dims[1] < 3) {
            return false;
        }
        self.origin = bounds.rect.min;
        self.cell = size / Vec2::new(dims[0] as f32, dims[1] as f32);
        self.dims = dims;
        let cells = dims[0] * dims[1];
        self.starts.clear();
        self.starts.resize(cells + 1, 0);
        for &p in positions {
            let c = self.cell_of(p);
            self.starts[c + 1] += 1;
        }
        for c in 0..cells {
            self.starts[c + 1] += self.starts[c];
        }
        self.items.clear();
        self.items.resize(positions.len(), 0);
        let mut next = self.starts.clone();
        for (i, &p) in positions.iter().enumerate() {
            let c = self.cell_of(p);
            self.items[next[c] as usize] = i as u32;
            next[c] += 1;
        }
        true
    }

    /// The cell holding `p`: its image inside the world where the world wraps, else the nearest
    /// border cell for a position outside.
    fn cell_of(&self, p: Vec2) -> usize {
        let at = |a: usize| {
            let mut x = p[a] - self.origin[a];
            if self.wrap {
                x = x.rem_euclid(self.cell[a] * self.dims[a] as f32);
            }
            let x = (x / self.cell[a]).floor();
            (x.max(0.0) as usize).min(self.dims[a] - 1)
        };
        at(1) * self.dims[0] + at(0)
    }

    /// Calls `f` with the list index of every predator in the 3 x 3 cells around `p` (wrapping
    /// across the seams where the world wraps), each once, in a fixed order.
    pub fn around(&self, p: Vec2, mut f: impl FnMut(usize)) {
        let c = self.cell_of(p);
        let (cx, cy) = ((c % self.dims[0]) as isize, (c / self.dims[0]) as isize);
        let (w, h) = (self.dims[0] as isize, self.dims[1] as isize);
        for dy in -1..=1 {
            for dx in -1..=1 {
                let (mut x, mut y) = (cx + dx, cy + dy);
                if self.wrap {
                    x = x.rem_euclid(w);
                    y = y.rem_euclid(h);
                } else if x < 0 || y < 0 || x >= w || y >= h {
                    continue;
                }
                let cell = (y * w + x) as usize;
                let run = self.starts[cell] as usize..self.starts[cell + 1] as usize;
                for &i in &self.items[run] {
                    f(i as usize);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::*;

    /// Every predator within the reach of a point (to its nearest image where the world wraps)
    /// is among those `around` gives, each given once, in both edge modes; worlds too small to
    /// tile are refused.
    #[test]
    fn around_holds_every_predator_within_reach() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let rect = Rect::new(-100.0, 0.0, 500.0, 350.0);
        for bounds in [
            SimulationBounds::wrap(rect),
            SimulationBounds::turn_back(rect),
        ] {
            let reach = 60.0;
            let mut at = || {
                Vec2::new(
                    rng.random::<f32>() * 700.0 - 150.0,
                    rng.random::<f32>() * 400.0 - 25.0,
                )
            };
            let positions: Vec<Vec2> = (0..400).map(|_| at()).collect();
            let mut grid = PredatorGrid::default();
            assert!(grid.build(&bounds, reach, &positions));
            for _ in 0..300 {
                let p = at();
                let mut seen = vec![0u32; positions.len()];
                grid.around(p, |i| seen[i] += 1);
                for (i, &q) in positions.iter().enumerate() {
                    assert!(seen[i] <= 1, "{i} given twice");
                    if bounds.delta(p, q).length() < reach {
                        assert_eq!(seen[i], 1, "{bounds:?}: {q} within reach of {p}");
                    }
                }
            }
        }
        let mut grid = PredatorGrid::default();
        let small = SimulationBounds::wrap(Rect::new(0.0, 0.0, 100.0, 100.0));
        assert!(!grid.build(&small, 60.0, &[Vec2::ZERO]));
    }
}
