//! [`Real`]: the number type the hot path's rules are written over, so that each rule is written
//! once and runs on one boid (`f32`) or on [`Lanes`] of boids or candidates side by side.
//!
//! A rule written over `R: Real` uses only `+ - * /`, [`Real::sqrt`], compares that give a
//! [`Real::Mask`] and [`Real::select`] instead of `if`. For `f32` a mask is a `bool`; for
//! [`Lanes`] it is a lane of all-ones or all-zeros bits ([`MaskLanes`]), and every operation is a
//! loop over the lanes that the compiler turns into one vector instruction (AVX2, AVX-512 or NEON,
//! whichever the build in [`simd`](crate::simd) was compiled for).
//!
//! Every lane does the IEEE operations one `f32` would, in the same order, and nothing is ever
//! fused or reassociated, so a lane's result has exactly the bits of the same rule run on one
//! `f32`. Sums over lanes ([`Lanes::total`]) are added in one fixed tree order. That is the
//! crate's promise of the same bits on every CPU.
//!
//! [`Coords`] is a position, velocity or force: [`DIM`] coordinates of a `Real`.

use core::ops::{Add, BitAnd, BitOr, Div, Mul, Neg, Not, Sub};

use crate::math::{DIM, Vector};

/// Candidates tested side by side: one AVX2 register. Fixed whatever the CPU, so that every
/// CPU adds the same candidates in the same order and gets the same bits.
pub(crate) const LANES: usize = 8;

pub use crate::math::fill;

/// A number the rules are written over: `f32`, or [`Lanes`] of `f32`s side by side.
pub trait Real:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// The result of a compare: `bool` for `f32`, one per lane for [`Lanes`].
    type Mask: Copy
        + BitAnd<Output = Self::Mask>
        + BitOr<Output = Self::Mask>
        + Not<Output = Self::Mask>;
    /// A 32-bit integer in every lane (a boid's flock and species), compared exactly.
    type Key: Copy;

    /// `x` in every lane.
    fn splat(x: f32) -> Self;
    /// `k` in every lane.
    fn splat_key(k: u32) -> Self::Key;
    /// The square root, exact (IEEE).
    fn sqrt(self) -> Self;
    /// `self < other`; false where either is NaN.
    fn lt(self, other: Self) -> Self::Mask;
    /// `self <= other`.
    fn le(self, other: Self) -> Self::Mask;
    /// `self > other`.
    fn gt(self, other: Self) -> Self::Mask;
    /// `self >= other`.
    fn ge(self, other: Self) -> Self::Mask;
    /// `self == other`.
    fn eq(self, other: Self) -> Self::Mask;
    /// Keys equal.
    fn key_eq(a: Self::Key, b: Self::Key) -> Self::Mask;
    /// `yes` where `mask` holds, `no` elsewhere.
    fn select(mask: Self::Mask, yes: Self, no: Self) -> Self;
    /// A mask that holds everywhere, or nowhere.
    fn mask(all: bool) -> Self::Mask;
    /// Whether `mask` holds in any lane.
    fn any(mask: Self::Mask) -> bool;

    /// `|self|`.
    #[inline(always)]
    fn abs(self) -> Self {
        Self::select(self.lt(Self::splat(0.0)), -self, self)
    }

    /// Finite: not NaN and not infinite, as `x * 0 == 0` (a finite number times zero is zero,
    /// an infinity or a NaN times zero is a NaN).
    // NOTE: not `|x| < inf` nor `f32::is_finite`: LLVM turns those into a class test of the
    // float's bits, which it then does one lane at a time in integer registers.
    #[inline(always)]
    fn is_finite(self) -> Self::Mask {
        (self * Self::splat(0.0)).eq(Self::splat(0.0))
    }

    /// `self + x` where `mask` holds, `self` elsewhere: how the rules add up their sums (and
    /// count, with `x = 1`: every count here stays far below 2^24, where `f32` still holds every
    /// integer exactly).
    ///
    /// The same bits as `self + select(mask, x, 0)` wherever `self` is not `-0`, which a sum that
    /// starts at `+0` never is (`a + b` is `-0` only where both are); but a vector build makes it
    /// one masked add, where it made the other a blend and an add.
    #[inline(always)]
    fn add_where(self, mask: Self::Mask, x: Self) -> Self {
        Self::select(mask, self + x, self)
    }
}

impl Real for f32 {
    type Mask = bool;
    type Key = u32;

