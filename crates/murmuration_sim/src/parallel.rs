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
use core::panic::Location;

mod crew;

use bevy::ecs::change_detection::{ContiguousComponentTicksMut, Tick};
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
/// them, on this thread.
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
    let mut rest = Some(items);
    let cut = core::iter::from_fn(move || {
        let items = rest.take()?;
        if items.len() <= part {
            return Some(items);
        }
        let (head, tail) = items.split_at(part);
        rest = Some(tail);
        Some(head)
    });
    crew::run(pool, threads, cut, &f, combine).expect("at least one part ran")
}

/// Runs `f` on every item of `work`, each its own part, or at once on this thread when there
/// is only one item. For work already cut into parts that differ in shape (a part with its own
/// counts, say), where [`Split`] cannot do the cutting.
pub(crate) fn run_each<W: Send>(work: impl Iterator<Item = W>, f: impl Fn(W) + Sync) {
    let pool = ComputeTaskPool::get_or_init(TaskPool::default);
    let threads = workers(pool);
    let mut work = work.peekable();
    let Some(first) = work.next() else {
        return;
    };
    if threads < 2 || work.peek().is_none() {
        f(first);
        return work.for_each(f);
    }
    crew::run(
        pool,
        threads,
        core::iter::once(first).chain(work),
        &f,
        |(), ()| (),
    );
}

/// [`fold_parts`] for work that returns nothing.
pub(crate) fn for_each_part<S: Split>(items: S, parts: Parts, f: impl Fn(S) + Sync) {
    fold_parts(items, parts, f, |(), ()| ());
}

/// The change ticks of a component that a pass changes on every entity of a table, marked
/// part by part, on every thread, by [`Changing::mark`]: `ContiguousMut::split` marks them
/// all at once on the calling thread (at a million boids 0.2-0.3 ms a component, while the
/// other threads wait).
pub(crate) struct Changing<'a> {
    ticks: &'a mut [Tick],
    now: Tick,
}

impl<'a> Changing<'a> {
    /// The ticks of the slices `ContiguousMut::bypass_change_detection_split` gave `ticks` for.
    /// Where Bevy records where changes come from (its `track_location` feature), this caller is
    /// recorded here, on this thread.
    #[track_caller]
    pub fn new(ticks: &'a mut ContiguousComponentTicksMut<'_>) -> Self {
        let caller = Location::caller();
        ticks.changed_by_mut().map(|by| by.fill(caller));
        let now = ticks.this_run();
        Self {
            ticks: ticks.changed_mut(),
            now,
        }
    }

    /// Marks this part's entities changed.
    pub fn mark(self) {
        self.ticks.fill(self.now);
    }
}

impl Split for Changing<'_> {
    fn len(&self) -> usize {
        self.ticks.len()
    }

    fn split_at(self, mid: usize) -> (Self, Self) {
        let (a, b) = self.ticks.split_at_mut(mid);
        let now = self.now;
        (Self { ticks: a, now }, Self { ticks: b, now })
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
