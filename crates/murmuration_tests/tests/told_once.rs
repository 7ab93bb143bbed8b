//! Each kind of bad input is reported once, with a warning that names it, never a line per boid
//! per step. One test only: the log is captured by a process-wide subscriber.

mod common;

use std::sync::Mutex;

use bevy::log::tracing::{self, Event, Level, Subscriber, field::Field, field::Visit};
use bevy::log::tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use bevy::log::tracing_subscriber::registry::Registry;
use bevy::prelude::*;
use common::*;
use murmuration_sim::math::{Region, Vector};
use murmuration_sim::prelude::*;
use murmuration_sim::stats::FlockStats;

/// Warnings and errors logged so far.
static LOG: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct Record;

struct Message(String);

impl Visit for Message {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}

impl<S: Subscriber> Layer<S> for Record {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        if *event.metadata().level() <= Level::WARN {
            let mut message = Message(String::new());
            event.record(&mut message);
            LOG.lock().unwrap().push(message.0);
        }
    }
}

/// Runs `case` and returns the warnings it logged.
fn warnings(case: impl FnOnce()) -> Vec<String> {
    LOG.lock().unwrap().clear();
    case();
    LOG.lock().unwrap().clone()
}

fn assert_all_finite(app: &mut App) {
    for (e, p, v) in boids(app) {
        assert!(p.is_finite() && v.is_finite(), "{e}: {p} {v}");
    }
}

fn assert_told_once(name: &str, keyword: &str, case: impl FnOnce()) {
    let logged = warnings(case);
    let ours: Vec<&String> = logged
        .iter()
        .filter(|m| m.contains("bevy_murmuration"))
        .collect();
    assert_eq!(ours.len(), 1, "{name}: {logged:#?}");
    assert!(ours[0].contains(keyword), "{name}: {}", ours[0]);
}

/// Runs 50 steps while another obstacle moves (so the obstacle index is rebuilt every step),
/// then checks every boid is finite.
fn step_with_a_moving_obstacle(app: &mut App) {
    let min = app.world().resource::<SimulationBounds>().rect.min;
    let mover = app
        .world_mut()
        .spawn((Obstacle::round(10.0), Position(min)))
        .id();
    for k in 0..50 {
        app.world_mut().get_mut::<Position>(mover).unwrap().0 = min + Vector::splat(k as f32);
        step(app, 1);
    }
    assert_all_finite(app);
}