    #[inline(always)]
    fn splat(x: f32) -> Self {
        x
    }
    #[inline(always)]
    fn splat_key(k: u32) -> u32 {
        k
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    #[inline(always)]
    fn lt(self, other: Self) -> bool {
        self < other
    }
    #[inline(always)]
    fn le(self, other: Self) -> bool {
        self <= other
    }
    #[inline(always)]
    fn gt(self, other: Self) -> bool {
        self > other
    }
    #[inline(always)]
    fn ge(self, other: Self) -> bool {
        self >= other
    }
    #[inline(always)]
    fn eq(self, other: Self) -> bool {
        self == other
    }
    #[inline(always)]
    fn key_eq(a: u32, b: u32) -> bool {
        a == b
    }
    #[inline(always)]
    fn select(mask: bool, yes: Self, no: Self) -> Self {
        if mask { yes } else { no }
    }
    #[inline(always)]
    fn mask(all: bool) -> bool {
        all
    }
    #[inline(always)]
    fn any(mask: bool) -> bool {
        mask
    }
}

/// `N` `f32`s side by side, one per lane.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C, align(32))]
pub struct Lanes<const N: usize>(pub [f32; N]);

/// `N` compare results side by side: all bits set where true, none where false, so that a select
/// is a bitwise blend and a vector compare's result is used as it comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, align(32))]
pub struct MaskLanes<const N: usize>(pub [u32; N]);

/// `N` 32-bit keys side by side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, align(32))]
pub struct KeyLanes<const N: usize>(pub [u32; N]);

impl<const N: usize> Lanes<N> {
    /// Lane `l` is `f(l)`.
    #[inline(always)]
    pub fn from_fn(f: impl FnMut(usize) -> f32) -> Self {
        Self(fill(0.0, f))
    }

    /// `N` lanes read from the start of `values`, which holds at least `N`.
    #[inline(always)]
    pub fn load(values: &[f32]) -> Self {
        Self(values[..N].try_into().expect("a whole chunk of lanes"))
    }

    /// The lanes added up in a fixed tree order: each lane of the first half plus the same lane
    /// of the second, then the same with the halves of that, down to one. For 8 lanes that is
    /// `((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7))`, the order three register halvings
    /// give. `N` is a power of two.
    #[inline(always)]
    pub fn total(self) -> f32 {
        self.fold(|a, b| a + b)
    }

    /// The least lane, found in the same tree order as [`Self::total`]: three register halvings
    /// for 8 lanes, no branches. For lanes without NaN (a NaN may win).
    #[inline(always)]
    pub fn least(self) -> f32 {
        self.fold(|a, b| if b < a { b } else { a })
    }

    /// The lanes folded with `f` in [`Self::total`]'s tree order.
    #[inline(always)]
    fn fold(self, f: impl Fn(f32, f32) -> f32) -> f32 {
        let mut v = self.0;
        let mut len = N;
        while len > 1 {
            len /= 2;
            for i in 0..len {
                v[i] = f(v[i], v[i + len]);
            }
        }
        v[0]
    }
}

impl Lanes<8> {
    /// Lane `k` is `rows[k].total()`, bit for bit: eight totals at once, in three rounds that
    /// each add two shuffles of the rows (the transposes of a hand-written horizontal add), where
    /// eight [`Lanes::total`]s would each shuffle one row down to one lane.
    #[inline(always)]
    pub fn totals(rows: &[Lanes<8>; 8]) -> Lanes<8> {
        // In the order the rounds leave them, so that lane `k` of the result is row `k`'s.
        let r = [
            rows[0].0, rows[4].0, rows[1].0, rows[5].0, rows[2].0, rows[6].0, rows[3].0, rows[7].0,
        ];
        // NOTE: loops, not `fill` with closures: a closure here was compiled once, without the
        // build's target features, and called eight times (measured: slower than the totals one
        // by one).
        // Round 1, two rows a register: `a[i] + a[i + 4]` of the first in lanes 0-3, of the
        // second in lanes 4-7.
        let mut x = [[0.0; 8]; 4];
        for j in 0..4 {
            let (a, b) = (r[2 * j], r[2 * j + 1]);
            let lo = [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]];
            let hi = [a[4], a[5], a[6], a[7], b[4], b[5], b[6], b[7]];
            for i in 0..8 {
                x[j][i] = lo[i] + hi[i];
            }
        }
        // Round 2, four rows a register: `s0 + s2` and `s1 + s3` of each.
        let mut y = [[0.0; 8]; 2];
        for m in 0..2 {
            let (p, q) = (x[2 * m], x[2 * m + 1]);
            let a = [p[0], p[1], q[0], q[1], p[4], p[5], q[4], q[5]];
            let b = [p[2], p[3], q[2], q[3], p[6], p[7], q[6], q[7]];
            for i in 0..8 {
                y[m][i] = a[i] + b[i];
            }
        }
        // Round 3: the two halves of each row added.
        let (p, q) = (y[0], y[1]);
        let a = [p[0], p[2], q[0], q[2], p[4], p[6], q[4], q[6]];
        let b = [p[1], p[3], q[1], q[3], p[5], p[7], q[5], q[7]];
        let mut out = [0.0; 8];
        for i in 0..8 {
            out[i] = a[i] + b[i];
        }
        Lanes(out)
    }
}

