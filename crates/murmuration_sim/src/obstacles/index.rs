//! [`ObstacleIndex`]: every obstacle's parts in world space, binned into a grid once, when the
//! obstacles change, so that a boid tests only the parts near it; and the queries the steering
//! and the integration ask of it.
//!
//! Each part is listed in every cell that lies within the index's reach of it (the farthest a
//! boid looks ahead, plus its berth): a query about a box within the reach of a point's own
//! cell reads that cell's list alone. A larger box (a boid faster than the reach was built
//! for) reads every cell it overlaps, so no answer depends on the reach, only its speed.

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
use crate::math::{DIM, Vector, per_axis};

/// Every obstacle's parts, and the grid they are binned in. Rebuilt by the
/// [`ObstaclesPlugin`](super::ObstaclesPlugin) in
/// [`BoidsSystems::BuildHash`](crate::schedule::BoidsSystems::BuildHash) on a step when an
/// obstacle was added, moved, changed or removed; read it to ask where the obstacles are.
#[derive(Resource, Default, Debug)]
pub struct ObstacleIndex {
    parts: Vec<Part>,
    /// The centre of each part's box: the image of a point nearest it is the one it is tested
    /// against in a wrapping world.
    anchors: Vec<Vector>,
    /// The rings of solid polygons (2D).
    vertices: Vec<Vector>,
    grid: Grid,
    bounds: SimulationBounds,
    /// How far from a cell the parts listed in it reach.
    reach: f32,
}

/// The cells of the index: which parts each lists, in one array.
#[derive(Default, Debug)]
struct Grid {
    origin: Vector,
    cell: Vector,
    dims: [i32; DIM],
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

    /// How far each cell's list reaches, world units.
    pub fn reach(&self) -> f32 {
        self.reach
    }

    /// Rebuilds the index from `obstacles` for a world of `bounds`, listing each part in the
    /// cells within `reach` of it. `warn` is told of each obstacle that gave no parts, and why.
    /// Exact duplicates (the same part twice) are kept once.
    pub(crate) fn rebuild<'a>(
        &mut self,
        obstacles: impl Iterator<Item = (Entity, Placed<'a>)>,
        bounds: &SimulationBounds,
        reach: f32,
        mut warn: impl FnMut(Entity, String),
    ) {
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
        self.parts.retain(|part| seen.insert(key(part)));
    }

