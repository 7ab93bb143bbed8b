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

fn assert_told_once(name: &str, keyword: &str, case: impl FnOnce()) {
    let logged = warnings(case);
    let ours: Vec<&String> = logged
        .iter()
        .filter(|m| m.contains("bevy_murmuration"))
        .collect();
    assert_eq!(ours.len(), 1, "{name}: {logged:#?}");
    assert!(ours[0].contains(keyword), "{name}: {}", ours[0]);
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
    // And a healthy flock says nothing at all.
    let logged = warnings(|| {
        let mut app = flock_app(FlockParams::default(), bounds, 300, 6);
        step(&mut app, 200);
    });
    assert!(logged.is_empty(), "{logged:#?}");
}