impl Lanes<16> {
    /// Lanes 0-7 and lanes 8-15.
    #[inline(always)]
    pub fn halves(self) -> [Lanes<8>; 2] {
        let v = self.0;
        [Lanes(fill(0.0, |l| v[l])), Lanes(fill(0.0, |l| v[l + 8]))]
    }
}

/// A lane-by-lane operator of two `Lanes`.
macro_rules! lane_op {
    ($trait:ident, $method:ident, $op:tt) => {
        impl<const N: usize> $trait for Lanes<N> {
            type Output = Self;
            #[inline(always)]
            fn $method(self, other: Self) -> Self {
                let mut out = [0.0; N];
                for l in 0..N {
                    out[l] = self.0[l] $op other.0[l];
                }
                Self(out)
            }
        }
    };
}

lane_op!(Add, add, +);
lane_op!(Sub, sub, -);
lane_op!(Mul, mul, *);
lane_op!(Div, div, /);

impl<const N: usize> Neg for Lanes<N> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        let mut out = self.0;
        for x in &mut out {
            *x = -*x;
        }
        Self(out)
    }
}

/// A lane-by-lane compare of two `Lanes`.
macro_rules! lane_cmp {
    ($method:ident, $op:tt) => {
        #[inline(always)]
        fn $method(self, other: Self) -> MaskLanes<N> {
            let mut out = [0; N];
            for l in 0..N {
                out[l] = if self.0[l] $op other.0[l] { !0 } else { 0 };
            }
            MaskLanes(out)
        }
    };
}

impl<const N: usize> Real for Lanes<N> {
    type Mask = MaskLanes<N>;
    type Key = KeyLanes<N>;

    #[inline(always)]
    fn splat(x: f32) -> Self {
        Self([x; N])
    }
    #[inline(always)]
    fn splat_key(k: u32) -> KeyLanes<N> {
        KeyLanes([k; N])
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        let mut out = self.0;
        for x in &mut out {
            *x = x.sqrt();
        }
        Self(out)
    }
    lane_cmp!(lt, <);
    lane_cmp!(le, <=);
    lane_cmp!(gt, >);
    lane_cmp!(ge, >=);
    lane_cmp!(eq, ==);
    #[inline(always)]
    fn key_eq(a: KeyLanes<N>, b: KeyLanes<N>) -> MaskLanes<N> {
        let mut out = [0; N];
        for l in 0..N {
            out[l] = if a.0[l] == b.0[l] { !0 } else { 0 };
        }
        MaskLanes(out)
    }
    #[inline(always)]
    fn select(mask: MaskLanes<N>, yes: Self, no: Self) -> Self {
        let mut out = [0.0; N];
        for l in 0..N {
            let m = mask.0[l];
            out[l] = f32::from_bits((yes.0[l].to_bits() & m) | (no.0[l].to_bits() & !m));
        }
        Self(out)
    }
    // NOTE: a float select, not `select`'s bitwise blend: LLVM folds it into the add (one
    // masked add with AVX-512), where the blend stayed an integer move of its own beside the add
    // (the kernel's pair loop 67 instructions a chunk against 55). `select` itself stays a
    // blend: as a float select, integration's lanes came out slower.
    #[inline(always)]
    fn add_where(self, mask: MaskLanes<N>, x: Self) -> Self {
        let mut out = [0.0; N];
        for l in 0..N {
            out[l] = if mask.0[l] != 0 {
                self.0[l] + x.0[l]
            } else {
                self.0[l]
            };
        }
        Self(out)
    }
    #[inline(always)]
    fn mask(all: bool) -> MaskLanes<N> {
        MaskLanes([if all { !0 } else { 0 }; N])
    }
    #[inline(always)]
    fn any(mask: MaskLanes<N>) -> bool {
        mask.0.iter().fold(0, |a, &m| a | m) != 0
    }
}

