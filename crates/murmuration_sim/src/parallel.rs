//! Splitting a system's work over Bevy's compute task pool: [`Split`] data, cut into parts of
//! at least a given size ([`fold_parts`], [`for_each_part`]), or work already cut into parts
//! ([`run_each`]). The calling thread and helpers on the pool's threads claim the parts one by
//! one (see `crew`).
//!
//! The systems read their components through Bevy's contiguous query access (one slice per
//! table) and hand the slices here, instead of `par_iter`, which pays per entity for each
//! optional component and change tick. The parts only ever cut the work; what each entity gets
//! never depends on the number of threads.

use core::ops::Range;

use bevy::tasks::{ComputeTaskPool, TaskPool};

/// Work that can be cut in two at an index, as a slice can (or several slices side by side).
pub(crate) trait Split: Sized + Send {
    /// How many items it holds.
    fn len(&self) -> usize;
    /// The first `mid` items, and the rest.
    fn split_at(self, mid: usize) -> (Self, Self);
}

/// How finely to cut.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Parts {
    /// The fewest items in a part: below this, handing the part to another thread costs more
    /// than the part takes. Parts are cheap to hand out (see `crew`): a part of a thousand
    /// boids takes a few microseconds.
    pub min: usize,
    /// Parts per thread, at most: more evens out parts that differ in cost, fewer costs less to
    /// hand out (each part is claimed with an atomic add, and its result has a place of its own).
    pub per_thread: usize,
}

impl Parts {
    /// For work where every item costs about the same: a few parts a thread.
    pub const EVEN: Self = Self {
        min: 1024,
        per_thread: 4,
    };
}

/// Why a contiguous query over the simulation's own components cannot fail: they all use
/// table storage, so every query over them is dense.
pub(crate) const DENSE: &str = "the simulation's components are all stored in tables";

/// The threads that work on the parts of a pass started on this thread: the pool's own, and
/// this thread too unless it is one of them. The caller claims parts beside the pool's helpers,
/// so a system on the main thread (the single-threaded executor's) works beside the pool's
/// threads; a system on a pool thread (where the multi-threaded executor runs it) is one of
/// them, while the main thread waits on the executor alone.
pub(crate) fn workers(pool: &TaskPool) -> usize {
    pool.thread_num() + usize::from(!on_pool_thread())
}

/// Whether this thread is one of a Bevy task pool's: Bevy names them `<pool name> (<index>)`,
/// the compute pool's `Compute Task Pool (0)` and so on, and a pool built without a name
/// `TaskPool (0)`.
fn on_pool_thread() -> bool {
    std::thread::current().name().is_some_and(|name| {
        ["Compute Task Pool (", "TaskPool ("]
            .iter()
            .any(|prefix| name.starts_with(prefix))
    })
}

/// Runs `f` on parts of `items` and folds what the parts returned, in order, with `combine`.
/// With fewer than two [`workers`], or with too few items to cut, `f` runs once, on all of
/// them, on this thread (and nothing is allocated).
pub(crate) fn fold_parts<S: Split, R: Send>(
    items: S,
    parts: Parts,
    f: impl Fn(S) -> R + Sync,
    combine: impl FnMut(R, R) -> R,
) -> R {
    let pool = ComputeTaskPool::get_or_init(TaskPool::default);
    let threads = workers(pool);
    let len = items.len();
    let part = len
        .div_ceil(threads.max(1) * parts.per_thread)
        .max(parts.min.max(1));
    if threads < 2 || len <= part {
        return f(items);
    }
    let mut cut = Vec::with_capacity(len.div_ceil(part));
    let mut rest = items;
    while rest.len() > part {
        let (head, tail) = rest.split_at(part);
        cut.push(head);
        rest = tail;
    }
    cut.push(rest);
    crew::run(pool, threads, cut, f)
        .into_iter()
        .reduce(combine)
        .expect("at least one part ran")
}

/// Runs `f` on every item of `work`, each its own part, or at once on this thread when there
/// is only one item. For work already cut into parts that differ in shape (a part with its own
/// counts, say), where [`Split`] cannot do the cutting.
pub(crate) fn run_each<W: Send>(work: impl Iterator<Item = W>, f: impl Fn(W) + Sync) {
    let work: Vec<W> = work.collect();
    let pool = ComputeTaskPool::get_or_init(TaskPool::default);
    let threads = workers(pool);
    if work.len() < 2 || threads < 2 {
        return work.into_iter().for_each(f);
    }
    crew::run(pool, threads, work, f);
}

/// [`fold_parts`] for work that returns nothing.
pub(crate) fn for_each_part<S: Split>(items: S, parts: Parts, f: impl Fn(S) + Sync) {
    fold_parts(items, parts, f, |(), ()| ());
}

