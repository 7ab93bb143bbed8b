//! [`ObstacleIndex`]: every obstacle's parts in world space, binned into a grid once, when the
//! obstacles change, so that a boid tests only the parts near it; and the queries the steering
//! and the integration ask of it.
//!
//! Each part is listed in every cell its box overlaps (cells half the reach across: the farthest
//! a boid looks ahead, plus its berth); a query about a box reads the cells it overlaps (a
//! move, nearly always one) and tests only the parts whose boxes overlap it.

use bevy::prelude::*;

use super::contact::{Hit, Surface, skin};
#[cfg(feature = "2d")]
use super::dim2::{Part, compile};
#[cfg(feature = "3d")]
use super::dim3::{Part, compile};
use super::shape::{Obstacle, ObstacleShape};
use crate::bounds::SimulationBounds;
use crate::dim;
use crate::lanes::Coords;
use crate::lattice::Lattice;
use crate::math::{DIM, Vector};

/// Every obstacle's parts, and the grid they are binned in. Rebuilt by the
/// [`ObstaclesPlugin`](super::ObstaclesPlugin) in
/// [`BoidsSystems::BuildHash`](crate::schedule::BoidsSystems::BuildHash) on a step when an
/// obstacle was added, moved, changed or removed; read it to ask where the obstacles are.
#[derive(Resource, Default, Debug, Clone)]
pub struct ObstacleIndex {
    parts: Vec<Part>,
    /// Each part's box.
    boxes: Vec<(Vector, Vector)>,
    /// The centre of each part's box: the image of a point nearest it is the one it is tested
    /// against in a wrapping world.
    anchors: Vec<Vector>,
    /// The rings of solid polygons (2D).
    vertices: Vec<Vector>,
    grid: Grid,
    bounds: SimulationBounds,
    /// The reach the grid was laid out for: the longest look-ahead and step, and the berth.
    reach: f32,
    /// How many times it was built.
    builds: u64,
    /// How many parts repeated another exactly at the last build (dropped).
    repeated: usize,
}

/// The cells of the index: which parts each lists, in one array.
#[derive(Default, Debug, Clone)]
struct Grid {
    /// The cells.
    at: Lattice,
    /// `items[starts[c]..starts[c + 1]]` are the parts of cell `c`.
    starts: Vec<u32>,
    items: Vec<u32>,
}

/// The most cells the grid has; larger worlds get larger cells.
const MAX_CELLS: f32 = 262_144.0;

/// How many times a move may slide along a surface in one step before it stops.
const MAX_SLIDES: usize = 4;

/// One obstacle as the index takes it: its shape, where it is and how it is turned.
pub(crate) struct Placed<'a> {
    pub shape: &'a ObstacleShape,
    pub at: Vector,
    pub rotation: Quat,
}

impl ObstacleIndex {
    /// Whether there are no obstacles.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// How many parts the obstacles were split into (a circle or a box is one, a polygon one
    /// per edge and one for its inside, a wall one per segment).
    pub fn parts(&self) -> usize {
        self.parts.len()
    }

    /// How many times the index was built (once per step on which obstacles changed).
    pub fn builds(&self) -> u64 {
        self.builds
    }

    /// The reach the grid was laid out for (its cells are half as wide), world units.
    pub fn reach(&self) -> f32 {
        self.reach
    }

