//! The panel's actions, carried out without a UI: a preset retunes the live flock, the boid
//! count spawns and despawns to the exact count, reset and clear-obstacles do what they say.

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use murmuration_egui::{ActivePreset, PanelAction, Preset, apply_panel_actions};
use murmuration_render::FlockLook;
use murmuration_sim::math::Vector;
use murmuration_sim::prelude::*;

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, BoidsPlugins::default()))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1))
        .insert_resource(FlockLook::default())
        .insert_resource(ActivePreset::default())
        .insert_resource(FlockPopulation::new(300, 2))
        .add_message::<PanelAction>()
        .add_systems(Update, apply_panel_actions);
    app.update();
    app.update();
    app
}

fn boid_count(app: &mut App) -> usize {
    let mut q = app.world_mut().query_filtered::<(), With<Boid>>();
    q.iter(app.world()).count()
}

#[test]
fn a_preset_retunes_the_live_flock() {
    let mut app = app();
    assert_eq!(boid_count(&mut app), 300);
    app.world_mut()
        .write_message(PanelAction::Preset(Preset::Fish));
    app.update();
    assert_eq!(*app.world().resource::<FlockParams>(), FlockParams::fish());
    assert_eq!(*app.world().resource::<FlockLook>(), FlockLook::fish());
    assert_eq!(app.world().resource::<ActivePreset>().0, Preset::Fish);
    assert_eq!(boid_count(&mut app), 300, "the same boids, retuned");
    // The flock now flies at the fish's speeds.
    for _ in 0..120 {
        app.update();
    }
    let mut q = app.world_mut().query_filtered::<&Velocity, With<Boid>>();
    let fish = FlockParams::fish();
    for v in q.iter(app.world()) {
        let s = v.length();
        assert!(
            s <= fish.max_speed * 1.001 && s >= fish.min_speed * 0.999,
            "{s}"
        );
    }
}

#[test]
fn the_boid_count_spawns_and_despawns_to_the_exact_count() {
    let mut app = app();
    for count in [1000, 5, 0, 777] {
        app.world_mut().write_message(PanelAction::BoidCount(count));
        app.update();
        app.update();
        assert_eq!(boid_count(&mut app), count);
    }
}

#[test]
fn clear_obstacles_removes_them_all() {
    let mut app = app();
    for i in 0..3 {
        app.world_mut().spawn((
            Obstacle::round(10.0),
            Position(Vector::splat(i as f32 * 50.0)),
        ));
    }
    app.world_mut().write_message(PanelAction::ClearObstacles);
    app.update();
    let mut q = app.world_mut().query::<&Obstacle>();
    assert_eq!(q.iter(app.world()).count(), 0);
}

#[test]
fn every_preset_has_valid_parameters() {
    for preset in Preset::ALL {
        let mut params = preset.params();
        assert!(params.validate().is_empty(), "{}", preset.name());
        assert!(!preset.look().palette.is_empty());
    }
}
