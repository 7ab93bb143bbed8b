//! The crew: the threads that work through the parts of a pass beside the thread that asked.
//!
//! A step is a chain of short passes (count, scan, scatter, neighbours and forces, the flocking
//! pass, integration, transforms), each a few hundred microseconds at 100,000 boids. A thread of
//! Bevy's pool that has gone to sleep takes tens of microseconds to start on a task (a median of
//! 32-64 us on the 2-vCPU development VM, and now and then not within 400 us), so a pass handed
//! to the pool as a scope of tasks lost much of its second thread to the wake-up. Here the
//! caller posts a pass as one [`Job`] whose parts any thread claims by index, and a helper, a
//! task on the compute pool, keeps looking for the next job until none has been on offer for
//! [`LINGER`] before it hands its thread back: the passes of one step find it awake.
//!
//! Nobody ever waits for a part nobody has claimed: the caller claims parts too, so a pass
//! finishes on the caller alone if no helper comes (a busy pool, one thread); it waits only for
//! parts a helper is running. What a part returns goes in the part's own place, so the result
//! never depends on who ran which part.
//!
//! Nothing is allocated per pass once a thread has run one: the parts and their results sit in
//! a buffer the thread keeps ([`ROOM`]), and the [`Job`] is reused once no helper holds it.

use core::cell::{Cell, UnsafeCell};
use core::hint::spin_loop;
use core::marker::PhantomData;
use core::mem::{MaybeUninit, align_of, size_of};
use core::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use core::time::Duration;
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Arc, Mutex, PoisonError};

use bevy::platform::time::Instant;
use bevy::tasks::TaskPool;

/// How long a helper keeps looking for a new job once no job is on offer. Long enough to
/// bridge the gaps between the passes of one step (the serial work between them, Bevy's
/// schedule), short enough that the thread goes back to the pool soon after the step. (The
/// time a caller spends finishing its own last part does not count: at a million boids a part
/// takes longer than this.)
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

// SAFETY: `ctx` points at a `Pass` whose parts are `Send` and whose function is `Sync`, and it
// is only used for a part index claimed below `parts`, which the caller outlives (it returns
// only once every part is done, and no index below `parts` is claimed twice).
unsafe impl Send for Job {}
// SAFETY: as above.
unsafe impl Sync for Job {}

impl Job {
    /// A job for `parts` parts of the pass at `ctx`, none claimed yet.
    fn new(run: unsafe fn(*const (), usize), ctx: *const (), parts: usize) -> Self {
        Self {
            run,
            ctx,
            parts,
            next: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
        }
    }

    /// Claims and runs parts until there are none left; whether it ran any.
    fn work(&self) -> bool {
        let mut ran = false;
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.parts {
                return ran;
            }
            // SAFETY: `i` is below `parts` and claimed by this thread alone, so the caller is
            // still waiting for it (see `Job`'s `Send`).
            unsafe { (self.run)(self.ctx, i) };
            self.done.fetch_add(1, Ordering::Release);
            ran = true;
        }
    }
}

/// The job on offer, and the helpers looking for one.
struct Board {
    job: Mutex<Option<Arc<Job>>>,
    /// Whether a job is on offer (a pass is under way), readable without the lock.
    open: AtomicBool,
    /// Bumped whenever a job is posted, so helpers can wait on a load instead of the lock.
    posted: AtomicU64,
    /// Helpers spawned and not yet gone.
    helpers: AtomicUsize,
}

static BOARD: Board = Board {
    job: Mutex::new(None),
    open: AtomicBool::new(false),
    posted: AtomicU64::new(0),
    helpers: AtomicUsize::new(0),
};

/// Jobs each thread keeps ([`SPARES`]).
const SPARES_KEPT: usize = 4;

/// A unit of [`ROOM`]: 16 bytes, 16-byte aligned.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Unit(MaybeUninit<[u8; 16]>);

