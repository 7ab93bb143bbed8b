//! Which build of the hot path runs: the one compiled for the SIMD this CPU has, or the portable
//! one.
//!
//! The hot functions are written once, over [`Real`](crate::lanes::Real), and
//! [`dispatch!`](crate::simd::dispatch) compiles each of them several times with
//! [`multiversion`]: for x86-64 with AVX-512, for x86-64 with AVX2 and FMA, and for the
//! target's baseline (SSE2 on x86-64, NEON on aarch64, plain code elsewhere). The first call
//! picks the best build this CPU runs, once. Every build gives the same bits (see
//! [`lanes`](crate::lanes)), so a flock replays the same whichever runs.
//!
//! Set the environment variable `MURMURATION_SIMD=portable` to run the baseline build on any
//! CPU; CI runs the whole test suite both ways.

use std::sync::OnceLock;

/// The environment variable that forces the portable build (`MURMURATION_SIMD=portable`).
pub const SIMD_VAR: &str = "MURMURATION_SIMD";

/// What a build was compiled for, as the dispatched function body sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    /// 512-bit vectors (AVX-512): wide enough for two boids' eight lanes in one register.
    pub wide: bool,
}

impl Target {
    /// The portable build's target.
    pub const PORTABLE: Self = Self { wide: false };
}

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

/// Defines `fn $name(args) -> R` that calls `$body(target, args)` compiled for the best SIMD
/// target of this CPU, or for the baseline when [`portable`] says so. `$body` must be
/// `#[inline(always)]`, so that each build compiles it with its own target features; it gets the
/// build's [`Target`] as its first argument (a constant in each build).
macro_rules! dispatch {
    (
        $(#[$attr:meta])*
        $vis:vis fn $name:ident $(<$($lt:lifetime),+>)? ($($arg:ident : $ty:ty),* $(,)?)
            $(-> $ret:ty)? = $body:path;
    ) => {
        $(#[$attr])*
        $vis fn $name $(<$($lt),+>)? ($($arg: $ty),*) $(-> $ret)? {
            #[multiversion::multiversion(targets(
                "x86_64+avx512f+avx512bw+avx512cd+avx512dq+avx512vl+avx2+fma+bmi1+bmi2+lzcnt+popcnt",
                "x86_64+avx2+fma+bmi1+bmi2+lzcnt+popcnt",
            ))]
            fn dispatched $(<$($lt),+>)? ($($arg: $ty),*) $(-> $ret)? {
                let target = $crate::simd::Target {
                    wide: multiversion::target::target_cfg_f!(target_feature = "avx512f"),
                };
                $body(target, $($arg),*)
            }
            if $crate::simd::portable() {
                $body($crate::simd::Target::PORTABLE, $($arg),*)
            } else {
                dispatched($($arg),*)
            }
        }
    };
}

pub(crate) use dispatch;
