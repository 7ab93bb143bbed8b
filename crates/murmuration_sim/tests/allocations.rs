//! A warmed-up step allocates nothing: not the hash, the neighbour pass or integration, not the
//! passes that cut their work over two threads, and not the metrics refresh (on, at its default
//! of every 30 steps).
//!
//! Its own test binary, because it counts every allocation of the process with a global
//! allocator.

use core::sync::atomic::{AtomicU64, Ordering};
use std::alloc::{GlobalAlloc, Layout, System};

use murmuration_sim::prelude::*;
use murmuration_sim::stress::{StressFlock, working_threads};

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

#[test]
fn a_warm_step_allocates_nothing() {
    // Large enough that every pass is cut into parts for two threads.
    let mut app = StressFlock::new(30_000).app(Some(2));
    // Past the first metrics refresh, whose buffers grow to the flock then.
    let every = app.world().resource::<MetricsSettings>().every;
    for _ in 0..every + 10 {
        app.update();
    }
    assert_eq!(working_threads(), 2, "the test needs the second thread");
    let steps = 200;
    let mut per_step = Vec::with_capacity(steps);
    for _ in 0..steps {
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        app.update();
        per_step.push(ALLOCATIONS.load(Ordering::Relaxed) - before);
    }
    assert_eq!(app.world().resource::<FlockStats>().boids, 30_000);
    // A helper that found no work for a while hands its thread back, and the next pass spawns
    // a new one (one task, a few allocations): on a busy machine that can happen now and
    // then, and after every metrics refresh (several milliseconds on one thread). Anything
    // else is an allocation in a step.
    let quiet = per_step.iter().filter(|&&n| n == 0).count();
    assert!(
        quiet >= steps * 9 / 10,
        "{quiet} of {steps} steps allocated nothing: {per_step:?}"
    );
    assert!(
        per_step.iter().all(|&n| n <= 4),
        "a step allocated more than a helper's respawn: {per_step:?}"
    );
}
