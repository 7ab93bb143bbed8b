//! [`integrate_in`]: [`integrate_one`] for [`LANES`] entities side by side.
//!
//! Flying at the minimum speed, a boid takes `integrate_one`'s turning branch; a boid near its
//! top speed takes the capping branch about every other step. Both are chains of square roots
//! and divisions behind a branch the CPU cannot guess. Here every lane computes every branch and
//! keeps the one `integrate_one` would take, so eight entities share each vector instruction
//! and nothing is mispredicted. The operations are `integrate_one`'s (glam's, written out), in
//! the same order, so each lane's result has the same bits; a lane that leaves a wrapping world
//! (and must be brought back across the seam) is redone by `integrate_one` itself.

use bevy::prelude::*;

use crate::bounds::{Edges, SimulationBounds};
use crate::systems::integrate::integrate_one;

/// Entities integrated side by side.
pub(crate) const LANES: usize = 8;

/// One lane's input: position, velocity, acceleration, and the speed limits.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Lane {
    pub p: Vec2,
    pub v: Vec2,
    pub a: Vec2,
    pub min_speed: f32,
    pub max_speed: f32,
}

impl Lane {
    /// This lane alone, through [`integrate_one`].
    #[inline]
    pub fn integrate_one(&self, dt: f32, bounds: &SimulationBounds) -> (Vec2, Vec2) {
        integrate_one(
            self.p,
            self.v,
            self.a,
            dt,
            self.min_speed,
            self.max_speed,
            bounds,
        )
    }
}

/// What [`integrate_arrays`] computed: each lane's new position and velocity, one array per
/// coordinate, unless the lane is to be redone by [`integrate_one`].
pub(crate) struct Moved {
    pub px: [f32; LANES],
    pub py: [f32; LANES],
    pub vx: [f32; LANES],
    pub vy: [f32; LANES],
    /// Lanes [`integrate_one`] must redo (they left a wrapping world).
    pub redo: [bool; LANES],
}

impl Moved {
    /// Lane `l`'s new position and velocity: `integrate_one(lane.p, lane.v, lane.a, dt,
    /// lane.min_speed, lane.max_speed, bounds)`, bit for bit.
    #[inline]
    pub fn get(&self, l: usize, lane: &Lane, dt: f32, bounds: &SimulationBounds) -> (Vec2, Vec2) {
        if self.redo[l] {
            lane.integrate_one(dt, bounds)
        } else {
            (
                Vec2::new(self.px[l], self.py[l]),
                Vec2::new(self.vx[l], self.vy[l]),
            )
        }
    }
}

/// [`integrate_one`] for every lane, built for AVX2 where the CPU has it; read each lane's
/// result with [`Moved::get`]. (The integrate system inlines [`integrate_in`] into its own AVX2
/// build instead.)
#[cfg(test)]
pub(crate) fn integrate_lanes(lanes: &[Lane; LANES], dt: f32, bounds: &SimulationBounds) -> Moved {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        #[target_feature(enable = "avx2")]
        fn avx2(lanes: &[Lane; LANES], dt: f32, b: &SimulationBounds) -> Moved {
            integrate_in(lanes, dt, b)
        }
        // SAFETY: the CPU was just checked to have AVX2.
        return unsafe { avx2(lanes, dt, bounds) };
    }
    integrate_in(lanes, dt, bounds)
}

/// [`integrate_one`] for every lane, inlined into the caller (and so built with its target
/// features); read each lane's result with [`Moved::get`].
#[inline(always)]
pub(crate) fn integrate_in(lanes: &[Lane; LANES], dt: f32, bounds: &SimulationBounds) -> Moved {
    integrate_arrays(&Inputs::of(lanes), dt, bounds)
}

/// The lanes' inputs, one array per coordinate.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Inputs {
    pub px: [f32; LANES],
    pub py: [f32; LANES],
    pub vx: [f32; LANES],
    pub vy: [f32; LANES],
    pub ax: [f32; LANES],
    pub ay: [f32; LANES],
    pub min: [f32; LANES],
    pub max: [f32; LANES],
}

