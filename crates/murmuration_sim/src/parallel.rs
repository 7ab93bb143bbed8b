//! Splitting a system's work over Bevy's compute task pool: [`Split`] data, cut into parts of
//! at least a given size ([`fold_parts`], [`for_each_part`]), or work already cut into parts
//! ([`run_each`]). Each part is a task of a [`TaskPool::scope`], as Bevy's own `par_iter` runs
//! its batches; the thread that asked works on them too while it waits.
//!
//! The systems read their components through Bevy's contiguous query access (one slice per
//! table) and hand the slices here, instead of `par_iter`, which pays per entity for each
//! optional component and change tick. The parts only ever cut the work; what each entity gets
//! never depends on the number of threads, and results are combined in the order of the parts.
//!
//! Without Bevy's `multi_threaded` feature (and on wasm) the pool runs every part on the calling
//! thread, one after the other, with the same results.

use core::ops::Range;
use core::panic::Location;

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
    /// than the part takes.
    pub min: usize,
    /// Parts per thread, at most: more evens out parts that differ in cost, fewer costs less to
    /// hand out.
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

/// The compute task pool (started with its defaults if no app has started it).
pub(crate) fn pool() -> &'static TaskPool {
    ComputeTaskPool::get_or_init(TaskPool::default)
}

/// How many threads may work on the parts of a pass: the pool's, and the thread that asks,
/// which works on them while it waits. (On a pool thread that is one too many, which only cuts
/// the work a little finer.)
pub(crate) fn workers(pool: &TaskPool) -> usize {
    pool.thread_num() + 1
}

/// Runs `f` on parts of `items` and folds what the parts returned, in order, with `combine`.
/// With fewer than two [`workers`], or with too few items to cut, `f` runs once, on all of
/// them, on this thread.
pub(crate) fn fold_parts<S: Split, R: Send + 'static>(
    items: S,
    parts: Parts,
    f: impl Fn(S) -> R + Sync,
    combine: impl FnMut(R, R) -> R,
) -> R {
    let pool = pool();
    let threads = workers(pool);
    let len = items.len();
    let part = len
        .div_ceil(threads * parts.per_thread)
        .max(parts.min.max(1));
    if threads < 2 || len <= part {
        return f(items);
    }
    let f = &f;
    let results = pool.scope(|scope| {
        let mut rest = items;
        while rest.len() > part {
            let (head, tail) = rest.split_at(part);
            scope.spawn(async move { f(head) });
            rest = tail;
        }
        scope.spawn(async move { f(rest) });
    });
    results
        .into_iter()
        .reduce(combine)
        .expect("at least one part ran")
}

/// Runs `f` on every item of `work`, each its own part, or at once on this thread when there
/// is only one item. For work already cut into parts that differ in shape (a part with its own
/// counts, say), where [`Split`] cannot do the cutting.
pub(crate) fn run_each<W: Send>(work: impl Iterator<Item = W>, f: impl Fn(W) + Sync) {
    let pool = pool();
    let mut work = work.peekable();
    let Some(first) = work.next() else {
        return;
    };
    if workers(pool) < 2 || work.peek().is_none() {
        f(first);
        return work.for_each(f);
    }
    let f = &f;
    pool.scope(|scope| {
        for item in core::iter::once(first).chain(work) {
            scope.spawn(async move { f(item) });
        }
    });
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
    use super::*;

    /// Parts cut fine enough that several run.
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
}
