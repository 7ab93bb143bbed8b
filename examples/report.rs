//! Runs each preset headless from a fixed seed and prints its steady-state flock metrics, one line flying freely and one pulled to a point, for scripts and for the table in the `metrics` module's documentation.
//!
//! `cargo run --release --example report -- --seed 1 --boids 1000 --seconds 60 [--preset fish]
//! [--comfort 8] [--separation 2]`
//!
//! Each preset flies as `MeasuredRun::steady` sets it up: a wrapping world of 1,080 square units
//! a boid (1200 x 900 for 1,000 boids, larger in proportion for more), the same seed, released in
//! the middle of the world at twice its mean density (as a flock starts out together); once flying freely and once
//! pulled together by an attractor at the centre of the world (as the starlings example's roost). The numbers are the
//! means over the last fifth of the run, sampled every 30 steps (twice a simulated second).
//! `nn_per_separation` is the mean nearest-neighbour distance over the separation distance.

use bevy::prelude::*;
use bevy_murmuration::metrics::FlockMetrics;
use bevy_murmuration::prelude::*;
use murmuration_harness::measured::MeasuredRun;

/// What the command line asked for.
struct Settings {
    seed: u64,
    boids: usize,
    seconds: u32,
    /// Only this preset, if given.
    preset: Option<String>,
    /// The presets' crowding comfort instead of their own, where they have one.
    comfort: Option<f32>,
    /// The presets' separation weight instead of their own.
    separation: Option<f32>,
}

fn parse<T: std::str::FromStr>(flag: &str, value: Option<&String>) -> T {
    value
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{flag} needs a number"))
}

fn settings() -> Settings {
    let mut settings = Settings {
        seed: 1,
        boids: 1000,
        seconds: 60,
        preset: None,
        comfort: None,
        separation: None,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        match pair[0].as_str() {
            "--seed" => settings.seed = parse("--seed", pair.get(1)),
            "--boids" => settings.boids = parse("--boids", pair.get(1)),
            "--seconds" => settings.seconds = parse("--seconds", pair.get(1)),
            "--preset" => settings.preset = pair.get(1).cloned(),
            "--comfort" => settings.comfort = Some(parse("--comfort", pair.get(1))),
            "--separation" => settings.separation = Some(parse("--separation", pair.get(1))),
            other => panic!(
                "unknown flag {other}; use --seed, --boids, --seconds, --preset, --comfort, \
                 --separation"
            ),
        }
    }
    settings
}

/// Flies `params` for the asked time, pulled to the centre or not, and returns the mean metrics
/// of the last fifth.
fn run(params: FlockParams, settings: &Settings, pulled: bool) -> FlockMetrics {
    MeasuredRun {
        seconds: settings.seconds as f32,
        ..MeasuredRun::steady(params, settings.boids, settings.seed, pulled)
    }
    .measure()
}

fn main() {
    let settings = settings();
    for (name, params) in [
        ("starlings", FlockParams::starlings()),
        ("fish", FlockParams::fish()),
        ("sheep", FlockParams::sheep()),
        ("tutorial", FlockParams::default()),
    ] {
        if settings.preset.as_ref().is_some_and(|p| p != name) {
            continue;
        }
        let params = match settings.comfort {
            Some(comfort) if params.crowding_comfort > 0.0 => FlockParams {
                crowding_comfort: comfort,
                ..params
            },
            _ => params,
        };
        let params = FlockParams {
            separation_weight: settings.separation.unwrap_or(params.separation_weight),
            ..params
        };
        for pulled in [false, true] {
            let m = run(params.clone(), &settings, pulled);
            println!(
                "preset={name} case={} boids={} seconds={} polarization={:.2} nn_distance={:.1} \
                 nn_per_separation={:.2} groups={} largest_share={:.2} violations={:.2} \
                 milling={:.2} mean_speed={:.1}",
                if pulled { "pulled" } else { "free" },
                m.boids,
                settings.seconds,
                m.polarization,
                m.nn_distance,
                m.nn_distance / params.separation_distance,
                m.groups,
                m.largest_share,
                m.violations,
                m.milling,
                m.mean_speed,
            );
        }
    }
}
