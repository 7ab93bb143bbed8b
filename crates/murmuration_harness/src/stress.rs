//! A reproducible stress flock for timing the simulation: the world, the app and the timing
//! loop that the `stress` example, the `soak` example, the benchmarks and the allocation test
//! share.

use core::fmt;
use core::time::Duration;

use bevy::app::{FixedMain, RunFixedMainLoop, TaskPoolOptions, TaskPoolPlugin};
use bevy::ecs::schedule::{ScheduleLabel, SingleThreadedExecutor};
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::tasks::ComputeTaskPool;
use bevy::time::TimeUpdateStrategy;

use murmuration_sim::internal::NeighbourSearch;
use murmuration_sim::math::{DIM, Region, Vector};
use murmuration_sim::prelude::*;
use murmuration_sim::stats::FlockStats;

use crate::room_per_boid;

/// World area per boid, square world units. With the starlings' 70-unit perception radius and
/// 290-degree field of view a uniform flock at this density has about 12 neighbours per boid
/// (and about 40 candidates in its 3x3 block of cells); the flock gathers as it flies, so
/// the counts grow over a run.
pub const AREA_PER_BOID: f32 = 1250.0;

/// Updates run before timing starts (the spawn, and the first steps that grow every buffer).
pub const WARM_UP_STEPS: usize = 5;

/// A seeded flock for timing: `boids` starlings of two species in a square wrapping world sized
/// for [`AREA_PER_BOID`], or packed into a few cells when `clustered`. Override the density with
/// `area_per_boid`.
#[derive(Debug, Clone, PartialEq)]
pub struct StressFlock {
    /// How many boids.
    pub boids: usize,
    /// How many species.
    pub species: u16,
    /// The spawn seed.
    pub seed: u64,
    /// Start everyone in a square four perception radii across, as a flock herded by a predator.
    pub clustered: bool,
    /// How neighbours are found.
    pub search: NeighbourSearch,
    /// World area per boid, square world units ([`AREA_PER_BOID`] by default).
    pub area_per_boid: f32,
    /// An input meant to make a step costly, or none.
    pub pathology: Option<Pathology>,
}

/// Inputs that a naive neighbour search pays for with the square of the flock (issue: no input
/// may blow up the step). Each replaces where the boids start, or a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pathology {
    /// Every boid on exactly one point, the world's centre.
    OnePoint,
    /// Every boid in a square one unit across, inside one cell.
    OneCell,
    /// Every boid on one horizontal line across the world.
    Line,
    /// Every boid far outside the world (a million units beyond its corner).
    Outside,
    /// A perception radius twice the world's size, so every boid sees every other.
    HugeRadius,
    /// Every boid is a [`Hunter`] too: each chases the nearest other and flees all the others.
    AllHunters,
}

impl Pathology {
    /// Every case, with its command-line name.
    pub const ALL: [(&'static str, Pathology); 6] = [
        ("one-point", Pathology::OnePoint),
        ("one-cell", Pathology::OneCell),
        ("line", Pathology::Line),
        ("outside", Pathology::Outside),
        ("huge-radius", Pathology::HugeRadius),
        ("all-hunters", Pathology::AllHunters),
    ];
}

impl StressFlock {
    /// `boids` boids, two species, seed 1, spread over the world, grid search.
    pub fn new(boids: usize) -> Self {
        Self {
            boids,
            species: 2,
            seed: 1,
            clustered: false,
            search: NeighbourSearch::Grid,
            area_per_boid: AREA_PER_BOID,
            pathology: None,
        }
    }

    /// The flock's parameters: the starlings preset (field of view on), with a perception
    /// radius twice the world's size for [`Pathology::HugeRadius`].
    pub fn params(&self) -> FlockParams {
        let params = FlockParams::starlings();
        if self.pathology == Some(Pathology::HugeRadius) {
            let side = self.side();
            return FlockParams {
                perception_radius: 2.0 * side,
                ..params
            };
        }
        params
    }

    /// The world's side (at least 400): a square of `boids * area_per_boid` square units, or in
    /// 3D the cube as crowded for the starlings' perception radius ([`room_per_boid`]).
    fn side(&self) -> f32 {
        let r = FlockParams::starlings().perception_radius;
        (self.boids as f32 * room_per_boid(self.area_per_boid, r))
            .powf(1.0 / DIM as f32)
            .max(400.0)
    }