impl Inputs {
    /// The inputs of `lanes`.
    #[inline(always)]
    fn of(lanes: &[Lane; LANES]) -> Self {
        let get = |f: fn(&Lane) -> f32| -> [f32; LANES] { core::array::from_fn(|l| f(&lanes[l])) };
        Self {
            px: get(|l| l.p.x),
            py: get(|l| l.p.y),
            vx: get(|l| l.v.x),
            vy: get(|l| l.v.y),
            ax: get(|l| l.a.x),
            ay: get(|l| l.a.y),
            min: get(|l| l.min_speed),
            max: get(|l| l.max_speed),
        }
    }

    /// Lane `l` as a [`Lane`].
    #[inline(always)]
    pub fn lane(&self, l: usize) -> Lane {
        Lane {
            p: Vec2::new(self.px[l], self.py[l]),
            v: Vec2::new(self.vx[l], self.vy[l]),
            a: Vec2::new(self.ax[l], self.ay[l]),
            min_speed: self.min[l],
            max_speed: self.max[l],
        }
    }
}

/// [`integrate_in`] of lanes given as arrays.
#[inline(always)]
pub(crate) fn integrate_arrays(input: &Inputs, dt: f32, bounds: &SimulationBounds) -> Moved {
    let Inputs {
        px,
        py,
        vx,
        vy,
        ax,
        ay,
        min,
        max,
    } = *input;
    let (mut out_px, mut out_py) = ([0.0; LANES], [0.0; LANES]);
    let (mut out_vx, mut out_vy) = ([0.0; LANES], [0.0; LANES]);
    let mut redo = [false; LANES];
    let r = bounds.rect;
    for l in 0..LANES {
        // A non-finite acceleration counts as zero.
        let finite = ax[l].is_finite() & ay[l].is_finite();
        let (ax, ay) = if finite { (ax[l], ay[l]) } else { (0.0, 0.0) };
        let (ox, oy) = (vx[l], vy[l]);
        let (wx, wy) = (ox + ax * dt, oy + ay * dt);
        let speed2 = wx * wx + wy * wy;
        let (min, max) = (min[l], max[l]);
        let over = speed2 > max * max;
        let under = !over & (speed2 < min * min);
        // Over the top speed: `v *= max / |v|`.
        let cap = max / speed2.sqrt();
        let (cx, cy) = (wx * cap, wy * cap);
        // Under the minimum: turn toward the force at the minimum speed.
        let hr = 1.0 / (ox * ox + oy * oy).sqrt();
        let (hx, hy) = if hr.is_finite() & (hr > 0.0) {
            (ox * hr, oy * hr)
        } else {
            (1.0, 0.0)
        };
        let (lx, ly) = (-hy, hx);
        let (sx, sy) = if ax * lx + ay * ly >= 0.0 {
            (lx, ly)
        } else {
            (-lx, -ly)
        };
        let turn = (ax * ax + ay * ay).sqrt() * dt / min;
        let (tx, ty) = (hx + sx * turn, hy + sy * turn);
        let tr = 1.0 / (tx * tx + ty * ty).sqrt();
        let (nx, ny) = if tr.is_finite() & (tr > 0.0) {
            (tx * tr, ty * tr)
        } else {
            (hx, hy)
        };
        let (ux, uy) = (nx * min, ny * min);
        let (mut fx, mut fy) = if over {
            (cx, cy)
        } else if under {
            (ux, uy)
        } else {
            (wx, wy)
        };
        if !(fx.is_finite() & fy.is_finite()) {
            (fx, fy) = (0.0, 0.0);
        }
        let (mut qx, mut qy) = (px[l] + fx * dt, py[l] + fy * dt);
        match bounds.edges {
            Edges::Wrap => {
                let inside = (qx >= r.min.x) & (qx < r.max.x) & (qy >= r.min.y) & (qy < r.max.y);
                redo[l] = !inside;
            }
            Edges::TurnBack { .. } => {
                (qx, fx) = wall(qx, fx, r.min.x, r.max.x);
                (qy, fy) = wall(qy, fy, r.min.y, r.max.y);
            }
        }
        (out_px[l], out_py[l], out_vx[l], out_vy[l]) = (qx, qy, fx, fy);
    }
    Moved {
        px: out_px,
        py: out_py,
        vx: out_vx,
        vy: out_vy,
        redo,
    }
}

/// The hard wall of `integrate_one` on one axis, as selects.
#[inline(always)]
fn wall(x: f32, v: f32, lo: f32, hi: f32) -> (f32, f32) {
    if x < lo {
        (lo, v.abs())
    } else if x > hi {
        (hi, -v.abs())
    } else {
        (x, v)
    }
}

