//! Which build of the hot path runs: the one compiled for the SIMD this CPU has, or the portable
//! one.
//!
//! The hot functions are written once, over [`Real`](crate::lanes::Real), and compiled several
//! times with [`multiversion`]: for x86-64 with AVX-512, for x86-64 with AVX2 and FMA, and for
//! the target's baseline (SSE2 on x86-64, NEON on aarch64, plain code elsewhere). The first call
//! picks the best build this CPU runs, once. Every build gives the same bits (see
//! [`lanes`](crate::lanes)), so a flock replays the same whichever runs.
//!
//! Two shapes: `dispatch!` compiles a whole function per build (the kernel's cell walk, the
//! hash's cell indices), `out_of_line!` a function of lane code that its caller calls through
//! a pointer, per block of lanes (the integration and the forces; the kernel's lane loops do the
//! same by hand, one per field-of-view kind). LLVM compiles the lanes of [`Lanes`] into vector
//! registers only where they make up most of a function: mixed into a large loop that loads,
//! stores and fixes up single lanes around them, its vectoriser did them one at a time, several
//! times slower (measured on the 100,000-boid step); see the `NOTE`s where a barrier
//! (`core::hint::black_box`) keeps the lanes apart.
//!
//! [`Lanes`]: crate::lanes::Lanes
//!
//! Set the environment variable `MURMURATION_SIMD=portable` to run the baseline build on any
//! CPU; CI runs the whole test suite both ways.
//!
//! The one piece of hand-written `core::arch` code is here, and it is not a rule: the shuffles
//! of `totals_avx`, eight [`Lanes::total`](crate::lanes::Lanes::total)s at once, which LLVM
//! made out of [`Lanes::totals`] with four times the instructions.

use std::sync::OnceLock;

use crate::lanes::Lanes;

/// The environment variable that forces the portable build (`MURMURATION_SIMD=portable`).
pub const SIMD_VAR: &str = "MURMURATION_SIMD";

/// Whether `MURMURATION_SIMD=portable` asks for the portable build (read once per process).
pub fn portable() -> bool {
    static PORTABLE: OnceLock<bool> = OnceLock::new();
    *PORTABLE.get_or_init(|| std::env::var(SIMD_VAR).is_ok_and(|v| v == "portable"))
}

/// The build that runs on this CPU, in words (for logs and benchmark lines).
pub fn build_name() -> &'static str {
    if portable() {
        return "portable";
    }
    #[cfg(target_arch = "x86_64")]
    {
        let has = |f: &str| match f {
            "avx512" => {
                std::is_x86_feature_detected!("avx512f")
                    && std::is_x86_feature_detected!("avx512bw")
                    && std::is_x86_feature_detected!("avx512cd")
                    && std::is_x86_feature_detected!("avx512dq")
                    && std::is_x86_feature_detected!("avx512vl")
            }
            _ => std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma"),
        };
        if has("avx512") && has("avx2") {
            return "avx512";
        }
        if has("avx2") {
            return "avx2";
        }
    }
    "baseline"
}

/// Puts `#[multiversion(targets(...))]` with the crate's SIMD targets on `$item`: built for
/// x86-64 with AVX-512, x86-64 with AVX2 and FMA, and the baseline, the best one picked on the
/// first call. The one list of targets, for [`dispatch!`] and for the few functions that pick a
/// build themselves.
macro_rules! simd_targets {
    ($item:item) => {
        #[multiversion::multiversion(targets(
            "x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl+avx2+fma+bmi1+bmi2+lzcnt+popcnt",
            "x86_64+avx2+fma+bmi1+bmi2+lzcnt+popcnt",
        ))]
        $item
    };
}

pub(crate) use simd_targets;