    /// A square (in 3D a cube) wrapping world, `side` units across.
    pub fn bounds(&self) -> SimulationBounds {
        SimulationBounds::wrap(Region::from_corners(
            Vector::ZERO,
            Vector::splat(self.side()),
        ))
    }

    /// Where the boids start: the whole world, or a square (cube) four perception radii across
    /// in its middle when clustered, or where the [`Pathology`] puts them.
    pub fn region(&self) -> Region {
        let rect = self.bounds().rect;
        let c = rect.center();
        match self.pathology {
            Some(Pathology::OnePoint) => return Region::from_center_size(c, Vector::ZERO),
            Some(Pathology::OneCell) => return Region::from_center_size(c, Vector::ONE),
            Some(Pathology::Line) => {
                // Along x through the centre.
                let (mut from, mut to) = (c, c);
                (from.x, to.x) = (rect.min.x, rect.max.x);
                return Region::from_corners(from, to);
            }
            Some(Pathology::Outside) => {
                return Region::from_center_size(rect.max + Vector::splat(1e6), rect.size());
            }
            Some(Pathology::HugeRadius | Pathology::AllHunters) | None => {}
        }
        if self.clustered {
            let size = Vector::splat(4.0 * self.params().perception_radius);
            Region::from_center_size(rect.center(), size.min(rect.size()))
        } else {
            rect
        }
    }

    /// A headless app stepping this flock once per `update`: [`MinimalPlugins`] with `threads`
    /// threads working on each step (see [`task_pool_options`]; `None` for Bevy's default split
    /// of the cores), [`BoidsPlugins`] in `FixedUpdate` and the flock queued to spawn on the
    /// first update.
    ///
    /// Every schedule runs on the single-threaded executor: the plugin's systems are chained, so
    /// the multi-threaded one would only add thread wake-ups; the work is spread over the
    /// threads inside each system. Bevy's task pools are global, so only the first app of a
    /// process decides the thread count.
    pub fn app(&self, threads: Option<usize>) -> App {
        let mut app = self.quick_start_app(threads);
        use_single_threaded_executors(&mut app);
        app
    }

    /// [`Self::app`] as the README's quick start builds one: Bevy's multi-threaded executor for
    /// every schedule, and with `threads` `None`, Bevy's default task pools (on two cores, one
    /// compute thread).
    pub fn quick_start_app(&self, threads: Option<usize>) -> App {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins.set(TaskPoolPlugin {
            task_pool_options: task_pool_options(threads),
        }))
        .add_plugins(
            BoidsPlugins::new(FixedUpdate)
                .with_params(self.params())
                .with_bounds(self.bounds()),
        )
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1))
        .insert_resource(self.search);
        app.world_mut().commands().queue(self.spawn());
        if self.pathology == Some(Pathology::AllHunters) {
            app.add_systems(First, make_hunters);
        }
        app
    }

    /// The command that spawns this flock.
    pub fn spawn(&self) -> FlockSpawn {
        FlockSpawn {
            count: self.boids,
            species: self.species,
            seed: self.seed,
            region: self.region(),
            first_index: 0,
            flock: None,
        }
    }
}

/// What the `stress` example's command line asks for (see the example's docs).
#[derive(Debug, Clone)]
pub struct StressArgs {
    /// The flock.
    pub flock: StressFlock,
    /// Steps timed.
    pub steps: usize,
    /// Threads working on each step (`None`: every core).
    pub threads: Option<usize>,
    /// Steps flown before the timing starts.
    pub settle: usize,
    /// The app as the quick start builds it (multi-threaded executor, default task pools).
    pub quick_start: bool,
    /// Draw it in a window instead (the example's own part).
    pub window: bool,
    /// Time the flock in 3D.
    pub three_d: bool,
}

impl StressArgs {
    /// The flags [`Self::parse`] knows.
    pub const USAGE: &str = "--boids N --steps N --threads N --seed N --area-per-boid N \
         --settle N --case NAME --clustered --brute-force --quick-start --3d --window";

