//! A long headless run that fails loudly if anything drifts: no NaN and speeds within their bounds, checked every step, and no growth in memory, checked every 10,000 steps.
//!
//! `cargo run --example soak -- --boids 1000 --steps 1000000`

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_murmuration::hunting::CatchStats;
use bevy_murmuration::prelude::*;
use bevy_murmuration::stats::FlockStats;
use murmuration_harness::stress::use_single_threaded_executors;

/// Resident memory of this process, bytes (Linux; `None` elsewhere).
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

fn flag(args: &[String], name: &str, default: u64) -> u64 {
    args.windows(2).find(|w| w[0] == name).map_or(default, |w| {
        w[1].parse()
            .unwrap_or_else(|_| panic!("{name} needs a number"))
    })
}

fn main() -> AppExit {
    let args: Vec<String> = std::env::args().collect();
    let boids = flag(&args, "--boids", 1000) as usize;
    let steps = flag(&args, "--steps", 1_000_000);
    let params = FlockParams::default();
    let (min, max) = (params.min_speed, params.max_speed);
    let bounds = SimulationBounds::wrap(Rect::new(0.0, 0.0, 1200.0, 900.0));
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_plugins(
            BoidsPlugins::new(FixedUpdate)
                .with_params(params)
                .with_bounds(bounds),
        )
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1))
        .insert_resource(FlockPopulation::new(boids, 1))
        .insert_resource(CatchRules::default());
    app.world_mut()
        .spawn((Hunter::default(), Position(Vec2::new(600.0, 450.0))));
    app.world_mut()
        .spawn((Obstacle::round(50.0), Position(Vec2::new(300.0, 300.0))));
    // One thread: for 1,000 boids handing systems to worker threads costs more than it saves
    // (measured: 0.73 ms a step against 1.6 ms on the default executors).
    use_single_threaded_executors(&mut app);
    let start = std::time::Instant::now();
    let mut baseline = None;
    let mut checked = 0u64;
    let mut worst_growth = 0i64;
    // Memory after the first fifth of the run (at least 10,000 steps, at most 100,000) is the
    // baseline: buffers have grown to the flock by then, and a run of 50,000 steps (CI's) is
    // still checked four times.
    let baseline_step = (steps / 5).clamp(10_000, 100_000) / 10_000 * 10_000;
    let mut query = app
        .world_mut()
        .query_filtered::<(&Position, &Velocity), With<Boid>>();
    while app.world().resource::<FlockStats>().steps < steps {
        app.update();
        let step = app.world().resource::<FlockStats>().steps;
        // Every step: a thousand boids take about a microsecond to check.
        for (p, v) in query.iter(app.world()) {
            let s = v.length();
            if !(p.is_finite() && v.is_finite()) || s < min * 0.999 || s > max * 1.001 {
                eprintln!(
                    "soak: step {step}: a boid at {} flies at {s} ({})",
                    p.0, v.0
                );
                return AppExit::error();
            }
        }
        if step < checked + 10_000 {
            continue;
        }
        checked = step;
        if let Some(now) = resident_bytes() {
            match baseline {
                None if step >= baseline_step => baseline = Some(now),
                Some(base) => worst_growth = worst_growth.max(now as i64 - base as i64),
                None => {}
            }
        }
    }
    let stats = app.world().resource::<FlockStats>();
    let catches = app.world().resource::<CatchStats>().catches;
    println!(
        "soak: steps={} boids={} seconds={:.0} catches={catches} repaired={} \
         memory_growth_bytes={worst_growth} memory_checked_from={}",
        stats.steps,
        stats.boids,
        start.elapsed().as_secs_f64(),
        stats.repaired,
        baseline.map_or("never".to_string(), |_| baseline_step.to_string()),
    );
    // A megabyte of slack for the allocator's bookkeeping; real growth would be per step.
    if worst_growth > 1 << 20 {
        eprintln!("soak: memory grew by {worst_growth} bytes");
        return AppExit::error();
    }
    AppExit::Success
}
