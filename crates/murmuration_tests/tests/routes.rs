//! Routes round walls: units ordered through rooms and doors all arrive, in a time the route's
//! length bounds, never inside a wall, and one pushed off its route finds it again; the route
//! is within 1.1x of the shortest path round the walls (worked out here by brute force), planned
//! in the step or in the background; a school seeking food behind walls finds its way to it.

mod common;

use bevy::prelude::*;
use common::*;
use murmuration_sim::math::{DIM, Region, Vector};
use murmuration_sim::prelude::*;
use murmuration_sim::routes::{RouteSettings, Routes, RoutesPlugin};
use murmuration_sim::units::MoveOrder;

/// A wall as a box: centre and half size.
type Wall = (Vector, Vector);

/// The world: three rooms in a row, 600 wide, 400 high (and 200 deep).
fn world() -> SimulationBounds {
    SimulationBounds::turn_back(Region::from_center_size(
        Vector::ZERO,
        xyz([600.0, 400.0, 200.0]),
    ))
}

/// Two walls across the world, 12 thick, each with a 100-wide door at an opposite end (the
/// full depth in 3D): the straight line from the first room to the third crosses both.
fn walls() -> Vec<Wall> {
    vec![
        (xyz([-100.0, -50.0, 0.0]), xyz([6.0, 150.0, 100.0])),
        (xyz([100.0, 50.0, 0.0]), xyz([6.0, 150.0, 100.0])),
    ]
}

fn spawn_walls(app: &mut App, walls: &[Wall]) {
    for &(at, half) in walls {
        app.world_mut()
            .spawn((Obstacle::block(half * 2.0), Position(at)));
    }
}

/// How far `p` is outside the nearest wall (negative inside).
fn outside(walls: &[Wall], p: Vector) -> f32 {
    walls
        .iter()
        .map(|&(c, h)| {
            let q = (p - c).abs() - h;
            q.max(Vector::ZERO).length() + q.max_element().min(0.0)
        })
        .fold(f32::INFINITY, f32::min)
}

/// The shortest path from `a` to `b` (at the same depth) round `walls` grown by `margin`,
/// through the grown walls' corners: a visibility graph, searched by brute force.
fn shortest(walls: &[Wall], margin: f32, a: Vector, b: Vector) -> f32 {
    let grown: Vec<Wall> = walls
        .iter()
        .map(|&(c, h)| {
            let mut h = h + Vector::splat(margin);
            if DIM == 3 {
                // The walls fill the depth: no way over or under them.
                h[DIM - 1] = 1e6;
            }
            (c, h)
        })
        .collect();
    let mut nodes = vec![a, b];
    for &(c, h) in &grown {
        for sx in [-1.0, 1.0] {
            for sy in [-1.0, 1.0] {
                let mut corner = a;
                corner[0] = c[0] + sx * (h[0] + 0.01);
                corner[1] = c[1] + sy * (h[1] + 0.01);
                if outside(&grown, corner) >= 0.0 {
                    nodes.push(corner);
                }
            }
        }
    }
    let clear = |p: Vector, q: Vector| {
        let n = (p.distance(q) / 0.25).ceil().max(1.0) as usize;
        (0..=n).all(|k| outside(&grown, p.lerp(q, k as f32 / n as f32)) >= -1e-3)
    };
    let mut best = vec![f32::INFINITY; nodes.len()];
    best[0] = 0.0;
    let mut done = vec![false; nodes.len()];
    while let Some(i) = (0..nodes.len())
        .filter(|&i| !done[i] && best[i].is_finite())
        .min_by(|&x, &y| best[x].total_cmp(&best[y]))
    {
        done[i] = true;
        for j in 0..nodes.len() {
            if !done[j] && clear(nodes[i], nodes[j]) {
                best[j] = best[j].min(best[i] + nodes[i].distance(nodes[j]));
            }
        }
    }
    best[1]
}

fn unit_params() -> FlockParams {
    FlockParams {
        max_speed: 90.0,
        max_force: 300.0,
        perception_radius: 40.0,
        separation_distance: 20.0,
        separation_weight: 1.6,
        field_of_view: 360.0,
        ..FlockParams::default()
    }
}