thread_local! {
    /// This thread's buffer for the [`Slot`]s of its passes, kept from pass to pass. A pass
    /// inside a part, while the buffer is taken, starts one of its own.
    static ROOM: Cell<Vec<Unit>> = const { Cell::new(Vec::new()) };
    /// This thread's last [`Job`]s, to run the next pass with one no helper holds. (A helper
    /// lets go of a job just after its last part, so the job of the pass before may still be
    /// held when the next pass starts; a few spares cover every helper of a small machine.)
    static SPARES: Cell<[Option<Arc<Job>>; SPARES_KEPT]> =
        const { Cell::new([None, None, None, None]) };
}

/// One part's place in a pass: the part until it is claimed, then what it returned.
struct Slot<S, R> {
    part: UnsafeCell<Option<S>>,
    result: UnsafeCell<Option<R>>,
}

/// The slots of one pass, laid out in this thread's [`ROOM`], which they give back when
/// dropped.
struct Slots<S, R> {
    room: Vec<Unit>,
    len: usize,
    slot: PhantomData<Slot<S, R>>,
}

impl<S, R> Slots<S, R> {
    fn new() -> Self {
        assert!(
            align_of::<Slot<S, R>>() <= align_of::<Unit>(),
            "a part aligned to more than 16 bytes"
        );
        Self {
            room: ROOM.take(),
            len: 0,
            slot: PhantomData,
        }
    }

    /// Adds a slot holding `part`.
    fn push(&mut self, part: S) {
        let units = ((self.len + 1) * size_of::<Slot<S, R>>()).div_ceil(size_of::<Unit>());
        if units > self.room.len() {
            // Moves the slots written so far with the bytes: nothing points into them yet.
            let grown = units.max(2 * self.room.len());
            self.room.resize(grown, Unit(MaybeUninit::uninit()));
        }
        let slot = Slot {
            part: UnsafeCell::new(Some(part)),
            result: UnsafeCell::new(None),
        };
        // SAFETY: the room holds `len + 1` slots (sized above), and its alignment is at least
        // a slot's (checked in `new`), as is every multiple of a slot's size.
        unsafe {
            self.room
                .as_mut_ptr()
                .cast::<Slot<S, R>>()
                .add(self.len)
                .write(slot)
        };
        self.len += 1;
    }

    fn as_slice(&self) -> &[Slot<S, R>] {
        // SAFETY: the first `len` slots were written by `push` and are dropped only in `drop`.
        unsafe { core::slice::from_raw_parts(self.room.as_ptr().cast(), self.len) }
    }
}

impl<S, R> Drop for Slots<S, R> {
    fn drop(&mut self) {
        let slots: *mut [Slot<S, R>] =
            core::ptr::slice_from_raw_parts_mut(self.room.as_mut_ptr().cast(), self.len);
        // SAFETY: the slots were written by `push`, and nothing else drops them.
        unsafe { core::ptr::drop_in_place(slots) };
        ROOM.set(core::mem::take(&mut self.room));
    }
}

/// The caller's side of a job: the slots, the function, and the first panic of any part.
struct Pass<'a, S, R, F> {
    slots: &'a [Slot<S, R>],
    f: &'a F,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

/// Runs part `i` of the [`Pass`] at `ctx`.
///
/// # Safety
/// `ctx` must point at a live `Pass<S, R, F>` and `i` must be a part index that no other call
/// gets.
unsafe fn run_part<S, R, F: Fn(S) -> R>(ctx: *const (), i: usize) {
    // SAFETY: as the caller promises: the pass is alive and part `i` is this call's alone.
    let (pass, part) = unsafe {
        let pass = &*ctx.cast::<Pass<'_, S, R, F>>();
        (pass, (*pass.slots[i].part.get()).take())
    };
    let part = part.expect("every part is claimed once");
    match catch_unwind(AssertUnwindSafe(|| (pass.f)(part))) {
        // SAFETY: part `i`'s result is this call's alone (as above).
        Ok(result) => unsafe { *pass.slots[i].result.get() = Some(result) },
        Err(panic) => {
            let mut first = pass.panic.lock().unwrap_or_else(PoisonError::into_inner);
            first.get_or_insert(panic);
        }
    }
}