    /// Reads the command line `all` (without the program's name); panics on a flag it does not
    /// know, naming the ones it does. `--help` prints them and exits.
    pub fn parse(all: &[String]) -> Self {
        let mut args = Self {
            flock: StressFlock::new(100_000),
            steps: 300,
            threads: None,
            settle: 0,
            quick_start: false,
            window: false,
            three_d: false,
        };
        let mut i = 0;
        let number = |i: usize, name: &str| -> u64 {
            all.get(i + 1)
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{name} needs a number"))
        };
        // Each flag sets its field and says how many words it took: itself, and its value.
        while i < all.len() {
            i += match all[i].as_str() {
                "--boids" => {
                    args.flock.boids = number(i, "--boids") as usize;
                    2
                }
                "--steps" => {
                    args.steps = number(i, "--steps") as usize;
                    2
                }
                "--settle" => {
                    args.settle = number(i, "--settle") as usize;
                    2
                }
                "--threads" => {
                    args.threads = Some(number(i, "--threads") as usize);
                    2
                }
                "--seed" => {
                    args.flock.seed = number(i, "--seed");
                    2
                }
                "--area-per-boid" => {
                    args.flock.area_per_boid = number(i, "--area-per-boid") as f32;
                    2
                }
                "--case" => {
                    let name = all.get(i + 1).map(String::as_str).unwrap_or("");
                    let case = Pathology::ALL.iter().find(|(n, _)| *n == name);
                    args.flock.pathology = Some(case.unwrap_or_else(|| panic!("no case {name}")).1);
                    2
                }
                "--clustered" => {
                    args.flock.clustered = true;
                    1
                }
                "--brute-force" => {
                    args.flock.search = NeighbourSearch::BruteForce;
                    1
                }
                "--window" => {
                    args.window = true;
                    1
                }
                "--quick-start" => {
                    args.quick_start = true;
                    1
                }
                "--3d" => {
                    args.three_d = true;
                    1
                }
                "--help" | "-h" => {
                    let cases: Vec<&str> = Pathology::ALL.iter().map(|(name, _)| *name).collect();
                    println!("usage: stress {}\ncases: {}", Self::USAGE, cases.join(", "));
                    std::process::exit(0);
                }
                other => panic!("unknown flag {other}; use {}", Self::USAGE),
            };
        }
        args
    }

    /// The headless run: the app (as the quick start builds it, or tuned with every core where
    /// `threads` does not say), `settle` steps flown, then `steps` timed.
    pub fn run_headless(&self) -> StressReport {
        let mut app = if self.quick_start {
            self.flock.quick_start_app(self.threads)
        } else {
            self.flock.app(self.threads.or(every_core()))
        };
        for _ in 0..self.settle {
            app.update();
        }
        StressReport::measure(&mut app, self.steps)
    }
}

/// Every core, for the tuned app's threads where `--threads` does not say.
pub fn every_core() -> Option<usize> {
    std::thread::available_parallelism().ok().map(|n| n.get())
}

/// Makes every boid a [`Hunter`] as soon as it is spawned ([`Pathology::AllHunters`]).
fn make_hunters(mut commands: Commands, boids: Query<Entity, (With<Boid>, Without<Hunter>)>) {
    for boid in &boids {
        commands.entity(boid).insert(Hunter::default());
    }
}

/// Task pool options for `threads` threads working on each step of a [`StressFlock::app`], or
/// Bevy's defaults for `None`.
///
/// The app runs its systems on the main thread, which works through the simulation's parts
/// beside the compute pool's threads, so `threads` asks for `threads - 1` compute threads: 1
/// for none, and every step then runs on the main thread alone. (Three threads on two cores
/// measured 5-7% slower at 100,000 boids than two, with two and a half times the context
/// switches.)
pub fn task_pool_options(threads: Option<usize>) -> TaskPoolOptions {
    let mut options = TaskPoolOptions::default();
    if let Some(threads) = threads {
        let compute = threads.max(1) - 1;
        options.compute.min_threads = compute;
        options.compute.max_threads = compute;
    }
    options
}

/// Threads working on each step of a [`StressFlock::app`]: the compute pool's and the main
/// thread.
pub fn working_threads() -> usize {
    ComputeTaskPool::get().thread_num() + 1
}

/// Runs every schedule of a [`MinimalPlugins`] app on the single-threaded executor.
pub fn use_single_threaded_executors(app: &mut App) {
    for label in [
        Main.intern(),
        First.intern(),
        PreUpdate.intern(),
        RunFixedMainLoop.intern(),
        FixedMain.intern(),
        FixedFirst.intern(),
        FixedPreUpdate.intern(),
        FixedUpdate.intern(),
        FixedPostUpdate.intern(),
        FixedLast.intern(),
        Update.intern(),
        PostUpdate.intern(),
        Last.intern(),
    ] {
        app.edit_schedule(label, |schedule| {
            schedule.set_executor(SingleThreadedExecutor::new());
        });
    }
}