fn length(points: &[Vector]) -> f32 {
    points.windows(2).map(|w| w[0].distance(w[1])).sum()
}

/// Eight units ordered from the first room to the third: the route goes through both doors and
/// is within 1.1x of the shortest path; every unit arrives within twice the time the route takes
/// at top speed, plus the time to form a crowd, and none is ever inside a wall, even the one
/// pushed off its route into a corner of the first room halfway.
#[test]
fn units_route_through_rooms_and_doors() {
    order_through_rooms(false);
}

/// The same order with the routes planned on the `AsyncComputeTaskPool`: the step of the order
/// does not wait for them (the units steer straight meanwhile), the route is the same once
/// ready, and every unit arrives in the same bound.
#[test]
fn routes_planned_in_the_background_lead_the_same_way() {
    order_through_rooms(true);
}

/// [`units_route_through_rooms_and_doors`], with the routes planned in the step or in the
/// background.
fn order_through_rooms(background: bool) {
    let bounds = world();
    let mut app = app(unit_params(), bounds);
    if background {
        app.insert_resource(RouteSettings {
            background_above: 0,
            ..default()
        });
    }
    let walls = walls();
    spawn_walls(&mut app, &walls);
    let start = xyz([-250.0, 0.0, 0.0]);
    let target = xyz([250.0, 0.0, 0.0]);
    let units: Vec<Entity> = (0..8)
        .map(|i| {
            let offset = xyz([(i % 4) as f32 * 24.0, (i / 4) as f32 * 24.0, 0.0]);
            app.world_mut().spawn((Unit, Position(start + offset))).id()
        })
        .collect();
    app.update();
    app.world_mut().write_message(UnitCommand::SelectIn {
        rect: Region::from_center_size(start, Vector::splat(200.0)),
        add: false,
    });
    app.world_mut()
        .write_message(UnitCommand::MoveTo { target });
    step(&mut app, 2);
    if background {
        let routes = app.world().resource::<Routes>();
        assert!(
            routes.is_planning() && !routes.is_routing(),
            "the route was not left to the background"
        );
        // Steps go on while it is planned; give the pool's thread the time it needs.
        let mut waited = 0;
        while !app.world().resource::<Routes>().is_routing() {
            assert!(waited < 10_000, "the background plan never finished");
            std::thread::sleep(std::time::Duration::from_millis(1));
            step(&mut app, 1);
            waited += 1;
        }
    }

    let routes = app.world().resource::<Routes>();
    assert!(routes.is_routing(), "no route was planned");
    let path = routes.path(&bounds, start, target, 2.0, 10_000);
    let route = length(&path);
    assert!(path.last().unwrap().distance(target) < 0.5);
    let clearance = RouteSettings::default().clearance;
    let best = shortest(&walls, clearance, start, target);
    assert!(
        route <= best * 1.1,
        "the route is {route}, {}x the shortest path {best}",
        route / best
    );
    assert!(
        route > start.distance(target) * 1.2,
        "the route goes through the walls"
    );

    let speed = unit_params().max_speed;
    let bound = 2.0 * route / speed + 5.0;
    let steps = (bound * 64.0) as u64;
    let pushed = units[0];
    let mut arrived_at = None;
    for k in 0..steps {
        if k == steps / 4 {
            // A unit pushed off its route into a corner of the first room.
            app.world_mut().get_mut::<Position>(pushed).unwrap().0 = xyz([-280.0, -180.0, 0.0]);
        }
        step(&mut app, 1);
        for &u in &units {
            let p = app.world().get::<Position>(u).unwrap().0;
            assert!(p.is_finite());
            assert!(outside(&walls, p) > 0.0, "a unit is inside a wall at {p}");
        }
        let settled = units.iter().all(|&u| {
            app.world()
                .get::<MoveOrder>(u)
                .is_some_and(|order| order.settled)
        });
        if settled {
            arrived_at = Some(k);
            break;
        }
    }
    let Some(k) = arrived_at else {
        let far: Vec<Vector> = units
            .iter()
            .map(|&u| app.world().get::<Position>(u).unwrap().0)
            .collect();
        panic!("not every unit arrived within {bound} s: {far:?}");
    };
    for &u in &units {
        let p = app.world().get::<Position>(u).unwrap().0;
        assert!(
            p.distance(target) < 80.0,
            "a unit settled at {p}, far from {target}"
        );
    }
    println!(
        "arrived in {:.1} s (bound {bound:.1} s; route {route:.0}, shortest {best:.0})",
        k as f32 / 64.0
    );
}