    /// Rebuilds the index from `obstacles` for a world of `bounds`, in cells half of `reach`
    /// across. `warn` is told of each obstacle that gave no parts, and why.
    /// Exact duplicates (the same part twice) are kept once.
    pub(crate) fn rebuild<'a>(
        &mut self,
        obstacles: impl Iterator<Item = (Entity, Placed<'a>)>,
        bounds: &SimulationBounds,
        reach: f32,
        mut warn: impl FnMut(Entity, String),
    ) {
        self.builds += 1;
        self.repeated = 0;
        self.parts.clear();
        self.vertices.clear();
        self.bounds = *bounds;
        self.reach = if reach.is_finite() {
            reach.max(1e-3)
        } else {
            1e3
        };
        for (entity, placed) in obstacles {
            if !placed.at.is_finite() {
                warn(entity, format!("its position {} is not finite", placed.at));
                continue;
            }
            let rotation = if placed.rotation.is_finite() && placed.rotation.length() > 0.0 {
                placed.rotation.normalize()
            } else {
                Quat::IDENTITY
            };
            if let Err(why) = compile(
                placed.shape,
                placed.at,
                rotation,
                &mut self.parts,
                &mut self.vertices,
            ) {
                warn(entity, why);
            }
        }
        self.dedup();
        self.anchors = self
            .parts
            .iter()
            .map(|part| {
                let (lo, hi) = part.bounds();
                (lo + hi) * 0.5
            })
            .collect();
        self.bin();
    }

    /// Drops parts that repeat an earlier one exactly (many obstacles on one spot).
    fn dedup(&mut self) {
        if self.parts.len() < 2 {
            return;
        }
        let vertices = &self.vertices;
        let key = |part: &Part| part.key(vertices);
        let mut seen = bevy::platform::collections::HashSet::new();
        let before = self.parts.len();
        self.parts.retain(|part| seen.insert(key(part)));
        self.repeated = before - self.parts.len();
    }

    /// How many parts repeated another exactly at the last build: obstacles on one spot, each
    /// kept once.
    pub fn repeated(&self) -> usize {
        self.repeated
    }

    /// Lays out the grid and lists each part in the cells its box overlaps (an edge only in
    /// those it passes near).
    fn bin(&mut self) {
        let reach = self.reach;
        let grid = &mut self.grid;
        grid.starts.clear();
        grid.items.clear();
        if self.parts.is_empty() {
            grid.at = Lattice::default();
            return;
        }
        let (origin, size) = if self.bounds.wraps() {
            (self.bounds.rect.min, self.bounds.rect.size())
        } else {
            let (lo, hi) = self.parts.iter().fold(
                (
                    Vector::splat(f32::INFINITY),
                    Vector::splat(f32::NEG_INFINITY),
                ),
                |(lo, hi), part| {
                    let (a, b) = part.bounds();
                    (lo.min(a), hi.max(b))
                },
            );
            (lo - reach, hi - lo + 2.0 * reach)
        };
        self.boxes = self.parts.iter().map(Part::bounds).collect();
        grid.at = Lattice::over(origin, size, reach * 0.5, MAX_CELLS, self.bounds.wraps());
        let cells = grid.at.len();
        // Two passes: count each cell's parts, then place them.
        let mut counts = vec![0u32; cells + 1];
        let mut lists: Vec<(u32, u32)> = Vec::new();
        for (i, part) in self.parts.iter().enumerate() {
            let (lo, hi) = part.bounds();
            let half_diagonal = grid.at.cell.length() * 0.5;
            grid.at.for_each_cell(lo, hi, |cell, centre| {
                if part.may_reach(centre, half_diagonal) {
                    counts[cell] += 1;
                    lists.push((cell as u32, i as u32));
                }
            });
        }
        let mut start = 0;
        for count in &mut counts {
            let n = *count;
            *count = start;
            start += n;
        }
        grid.items = vec![0; start as usize];
        let mut next = counts.clone();
        for (cell, part) in lists {
            let at = &mut next[cell as usize];
            grid.items[*at as usize] = part;
            *at += 1;
        }
        grid.starts = counts;
    }

    /// The image of `p` that is tested against part `i`: in a wrapping world, the one nearest
    /// the part.
    #[inline]
    fn image(&self, i: usize, p: Vector) -> Vector {
        if self.bounds.wraps() {
            let anchor = self.anchors[i];
            anchor + self.bounds.delta(anchor, p)
        } else {
            p
        }
    }

