//! Arrive: a unit slows down, stops on its target, and stays.

mod common;

use common::*;
use murmuration_sim::math::Vector;
use murmuration_sim::prelude::*;

#[test]
fn a_unit_stops_within_one_unit_of_its_target_and_stays() {
    let bounds = SimulationBounds::turn_back(rect(800.0, 600.0));
    let mut app = app(FlockParams::default(), bounds);
    let target = xyz([600.0, 400.0, 400.0]);
    let unit = spawn_boid(&mut app, xyz([100.0, 100.0, 100.0]), Vector::ZERO, 0);
    app.world_mut().entity_mut(unit).insert(Arrive::new(target));
    let mut top_speed: f32 = 0.0;
    step(&mut app, 64 * 10);
    for _ in 0..64 * 5 {
        step(&mut app, 1);
        let p = app.world().get::<Position>(unit).unwrap().0;
        let v = app.world().get::<Velocity>(unit).unwrap().0;
        top_speed = top_speed.max(v.length());
        assert!(p.distance(target) < 1.0, "drifted to {p}");
    }
    assert!(top_speed < 1.0, "still moving at {top_speed}");
}

#[test]
fn a_unit_slows_down_inside_the_slow_radius() {
    let bounds = SimulationBounds::turn_back(rect(800.0, 600.0));
    let mut app = app(FlockParams::default(), bounds);
    let target = xyz([600.0, 300.0, 300.0]);
    let unit = spawn_boid(&mut app, xyz([100.0, 300.0, 300.0]), Vector::ZERO, 0);
    app.world_mut().entity_mut(unit).insert(Arrive::new(target));
    let mut far_speed: f32 = 0.0;
    let mut near_speed: Option<f32> = None;
    for _ in 0..64 * 8 {
        step(&mut app, 1);
        let p = app.world().get::<Position>(unit).unwrap().0;
        let s = app.world().get::<Velocity>(unit).unwrap().0.length();
        let d = p.distance(target);
        if d > 200.0 {
            far_speed = far_speed.max(s);
        }
        if near_speed.is_none() && d < 20.0 {
            near_speed = Some(s);
        }
    }
    assert!(far_speed > 115.0, "full speed far away: {far_speed}");
    let near = near_speed.expect("it arrived");
    assert!(near < 45.0, "slow near the target: {near}");
}

/// Twelve units ordered to one point; returns the closest pair and the farthest from the target.
fn crowd_at_one_target(separation_weight: f32) -> (f32, f32) {
    let bounds = SimulationBounds::turn_back(rect(800.0, 600.0));
    let params = FlockParams {
        separation_weight,
        ..FlockParams::default()
    };
    let mut app = app(params, bounds);
    let target = xyz([400.0, 300.0, 300.0]);
    for i in 0..12 {
        let start = xyz([
            100.0 + (i % 4) as f32 * 30.0,
            100.0 + (i / 4) as f32 * 30.0,
            300.0,
        ]);
        let unit = spawn_boid(&mut app, start, Vector::ZERO, 0);
        app.world_mut().entity_mut(unit).insert(Arrive::new(target));
    }
    step(&mut app, 64 * 12);
    let all = boids(&mut app);
    let closest_pair = all
        .iter()
        .enumerate()
        .flat_map(|(i, a)| all[i + 1..].iter().map(move |b| a.1.distance(b.1)))
        .fold(f32::INFINITY, f32::min);
    let farthest = all.iter().map(|b| b.1.distance(target)).fold(0.0, f32::max);
    (closest_pair, farthest)
}

#[test]
fn separation_keeps_units_from_stacking_on_a_shared_target() {
    // The tutorial's strategy-game demo: with separation off, every unit ends on the same spot.
    let (stacked, _) = crowd_at_one_target(0.0);
    assert!(
        stacked < 1.0,
        "without separation the closest pair is {stacked} apart"
    );
    // With it they stand apart around the target.
    let (closest, farthest) = crowd_at_one_target(1.6);
    assert!(
        closest > 5.0,
        "with separation the closest pair is {closest} apart"
    );
    assert!(
        farthest < 60.0,
        "and all stand around the target: the farthest is {farthest} away"
    );
}