/// A lane-by-lane bit operator of two `MaskLanes`.
macro_rules! mask_op {
    ($trait:ident, $method:ident, $op:tt) => {
        impl<const N: usize> $trait for MaskLanes<N> {
            type Output = Self;
            #[inline(always)]
            fn $method(self, other: Self) -> Self {
                let mut out = [0; N];
                for l in 0..N {
                    out[l] = self.0[l] $op other.0[l];
                }
                Self(out)
            }
        }
    };
}

mask_op!(BitAnd, bitand, &);
mask_op!(BitOr, bitor, |);

impl<const N: usize> Not for MaskLanes<N> {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        let mut out = self.0;
        for m in &mut out {
            *m = !*m;
        }
        Self(out)
    }
}

impl<const N: usize> MaskLanes<N> {
    /// Whether lane `l` holds.
    #[inline(always)]
    pub fn lane(&self, l: usize) -> bool {
        self.0[l] != 0
    }
}

/// A position, velocity, delta or force: [`DIM`] coordinates of a [`Real`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Coords<R>(pub [R; DIM]);

impl<R: Real> Coords<R> {
    /// Every coordinate `x`.
    #[inline(always)]
    pub fn splat(x: R) -> Self {
        Self([x; DIM])
    }

    /// The zero vector.
    #[inline(always)]
    pub fn zero() -> Self {
        Self::splat(R::splat(0.0))
    }

    /// `v` in every lane.
    #[inline(always)]
    pub fn from_vector(v: Vector) -> Self {
        let mut out = [R::splat(0.0); DIM];
        for axis in 0..DIM {
            out[axis] = R::splat(v[axis]);
        }
        Self(out)
    }

    /// The dot product, axes added in order (`x * x' + y * y'`, then `+ z * z'`).
    #[inline(always)]
    pub fn dot(self, other: Self) -> R {
        let mut sum = self.0[0] * other.0[0];
        for axis in 1..DIM {
            sum = sum + self.0[axis] * other.0[axis];
        }
        sum
    }

    /// `|self|^2`.
    #[inline(always)]
    pub fn length_squared(self) -> R {
        self.dot(self)
    }

    /// Every coordinate times `k`.
    #[inline(always)]
    pub fn scale(self, k: R) -> Self {
        let mut out = self.0;
        for x in &mut out {
            *x = *x * k;
        }
        Self(out)
    }

    /// Every coordinate divided by `k`.
    #[inline(always)]
    pub fn div_by(self, k: R) -> Self {
        let mut out = self.0;
        for x in &mut out {
            *x = *x / k;
        }
        Self(out)
    }

    /// `yes` where `mask` holds, `no` elsewhere, coordinate by coordinate.
    #[inline(always)]
    pub fn select(mask: R::Mask, yes: Self, no: Self) -> Self {
        let mut out = no.0;
        for axis in 0..DIM {
            out[axis] = R::select(mask, yes.0[axis], out[axis]);
        }
        Self(out)
    }

    /// `self + x` where `mask` holds, `self` elsewhere ([`Real::add_where`] on each coordinate).
    #[inline(always)]
    pub fn add_where(self, mask: R::Mask, x: Self) -> Self {
        let mut out = self.0;
        for axis in 0..DIM {
            out[axis] = out[axis].add_where(mask, x.0[axis]);
        }
        Self(out)
    }

    /// Where every coordinate is finite.
    #[inline(always)]
    pub fn is_finite(self) -> R::Mask {
        let mut ok = self.0[0].is_finite();
        for axis in 1..DIM {
            ok = ok & self.0[axis].is_finite();
        }
        ok
    }

    /// `self / |self|` where `|self|` has a finite, positive reciprocal, else `fallback`
    /// (glam's `normalize_or`).
    #[inline(always)]
    pub fn normalize_or(self, fallback: Self) -> Self {
        let rcp = R::splat(1.0) / self.length_squared().sqrt();
        let ok = rcp.is_finite() & rcp.gt(R::splat(0.0));
        Self::select(ok, self.scale(rcp), fallback)
    }

    /// Shortened to at most `max` without turning (glam's `clamp_length_max`:
    /// `max * (v / |v|)` where `|v|^2 > max^2`).
    #[inline(always)]
    pub fn clamp_length_max(self, max: R) -> Self {
        let length2 = self.length_squared();
        let over = length2.gt(max * max);
        let shortened = self.div_by(length2.sqrt()).scale_left(max);
        Self::select(over, shortened, self)
    }

    /// `k * v` with `k` on the left: `k * x` for every coordinate (the same bits as
    /// [`Self::scale`], as multiplication commutes; spelled as glam spells `f32 * Vec2`).
    #[inline(always)]
    fn scale_left(self, k: R) -> Self {
        let mut out = self.0;
        for x in &mut out {
            *x = k * *x;
        }
        Self(out)
    }
}