#[test]
fn every_problem_is_told_once() {
    tracing::subscriber::set_global_default(Registry::default().with(Record)).unwrap();
    let bounds = SimulationBounds::wrap(rect(400.0, 400.0));

    assert_told_once("NaN every step", "non-finite", || {
        let mut app = flock_app(FlockParams::default(), bounds, 100, 1);
        let victim = boids(&mut app)[0].0;
        for _ in 0..50 {
            app.world_mut().get_mut::<Position>(victim).unwrap().0 = Vector::NAN;
            step(&mut app, 1);
        }
        assert_eq!(app.world().resource::<FlockStats>().repaired, 50);
    });
    for (name, keyword, params) in [
        (
            "negative perception",
            "perception_radius",
            FlockParams {
                perception_radius: -1.0,
                ..FlockParams::default()
            },
        ),
        (
            "min above max",
            "min_speed",
            FlockParams {
                min_speed: 900.0,
                ..FlockParams::default()
            },
        ),
        (
            "field of view 720",
            "field_of_view",
            FlockParams {
                field_of_view: 720.0,
                ..FlockParams::default()
            },
        ),
    ] {
        assert_told_once(name, keyword, || {
            let mut app = flock_app(params, bounds, 100, 2);
            step(&mut app, 100);
        });
    }
    assert_told_once("inverted bounds", "bounds.rect", || {
        let mut app = flock_app(
            FlockParams::default(),
            SimulationBounds::wrap(Region {
                min: Vector::splat(10.0),
                max: Vector::splat(-10.0),
            }),
            50,
            3,
        );
        step(&mut app, 100);
    });
    assert_told_once("set again, told again, once", "max_force", || {
        let mut app = flock_app(FlockParams::default(), bounds, 50, 4);
        step(&mut app, 10);
        app.world_mut().resource_mut::<FlockParams>().max_force = -3.0;
        step(&mut app, 100);
    });
    assert_told_once("plugin twice", "twice", || {
        App::new()
            .add_plugins(MinimalPlugins)
            .add_plugins((BoidsPlugins::default(), BoidsPlugins::default()));
    });
    assert_told_once("no bounds", "SimulationBounds", || {
        let mut app = flock_app(FlockParams::default(), bounds, 50, 5);
        step(&mut app, 2);
        app.world_mut().remove_resource::<SimulationBounds>();
        for _ in 0..100 {
            app.update();
        }
    });
    // A degenerate obstacle is told of once, though the index is rebuilt every step (another
    // obstacle moves).
    #[cfg_attr(feature = "3d", allow(unused_mut))]
    let mut degenerate = vec![
        ("NaN radius", Obstacle::round(f32::NAN)),
        ("zero-size block", Obstacle::block(Vector::ZERO)),
    ];
    #[cfg(not(feature = "3d"))]
    degenerate.extend([
        (
            "zero-length wall",
            Obstacle::from(Segment2d::new(Vec2::ONE, Vec2::ONE)),
        ),
        (
            "two-vertex polygon",
            Obstacle::from(Polygon::new([Vec2::ZERO, Vec2::X * 10.0])),
        ),
        (
            "NaN vertex",
            Obstacle::from(Polyline2d::new([Vec2::ZERO, Vec2::NAN, Vec2::X])),
        ),
    ]);
    for (name, obstacle) in degenerate {
        assert_told_once(name, "obstacle", || {
            let mut app = flock_app(FlockParams::default(), bounds, 100, 7);
            app.world_mut()
                .spawn((obstacle, Position(bounds.rect.center())));
            step_with_a_moving_obstacle(&mut app);
        });
    }
    // 10,000 obstacles on one spot: kept once, told once, though the index is rebuilt every
    // step.
    assert_told_once("10,000 obstacles on one spot", "repeat another", || {
        let mut app = flock_app(FlockParams::default(), bounds, 100, 7);
        for _ in 0..10_000 {
            app.world_mut()
                .spawn((Obstacle::round(30.0), Position(bounds.rect.center())));
        }
        step_with_a_moving_obstacle(&mut app);
    });
    // Route goals out of reach: inside a wall, and shut off by walls.
    let order = |app: &mut App, from: Vector, to: Vector| {
        app.world_mut().spawn((Unit, Position(from)));
        app.update();
        app.world_mut().write_message(UnitCommand::SelectIn {
            rect: Region::from_center_size(from, Vector::splat(20.0)),
            add: false,
        });
        app.world_mut()
            .write_message(UnitCommand::MoveTo { target: to });
        step(app, 300);
        assert_all_finite(app);
    };
    let middle = bounds.rect.center();
    assert_told_once("a goal inside a wall", "inside an obstacle", || {
        let mut app = app(FlockParams::default(), bounds);
        app.world_mut()
            .spawn((Obstacle::block(Vector::splat(80.0)), Position(middle)));
        order(&mut app, bounds.rect.min + Vector::splat(40.0), middle);
    });
    assert_told_once("a goal shut off by walls", "cannot reach", || {
        let mut app = app(FlockParams::default(), bounds);
        // A closed room round the middle, a wall on every side.
        for axis in 0..murmuration_sim::math::DIM {
            for side in [-1.0, 1.0] {
                let mut at = middle;
                at[axis] += side * 60.0;
                let mut size = Vector::splat(130.0);
                size[axis] = 10.0;
                app.world_mut().spawn((Obstacle::block(size), Position(at)));
            }
        }
        order(&mut app, middle, bounds.rect.min + Vector::splat(40.0));
    });
    // And a healthy flock says nothing at all.
    let logged = warnings(|| {
        let mut app = flock_app(FlockParams::default(), bounds, 300, 6);
        step(&mut app, 200);
    });
    assert!(logged.is_empty(), "{logged:#?}");
}
