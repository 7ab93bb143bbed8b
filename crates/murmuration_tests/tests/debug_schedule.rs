//! The debug overlays record the picked boid's steering in whichever schedule the simulation
//! runs in, between its steering and its integration (after which the acceleration is zero).

use core::time::Duration;

use bevy::asset::{AssetApp, AssetPlugin};
use bevy::ecs::schedule::ScheduleLabel;
use bevy::gizmos::GizmoAsset;
use bevy::input::InputPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use murmuration_render::debug::{FlockDebug, FlockDebugPlugin, LastSteering};
use murmuration_sim::math::{Region, Vector, xyz};
use murmuration_sim::prelude::*;
use murmuration_sim::stats::FlockStats;

/// The steering recorded for a boid pushed by a close neighbour, after a few frames of an app
/// whose simulation steps in `schedule`.
fn recorded(schedule: impl ScheduleLabel) -> Option<Vector> {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, InputPlugin, AssetPlugin::default()))
        // What the overlays' gizmo group needs of Bevy's gizmos, without a renderer.
        .init_asset::<GizmoAsset>()
        .add_plugins(
            BoidsPlugins::new(schedule).with_bounds(SimulationBounds::wrap(Region::from_corners(
                Vector::ZERO,
                Vector::splat(400.0),
            ))),
        )
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            1.0 / 64.0,
        )));
    // The overlays pick through the pointer controls' input state.
    app.add_plugins((murmuration_render::BoidsControlsPlugin, FlockDebugPlugin));
    let boid = |app: &mut App, x: f32| {
        app.world_mut()
            .spawn((
                Boid,
                Position(xyz([x, 200.0, 200.0])),
                Velocity(Vector::Y * 60.0),
            ))
            .id()
    };
    let picked = boid(&mut app, 200.0);
    boid(&mut app, 206.0);
    app.insert_resource(FlockDebug {
        picked: Some(picked),
        forces: true,
        ..default()
    });
    for _ in 0..5 {
        app.update();
    }
    assert!(
        app.world().resource::<FlockStats>().steps >= 3,
        "the flock steps"
    );
    app.world().get::<LastSteering>(picked).map(|s| s.0)
}

#[test]
fn steering_is_recorded_in_the_simulation_schedule() {
    for (name, steering) in [
        ("Update", recorded(Update)),
        ("FixedUpdate", recorded(FixedUpdate)),
    ] {
        let steering = steering.unwrap_or_else(|| panic!("{name}: nothing recorded"));
        // Pushed away from the neighbour on its right.
        assert!(steering.x < -1.0, "{name}: {steering}");
    }
}