/// The crew: the threads that work through the parts of a pass beside the thread that asked.
///
/// A step is a chain of short passes (count, scatter, split, neighbours, forces, integration,
/// transforms), each a few hundred microseconds at 100,000 boids. A thread of Bevy's pool that
/// has gone to sleep takes 40-60 us to wake (measured on the 2-vCPU development VM), so a pass
/// handed to the pool as a scope of tasks lost most of its second thread to the wake-up. Here
/// the caller posts a pass as one [`Job`] whose parts any thread claims by index, and a
/// helper, a task on the compute pool, keeps looking for the next job for [`LINGER`] after its
/// last part before it hands its thread back: the passes of one step find it awake.
///
/// Nobody ever waits for a part nobody has claimed: the caller claims parts too, so a pass
/// finishes on the caller alone if no helper comes (a busy pool, one thread); it waits only for
/// parts a helper is running. What a part returns goes in the part's own place, so the result
/// never depends on who ran which part.
mod crew {
    use core::cell::UnsafeCell;
    use core::hint::spin_loop;
    use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
    use core::time::Duration;
    use std::any::Any;
    use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
    use std::sync::{Arc, Mutex, PoisonError};

    use bevy::platform::time::Instant;
    use bevy::tasks::TaskPool;

    /// How long a helper keeps looking for a new job after its last part. Long enough to
    /// bridge the gaps between the passes of one step (the serial work between them, Bevy's
    /// schedule), short enough that the thread goes back to the pool soon after the step.
    pub(super) const LINGER: Duration = Duration::from_micros(250);

    /// One pass: `parts` parts, claimed by index.
    struct Job {
        /// Runs part `i` of the pass behind `ctx`.
        run: unsafe fn(*const (), usize),
        /// The caller's [`Pass`], on its stack.
        ctx: *const (),
        parts: usize,
        /// The next part to claim.
        next: AtomicUsize,
        /// Parts finished.
        done: AtomicUsize,
    }

    // SAFETY: `ctx` points at a `Pass` whose parts are `Send` and whose function is `Sync`, and
    // it is only used for a part index claimed below `parts`, which the caller outlives (it
    // returns only once every part is done, and no index below `parts` is claimed twice).
    unsafe impl Send for Job {}
    // SAFETY: as above.
    unsafe impl Sync for Job {}

    impl Job {
        /// Claims and runs parts until there are none left; whether it ran any.
        fn work(&self) -> bool {
            let mut ran = false;
            loop {
                let i = self.next.fetch_add(1, Ordering::Relaxed);
                if i >= self.parts {
                    return ran;
                }
                // SAFETY: `i` is below `parts` and claimed by this thread alone, so the
                // caller is still waiting for it (see `Job`'s `Send`).
                unsafe { (self.run)(self.ctx, i) };
                self.done.fetch_add(1, Ordering::Release);
                ran = true;
            }
        }
    }

    /// The job on offer, and the helpers looking for one.
    struct Board {
        job: Mutex<Option<Arc<Job>>>,
        /// Bumped whenever a job is posted, so helpers can wait on a load instead of the lock.
        posted: AtomicU64,
        /// Helpers spawned and not yet gone.
        helpers: AtomicUsize,
    }

    static BOARD: Board = Board {
        job: Mutex::new(None),
        posted: AtomicU64::new(0),
        helpers: AtomicUsize::new(0),
    };