    /// Calls `f` with each part whose box overlaps the box `lo..hi` (around `p`, which is in
    /// it), and the shift that takes `p` to the image the part is tested against. A part may
    /// come twice.
    #[inline]
    pub(crate) fn visit(
        &self,
        p: Vector,
        lo: Vector,
        hi: Vector,
        mut f: impl FnMut(&Part, Vector),
    ) {
        if self.parts.is_empty() {
            return;
        }
        let mut part = |i: usize| {
            let shift = self.image(i, p) - p;
            let (a, b) = self.boxes[i];
            if (a - (hi + shift)).max_element() <= 0.0 && ((lo + shift) - b).max_element() <= 0.0 {
                f(&self.parts[i], shift);
            }
        };
        let grid = &self.grid;
        let (a, b) = (grid.at.cell_of(lo), grid.at.cell_of(hi));
        if a == b {
            // Nearly always for a move: one cell.
            if let Some(cell) = grid.at.index(a) {
                for &i in grid.list(cell) {
                    part(i as usize);
                }
            }
            return;
        }
        let span: f32 = (0..DIM).map(|i| (b[i] - a[i] + 1) as f32).product();
        if span >= self.parts.len() as f32 {
            for i in 0..self.parts.len() {
                part(i);
            }
            return;
        }
        grid.at.for_each_cell(lo, hi, |cell, _| {
            for &i in grid.list(cell) {
                part(i as usize);
            }
        });
    }

    /// The nearest surface to `p` of any obstacle within `reach` of it (a surface farther away
    /// may be missed); negative inside an obstacle.
    pub fn surface(&self, p: Vector, reach: f32) -> Option<Surface> {
        let mut best: Option<Surface> = None;
        let r = Vector::splat(reach.max(0.0));
        self.visit(p, p - r, p + r, |part, shift| {
            if let Some(s) = part.surface(p + shift, &self.vertices)
                && best.is_none_or(|b| s.distance < b.distance)
            {
                best = Some(s);
            }
        });
        best
    }

    /// What a boid at `p` with the berth `avoid` sees: the nearest surface within `avoid` of it
    /// (farther ones may be missed) and where its look-ahead `probe` (from `p`) first meets an
    /// obstacle. Two passes over the parts near it, one round `p` and one along the probe, each
    /// over a box much smaller than the box round both.
    pub(crate) fn look(
        &self,
        p: Vector,
        probe: Vector,
        avoid: f32,
    ) -> (Option<Surface>, Option<Hit>) {
        (self.surface(p, avoid), self.sweep(p, probe))
    }

    /// Closes each cell of `lattice` whose centre is nearer than `r` to an obstacle (or inside
    /// one), as `surface(centre, r)` would say: each part rasterised over the cells its box,
    /// grown by `r`, covers, so the cost is the obstacles' area, not the world's.
    pub(crate) fn close_cells(&self, lattice: &Lattice, r: f32, open: &mut [bool]) {
        let grow = Vector::splat(r.max(0.0));
        for (i, part) in self.parts.iter().enumerate() {
            let (a, b) = self.boxes[i];
            lattice.for_each_cell(a - grow, b + grow, |cell, centre| {
                if open[cell]
                    && part
                        .surface(self.image(i, centre), &self.vertices)
                        .is_some_and(|s| s.distance < r)
                {
                    open[cell] = false;
                }
            });
        }
    }

    /// Whether `p` is outside every obstacle.
    pub fn is_free(&self, p: Vector) -> bool {
        self.surface(p, 0.0).is_none_or(|s| s.distance >= 0.0)
    }

    /// Where the move `d` from `p` first enters an obstacle or crosses a wall.
    pub fn sweep(&self, p: Vector, d: Vector) -> Option<Hit> {
        let mut best: Option<Hit> = None;
        let q = p + d;
        self.visit(p, p.min(q), p.max(q), |part, shift| {
            if let Some(hit) = part.sweep(p + shift, d)
                && best.is_none_or(|b| hit.t < b.t)
            {
                best = Some(hit);
            }
        });
        best
    }