/// A wall that moves every step, with routes planned in the background: each grid laid is used
/// while the next one is laid, so the units get a route all the same (a grid laid again from
/// scratch each step would never be ready).
#[test]
fn a_wall_moving_every_step_still_gets_routes_in_the_background() {
    let bounds = world();
    let mut app = app(unit_params(), bounds);
    app.insert_resource(RouteSettings {
        background_above: 0,
        ..default()
    });
    let [(first, half), second] = walls()[..] else {
        unreachable!("two walls")
    };
    spawn_walls(&mut app, &[second]);
    let moving = app
        .world_mut()
        .spawn((Obstacle::block(half * 2.0), Position(first)))
        .id();
    let start = xyz([-250.0, 0.0, 0.0]);
    app.world_mut().spawn((Unit, Position(start)));
    app.update();
    app.world_mut().write_message(UnitCommand::SelectIn {
        rect: Region::from_center_size(start, Vector::splat(100.0)),
        add: false,
    });
    app.world_mut().write_message(UnitCommand::MoveTo {
        target: xyz([250.0, 0.0, 0.0]),
    });
    let mut k = 0;
    while !app.world().resource::<Routes>().is_routing() {
        assert!(k < 10_000, "no route while the wall moves");
        let sway = if k % 2 == 0 { 1.0 } else { -1.0 };
        app.world_mut().get_mut::<Position>(moving).unwrap().0 = first + Vector::splat(sway);
        std::thread::sleep(std::time::Duration::from_millis(1));
        step(&mut app, 1);
        k += 1;
    }
    assert!(app.world().resource::<Routes>().plans() >= 1);
}

/// The share of `count` boids of a school within 100 of food behind both walls after 40 s.
fn school_at_food(routes: bool) -> f32 {
    let bounds = world();
    let mut app = App::new();
    let plugins = BoidsPlugins::new(FixedUpdate)
        .with_params(FlockParams {
            seek_weight: 1.5,
            ..FlockParams::fish()
        })
        .with_bounds(bounds);
    let plugins = if routes {
        plugins.build()
    } else {
        plugins.build().disable::<RoutesPlugin>()
    };
    app.add_plugins(MinimalPlugins)
        .add_plugins(plugins)
        .insert_resource(bevy::time::TimeUpdateStrategy::FixedTimesteps(1));
    spawn_walls(&mut app, &walls());
    let food = xyz([250.0, 0.0, 0.0]);
    app.world_mut().spawn((Attractor, Position(food)));
    app.world_mut()
        .commands()
        .queue(
            FlockSpawn::new(100, 3).with_region(Region::from_center_size(
                xyz([-230.0, 0.0, 0.0]),
                Vector::splat(80.0),
            )),
        );
    app.world_mut().flush();
    step(&mut app, 40 * 64);
    let all = boids(&mut app);
    let near = all.iter().filter(|b| b.1.distance(food) < 100.0).count();
    near as f32 / all.len() as f32
}

/// A school seeking food behind two walls finds its way to it; without routes it presses
/// against the first wall.
#[test]
fn a_school_finds_its_way_to_food_behind_walls() {
    let with = school_at_food(true);
    let without = school_at_food(false);
    println!("at the food after 40 s: {with} with routes, {without} without");
    assert!(with >= 0.7, "only {with} of the school reached the food");
    assert!(
        without < with,
        "routes did not help: {without} without, {with} with"
    );
}