/// Runs `f` on every one of `parts`, on this thread and up to `threads - 1` helpers, and folds
/// what the parts returned, in order, with `combine` (`None` for no parts). A panic in any part
/// is raised again here, once every part has finished.
pub(super) fn run<S: Send, R: Send, F: Fn(S) -> R + Sync>(
    pool: &TaskPool,
    threads: usize,
    parts: impl Iterator<Item = S>,
    f: &F,
    mut combine: impl FnMut(R, R) -> R,
) -> Option<R> {
    let mut slots = Slots::<S, R>::new();
    parts.for_each(|part| slots.push(part));
    let pass = Pass {
        slots: slots.as_slice(),
        f,
        panic: Mutex::new(None),
    };
    let n = pass.slots.len();
    let job = job(run_part::<S, R, F>, (&raw const pass).cast(), n);
    post(pool, threads.saturating_sub(1), &job);
    job.work();
    // NOTE: the wait must come before anything leaves this function, a panic included: a
    // helper may still be running a part it claimed, on `pass`.
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
    keep(job);
    if let Some(panic) = pass
        .panic
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
    {
        drop(slots);
        resume_unwind(panic);
    }
    slots.as_slice().iter().fold(None, |folded, slot| {
        // SAFETY: every part is done and no helper touches the pass any more.
        let result = unsafe { (*slot.result.get()).take() }.expect("every part ran");
        Some(match folded {
            Some(folded) => combine(folded, result),
            None => result,
        })
    })
}

/// A job for `parts` parts of the pass at `ctx`: one of this thread's spares that no helper
/// holds, else a new one.
fn job(run: unsafe fn(*const (), usize), ctx: *const (), parts: usize) -> Arc<Job> {
    let mut spares = SPARES.take();
    let free = spares
        .iter_mut()
        .position(|spare| spare.as_mut().and_then(Arc::get_mut).is_some());
    let spare = free.and_then(|i| spares[i].take());
    SPARES.set(spares);
    match spare {
        Some(mut job) => {
            // Off the board, so no helper can have taken it since `get_mut` found it free.
            *Arc::get_mut(&mut job).expect("a spare no helper holds") = Job::new(run, ctx, parts);
            job
        }
        None => Arc::new(Job::new(run, ctx, parts)),
    }
}

/// Keeps `job` among this thread's spares: in an empty place, else in place of one a helper
/// still holds.
fn keep(job: Arc<Job>) {
    let mut spares = SPARES.take();
    let place = spares
        .iter()
        .position(Option::is_none)
        .or_else(|| {
            let held =
                |spare: &Option<Arc<Job>>| spare.as_ref().is_some_and(|j| Arc::strong_count(j) > 1);
            spares.iter().position(held)
        })
        .unwrap_or(0);
    spares[place] = Some(job);
    SPARES.set(spares);
}

/// Offers `job` to the helpers, and spawns helpers on `pool` until `helpers` are about.
fn post(pool: &TaskPool, helpers: usize, job: &Arc<Job>) {
    *BOARD.job.lock().unwrap_or_else(PoisonError::into_inner) = Some(job.clone());
    BOARD.open.store(true, Ordering::Relaxed);
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
        BOARD.open.store(false, Ordering::Relaxed);
    }
}

/// A helper: works on whatever job is posted until none has been on offer for [`LINGER`].
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
        if !spins.is_multiple_of(64) {
            continue;
        }
        if BOARD.open.load(Ordering::Relaxed) {
            // A pass is under way (its caller is on its last parts): more will come.
            idle_since = Instant::now();
        } else if idle_since.elapsed() > LINGER {
            // A job posted while this helper leaves finds one helper too few and is done by
            // its caller alone, or by a helper it spawns.
            BOARD.helpers.fetch_sub(1, Ordering::Relaxed);
            return;
        }
    }
}