impl Coords<f32> {
    /// As a glam vector.
    #[inline(always)]
    pub fn to_vector(self) -> Vector {
        Vector::from_array(self.0)
    }

    /// From a glam vector.
    #[inline(always)]
    pub fn of(v: Vector) -> Self {
        Self(v.to_array())
    }
}

impl<const N: usize> Coords<Lanes<N>> {
    /// Lane `l` as a glam vector.
    #[inline(always)]
    pub fn lane(&self, l: usize) -> Vector {
        Vector::from_array(fill(0.0, |axis| self.0[axis].0[l]))
    }

    /// Lane `l` is `f(l)`.
    #[inline(always)]
    pub fn from_fn(f: impl FnMut(usize) -> Vector) -> Self {
        let vectors: [Vector; N] = fill(Vector::ZERO, f);
        Self(fill(Lanes([0.0; N]), |axis| {
            Lanes::from_fn(|l| vectors[l][axis])
        }))
    }
}

impl<R: Real> Add for Coords<R> {
    type Output = Self;
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        let mut out = self.0;
        for axis in 0..DIM {
            out[axis] = out[axis] + other.0[axis];
        }
        Self(out)
    }
}

impl<R: Real> Sub for Coords<R> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        let mut out = self.0;
        for axis in 0..DIM {
            out[axis] = out[axis] - other.0[axis];
        }
        Self(out)
    }
}

impl<R: Real> Neg for Coords<R> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        let mut out = self.0;
        for x in &mut out {
            *x = -*x;
        }
        Self(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eight totals at once are eight [`Lanes::total`]s, bit for bit, with values whose sums
    /// round differently in every order.
    #[test]
    fn totals_at_once_are_totals_one_by_one() {
        let mut x = 0x9e37_79b9u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x as f32 / u32::MAX as f32 - 0.5) * [1.0, 1e7, 3e-3][(x % 3) as usize]
        };
        for _ in 0..500 {
            let rows: [Lanes<8>; 8] = core::array::from_fn(|_| Lanes::from_fn(|_| next()));
            let got = Lanes::totals(core::hint::black_box(&rows));
            for (k, row) in rows.iter().enumerate() {
                assert_eq!(got.0[k].to_bits(), row.total().to_bits(), "row {k}");
            }
        }
    }

    /// A lane does what one `f32` does: every operation and compare, NaN and infinities
    /// included, bit for bit (any NaN for a NaN).
    #[test]
    fn a_lane_is_an_f32() {
        let values = [
            0.0,
            -0.0,
            1.0,
            -2.5,
            1e-40,
            3.0e38,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            0.1,
        ];
        let n = values.len();
        for shift in 0..n {
            let a = Lanes::<8>::from_fn(|l| values[l % n]);
            let b = Lanes::<8>::from_fn(|l| values[(l + shift) % n]);
            for l in 0..8 {
                let (x, y) = (a.0[l], b.0[l]);
                // Rust does not promise which NaN an operation makes (a folded constant and a
                // vector instruction differ in sign), only that it is one.
                // NOTE: the value through `black_box`: in a release build, LLVM folded
                // `sqrt(-2.5).is_nan()` here to false (rustc 1.95).
                let bits = |v: f32| {
                    let v = core::hint::black_box(v);
                    if v.is_nan() { u32::MAX } else { v.to_bits() }
                };
                assert_eq!(bits((a + b).0[l]), bits(x + y));
                assert_eq!(bits((a - b).0[l]), bits(x - y));
                assert_eq!(bits((a * b).0[l]), bits(x * y));
                assert_eq!(bits((a / b).0[l]), bits(x / y));
                assert_eq!(bits(a.sqrt().0[l]), bits(x.sqrt()));
                assert_eq!(bits(a.abs().0[l]), bits(Real::abs(x)));
                assert_eq!(a.lt(b).lane(l), x < y);
                assert_eq!(a.ge(b).lane(l), x >= y);
                assert_eq!(a.is_finite().lane(l), x.is_finite());
                let s = Lanes::select(a.lt(b), a, b).0[l];
                assert_eq!(bits(s), bits(if x < y { x } else { y }));
            }
        }
    }

    #[test]
    fn lanes_add_up_in_tree_order() {
        let a = Lanes::<8>::from_fn(|l| [1e8, 1.0, -1e8, 1.0, 3.0, 0.5, 0.25, 1e-3][l]);
        let s = a.0;
        let want = ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));
        assert_eq!(a.total().to_bits(), want.to_bits());
    }
}
