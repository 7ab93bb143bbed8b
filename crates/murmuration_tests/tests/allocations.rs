//! A warmed-up step allocates nothing of its own: not the hash, the neighbour pass, the forces or
//! integration, and not the metrics refresh; nor with every boid a hunter (the prey and the flee
//! worked out block by block). On two threads the only allocations are Bevy's,
//! for the tasks that carry the parts of each pass, and they do not grow with the flock.
//!
//! Its own test binary, because it counts every allocation of the process with a global
//! allocator; each case runs in a child process ([`child`]), as Bevy's task pool is one per
//! process.

use core::sync::atomic::{AtomicU64, Ordering};
use std::alloc::{GlobalAlloc, Layout, System};

mod child;

use murmuration_harness::stress::{Pathology, StressFlock, working_threads};
use murmuration_sim::metrics::MetricsSettings;
use murmuration_sim::stats::FlockStats;

/// The system allocator, counting allocations and reallocations.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is passed on to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as the caller promises for `alloc`.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as the caller promises for `dealloc`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as the caller promises for `realloc`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const THREADS_VAR: &str = "MURMURATION_TEST_THREADS";
const BOIDS_VAR: &str = "MURMURATION_TEST_BOIDS";
const HUNTERS_VAR: &str = "MURMURATION_TEST_ALL_HUNTERS";

/// Allocations in each of 200 warm steps of a stress flock of `boids` on `threads` threads
/// (past the first metrics refresh, whose buffers grow to the flock then), every boid a hunter
/// where `all_hunters` says.
fn per_step(boids: usize, threads: usize, all_hunters: bool) -> Vec<u64> {
    let mut flock = StressFlock::new(boids);
    if all_hunters {
        flock.pathology = Some(Pathology::AllHunters);
    }
    let mut app = flock.app(Some(threads));
    let every = app.world().resource::<MetricsSettings>().every;
    for _ in 0..every + 10 {
        app.update();
    }
    assert_eq!(working_threads(), threads);
    assert_eq!(app.world().resource::<FlockStats>().boids, boids);
    (0..200)
        .map(|_| {
            let before = ALLOCATIONS.load(Ordering::Relaxed);
            app.update();
            ALLOCATIONS.load(Ordering::Relaxed) - before
        })
        .collect()
}

/// The allocations of each warm step of `boids` on `threads` threads, every boid a hunter where
/// `all_hunters` says, from a child process running the test `test` (which calls this first; in
/// the child it answers and ends there).
fn child(test: &str, boids: usize, threads: usize, all_hunters: bool) -> Vec<u64> {
    if child::is_child() {
        let counts = per_step(
            child::var(BOIDS_VAR),
            child::var(THREADS_VAR),
            child::var::<u8>(HUNTERS_VAR) == 1,
        );
        let line: Vec<String> = counts.iter().map(u64::to_string).collect();
        child::answer("allocations", line.join(","));
    }
    let vars = [
        (THREADS_VAR, threads.to_string()),
        (BOIDS_VAR, boids.to_string()),
        (HUNTERS_VAR, u8::from(all_hunters).to_string()),
    ];
    let line = child::from_child(test, &vars, "allocations");
    line.split(',').map(|n| n.parse().unwrap()).collect()
}

/// On one thread nothing is handed to the task pool, so what allocates is the step itself: the
/// hash, the neighbour pass, the forces, integration, the metrics refresh (on, at its default of
/// every 30 steps). Once warm, nothing.
#[test]
fn a_warm_step_on_one_thread_allocates_nothing() {
    let counts = child(
        "a_warm_step_on_one_thread_allocates_nothing",
        30_000,
        1,
        false,
    );
    assert!(counts.iter().all(|&n| n == 0), "{counts:?}");
}

/// Every boid a hunter (far more hunters and predators than are checked one by one): the prey
/// and the flee, worked out block by block, allocate nothing once warm either.
#[test]
fn every_boid_a_hunter_a_warm_step_allocates_nothing() {
    let test = "every_boid_a_hunter_a_warm_step_allocates_nothing";
    let counts = child(test, 20_000, 1, true);
    assert!(counts.iter().all(|&n| n == 0), "{counts:?}");
}

/// On two threads each pass hands its parts to Bevy's compute task pool as the tasks of a
/// scope, which Bevy allocates (a task, and the scope's list of results). That is all: the count
/// depends on how many parts a pass is cut into, which stops growing with the flock (the hash's
/// scan, cut by cells, at four runs a thread), never on the boids themselves: three times the
/// boids, about the same count.
#[test]
fn on_two_threads_a_step_allocates_per_part_not_per_boid() {
    let median = |mut counts: Vec<u64>| {
        counts.sort_unstable();
        counts[counts.len() / 2]
    };
    let test = "on_two_threads_a_step_allocates_per_part_not_per_boid";
    let small = median(child(test, 30_000, 2, false));
    let large = median(child(test, 90_000, 2, false));
    assert!(
        large * 4 <= small * 5,
        "30,000 boids: {small} a step, 90,000: {large}"
    );
    assert!(large < 400, "{large} allocations a step");
}
