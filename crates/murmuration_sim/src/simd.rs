//! Which build of the hot path runs: the one compiled for the SIMD this CPU has, or the portable
//! one.
//!
//! The hot functions are written once, over [`Real`](crate::lanes::Real), and compiled several
//! times with [`multiversion`]: for x86-64 with AVX-512, for x86-64 with AVX2 and FMA, and for
//! the target's baseline (SSE2 on x86-64, NEON on aarch64, plain code elsewhere). The first call
//! picks the best build this CPU runs, once. Every build gives the same bits (see
//! [`lanes`](crate::lanes)), so a flock replays the same whichever runs.
//!
//! Two shapes: [`dispatch!`] compiles a whole function per build (the kernel's cell walk, the
//! hash's cell indices), [`out_of_line!`] a function of lane code that its caller calls through
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

use std::sync::OnceLock;

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
