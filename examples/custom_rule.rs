//! A game's own steering rule: gusts of wind that push the flock, added in `BoidsSystems::Steer` after the plugin's own forces; the arrow shows the wind.

mod common;

use bevy::prelude::*;
use bevy_murmuration::prelude::*;
use bevy_murmuration::schedule::SteeringSystems;

use common::CapturePlugin;

/// The wind's push, world units per second squared: which way it blows and how hard.
#[derive(Resource, Default)]
struct Wind(Vec2);

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_murmuration: a custom rule".into(),
                resolution: (1280, 720).into(),
                ..default()
            }),
            ..default()
        }))
        .add_plugins(BoidsPlugins::new(FixedUpdate).with_params(FlockParams::starlings()))
        .add_plugins(BoidsRenderPlugin::new(FlockLook::starlings()))
        .add_plugins(CapturePlugin)
        .insert_resource(FlockPopulation::new(1500, 3))
        .init_resource::<Wind>()
        // The rule runs in the simulation's own step, after the plugin's forces (so the forces
        // add up in the same order every step), and before the boids move.
        .add_systems(
            FixedUpdate,
            (change_wind, blow)
                .chain()
                .in_set(BoidsSystems::Steer)
                .after(SteeringSystems::Hunt),
        )
        .add_systems(Update, draw_wind)
        .run();
}

/// The wind veers slowly round the compass and comes in gusts: about four seconds of wind, then
/// about four of calm.
fn change_wind(time: Res<Time>, mut wind: ResMut<Wind>) {
    let t = time.elapsed_secs();
    let gust = (t * 0.8).sin().max(0.0);
    wind.0 = Vec2::from_angle(t * 0.2) * 150.0 * gust;
}

/// The rule: every boid is pushed downwind. It only adds to [`Acceleration`], as the plugin's
/// own forces do; integration then applies it within the flock's speed limits. (A rule that
/// steers, as the plugin's do, would add `bevy_murmuration::steering::steer(..)` instead.)
fn blow(wind: Res<Wind>, mut boids: Query<&mut Acceleration, With<Boid>>) {
    if wind.0 == Vec2::ZERO {
        return;
    }
    for mut acceleration in &mut boids {
        acceleration.0 += wind.0;
    }
}

/// An arrow in the middle of the sky shows which way the wind blows, and how hard.
fn draw_wind(wind: Res<Wind>, mut gizmos: Gizmos) {
    gizmos.arrow_2d(Vec2::ZERO, wind.0 * 1.5, Color::WHITE);
}
