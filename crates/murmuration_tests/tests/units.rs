//! Strategy-game units, in both dimensions: selection rules, move orders, a neat crowd that
//! stops without jitter, and sliding round an obstacle.

mod common;

use bevy::prelude::*;
use common::*;
use murmuration_sim::math::{Region, Vector};
use murmuration_sim::prelude::*;
use murmuration_sim::units::MoveOrder;
use murmuration_sim::units::OrderMarker;
use murmuration_sim::units::Selected;
use murmuration_sim::units::select;
use murmuration_sim::{Unit, UnitCommand};

fn unit_params(separation_weight: f32) -> FlockParams {
    FlockParams {
        max_speed: 90.0,
        max_force: 300.0,
        perception_radius: 40.0,
        separation_distance: 20.0,
        separation_weight,
        field_of_view: 360.0,
        ..FlockParams::default()
    }
}

/// A world 1000 x 800 (and 800 deep in 3D, from -400 to 400, so that units at depth 0 are in
/// its middle).
fn unit_app(separation_weight: f32) -> App {
    let world = Region::from_center_size(xyz([500.0, 400.0, 0.0]), xyz([1000.0, 800.0, 800.0]));
    app(
        unit_params(separation_weight),
        SimulationBounds::turn_back(world),
    )
}

/// The box from `a` to `b` (either corner order), `depth` deep round depth 0 in 3D.
fn area(a: [f32; 2], b: [f32; 2], depth: f32) -> Region {
    Region::from_corners(
        xyz([a[0], a[1], -depth / 2.0]),
        xyz([b[0], b[1], depth / 2.0]),
    )
}

fn spawn_squad(app: &mut App, origin: Vector, n: usize) -> Vec<Entity> {
    (0..n)
        .map(|i| {
            let p = origin + xyz([(i % 6) as f32 * 26.0, (i / 6) as f32 * 26.0, 0.0]);
            app.world_mut().spawn((Unit, Position(p))).id()
        })
        .collect()
}

fn send(app: &mut App, command: UnitCommand) {
    app.world_mut().write_message(command);
    app.update();
}

fn selected(app: &mut App) -> Vec<Entity> {
    let mut q = app.world_mut().query_filtered::<Entity, With<Selected>>();
    let mut v: Vec<_> = q.iter(app.world()).collect();
    v.sort();
    v
}

#[test]
fn selection_rules() {
    let e = |i: u32| Entity::from_raw_u32(i + 1).unwrap();
    let units = [
        (e(0), xyz([0.0, 0.0, 0.0]), false),
        (e(1), xyz([30.0, 0.0, 0.0]), true),
        (e(2), xyz([100.0, 100.0, 0.0]), false),
    ];
    let at = |point, add| UnitCommand::SelectAt { point, add };
    // A click picks the nearest unit within the pick radius, replacing the selection.
    assert_eq!(
        select(&at(xyz([4.0, 3.0, 0.0]), false), &units, 12.0),
        Some(vec![e(0)])
    );
    // With Shift it adds.
    assert_eq!(
        select(&at(xyz([4.0, 3.0, 0.0]), true), &units, 12.0),
        Some(vec![e(1), e(0)])
    );
    // Empty ground clears, unless Shift.
    assert_eq!(
        select(&at(xyz([60.0, 60.0, 0.0]), false), &units, 12.0),
        Some(vec![])
    );
    assert_eq!(
        select(&at(xyz([60.0, 60.0, 0.0]), true), &units, 12.0),
        Some(vec![e(1)])
    );
    // A rectangle (either corner order) takes every unit inside.
    let rect = area([120.0, 120.0], [-10.0, -10.0], 20.0);
    let inside = UnitCommand::SelectIn { rect, add: false };
    assert_eq!(select(&inside, &units, 12.0), Some(vec![e(0), e(1), e(2)]));
    let small = UnitCommand::SelectIn {
        rect: area([20.0, -5.0], [200.0, 5.0], 10.0),
        add: false,
    };
    assert_eq!(select(&small, &units, 12.0), Some(vec![e(1)]));
}

#[test]
fn a_unit_stands_still_until_ordered() {
    let mut app = unit_app(1.6);
    let squad = spawn_squad(&mut app, xyz([300.0, 300.0, 0.0]), 6);
    step(&mut app, 120);
    for &u in &squad {
        let v = app.world().get::<Velocity>(u).unwrap().length();
        assert!(v < 1e-3, "a unit without orders moves at {v}");
        assert!(app.world().get::<Arrive>(u).is_some());
    }
}