/// Eight `Vec2`s in and out of registers for the AVX2 build of the integrate system.
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use core::arch::x86_64::*;

    use super::LANES;
    use crate::bounds::SimulationBounds;

    /// The `x` and `y` of the eight `Vec2`s (sixteen `f32`s) at `at`.
    ///
    /// # Safety
    /// The CPU must have AVX2, and `at` must point to sixteen readable `f32`s.
    #[inline(always)]
    pub unsafe fn load_xy(at: *const f32) -> ([f32; LANES], [f32; LANES]) {
        // SAFETY: as the caller promises.
        unsafe {
            // [x0 y0 x1 y1 | x2 y2 x3 y3] and [x4 y4 x5 y5 | x6 y6 x7 y7].
            let (a, b) = (_mm256_loadu_ps(at), _mm256_loadu_ps(at.add(LANES)));
            // [x0 x1 x4 x5 | x2 x3 x6 x7], then the middle pairs swapped.
            let order = |v: __m256| {
                _mm256_castpd_ps(_mm256_permute4x64_pd::<0b11_01_10_00>(_mm256_castps_pd(v)))
            };
            let x = order(_mm256_shuffle_ps::<0b10_00_10_00>(a, b));
            let y = order(_mm256_shuffle_ps::<0b11_01_11_01>(a, b));
            let (mut xs, mut ys) = ([0.0; LANES], [0.0; LANES]);
            _mm256_storeu_ps(xs.as_mut_ptr(), x);
            _mm256_storeu_ps(ys.as_mut_ptr(), y);
            (xs, ys)
        }
    }

    /// [`SimulationBounds::delta`] from `from` to `to` in every lane, one array per coordinate:
    /// the same operations as selects, so the same bits. Bit `l` of the mask is set where lane
    /// `l` needs `delta`'s general formula instead (under wrapping edges, points more than one
    /// world apart, or not finite: only a boid put outside the world by hand).
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    pub unsafe fn deltas(
        bounds: &SimulationBounds,
        (from_x, from_y): ([f32; LANES], [f32; LANES]),
        (to_x, to_y): ([f32; LANES], [f32; LANES]),
    ) -> ([f32; LANES], [f32; LANES], u32) {
        // SAFETY: as the caller promises; every load and store covers one whole array.
        unsafe {
            let dx = _mm256_sub_ps(
                _mm256_loadu_ps(to_x.as_ptr()),
                _mm256_loadu_ps(from_x.as_ptr()),
            );
            let dy = _mm256_sub_ps(
                _mm256_loadu_ps(to_y.as_ptr()),
                _mm256_loadu_ps(from_y.as_ptr()),
            );
            let (mut dx_out, mut dy_out) = ([0.0; LANES], [0.0; LANES]);
            let mut general = 0;
            let (dx, dy) = if bounds.wraps() {
                let size = bounds.rect.size();
                let ((fx, near_x), (fy, near_y)) = (fold(dx, size.x), fold(dy, size.y));
                general = !_mm256_movemask_ps(_mm256_and_ps(near_x, near_y)) as u32 & 0xff;
                (fx, fy)
            } else {
                (dx, dy)
            };
            _mm256_storeu_ps(dx_out.as_mut_ptr(), dx);
            _mm256_storeu_ps(dy_out.as_mut_ptr(), dy);
            (dx_out, dy_out, general)
        }
    }

    /// [`SimulationBounds::delta`]'s fold of one coordinate `d` of eight differences: `d - size`
    /// above half a size, `d + size` below minus half a size, and where `d` is within one size
    /// (the only case it covers).
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    unsafe fn fold(d: __m256, size: f32) -> (__m256, __m256) {
        // SAFETY: as the caller promises.
        unsafe {
            let (s, half) = (_mm256_set1_ps(size), _mm256_set1_ps(size * 0.5));
            let low = _mm256_cmp_ps::<_CMP_LT_OQ>(d, _mm256_set1_ps(-size * 0.5));
            let high = _mm256_cmp_ps::<_CMP_GT_OQ>(d, half);
            let r = _mm256_blendv_ps(d, _mm256_add_ps(d, s), low);
            let r = _mm256_blendv_ps(r, _mm256_sub_ps(d, s), high);
            let magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0), d);
            (r, _mm256_cmp_ps::<_CMP_LE_OQ>(magnitude, s))
        }
    }

    /// Writes `x` and `y` as eight `Vec2`s (sixteen `f32`s) at `at`.
    ///
    /// # Safety
    /// The CPU must have AVX2, and `at` must point to sixteen writable `f32`s.
    #[inline(always)]
    pub unsafe fn store_xy(at: *mut f32, x: [f32; LANES], y: [f32; LANES]) {
        // SAFETY: as the caller promises.
        unsafe {
            let (x, y) = (_mm256_loadu_ps(x.as_ptr()), _mm256_loadu_ps(y.as_ptr()));
            // [x0 y0 x1 y1 | x4 y4 x5 y5] and [x2 y2 x3 y3 | x6 y6 x7 y7].
            let (lo, hi) = (_mm256_unpacklo_ps(x, y), _mm256_unpackhi_ps(x, y));
            _mm256_storeu_ps(at, _mm256_permute2f128_ps::<0x20>(lo, hi));
            _mm256_storeu_ps(at.add(LANES), _mm256_permute2f128_ps::<0x31>(lo, hi));
        }
    }
}

