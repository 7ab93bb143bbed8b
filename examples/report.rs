//! Runs each preset headless from a fixed seed and prints one line of flock metrics per preset, for scripts and for the README's table.
//!
//! `cargo run --example report -- --seed 1 --boids 500 --seconds 60`
//!
//! Each preset flies in the same wrapping 1200 x 900 world from the same seed, released in its
//! central 600 x 450 (as a flock starts out together); the numbers are the means over the last
//! fifth of the run, sampled every 30 steps (twice a simulated second).

use bevy::prelude::*;
use bevy_murmuration::prelude::*;
use murmuration_harness::measured::MeasuredRun;

/// What the command line asked for.
struct Settings {
    seed: u64,
    boids: usize,
    seconds: u32,
}

fn parse<T: std::str::FromStr>(flag: &str, value: Option<&String>) -> T {
    value
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{flag} needs a number"))
}

fn settings() -> Settings {
    let mut settings = Settings {
        seed: 1,
        boids: 500,
        seconds: 60,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        match pair[0].as_str() {
            "--seed" => settings.seed = parse("--seed", pair.get(1)),
            "--boids" => settings.boids = parse("--boids", pair.get(1)),
            "--seconds" => settings.seconds = parse("--seconds", pair.get(1)),
            other => panic!("unknown flag {other}; use --seed, --boids, --seconds"),
        }
    }
    settings
}

/// Flies `params` for the asked time and returns the mean metrics of the last fifth.
fn run(params: FlockParams, settings: &Settings) -> FlockMetrics {
    MeasuredRun {
        params,
        bounds: SimulationBounds::wrap(Rect::new(0.0, 0.0, 1200.0, 900.0)),
        // Released together in the middle of the world, as a flock starts out.
        population: FlockPopulation {
            region: Some(Rect::new(300.0, 225.0, 900.0, 675.0)),
            ..FlockPopulation::new(settings.boids, settings.seed)
        },
        seconds: settings.seconds as f32,
        steps_per_second: 60.0,
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
        let m = run(params, &settings);
        println!(
            "preset={name} boids={} seconds={} polarization={:.2} nn_distance={:.1} groups={} \
             largest_share={:.2} violations={:.2} milling={:.2} mean_speed={:.1}",
            m.boids,
            settings.seconds,
            m.polarization,
            m.nn_distance,
            m.groups,
            m.largest_share,
            m.violations,
            m.milling,
            m.mean_speed,
        );
    }
}