#[test]
fn ordered_units_spread_round_the_point_and_stop_without_jitter() {
    let mut app = unit_app(1.6);
    let squad = spawn_squad(&mut app, xyz([100.0, 100.0, 0.0]), 24);
    let bystanders = spawn_squad(&mut app, xyz([100.0, 600.0, 0.0]), 6);
    app.update();
    send(
        &mut app,
        UnitCommand::SelectIn {
            rect: area([50.0, 50.0], [300.0, 300.0], 100.0),
            add: false,
        },
    );
    let mut expected = squad.clone();
    expected.sort();
    assert_eq!(selected(&mut app), expected);
    let target = xyz([650.0, 420.0, 0.0]);
    send(&mut app, UnitCommand::MoveTo { target });
    // Only the selected units got the order.
    for &u in &squad {
        assert_eq!(app.world().get::<Arrive>(u).unwrap().target, target);
        assert!(app.world().get::<MoveOrder>(u).is_some());
    }
    for &u in &bystanders {
        assert!(app.world().get::<MoveOrder>(u).is_none());
    }
    step(&mut app, 64 * 15);
    // Settle check: within a crowd radius of the point, not stacked, still.
    let positions: Vec<Vector> = squad
        .iter()
        .map(|&u| app.world().get::<Position>(u).unwrap().0)
        .collect();
    let farthest = positions
        .iter()
        .map(|p| p.distance(target))
        .fold(0.0, f32::max);
    let closest_pair = positions
        .iter()
        .enumerate()
        .flat_map(|(i, a)| positions[i + 1..].iter().map(move |b| a.distance(*b)))
        .fold(f32::INFINITY, f32::min);
    println!("farthest {farthest}, closest pair {closest_pair}");
    assert!(farthest < 90.0, "a unit stopped {farthest} from the target");
    assert!(
        closest_pair > 12.0,
        "two units {closest_pair} apart (separation 20)"
    );
    for &u in &squad {
        let v = app.world().get::<Velocity>(u).unwrap().length();
        assert!(v < 0.5, "still moving at {v}");
        assert!(app.world().get::<MoveOrder>(u).unwrap().settled);
    }
    // And it stays so: in the next five seconds no unit moves more than a unit (measured: 0.1,
    // the last of the separation easing overlapping neighbours apart), and after that not at
    // all (the dead band lets the crowd come to rest).
    step(&mut app, 64 * 5);
    let later: Vec<Vector> = squad
        .iter()
        .map(|&u| app.world().get::<Position>(u).unwrap().0)
        .collect();
    for (p, q) in positions.iter().zip(&later) {
        assert!(p.distance(*q) < 1.0, "drifted {}", p.distance(*q));
    }
    step(&mut app, 64 * 5);
    for (&u, q) in squad.iter().zip(&later) {
        let moved = app.world().get::<Position>(u).unwrap().0.distance(*q);
        assert!(moved < 0.01, "still drifting {moved} after 20 s");
    }
    // The marker went once everyone settled.
    let mut markers = app.world_mut().query::<&OrderMarker>();
    assert_eq!(markers.iter(app.world()).count(), 0);
}

#[test]
fn without_separation_units_stack_on_the_point() {
    let mut app = unit_app(0.0);
    let squad = spawn_squad(&mut app, xyz([100.0, 100.0, 0.0]), 12);
    app.update();
    send(
        &mut app,
        UnitCommand::SelectIn {
            rect: area([0.0, 0.0], [400.0, 400.0], 100.0),
            add: false,
        },
    );
    send(
        &mut app,
        UnitCommand::MoveTo {
            target: xyz([600.0, 400.0, 0.0]),
        },
    );
    step(&mut app, 64 * 15);
    let positions: Vec<Vector> = squad
        .iter()
        .map(|&u| app.world().get::<Position>(u).unwrap().0)
        .collect();
    let spread = positions
        .iter()
        .map(|p| p.distance(xyz([600.0, 400.0, 0.0])))
        .fold(0.0, f32::max);
    assert!(
        spread < 8.0,
        "without separation they pile up on the point: {spread}"
    );
}

#[test]
fn a_unit_slides_round_an_obstacle_in_its_way() {
    let mut app = unit_app(1.6);
    let unit = spawn_squad(&mut app, xyz([200.0, 400.0, 0.0]), 1)[0];
    // Dead centre on the straight line to the target.
    app.world_mut()
        .spawn((Obstacle::round(60.0), Position(xyz([450.0, 400.0, 0.0]))));
    app.update();
    send(
        &mut app,
        UnitCommand::SelectAt {
            point: xyz([200.0, 400.0, 0.0]),
            add: false,
        },
    );
    let target = xyz([750.0, 400.0, 0.0]);
    send(&mut app, UnitCommand::MoveTo { target });
    let mut closest = f32::INFINITY;
    let mut arrived_at = None;
    for i in 0..64 * 25 {
        step(&mut app, 1);
        let p = app.world().get::<Position>(unit).unwrap().0;
        closest = closest.min(p.distance(xyz([450.0, 400.0, 0.0])));
        if arrived_at.is_none() && p.distance(target) < 5.0 {
            arrived_at = Some(i);
        }
    }
    let p = app.world().get::<Position>(unit).unwrap().0;
    assert!(p.distance(target) < 5.0, "stuck at {p}");
    assert!(
        closest >= 60.0 - 1e-3,
        "went through the obstacle: {closest} from its centre"
    );
    println!("arrived after {:?} steps", arrived_at);
}