#[cfg(test)]
mod tests {
    use bevy::prelude::*;
    use rand::rngs::Xoshiro256PlusPlus;
    use rand::{RngExt, SeedableRng};

    use super::{LANES, Lane, integrate_lanes};
    use crate::bounds::{Edges, SimulationBounds};

    /// Eight `Vec2`s come out of `load_xy` as their coordinates in order, and `store_xy` puts
    /// them back where they were.
    #[test]
    fn vectors_in_and_out_of_registers() {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            use super::avx2::{load_xy, store_xy};
            let points: [Vec2; LANES] =
                core::array::from_fn(|l| Vec2::new(l as f32, -(l as f32) - 0.5));
            // SAFETY: the CPU has AVX2; eight `Vec2`s are sixteen `f32`s.
            let (x, y) = unsafe { load_xy(points.as_ptr().cast()) };
            assert_eq!(x, points.map(|p| p.x));
            assert_eq!(y, points.map(|p| p.y));
            let mut back = [Vec2::NAN; LANES];
            // SAFETY: as above.
            unsafe { store_xy(back.as_mut_ptr().cast(), x, y) };
            assert_eq!(back, points);
        }
    }

    /// Every lane is `integrate_one`, bit for bit: fast and slow, stopped, over the top speed,
    /// non-finite accelerations, no minimum speed, across the seam and into the walls.
    #[test]
    fn lanes_are_integrate_one() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let mut f = |scale: f32| (rng.random::<f32>() - 0.3) * scale;
        for edges in [Edges::Wrap, Edges::TURN_BACK] {
            let bounds = SimulationBounds {
                rect: Rect::new(-50.0, 0.0, 250.0, 100.0),
                edges,
            };
            for round in 0..2000 {
                let lanes: [Lane; LANES] = core::array::from_fn(|l| {
                    let kind = (round * LANES + l) % 7;
                    let v = match kind {
                        0 => Vec2::ZERO,
                        1 => Vec2::new(f(400.0), f(400.0)),
                        _ => Vec2::new(f(120.0), f(120.0)),
                    };
                    let a = match kind {
                        2 => Vec2::new(f32::NAN, 1.0),
                        3 => Vec2::ZERO,
                        _ => Vec2::new(f(900.0), f(900.0)),
                    };
                    Lane {
                        p: Vec2::new(f(330.0) - 20.0, f(130.0)),
                        v,
                        a,
                        min_speed: if kind == 4 { 0.0 } else { 30.0 },
                        max_speed: 90.0,
                    }
                });
                let dt = if round % 2 == 0 { 1.0 / 60.0 } else { 0.1 };
                let got = integrate_lanes(&lanes, dt, &bounds);
                for (l, lane) in lanes.iter().enumerate() {
                    let (p, v) = got.get(l, lane, dt, &bounds);
                    let (wp, wv) = lane.integrate_one(dt, &bounds);
                    let bits = |a: Vec2| a.to_array().map(f32::to_bits);
                    assert_eq!((bits(p), bits(v)), (bits(wp), bits(wv)), "{lane:?}");
                }
            }
        }
    }
}
