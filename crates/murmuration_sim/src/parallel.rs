//! Splitting a system's work over Bevy's compute task pool: [`Split`] data, cut into parts of
//! at least a given size, each part one task ([`fold_parts`], [`for_each_part`]), or work
//! already cut into parts ([`run_each`]).
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
    /// The fewest items in a part: below this, handing a task to a thread costs more than the
    /// part takes.
    pub min: usize,
    /// Parts per thread, at most: more evens out parts that differ in cost, fewer costs less to
    /// hand out (each task is an allocation).
    pub per_thread: usize,
}

impl Parts {
    /// For work where every item costs about the same: a few parts a thread.
    pub const EVEN: Self = Self {
        min: 4096,
        per_thread: 4,
    };
}

/// Why a contiguous query over the simulation's own components cannot fail: they all use
/// table storage, so every query over them is dense.
pub(crate) const DENSE: &str = "the simulation's components are all stored in tables";

/// The threads that take up the tasks of a scope opened on this thread: the pool's own, and
/// this thread too unless it is one of them. Bevy's `scope` has its caller run the pool's tasks
/// while it waits, so a system on the main thread (the single-threaded executor's) works beside
/// the pool's threads; a system on a pool thread (where the multi-threaded executor runs it) is
/// one of them, while the main thread waits on the executor alone.
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
pub(crate) fn fold_parts<S: Split, R: Send + 'static>(
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
    let results = pool.scope(|scope| {
        let f = &f;
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

/// Runs `f` on every item of `work`, each its own task on the compute task pool, or at once on
/// this thread when there is only one item. For work already cut into parts that differ in
/// shape (a part with its own counts, say), where [`Split`] cannot do the cutting.
pub(crate) fn run_each<W: Send>(work: impl Iterator<Item = W>, f: impl Fn(W) + Sync) {
    let mut work = work.peekable();
    let Some(first) = work.next() else {
        return;
    };
    if work.peek().is_none() {
        return f(first);
    }
    let pool = ComputeTaskPool::get_or_init(TaskPool::default);
    pool.scope(|scope| {
        let f = &f;
        scope.spawn(async move { f(first) });
        for item in work {
            scope.spawn(async move { f(item) });
        }
    });
}

/// [`fold_parts`] for work that returns nothing.
pub(crate) fn for_each_part<S: Split>(items: S, parts: Parts, f: impl Fn(S) + Sync) {
    fold_parts(items, parts, f, |(), ()| ());
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