    /// Lays out the grid and lists each part in the cells within the reach of it.
    fn bin(&mut self) {
        let reach = self.reach;
        let grid = &mut self.grid;
        grid.starts.clear();
        grid.items.clear();
        if self.parts.is_empty() {
            grid.dims = [0; DIM];
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
        let mut counts = per_axis(|i| (size[i] / reach).floor().max(1.0));
        let total: f32 = counts.to_array().iter().product();
        if total > MAX_CELLS {
            let shrink = (total / MAX_CELLS).powf(1.0 / DIM as f32);
            counts = per_axis(|i| (counts[i] / shrink).floor().max(1.0));
        }
        grid.origin = origin;
        grid.cell = size / counts;
        grid.dims = std::array::from_fn(|i| counts[i] as i32);
        let cells = grid.dims.iter().map(|&n| n as usize).product::<usize>();
        // Two passes: count each cell's parts, then place them.
        let mut counts = vec![0u32; cells + 1];
        let mut lists: Vec<(u32, u32)> = Vec::new();
        for (i, part) in self.parts.iter().enumerate() {
            let (lo, hi) = part.bounds();
            grid.for_each_cell(
                lo - reach,
                hi + reach,
                self.bounds.wraps(),
                |cell, centre| {
                    let half_diagonal = grid.cell.length() * 0.5;
                    if part.may_reach(centre, reach + half_diagonal) {
                        counts[cell] += 1;
                        lists.push((cell as u32, i as u32));
                    }
                },
            );
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

    /// Calls `f` with each part that may be within the box `lo..hi` (around `p`, which is in
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
        let grid = &self.grid;
        let wraps = self.bounds.wraps();
        let own = grid.cell_of(p);
        if let Some(cell) = grid.index(own, wraps) {
            let min = grid.origin + Vector::from_array(own.map(|c| c as f32)) * grid.cell;
            let max = min + grid.cell;
            if (lo - (min - self.reach)).min_element() >= 0.0
                && (max + self.reach - hi).min_element() >= 0.0
            {
                // Nearly always: the own cell lists everything within the reach.
                for &i in grid.list(cell) {
                    let i = i as usize;
                    f(&self.parts[i], self.image(i, p) - p);
                }
                return;
            }
        }
        // A long reach: every cell the box overlaps (or every part, if that is fewer).
        let span: f32 = per_axis(|i| ((hi[i] - lo[i]) / grid.cell[i]).ceil() + 1.0)
            .to_array()
            .iter()
            .product();
        if span >= self.parts.len() as f32 {
            for (i, part) in self.parts.iter().enumerate() {
                f(part, self.image(i, p) - p);
            }
            return;
        }
        grid.for_each_cell(lo, hi, wraps, |cell, _| {
            for &i in grid.list(cell) {
                let i = i as usize;
                f(&self.parts[i], self.image(i, p) - p);
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
    /// obstacle, in one pass over the parts near it.
    pub(crate) fn look(
        &self,
        p: Vector,
        probe: Vector,
        avoid: f32,
    ) -> (Option<Surface>, Option<Hit>) {
        let (mut near, mut hit): (Option<Surface>, Option<Hit>) = (None, None);
        let tip = p + probe;
        let r = Vector::splat(avoid.max(0.0));
        self.visit(p, p.min(tip) - r, p.max(tip) + r, |part, shift| {
            let q = p + shift;
            if let Some(s) = part.surface(q, &self.vertices)
                && near.is_none_or(|b| s.distance < b.distance)
            {
                near = Some(s);
            }
            if let Some(h) = part.sweep(q, probe)
                && hit.is_none_or(|b| h.t < b.t)
            {
                hit = Some(h);
            }
        });
        (near, hit)
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
    /// The cell `p` is in (outside the grid's range where it is outside the grid).
    #[inline]
    fn cell_of(&self, p: Vector) -> [i32; DIM] {
        let c = (p - self.origin) / self.cell;
        std::array::from_fn(|i| c[i].floor() as i32)
    }

    /// The index of cell `c` (brought into the grid when it wraps); `None` outside it.
    #[inline]
    fn index(&self, c: [i32; DIM], wraps: bool) -> Option<usize> {
        let mut index = 0usize;
        for i in (0..DIM).rev() {
            let n = self.dims[i];
            let mut x = c[i];
            if wraps {
                x = x.rem_euclid(n.max(1));
            } else if x < 0 || x >= n {
                return None;
            }
            index = index * n as usize + x as usize;
        }
        Some(index)
    }

    /// The parts listed in cell `index`.
    #[inline]
    fn list(&self, index: usize) -> &[u32] {
        let (a, b) = (self.starts[index], self.starts[index + 1]);
        &self.items[a as usize..b as usize]
    }

    /// Calls `f` with each cell that overlaps the box `lo..hi` (each once), and its centre.
    fn for_each_cell(&self, lo: Vector, hi: Vector, wraps: bool, mut f: impl FnMut(usize, Vector)) {
        let (a, b) = (self.cell_of(lo), self.cell_of(hi));
        let mut from = [0i32; DIM];
        let mut to = [0i32; DIM];
        for i in 0..DIM {
            let n = self.dims[i];
            if wraps {
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
            if let Some(index) = self.index(c, wraps) {
                let centre =
                    self.origin + (Vector::from_array(c.map(|x| x as f32)) + 0.5) * self.cell;
                f(index, centre);
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
