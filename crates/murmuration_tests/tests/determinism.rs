//! The same seed gives the same flock bit for bit, on one thread or two, on the portable build of
//! the hot path or the one for this CPU's SIMD; another seed does not.
//!
//! Bevy's compute task pool is global to a process, so each thread count runs in a child process
//! of this test binary ([`child`]).

mod child;
mod common;

use bevy::app::{TaskPoolOptions, TaskPoolPlugin};
use bevy::prelude::*;
use bevy::tasks::ComputeTaskPool;
use bevy::time::TimeUpdateStrategy;
use common::*;
use murmuration_sim::prelude::*;

const THREADS_VAR: &str = "MURMURATION_TEST_THREADS";
const SEED_VAR: &str = "MURMURATION_TEST_SEED";

/// A hash of every boid's position and velocity bits, in entity order.
fn checksum(app: &mut App) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (_, p, v) in boids(app) {
        for x in p.to_array().into_iter().chain(v.to_array()) {
            h = (h ^ u64::from(x.to_bits())).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// `steps` steps of a 500-boid, two-species flock and a 200-boid flock of swallows (its own
/// parameters and field of view) with a hunter and an obstacle, on `threads` compute threads.
fn run(threads: usize, seed: u64, steps: u64) -> u64 {
    let mut options = TaskPoolOptions::default();
    options.compute.min_threads = threads;
    options.compute.max_threads = threads;
    let bounds = SimulationBounds::wrap(rect(900.0, 700.0));
    let mut app = App::new();
    app.add_plugins(MinimalPlugins.set(TaskPoolPlugin {
        task_pool_options: options,
    }))
    .add_plugins(
        BoidsPlugins::new(FixedUpdate)
            .with_params(FlockParams::starlings())
            .with_bounds(bounds),
    )
    .insert_resource(TimeUpdateStrategy::FixedTimesteps(1));
    app.world_mut().commands().queue(
        FlockSpawn::new(500, seed)
            .with_species(2)
            .with_region(bounds.rect),
    );
    let swallows = app
        .world_mut()
        .spawn(Flock::new(FlockParams::swallows()))
        .id();
    app.world_mut().commands().queue(
        FlockSpawn::new(200, seed + 100)
            .with_region(bounds.rect)
            .in_flock(swallows),
    );
    app.world_mut()
        .spawn((Hunter::default(), Position(xyz([100.0, 100.0, 100.0]))));
    app.world_mut()
        .spawn((Obstacle::round(40.0), Position(xyz([450.0, 350.0, 350.0]))));
    step(&mut app, steps);
    assert_eq!(ComputeTaskPool::get().thread_num(), threads);
    checksum(&mut app)
}

/// The checksums of [`run`] for `steps` steps, each in a child process (one thread count per
/// process), on the build of the hot path this CPU dispatches to or on the portable one
/// (`MURMURATION_SIMD=portable`): the same on one thread and two, on two again and on every
/// build, and another seed's differs. `test` is the test that runs it (the child runs it again).
fn replays(test: &str, steps: u64) {
    if child::is_child() {
        let (threads, seed) = (child::var(THREADS_VAR), child::var(SEED_VAR));
        child::answer("checksum", format!("{:016x}", run(threads, seed, steps)));
    }
    let checksum = |threads: usize, seed: u64, portable: bool| {
        let mut vars = vec![
            (THREADS_VAR, threads.to_string()),
            (SEED_VAR, seed.to_string()),
        ];
        if portable {
            vars.push((murmuration_sim::internal::SIMD_VAR, "portable".into()));
        }
        child::from_child(test, &vars, "checksum")
    };
    let one = checksum(1, 7, false);
    let two = checksum(2, 7, false);
    let two_again = checksum(2, 7, false);
    assert_eq!(one, two, "1 thread vs 2 threads");
    assert_eq!(two, two_again, "two runs on 2 threads");
    // The portable build of the hot path against the one this CPU's SIMD runs (the same when
    // the whole suite already runs portable).
    let portable = checksum(2, 7, true);
    assert_eq!(
        two,
        portable,
        "portable build vs {}",
        murmuration_sim::internal::build_name()
    );
    let other_seed = checksum(2, 8, false);
    assert_ne!(two, other_seed, "a different seed gives a different flock");
}

/// A thousand steps (16 simulated seconds): the hunt, the catches and the crowding have begun.
#[test]
fn same_seed_same_flock_on_one_and_two_threads_and_every_build() {
    replays(
        "same_seed_same_flock_on_one_and_two_threads_and_every_build",
        1_000,
    );
}

/// Ten thousand steps (about two and a half simulated minutes), where any difference in the
/// order of a sum would long have grown into a different flock.
#[test]
#[ignore = "long tier: cargo test --workspace -- --include-ignored"]
fn same_seed_same_flock_after_ten_thousand_steps() {
    replays("same_seed_same_flock_after_ten_thousand_steps", 10_000);
}

#[test]
fn the_seeded_spawn_is_reproducible() {
    let params = FlockParams::default();
    let a: Vec<_> = FlockSpawn::new(100, 3).boids(&params).collect();
    let b: Vec<_> = FlockSpawn::new(100, 3).boids(&params).collect();
    let c: Vec<_> = FlockSpawn::new(100, 4).boids(&params).collect();
    assert_eq!(a, b);
    assert_ne!(a, c);
    let region = SimulationBounds::default().rect;
    for (i, (index, p, v, _)) in a.iter().enumerate() {
        assert_eq!(index.0 as usize, i);
        assert!(region.contains(p.0));
        let s = v.length();
        assert!(
            s >= params.min_speed && s <= params.max_speed * 1.0001,
            "speed {s}"
        );
    }
}