/// What a timed run measured: medians over the timed steps, and the mean neighbour counts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StressReport {
    /// Boids in the flock.
    pub boids: usize,
    /// Steps timed (after [`WARM_UP_STEPS`]).
    pub steps: usize,
    /// Threads working on each step ([`working_threads`]).
    pub threads: usize,
    /// Median wall-clock time of one `App::update` (one full step).
    pub median_step: Duration,
    /// The slowest step: with 30 or more timed, one that refreshed the flock metrics
    /// ([`MetricsSettings::every`](murmuration_sim::metrics::MetricsSettings::every) is 30 by default).
    pub slowest_step: Duration,
    /// Median time of the hash rebuild.
    pub median_hash: Duration,
    /// Median time of the steering systems.
    pub median_steer: Duration,
    /// Median time of integration.
    pub median_integrate: Duration,
    /// Mean distance checks per boid per step.
    pub candidates_per_boid: f64,
    /// Mean neighbours per boid per step.
    pub neighbours_per_boid: f64,
}

impl StressReport {
    /// Warms `app` up, then times `steps` updates of it.
    pub fn measure(app: &mut App, steps: usize) -> Self {
        for _ in 0..WARM_UP_STEPS {
            app.update();
        }
        let mut step = Vec::with_capacity(steps);
        let (mut hash, mut steer, mut integrate) = (Vec::new(), Vec::new(), Vec::new());
        let (mut candidates, mut neighbours) = (0.0, 0.0);
        for _ in 0..steps {
            let start = Instant::now();
            app.update();
            step.push(start.elapsed());
            let stats = app.world().resource::<FlockStats>();
            hash.push(stats.hash_build);
            steer.push(stats.steering);
            integrate.push(stats.integrate);
            candidates += stats.candidates_per_boid();
            neighbours += stats.neighbours_per_boid();
        }
        let n = steps.max(1) as f64;
        Self {
            boids: app.world().resource::<FlockStats>().boids,
            steps,
            threads: working_threads(),
            slowest_step: step.iter().copied().max().unwrap_or_default(),
            median_step: median(&mut step),
            median_hash: median(&mut hash),
            median_steer: median(&mut steer),
            median_integrate: median(&mut integrate),
            candidates_per_boid: candidates / n,
            neighbours_per_boid: neighbours / n,
        }
    }

    /// Median step time per boid, nanoseconds.
    pub fn ns_per_boid(&self) -> f64 {
        self.median_step.as_secs_f64() * 1e9 / self.boids.max(1) as f64
    }

    /// The hash rebuild's share of the median step, 0 to 1.
    pub fn hash_share(&self) -> f64 {
        self.median_hash.as_secs_f64() / self.median_step.as_secs_f64().max(1e-12)
    }
}

/// The line the `stress` example prints: `key=value` pairs in a fixed order, for scripts.
impl fmt::Display for StressReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        write!(
            f,
            "boids={} steps={} threads={} median_ms={:.3} ns_per_boid={:.1} \
             candidates_per_boid={:.1} neighbours_per_boid={:.1} hash_share={:.2} \
             hash_ms={:.3} steer_ms={:.3} integrate_ms={:.3} slowest_ms={:.3}",
            self.boids,
            self.steps,
            self.threads,
            ms(self.median_step),
            self.ns_per_boid(),
            self.candidates_per_boid,
            self.neighbours_per_boid,
            self.hash_share(),
            ms(self.median_hash),
            ms(self.median_steer),
            ms(self.median_integrate),
            ms(self.slowest_step),
        )
    }
}

/// The median of `samples` (zero for none); sorts them.
fn median(samples: &mut [Duration]) -> Duration {
    samples.sort_unstable();
    samples.get(samples.len() / 2).copied().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> StressArgs {
        let all: Vec<String> = line.split_whitespace().map(String::from).collect();
        StressArgs::parse(&all)
    }

    /// Flags without a value take one word, wherever they stand: `--3d` before another flag
    /// leaves it to be read, and `--window` is a flag of its own.
    #[test]
    fn flags_without_a_value_take_one_word() {
        let args = parse("--3d --steps 5 --window --boids 7 --quick-start --threads 2");
        assert!(args.three_d && args.window && args.quick_start);
        assert_eq!(
            (args.steps, args.flock.boids, args.threads),
            (5, 7, Some(2))
        );
        let args = parse("--steps 9 --3d");
        assert!(args.three_d && !args.window);
        assert_eq!(args.steps, 9);
    }

    #[test]
    #[should_panic(expected = "unknown flag --widow")]
    fn an_unknown_flag_is_named() {
        parse("--widow");
    }
}