    /// Whether the move from `from` to `to` meets no obstacle and ends outside every one: the
    /// sweep and the end's inside test in one pass over the parts near the move.
    fn clear(&self, from: Vector, to: Vector) -> bool {
        let d = to - from;
        let mut clear = true;
        self.visit(from, from.min(to), from.max(to), |part, shift| {
            if clear
                && (part.sweep(from + shift, d).is_some()
                    || part
                        .surface(to + shift, &self.vertices)
                        .is_some_and(|s| s.distance < 0.0))
            {
                clear = false;
            }
        });
        clear
    }

    /// The move from `from` to `to` (the next image of it, in a wrapping world) with velocity
    /// `v`, kept out of every obstacle: stopped just short of the first surface it meets and slid
    /// along it (its velocity loses the part into the surface), at most [`MAX_SLIDES`] times;
    /// then, if it is inside an obstacle all the same (one moved onto it, or it was put there),
    /// out through the nearest surface. A speed that fell below `min_speed` goes on along the
    /// surface at it. Returns the new position (wrapped) and velocity.
    pub(crate) fn keep_out(
        &self,
        from: Vector,
        to: Vector,
        mut v: Vector,
        min_speed: f32,
    ) -> (Vector, Vector) {
        let bounds = &self.bounds;
        let (mut from, mut to) = (from, from + bounds.delta(from, to));
        if self.clear(from, to) {
            // Nearly always: nothing in the way, nothing around the end.
            return (
                if bounds.wraps() {
                    bounds.wrap_point(to)
                } else {
                    to
                },
                v,
            );
        }
        let mut normal = None;
        for slide in 0..=MAX_SLIDES {
            let step = to - from;
            let Some(hit) = self.sweep(from, step) else {
                break;
            };
            normal = Some(hit.normal);
            if slide == MAX_SLIDES {
                to = from;
                break;
            }
            let gap = skin(from);
            let back = gap / step.length();
            let mut contact = from + step * (hit.t - back).max(0.0) + hit.normal * gap;
            if self.sweep(from, contact - from).is_some() {
                contact = from;
            }
            let rest = to - contact;
            let into = rest.dot(hit.normal);
            let slid = if into < 0.0 {
                rest - hit.normal * into
            } else {
                rest
            };
            let inward = v.dot(hit.normal);
            if inward < 0.0 {
                v -= hit.normal * inward;
            }
            (from, to) = (contact, contact + slid);
        }
        let mut p = to;
        for _ in 0..2 {
            match self.surface(p, 0.0) {
                Some(s) if s.distance < 0.0 => {
                    let out = if s.normal == Vector::ZERO {
                        v.try_normalize().unwrap_or(dim::spread_direction(0))
                    } else {
                        s.normal
                    };
                    p += out * (-s.distance + skin(p));
                    let inward = v.dot(out);
                    if inward < 0.0 {
                        v -= out * inward;
                    }
                    normal = Some(out);
                }
                _ => break,
            }
        }
        if let Some(n) = normal
            && v.length_squared() < min_speed * min_speed
        {
            let along = v
                .try_normalize()
                .unwrap_or(dim::left_of(Coords::of(n)).to_vector());
            v = along * min_speed;
        }
        let p = if bounds.wraps() {
            bounds.wrap_point(p)
        } else {
            p
        };
        (p, v)
    }
}

impl Obstacle {
    /// How far `p` is from the surface of this obstacle placed at `at` and turned by `rotation`:
    /// negative inside; `None` for a shape that gives no parts (degenerate).
    pub fn distance(&self, at: Vector, rotation: Quat, p: Vector) -> Option<f32> {
        let (mut parts, mut vertices) = (Vec::new(), Vec::new());
        compile(self.shape(), at, rotation, &mut parts, &mut vertices).ok()?;
        parts
            .iter()
            .filter_map(|part| part.surface(p, &vertices))
            .map(|s| s.distance)
            .reduce(f32::min)
    }
}

impl Grid {
    /// The parts listed in cell `index`.
    #[inline]
    fn list(&self, index: usize) -> &[u32] {
        let (a, b) = (self.starts[index], self.starts[index + 1]);
        &self.items[a as usize..b as usize]
    }
}
