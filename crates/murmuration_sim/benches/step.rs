//! The simulation's benchmarks: one full step of a real app at 1k to 1M boids, the same with
//! brute-force neighbours at 1k and 10k, and the hash rebuild and the neighbour sums alone.
//!
//! `cargo bench -p murmuration_sim --bench step` (release build). The same step among 2,000 wall
//! segments at 10k and 100k, with 10,000 obstacles on one spot, and 500 strategy units given
//! routes across a 256 x 256-cell map.
//! Every flock is
//! `murmuration_harness::stress::StressFlock` (the starlings preset, two species, a wrapping world at
//! about 12 neighbours per boid), warmed up before timing. Threads: `MURMURATION_BENCH_THREADS`,
//! default all cores. The allocation columns count every allocation a step makes, Bevy's
//! scheduler and task pool included.

use bevy::prelude::*;
use divan::{AllocProfiler, Bencher};
use murmuration_harness::stress::{StressFlock, WARM_UP_STEPS};
use murmuration_sim::hash::SpatialHash;
use murmuration_sim::internal::FlockForces;
use murmuration_sim::internal::FlockTable;
use murmuration_sim::internal::NeighbourSearch;
use murmuration_sim::internal::flocking_forces;
use murmuration_sim::prelude::*;
use murmuration_sim::routes::RouteSettings;
use murmuration_sim::units::Selected;

#[global_allocator]
static ALLOC: AllocProfiler = AllocProfiler::system();

fn main() {
    divan::main();
}

/// Threads working on each step, from `MURMURATION_BENCH_THREADS` or all cores.
fn threads() -> Option<usize> {
    std::env::var("MURMURATION_BENCH_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
}

/// A warmed-up app flying `flock`.
fn warm_app(flock: &StressFlock) -> App {
    let mut app = flock.app(threads());
    for _ in 0..WARM_UP_STEPS {
        app.update();
    }
    app
}

/// One `App::update`: hash, steering, integration, transforms, metrics when due.
#[divan::bench(args = [1_000, 10_000, 100_000, 1_000_000], sample_size = 1, max_time = 4)]
fn full_step(bencher: Bencher, boids: usize) {
    let mut app = warm_app(&StressFlock::new(boids));
    bencher.bench_local(|| app.update());
}

/// The walls of [`full_step_among_walls`]: `count` segments 40 units long at places and angles
/// spread by a fixed sequence over a square world of `side`.
fn walls(side: f32, count: usize) -> Vec<(Obstacle, Vec2)> {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..count)
        .map(|_| {
            let at = Vec2::new(next(), next()) * side;
            let half = Vec2::from_angle(next() * std::f32::consts::TAU) * 20.0;
            (Obstacle::from(Segment2d::new(-half, half)), at)
        })
        .collect()
}

/// One step among 2,000 wall segments (see [`walls`]): the look-ahead, the swept moves and the
/// obstacle index on top of [`full_step`].
#[divan::bench(args = [10_000, 100_000], sample_size = 1, max_time = 4)]
fn full_step_among_walls(bencher: Bencher, boids: usize) {
    let flock = StressFlock::new(boids);
    let mut app = flock.app(threads());
    for (wall, at) in walls(flock.bounds().rect.size().x, 2_000) {
        app.world_mut().spawn((wall, Position(at)));
    }
    for _ in 0..WARM_UP_STEPS {
        app.update();
    }
    bencher.bench_local(|| app.update());
}

/// One step of 10,000 boids with 10,000 round obstacles spawned on one spot, the world's
/// centre (bad input: they are kept as one), against [`full_step`] at 10,000.
#[divan::bench(sample_size = 1, max_time = 4)]
fn full_step_obstacles_on_one_spot(bencher: Bencher) {
    let flock = StressFlock::new(10_000);
    let mut app = flock.app(threads());
    let centre = flock.bounds().rect.center();
    for _ in 0..10_000 {
        app.world_mut()
            .spawn((Obstacle::round(40.0), Position(centre)));
    }
    for _ in 0..WARM_UP_STEPS {
        app.update();
    }
    bencher.bench_local(|| app.update());
}

/// The side of the routes' map: 256 route cells of 8 units.
const MAP: f32 = 2_048.0;

/// 500 strategy units, selected, in a corner of a map 256 x 256 route cells wide with 2,000
/// walls, warmed up; `background`: routes planned on the `AsyncComputeTaskPool`.
fn units_among_walls(background: bool) -> App {
    let mut app = StressFlock::new(0).app(threads());
    if background {
        app.insert_resource(RouteSettings {
            background_above: 0,
            ..default()
        });
    }
    app.insert_resource(SimulationBounds::turn_back(Rect::new(0.0, 0.0, MAP, MAP)))
        .insert_resource(FlockParams {
            max_speed: 90.0,
            max_force: 300.0,
            perception_radius: 40.0,
            separation_distance: 20.0,
            separation_weight: 1.6,
            field_of_view: 360.0,
            ..FlockParams::default()
        });
    for (wall, at) in walls(MAP, 2_000) {
        app.world_mut().spawn((wall, Position(at)));
    }
    for i in 0..500 {
        let at = Vec2::new(60.0 + (i % 25) as f32 * 22.0, 60.0 + (i / 25) as f32 * 22.0);
        app.world_mut().spawn((Unit, Selected, Position(at)));
    }
    for _ in 0..10 {
        app.update();
    }
    app
}

