//! A flock with no window: prints a one-line summary of the flock every simulated second.
//!
//! `cargo run --example headless -- --preset starlings --boids 2000 --seconds 10 --seed 1`

use std::time::Duration;

use bevy::app::{AppExit, ScheduleRunnerPlugin};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_murmuration::hash::SpatialHash;
use bevy_murmuration::metrics::{Members, mean_nearest_neighbour_distance, polarization};
use bevy_murmuration::prelude::*;
use bevy_murmuration::stats::FlockStats;

/// What the command line asked for.
#[derive(Resource, Debug, Clone)]
struct Settings {
    preset: String,
    boids: usize,
    seconds: u64,
    seed: u64,
}

impl Settings {
    fn from_args() -> Self {
        let mut settings = Self {
            preset: "starlings".into(),
            boids: 2000,
            seconds: 10,
            seed: 1,
        };
        let args: Vec<String> = std::env::args().skip(1).collect();
        for pair in args.chunks(2) {
            let (flag, value) = (pair[0].as_str(), pair.get(1).map_or("", String::as_str));
            match flag {
                "--preset" => settings.preset = value.to_string(),
                "--boids" => settings.boids = parse(flag, value),
                "--seconds" => settings.seconds = parse(flag, value),
                "--seed" => settings.seed = parse(flag, value),
                other => panic!("unknown flag {other}; use --preset, --boids, --seconds, --seed"),
            }
        }
        settings
    }
}

fn parse<T: std::str::FromStr>(flag: &str, value: &str) -> T {
    value
        .parse()
        .unwrap_or_else(|_| panic!("bad value {value:?} for {flag}"))
}

fn main() -> AppExit {
    let settings = Settings::from_args();
    let params = FlockParams::preset(&settings.preset).unwrap_or_else(|| {
        panic!(
            "no preset {:?}; try starlings, fish or sheep",
            settings.preset
        )
    });
    App::new()
        .add_plugins(MinimalPlugins.set(ScheduleRunnerPlugin::run_loop(Duration::ZERO)))
        .add_plugins(BoidsPlugins::new(FixedUpdate).with_params(params))
        // One fixed step per frame, as fast as the machine goes.
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1))
        .insert_resource(settings)
        .add_systems(Startup, spawn)
        .add_systems(FixedUpdate, report.in_set(BoidsSystems::Last))
        .run()
}

fn spawn(mut commands: Commands, settings: Res<Settings>, bounds: Res<SimulationBounds>) {
    commands.queue(
        FlockSpawn::new(settings.boids, settings.seed)
            .with_species(2)
            .with_region(bounds.rect),
    );
}

fn report(
    settings: Res<Settings>,
    stats: Res<FlockStats>,
    hash: Res<SpatialHash>,
    time: Res<Time<Fixed>>,
    mut exit: MessageWriter<AppExit>,
) {
    let steps_per_second = (1.0 / time.timestep().as_secs_f64()).round() as u64;
    if !stats.steps.is_multiple_of(steps_per_second) {
        return;
    }
    let second = stats.steps / steps_per_second;
    println!(
        "t={second}s boids={} polarization={:.2} nn_distance={:.1} neighbours_per_boid={:.1} \
         step_ms={:.3}",
        stats.boids,
        polarization(hash.velocities()).unwrap_or(0.0),
        mean_nearest_neighbour_distance(Members::all(&hash)).unwrap_or(0.0),
        stats.neighbours_per_boid(),
        stats.step_time().as_secs_f64() * 1e3,
    );
    if second >= settings.seconds {
        exit.write(AppExit::Success);
    }
}