/// Defines `fn $name() -> unsafe fn(args) -> R`: a function pointer to `$body` built for this
/// CPU's best SIMD target (or for the baseline where [`portable`] says so), as a function of
/// its own, never inlined into its caller.
///
/// For the lane code of the hot path: inlined into a large caller (a loop that loads, stores and
/// fixes up single lanes around it), LLVM's vectoriser did the lanes one at a time, several times
/// slower; alone in a function of its own it does them in vector registers. A caller fetches the
/// pointer once and calls it per block of lanes.
///
/// The pointer is `unsafe` to call only because the build needs the CPU features it was
/// compiled for; every pointer `$name` returns is for this CPU, so calling it is sound.
macro_rules! out_of_line {
    (
        $(#[$attr:meta])*
        $vis:vis fn $name:ident($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty = $body:expr;
    ) => {
        $(#[$attr])*
        $vis fn $name() -> unsafe fn($($ty),*) -> $ret {
            $crate::simd::simd_targets! {
                fn dispatched() -> unsafe fn($($ty),*) -> $ret {
                    #[multiversion::inherit_target]
                    #[inline(never)]
                    unsafe fn build($($arg: $ty),*) -> $ret {
                        $body
                    }
                    build
                }
            }
            #[inline(never)]
            unsafe fn portable_build($($arg: $ty),*) -> $ret {
                $body
            }
            if $crate::simd::portable() {
                portable_build
            } else {
                dispatched()
            }
        }
    };
}

pub(crate) use out_of_line;

/// Defines `fn $name(args) -> R` that calls `$body(args)` compiled for the best SIMD target of
/// this CPU, or for the baseline when [`portable`] says so. `$body` must be `#[inline(always)]`,
/// so that each build compiles it with its own target features. For work whose lanes are not
/// the whole of it (a loop that loads and stores around them), see [`out_of_line!`].
macro_rules! dispatch {
    (
        $(#[$attr:meta])*
        $vis:vis fn $name:ident $(<$($lt:lifetime),+>)? ($($arg:ident : $ty:ty),* $(,)?)
            $(-> $ret:ty)? = $body:path;
    ) => {
        $(#[$attr])*
        $vis fn $name $(<$($lt),+>)? ($($arg: $ty),*) $(-> $ret)? {
            $crate::simd::simd_targets! {
                fn dispatched $(<$($lt),+>)? ($($arg: $ty),*) $(-> $ret)? {
                    $body($($arg),*)
                }
            }
            if $crate::simd::portable() {
                $body($($arg),*)
            } else {
                dispatched($($arg),*)
            }
        }
    };
}

pub(crate) use dispatch;

/// [`Lanes::totals`] with AVX's shuffles, the same bits: each round's two shuffles and add as
/// one instruction each (`vperm2f128`, `vshufps`), where LLVM, given the portable code, built
/// them from about four times as many.
///
/// # Safety
/// The CPU must have AVX (every build that calls it is compiled for AVX2 or AVX-512).
#[inline(always)]
pub(crate) unsafe fn totals_avx(rows: &[Lanes<8>; 8]) -> Lanes<8> {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the caller's promise.
        unsafe { x86::totals(rows) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Lanes::totals(rows)
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::*;

    use crate::lanes::Lanes;

    /// See [`totals_avx`](super::totals_avx): the rounds of [`Lanes::totals`], register by
    /// register.
    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) fn totals(rows: &[Lanes<8>; 8]) -> Lanes<8> {
        // SAFETY: `Lanes<8>` is 32 bytes aligned to 32.
        let row = |k: usize| unsafe { _mm256_load_ps(rows[k].0.as_ptr()) };
        let r = [
            row(0),
            row(4),
            row(1),
            row(5),
            row(2),
            row(6),
            row(3),
            row(7),
        ];
        // Round 1: the low halves of two rows against their high halves.
        let x = |j: usize| {
            let (a, b) = (r[2 * j], r[2 * j + 1]);
            _mm256_add_ps(
                _mm256_permute2f128_ps::<0x20>(a, b),
                _mm256_permute2f128_ps::<0x31>(a, b),
            )
        };
        let x = [x(0), x(1), x(2), x(3)];
        // Round 2: lanes 0-1 of each half against lanes 2-3.
        let y = |m: usize| {
            let (p, q) = (x[2 * m], x[2 * m + 1]);
            _mm256_add_ps(
                _mm256_shuffle_ps::<0b01_00_01_00>(p, q),
                _mm256_shuffle_ps::<0b11_10_11_10>(p, q),
            )
        };
        let y = [y(0), y(1)];
        // Round 3: even lanes against odd lanes.
        let z = _mm256_add_ps(
            _mm256_shuffle_ps::<0b10_00_10_00>(y[0], y[1]),
            _mm256_shuffle_ps::<0b11_01_11_01>(y[0], y[1]),
        );
        let mut out = Lanes([0.0; 8]);
        // SAFETY: as for the loads.
        unsafe { _mm256_store_ps(out.0.as_mut_ptr(), z) };
        out
    }
}