/// Far corners of the routes' map, in turn.
fn far_corner(k: usize) -> Vec2 {
    [
        Vec2::new(MAP - 80.0, MAP - 80.0),
        Vec2::new(MAP - 80.0, 80.0),
        Vec2::new(80.0, MAP - 80.0),
    ][k % 3]
}

/// A step in which 500 units get a new order across the map: the route (one flow field over
/// 256 x 256 cells) is planned in it.
#[divan::bench(sample_size = 1, max_time = 4)]
fn route_new_order(bencher: Bencher) {
    new_order(bencher, false);
}

/// The same, with the route planned on the `AsyncComputeTaskPool`
/// (`RouteSettings::background_above` 0): what the step of an order costs when it does not
/// wait for its route.
#[divan::bench(sample_size = 1, max_time = 4)]
fn route_new_order_background(bencher: Bencher) {
    new_order(bencher, true);
}

fn new_order(bencher: Bencher, background: bool) {
    let mut app = units_among_walls(background);
    let mut k = 0;
    bencher.bench_local(|| {
        k += 1;
        app.world_mut().write_message(UnitCommand::MoveTo {
            target: far_corner(k),
        });
        app.update();
    });
}

/// A step of the same 500 units following a route already planned.
#[divan::bench(sample_size = 1, max_time = 4)]
fn route_follow(bencher: Bencher) {
    let mut app = units_among_walls(false);
    app.world_mut().write_message(UnitCommand::MoveTo {
        target: far_corner(0),
    });
    for _ in 0..5 {
        app.update();
    }
    bencher.bench_local(|| app.update());
}

/// A step in which one of the 2,000 walls moves while the units are on their way: the obstacle
/// index, the route grid and the route are all built again.
#[divan::bench(sample_size = 1, max_time = 4)]
fn route_wall_moved(bencher: Bencher) {
    let mut app = units_among_walls(false);
    app.world_mut().write_message(UnitCommand::MoveTo {
        target: far_corner(0),
    });
    app.update();
    let wall = app
        .world_mut()
        .query_filtered::<Entity, With<Obstacle>>()
        .iter(app.world())
        .next()
        .unwrap();
    let mut k = 0.0;
    bencher.bench_local(|| {
        k += 1.0;
        app.world_mut().get_mut::<Position>(wall).unwrap().0.x = 1_000.0 + k % 7.0;
        app.update();
    });
}

/// One step with every boid checking every other: the reference the grid is measured against.
#[divan::bench(args = [1_000, 10_000], sample_size = 1, max_time = 4)]
fn full_step_brute_force(bencher: Bencher, boids: usize) {
    let mut app = warm_app(&StressFlock {
        search: NeighbourSearch::BruteForce,
        ..StressFlock::new(boids)
    });
    bencher.bench_local(|| app.update());
}

/// The flock of a warmed-up app as `(entity, position, velocity, species)`, with its params.
fn snapshot(boids: usize) -> (Vec<(Entity, Vec2, Vec2, u16)>, StressFlock) {
    let flock = StressFlock::new(boids);
    let mut app = warm_app(&flock);
    let mut query = app
        .world_mut()
        .query_filtered::<(Entity, &Position, &Velocity, &Species), With<Boid>>();
    let boids = query
        .iter(app.world())
        .map(|(e, p, v, s)| (e, p.0, v.0, s.0))
        .collect();
    (boids, flock)
}

/// The counting sort alone, from a plain list instead of the ECS.
#[divan::bench(args = [10_000, 100_000, 1_000_000], sample_size = 1, max_time = 3)]
fn hash_rebuild(bencher: Bencher, boids: usize) {
    let (boids, flock) = snapshot(boids);
    let (bounds, cell) = (flock.bounds(), flock.params().perception_radius);
    let mut hash = SpatialHash::default();
    hash.rebuild(&bounds, cell, &boids);
    bencher.bench_local(|| hash.rebuild(&bounds, cell, &boids));
}

/// Every boid's neighbour sums and flocking force (the flocking rules' whole pass) alone.
#[divan::bench(args = [10_000, 100_000, 1_000_000], sample_size = 1, max_time = 3)]
fn neighbour_pass(bencher: Bencher, boids: usize) {
    let (boids, flock) = snapshot(boids);
    let (bounds, params) = (flock.bounds(), flock.params());
    let mut hash = SpatialHash::default();
    hash.rebuild(&bounds, params.perception_radius, &boids);
    let table = FlockTable::new(&params);
    let mut out = FlockForces::default();
    bencher
        .bench_local(|| flocking_forces(&hash, &table, &bounds, NeighbourSearch::Grid, &mut out));
}
