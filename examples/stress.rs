//! Times the simulation on your machine: one line of key=value numbers per run (median step, nanoseconds per boid, neighbours, hash share), headless or in a window.
//!
//! `cargo run --release --example stress -- --boids 100000 --steps 300 [--threads 2]
//! [--area-per-boid 1250] [--clustered] [--brute-force] [--seed 1] [--settle 3000]
//! [--case one-point|one-cell|line|outside|huge-radius|all-hunters] [--quick-start] [--3d]
//! [--window]`
//!
//! Headless, it builds the flock of `murmuration_harness::stress` (the starlings preset, two species,
//! a wrapping world at about 12 neighbours per boid), lets it fly `--settle` steps first if asked
//! (a flock after a minute of flight, rather than the fresh one), warms up, times `--steps` updates
//! and prints the medians. `--quick-start` builds the app as the README's quick start does
//! (Bevy's multi-threaded executor; without `--threads`, Bevy's default task pools) instead of the
//! tuned one (single-threaded executor, every core in the compute pool). `--3d` times the same
//! flock in 3D (`murmuration_sim3d`: a cube as crowded, about as many neighbours per boid). With
//! `--window` it draws the 2D flock and prints the mean frame time beside the simulation's share
//! of it.

mod common;

use bevy::app::TaskPoolPlugin;
use bevy::prelude::*;
use bevy::window::{PresentMode, WindowResolution};
use bevy_murmuration::prelude::*;
use bevy_murmuration::render::{BoidsRenderPlugin, FlockLook};
use bevy_murmuration::stats::FlockStats;
use murmuration_harness::stress::{StressArgs, every_core, task_pool_options};

use common::CapturePlugin;

fn main() -> AppExit {
    let all: Vec<String> = std::env::args().skip(1).collect();
    let args = StressArgs::parse(&all);
    if args.window {
        assert!(!args.three_d, "--window draws the 2D flock only");
        return windowed(&args);
    }
    // The 3D flock: the same command line, read by the harness built over the 3D simulation.
    let report = if args.three_d {
        murmuration_harness3d::stress::StressArgs::parse(&all)
            .run_headless()
            .to_string()
    } else {
        args.run_headless().to_string()
    };
    println!("{report}");
    AppExit::Success
}

/// The same flock in a window, drawn as sprites of one shared image (one batch), for
/// `--steps` frames; prints the mean frame time and the simulation's share of it.
fn windowed(args: &StressArgs) -> AppExit {
    let flock = &args.flock;
    let pixel = flock.bounds().rect.height() / 720.0;
    let mut app = App::new();
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(Window {
                    title: format!("stress: {} boids", flock.boids),
                    resolution: WindowResolution::new(1280, 720),
                    present_mode: PresentMode::AutoNoVsync,
                    ..default()
                }),
                ..default()
            })
            .set(TaskPoolPlugin {
                // The windowed app keeps Bevy's multi-threaded executor, which runs the systems
                // on the compute threads while the main thread waits for them: `--threads N`
                // gives it N compute threads (at least one).
                task_pool_options: task_pool_options(
                    args.threads.or(every_core()).map(|t| t.max(1) + 1),
                ),
            }),
    )
    .add_plugins(
        BoidsPlugins::new(FixedUpdate)
            .with_params(flock.params())
            .with_bounds(flock.bounds()),
    )
    .add_plugins(BoidsRenderPlugin::new(FlockLook {
        trails: false,
        // The world is thousands of units across: size the darts to about 4 x 2.5 pixels of a
        // 720-pixel-high window, or they vanish below a pixel.
        boid_length: pixel * 4.0,
        boid_width: pixel * 2.5,
        ..FlockLook::starlings()
    }))
    // `MURMURATION_CAPTURE=stress.png` takes a screenshot instead of timing.
    .add_plugins(CapturePlugin)
    .insert_resource(bevy::time::TimeUpdateStrategy::FixedTimesteps(1))
    .insert_resource(flock.search)
    .insert_resource(FrameTimes {
        frames: args.steps,
        ..default()
    })
    .add_systems(Last, time_frames);
    app.world_mut().commands().queue(flock.spawn());
    app.run()
}

/// Frame and simulation times of the windowed run.
#[derive(Resource, Default)]
struct FrameTimes {
    frames: usize,
    last: Option<std::time::Instant>,
    frame: Vec<f64>,
    sim: Vec<f64>,
}

/// Records each frame's wall-clock time and the step's, and prints the means at the end.
fn time_frames(
    mut times: ResMut<FrameTimes>,
    stats: Res<FlockStats>,
    mut exit: MessageWriter<AppExit>,
) {
    let now = std::time::Instant::now();
    if let Some(last) = times.last.replace(now)
        && stats.steps > murmuration_harness::stress::WARM_UP_STEPS as u64
    {
        times.frame.push((now - last).as_secs_f64());
        let sim = stats.step_time().as_secs_f64();
        times.sim.push(sim);
    }
    if times.frame.len() >= times.frames {
        let n = times.frame.len().max(1) as f64;
        let frame = times.frame.iter().sum::<f64>() / n;
        let sim = times.sim.iter().sum::<f64>() / n;
        println!(
            "boids={} frames={} mean_frame_ms={:.2} mean_sim_ms={:.2} sim_share={:.2} \
             render_share={:.2}",
            stats.boids,
            times.frame.len(),
            frame * 1e3,
            sim * 1e3,
            sim / frame,
            1.0 - sim / frame
        );
        exit.write(AppExit::Success);
    }
}