    /// The caller's side of a job: the parts not yet claimed, what each returned, and the
    /// first panic of any part.
    struct Pass<'f, S, R, F> {
        parts: Vec<UnsafeCell<Option<S>>>,
        results: Vec<UnsafeCell<Option<R>>>,
        f: &'f F,
        panic: Mutex<Option<Box<dyn Any + Send>>>,
    }

    /// Runs part `i` of the [`Pass`] at `ctx`.
    ///
    /// # Safety
    /// `ctx` must point at a live `Pass<S, R, F>` and `i` must be a part index that no other
    /// call gets.
    unsafe fn run_part<S, R, F: Fn(S) -> R>(ctx: *const (), i: usize) {
        // SAFETY: as the caller promises: the pass is alive and part `i` is this call's alone.
        let (pass, part) = unsafe {
            let pass = &*ctx.cast::<Pass<'_, S, R, F>>();
            (pass, (*pass.parts[i].get()).take())
        };
        let part = part.expect("every part is claimed once");
        match catch_unwind(AssertUnwindSafe(|| (pass.f)(part))) {
            // SAFETY: part `i`'s result is this call's alone (as above).
            Ok(result) => unsafe { *pass.results[i].get() = Some(result) },
            Err(panic) => {
                let mut first = pass.panic.lock().unwrap_or_else(PoisonError::into_inner);
                first.get_or_insert(panic);
            }
        }
    }

    /// Runs `f` on every part, on this thread and up to `threads - 1` helpers, and returns
    /// what each part returned, in order. A panic in any part is raised again here, once every
    /// part has finished.
    pub(super) fn run<S: Send, R: Send, F: Fn(S) -> R + Sync>(
        pool: &TaskPool,
        threads: usize,
        parts: Vec<S>,
        f: F,
    ) -> Vec<R> {
        let n = parts.len();
        let pass = Pass {
            parts: parts
                .into_iter()
                .map(|p| UnsafeCell::new(Some(p)))
                .collect(),
            results: (0..n).map(|_| UnsafeCell::new(None)).collect(),
            f: &f,
            panic: Mutex::new(None),
        };
        let job = Arc::new(Job {
            run: run_part::<S, R, F>,
            ctx: (&raw const pass).cast(),
            parts: n,
            next: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
        });
        post(pool, threads - 1, &job);
        job.work();
        // NOTE: the wait must come before anything leaves this function, a panic included:
        // a helper may still be running a part it claimed, on `pass`.
        let mut spins = 0u32;
        while job.done.load(Ordering::Acquire) < n {
            spins += 1;
            if spins < 1 << 14 {
                spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        withdraw(&job);
        let Pass { results, panic, .. } = pass;
        if let Some(panic) = panic.into_inner().unwrap_or_else(PoisonError::into_inner) {
            resume_unwind(panic);
        }
        results
            .into_iter()
            .map(|r| r.into_inner().expect("every part ran"))
            .collect()
    }

    /// Offers `job` to the helpers, and spawns helpers on `pool` until `helpers` are about.
    fn post(pool: &TaskPool, helpers: usize, job: &Arc<Job>) {
        *BOARD.job.lock().unwrap_or_else(PoisonError::into_inner) = Some(job.clone());
        BOARD.posted.fetch_add(1, Ordering::Release);
        while BOARD.helpers.load(Ordering::Relaxed) < helpers {
            BOARD.helpers.fetch_add(1, Ordering::Relaxed);
            pool.spawn(async { help() }).detach();
        }
    }

    /// Takes `job` off the board, unless another has replaced it.
    fn withdraw(job: &Arc<Job>) {
        let mut on_board = BOARD.job.lock().unwrap_or_else(PoisonError::into_inner);
        if on_board.as_ref().is_some_and(|j| Arc::ptr_eq(j, job)) {
            *on_board = None;
        }
    }

    /// A helper: works on whatever job is posted until none has come for [`LINGER`].
    fn help() {
        let mut seen = 0;
        let mut idle_since = Instant::now();
        let mut spins = 0u32;
        loop {
            let posted = BOARD.posted.load(Ordering::Acquire);
            if posted != seen {
                seen = posted;
                let job = BOARD
                    .job
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone();
                if job.is_some_and(|job| job.work()) {
                    idle_since = Instant::now();
                }
                continue;
            }
            spin_loop();
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(64) && idle_since.elapsed() > LINGER {
                // A job posted while this helper leaves finds one helper too few and is done
                // by its caller alone, or by a helper it spawns.
                BOARD.helpers.fetch_sub(1, Ordering::Relaxed);
                return;
            }
        }
    }
}

impl<T: Send> Split for &mut [T] {
    fn len(&self) -> usize {
        <[T]>::len(self)
    }

    fn split_at(self, mid: usize) -> (Self, Self) {
        self.split_at_mut(mid)
    }
}

impl<T: Sync> Split for &[T] {
    fn len(&self) -> usize {
        <[T]>::len(self)
    }

    fn split_at(self, mid: usize) -> (Self, Self) {
        <[T]>::split_at(self, mid)
    }
}

/// A range of indices, as the slots a part covers.
impl Split for Range<usize> {
    fn len(&self) -> usize {
        ExactSizeIterator::len(self)
    }

    fn split_at(self, mid: usize) -> (Self, Self) {
        let mid = self.start + mid;
        (self.start..mid, mid..self.end)
    }
}

/// An optional slice, absent in a table without that component: an absent one splits into two
/// absent ones, and its length is taken from the other slices beside it.
impl<S: Split> Split for Option<S> {
    fn len(&self) -> usize {
        self.as_ref().map_or(0, S::len)
    }

    fn split_at(self, mid: usize) -> (Self, Self) {
        match self {
            Some(s) => {
                let (a, b) = s.split_at(mid);
                (Some(a), Some(b))
            }
            None => (None, None),
        }
    }
}

/// Slices side by side, all of the first one's length.
macro_rules! split_tuple {
    ($($name:ident $part:ident $index:tt),+) => {
        impl<$($name: Split),+> Split for ($($name,)+) {
            fn len(&self) -> usize {
                self.0.len()
            }

            fn split_at(self, mid: usize) -> (Self, Self) {
                $(let $part = self.$index.split_at(mid);)+
                (($($part.0,)+), ($($part.1,)+))
            }
        }
    };
}

split_tuple!(A a 0, B b 1);
split_tuple!(A a 0, B b 1, C c 2);
split_tuple!(A a 0, B b 1, C c 2, D d 3);
split_tuple!(A a 0, B b 1, C c 2, D d 3, E e 4);

#[cfg(test)]
mod tests {
    use bevy::tasks::TaskPoolBuilder;

    use super::*;

    #[test]
    fn the_caller_counts_unless_it_is_a_pool_thread() {
        for name in [Some("Compute Task Pool"), None] {
            let mut builder = TaskPoolBuilder::new().num_threads(2);
            if let Some(name) = name {
                builder = builder.thread_name(name.to_string());
            }
            let pool = builder.build();
            // This test's own thread joins a scope it opens beside the pool's two.
            assert_eq!(workers(&pool), 3, "pool named {name:?}");
            let inside = pool.scope(|scope| {
                scope.spawn(async { (on_pool_thread(), workers(&pool)) });
            });
            // Bevy runs a scope's tasks on the pool's threads or the caller: either way the
            // answer is right for the thread that ran it.
            for (on_pool, n) in inside {
                assert_eq!(n, if on_pool { 2 } else { 3 }, "pool named {name:?}");
            }
        }
    }

    /// Parts cut fine enough that both the caller and a helper take some.
    const FINE: Parts = Parts {
        min: 1000,
        per_thread: 8,
    };

    #[test]
    fn parts_fold_in_order() {
        for _ in 0..20 {
            let got = fold_parts(
                0..100_000,
                FINE,
                |r| r.collect::<Vec<_>>(),
                |mut a, b| {
                    a.extend(b);
                    a
                },
            );
            assert!(got.iter().copied().eq(0..100_000));
        }
        let mut items = vec![1u64; 50_000];
        for_each_part(&mut items[..], FINE, |part| {
            part.iter_mut().for_each(|x| *x *= 3);
        });
        assert!(items.iter().all(|&x| x == 3));
    }

    #[test]
    fn a_helper_takes_parts() {
        let me = std::thread::current().id();
        let start = std::time::Instant::now();
        // A helper has to wake first (tens of microseconds, more on a loaded machine).
        let mut helped = false;
        while !helped && start.elapsed() < core::time::Duration::from_secs(10) {
            let threads = std::sync::Mutex::new(Vec::new());
            run_each(0..16, |_| {
                let t = std::time::Instant::now();
                while t.elapsed() < core::time::Duration::from_micros(200) {}
                threads.lock().unwrap().push(std::thread::current().id());
            });
            let threads = threads.into_inner().unwrap();
            assert_eq!(threads.len(), 16, "every part ran once");
            helped = threads.iter().any(|&t| t != me);
        }
        assert!(helped, "no part ran on a helper within 10 s");
    }

    #[test]
    fn a_panic_in_a_part_reaches_the_caller() {
        let result = std::panic::catch_unwind(|| {
            for_each_part(0..100_000, FINE, |r| {
                if r.contains(&54_321) {
                    panic!("part with 54321");
                }
            });
        });
        let panic = result.expect_err("the part's panic is raised in the caller");
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"part with 54321"));
        // And the next pass runs as usual.
        let sum = fold_parts(
            0..1_000_000,
            FINE,
            |r| r.map(|i| i as u64).sum::<u64>(),
            |a, b| a + b,
        );
        assert_eq!(sum, 999_999 * 1_000_000 / 2);
    }

    #[test]
    fn a_pass_inside_a_part_finishes() {
        let outer = fold_parts(
            0..40_000,
            FINE,
            |r| {
                let inner = fold_parts(
                    0..20_000,
                    FINE,
                    |q| q.map(|i| i as u64).sum::<u64>(),
                    |a, b| a + b,
                );
                ExactSizeIterator::len(&r) as u64 * inner
            },
            |a, b| a + b,
        );
        assert_eq!(outer, 40_000 * (19_999 * 20_000 / 2));
    }

    #[test]
    fn a_pool_thread_is_known_by_its_name() {
        let pool = TaskPoolBuilder::new()
            .num_threads(1)
            .thread_name("Compute Task Pool".to_string())
            .build();
        // A detached task runs on a pool thread, never on this one.
        let task = pool.spawn(async {
            (
                on_pool_thread(),
                std::thread::current().name().map(str::to_owned),
            )
        });
        let (on_pool, name) = bevy::tasks::block_on(task);
        assert!(on_pool, "a task of the pool ran on {name:?}");
    }
}
