//! Obstacles of every shape: no boid ever inside one or through a wall, at top speed and the
//! longest step; a flock flows along a wall; moved and removed obstacles take effect on the
//! next step; many obstacles on one spot stay cheap.
//!
//! The checks here do not ask the simulation's own geometry: they test each move against the
//! shapes' edges and insides written out again, the plain way.

mod common;

use bevy::prelude::*;
use common::*;
use murmuration_sim::MAX_DT;
use murmuration_sim::math::{DIM, Vector};
use murmuration_sim::obstacles::{ObstacleIndex, ObstacleSettings};
use murmuration_sim::prelude::*;
use murmuration_sim::stats::FlockStats;

/// One obstacle as the checks see it.
#[derive(Clone)]
enum Shape {
    /// A solid box of half size `half` about `at`, turned by `rotation`.
    Block {
        at: Vector,
        rotation: Quat,
        half: Vector,
    },
    /// A solid ball.
    Round { at: Vector, radius: f32 },
    /// A solid polygon (2D), its ring in world space.
    #[cfg_attr(feature = "3d", allow(dead_code))]
    Ring(Vec<Vec2>),
    /// A line of walls (2D), in world space.
    #[cfg_attr(feature = "3d", allow(dead_code))]
    Wall(Vec<Vec2>),
}

/// `v` in the frame of a box at `at` turned by `rotation`.
fn local(p: Vector, at: Vector, rotation: Quat) -> Vector {
    let mut v = Vec3::ZERO;
    for i in 0..DIM {
        v[i] = p[i] - at[i];
    }
    let l = rotation.inverse() * v;
    Vector::from_slice(&l.to_array()[..DIM])
}

fn even_odd(p: Vec2, ring: &[Vec2]) -> bool {
    let mut inside = false;
    for i in 0..ring.len() {
        let (a, b) = (ring[i], ring[(i + 1) % ring.len()]);
        if (a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x) {
            inside = !inside;
        }
    }
    inside
}

/// Whether the segments `p..q` and `a..b` cross, strictly (touching is not crossing).
fn cross(p: Vec2, q: Vec2, a: Vec2, b: Vec2) -> bool {
    let side = |o: Vec2, x: Vec2, y: Vec2| (y - x).perp_dot(o - x);
    let (s1, s2) = (side(p, a, b), side(q, a, b));
    let (s3, s4) = (side(a, p, q), side(b, p, q));
    s1 * s2 < 0.0 && s3 * s4 < 0.0
}

fn as_2d(v: Vector) -> Vec2 {
    Vec2::new(v[0], v[1])
}

impl Shape {
    /// A box the shape lies in.
    fn bounds(&self) -> (Vector, Vector) {
        let points = |points: &[Vec2]| {
            let (lo, hi) = points.iter().fold(
                (Vec2::splat(f32::INFINITY), Vec2::splat(f32::NEG_INFINITY)),
                |(lo, hi), &p| (lo.min(p), hi.max(p)),
            );
            (xyz([lo.x, lo.y, 0.0]), xyz([hi.x, hi.y, 0.0]))
        };
        match self {
            Shape::Block { at, half, .. } => (*at - half.length(), *at + half.length()),
            Shape::Round { at, radius } => (*at - *radius, *at + *radius),
            Shape::Ring(ring) => points(ring),
            Shape::Wall(wall) => points(wall),
        }
    }

    /// How deep `p` is inside the shape (0 outside).
    fn depth(&self, p: Vector) -> f32 {
        match self {
            Shape::Block { at, rotation, half } => {
                let l = local(p, *at, *rotation);
                let gap = (*half - l.abs()).min_element();
                gap.max(0.0)
            }
            Shape::Round { at, radius } => (radius - p.distance(*at)).max(0.0),
            Shape::Ring(ring) => {
                let p = as_2d(p);
                if !even_odd(p, ring) {
                    return 0.0;
                }
                (0..ring.len())
                    .map(|i| {
                        let (a, b) = (ring[i], ring[(i + 1) % ring.len()]);
                        let e = b - a;
                        let t = ((p - a).dot(e) / e.length_squared()).clamp(0.0, 1.0);
                        p.distance(a + e * t)
                    })
                    .fold(f32::INFINITY, f32::min)
            }
            Shape::Wall(_) => 0.0,
        }
    }

    /// Whether the move from `p` to `q` passes through the shape: crosses a wall, or goes
    /// deeper than `tolerance` into a solid anywhere along it (sampled finely).
    fn passed_through(&self, p: Vector, q: Vector, tolerance: f32) -> bool {
        let (lo, hi) = self.bounds();
        if (lo - p.max(q)).max_element() > 0.0 || (p.min(q) - hi).max_element() > 0.0 {
            return false;
        }
        if let Shape::Wall(points) = self {
            return points
                .windows(2)
                .any(|w| cross(as_2d(p), as_2d(q), w[0], w[1]));
        }
        let samples = 64;
        (0..=samples).any(|k| self.depth(p.lerp(q, k as f32 / samples as f32)) > tolerance)
    }
}

/// The obstacles of the test world and their shapes as the checks see them: blocks (one turned)
/// and balls in both dimensions; in 2D also a wall, a fence line, a concave polygon and a
/// triangle.
fn course() -> Vec<(Obstacle, Vector, Quat, Shape)> {
    let mut out = Vec::new();
    let mut block = |size: Vector, at: Vector, rotation: Quat| {
        out.push((
            Obstacle::block(size),
            at,
            rotation,
            Shape::Block {
                at,
                rotation,
                half: size * 0.5,
            },
        ));
    };
    let turn = if DIM == 2 {
        Quat::from_rotation_z(0.5)
    } else {
        Quat::from_rotation_z(0.5) * Quat::from_rotation_y(0.3)
    };
    block(xyz([200.0, 60.0, 120.0]), xyz([600.0, 450.0, 400.0]), turn);
    block(
        xyz([20.0, 300.0, 500.0]),
        xyz([900.0, 300.0, 400.0]),
        Quat::IDENTITY,
    );
    for (at, radius) in [
        (xyz([200.0, 650.0, 300.0]), 50.0),
        (xyz([400.0, 200.0, 500.0]), 35.0),
    ] {
        out.push((
            Obstacle::round(radius),
            at,
            Quat::IDENTITY,
            Shape::Round { at, radius },
        ));
    }
    #[cfg(not(feature = "3d"))]
    {
        let place =
            |at: Vec2, points: &[Vec2]| -> Vec<Vec2> { points.iter().map(|&p| p + at).collect() };
        let wall = [Vec2::new(0.0, -200.0), Vec2::new(0.0, 200.0)];
        out.push((
            Obstacle::from(Segment2d::new(wall[0], wall[1])),
            Vec2::new(300.0, 300.0),
            Quat::IDENTITY,
            Shape::Wall(place(Vec2::new(300.0, 300.0), &wall)),
        ));
        let fence = [
            Vec2::new(-150.0, 0.0),
            Vec2::new(-50.0, 80.0),
            Vec2::new(50.0, -80.0),
            Vec2::new(150.0, 0.0),
        ];
        out.push((
            Obstacle::from(Polyline2d::new(fence)),
            Vec2::new(700.0, 150.0),
            Quat::IDENTITY,
            Shape::Wall(place(Vec2::new(700.0, 150.0), &fence)),
        ));
        // A U, open upward: concave.
        let u = [
            Vec2::new(-100.0, -100.0),
            Vec2::new(100.0, -100.0),
            Vec2::new(100.0, 100.0),
            Vec2::new(50.0, 100.0),
            Vec2::new(50.0, -50.0),
            Vec2::new(-50.0, -50.0),
            Vec2::new(-50.0, 100.0),
            Vec2::new(-100.0, 100.0),
        ];
        out.push((
            Obstacle::from(Polygon::new(u)),
            Vec2::new(1000.0, 560.0),
            Quat::IDENTITY,
            Shape::Ring(place(Vec2::new(1000.0, 560.0), &u)),
        ));
        // A triangle given clockwise.
        let triangle = [
            Vec2::new(0.0, 60.0),
            Vec2::new(60.0, -40.0),
            Vec2::new(-60.0, -40.0),
        ];
        out.push((
            Obstacle::from(Triangle2d::new(triangle[0], triangle[1], triangle[2])),
            Vec2::new(1050.0, 200.0),
            Quat::IDENTITY,
            Shape::Ring(place(Vec2::new(1050.0, 200.0), &triangle)),
        ));
    }
    out
}

/// A flock of `count` fast boids (top speed 400, 40 units a step) in a 1200 x 800 world that
/// turns them back, stepping at [`MAX_DT`], with the course's obstacles; the boids that start in
/// or near an obstacle are taken out.
fn course_app(count: usize, seed: u64) -> (App, Vec<Shape>) {
    let params = FlockParams {
        max_speed: 400.0,
        min_speed: 150.0,
        max_force: 800.0,
        ..FlockParams::default()
    };
    let bounds = SimulationBounds::turn_back(rect(1200.0, 800.0));
    let mut app = flock_app(params, bounds, count, seed);
    app.insert_resource(Time::<Fixed>::from_seconds(MAX_DT as f64));
    app.world_mut().flush();
    let course = course();
    let shapes: Vec<Shape> = course.iter().map(|c| c.3.clone()).collect();
    for (e, p, _) in boids(&mut app) {
        let near = shapes.iter().any(|s| {
            let probe = |d: Vector| s.depth(p + d) > 0.0 || s.passed_through(p, p + d, 0.0);
            (0..DIM).any(|i| {
                let mut d = Vector::ZERO;
                d[i] = 5.0;
                probe(d) || probe(-d)
            }) || s.depth(p) > 0.0
        });
        if near {
            app.world_mut().despawn(e);
        }
    }
    for (obstacle, at, rotation, _) in course {
        app.world_mut()
            .spawn((obstacle, Position(at), Transform::from_rotation(rotation)));
    }
    (app, shapes)
}

/// Steps the course `steps` times, checking every move of every boid; returns how many boids
/// came within the avoid distance of an obstacle (to show the test met them).
fn fly_the_course(count: usize, seed: u64, steps: usize) -> usize {
    let (mut app, shapes) = course_app(count, seed);
    let avoid = ObstacleSettings::default().avoid_distance;
    step(&mut app, 1);
    let mut before = boids(&mut app);
    let mut close = 0;
    for s in 0..steps {
        step(&mut app, 1);
        let after = boids(&mut app);
        assert_eq!(before.len(), after.len());
        for ((e, p, _), (_, q, v)) in before.iter().zip(&after) {
            assert!(
                q.is_finite() && v.is_finite(),
                "boid {e} at step {s}: {q} {v}"
            );
            // A move that slid along a surface is not straight: the chord from its start to its
            // end may cut a solid's corner by a little (a tenth of its length at most here, far
            // less than passing through the thinnest solid would).
            let cut = 0.1 * p.distance(*q);
            for (k, shape) in shapes.iter().enumerate() {
                assert!(
                    shape.depth(*q) <= 1e-3,
                    "step {s}: boid {e} inside obstacle {k} at {q}"
                );
                if shape.passed_through(*p, *q, cut) {
                    let index = app.world().resource::<ObstacleIndex>();
                    panic!(
                        "step {s}: boid {e} moved from {p} to {q} through obstacle {k} ({:?}, {:?})",
                        index.sweep(*p, *q - *p),
                        index.surface(*q, 1.0)
                    );
                }
            }
            // (The simulation's own index, only to count that the test met the obstacles.)
            let index = app.world().resource::<ObstacleIndex>();
            if index.surface(*q, avoid).is_some_and(|s| s.distance < avoid) {
                close += 1;
            }
        }
        before = after;
    }
    close
}

#[test]
fn no_boid_is_ever_inside_or_through_an_obstacle() {
    let close = fly_the_course(1_000, 7, 1_000);
    assert!(close > 1_000, "boids met the obstacles only {close} times");
}

#[test]
#[ignore = "long tier: 10,000 boids for 3,000 steps through every shape"]
fn ten_thousand_boids_never_inside_or_through_an_obstacle() {
    let close = fly_the_course(10_000, 8, 3_000);
    assert!(close > 10_000, "boids met the obstacles only {close} times");
}

#[test]
fn a_boid_flows_along_a_wall_instead_of_bouncing() {
    // A long block across the world; a boid flies at it at 30 degrees.
    let bounds = SimulationBounds::turn_back(rect(2000.0, 800.0));
    let mut app = app(FlockParams::default(), bounds);
    let wall_y = 400.0;
    app.world_mut().spawn((
        Obstacle::block(xyz([2000.0, 20.0, 800.0])),
        Position(xyz([1000.0, wall_y, 400.0])),
    ));
    let heading = xyz([0.866, 0.5, 0.0]) * 120.0;
    let b = spawn_boid(&mut app, xyz([100.0, 250.0, 400.0]), heading, 0);
    let mut closest = f32::INFINITY;
    for _ in 0..600 {
        step(&mut app, 1);
        let p = app.world().get::<Position>(b).unwrap().0;
        let v = app.world().get::<Velocity>(b).unwrap().0;
        let gap = wall_y - 10.0 - p[1];
        closest = closest.min(gap);
        assert!(gap > 0.0, "the boid got into the wall at {p}");
        assert!(v[0] > 0.0, "the boid turned back at {p}: {v}");
    }
    let p = app.world().get::<Position>(b).unwrap().0;
    assert!(closest < 40.0, "it came near the wall: {closest}");
    assert!(p[0] > 800.0, "it went on along the wall: {p}");
}

#[test]
fn moved_and_removed_obstacles_take_effect_on_the_next_step() {
    let bounds = SimulationBounds::turn_back(rect(800.0, 800.0));
    let mut app = app(FlockParams::default(), bounds);
    let b = spawn_boid(
        &mut app,
        xyz([400.0, 400.0, 400.0]),
        xyz([0.0, 60.0, 0.0]),
        0,
    );
    let block = app
        .world_mut()
        .spawn((
            Obstacle::block(Vector::splat(100.0)),
            Position(xyz([100.0, 100.0, 100.0])),
        ))
        .id();
    step(&mut app, 2);
    let index = app.world().resource::<ObstacleIndex>();
    assert!(!index.is_empty());
    // Still obstacles are indexed once, not every step.
    let builds = index.builds();
    step(&mut app, 10);
    assert_eq!(app.world().resource::<ObstacleIndex>().builds(), builds);
    // Put the block on the boid: the next step takes it out.
    let p = app.world().get::<Position>(b).unwrap().0;
    app.world_mut().get_mut::<Position>(block).unwrap().0 = p;
    step(&mut app, 1);
    let q = app.world().get::<Position>(b).unwrap().0;
    let offset = (q - p).abs().max_element();
    assert!(
        offset >= 49.0,
        "the boid is out of the moved block: {p} -> {q}"
    );
    // Remove it: the index is empty on the next step.
    app.world_mut().despawn(block);
    step(&mut app, 1);
    assert!(app.world().resource::<ObstacleIndex>().is_empty());
}

#[test]
fn ten_thousand_obstacles_on_one_spot_are_one() {
    let bounds = SimulationBounds::wrap(rect(600.0, 600.0));
    let mut app = flock_app(FlockParams::default(), bounds, 500, 3);
    for _ in 0..10_000 {
        app.world_mut()
            .spawn((Obstacle::round(40.0), Position(xyz([300.0, 300.0, 300.0]))));
    }
    step(&mut app, 50);
    assert_eq!(app.world().resource::<ObstacleIndex>().parts(), 1);
    for (e, p, v) in boids(&mut app) {
        assert!(p.is_finite() && v.is_finite(), "{e}: {p} {v}");
        assert!(
            p.distance(xyz([300.0, 300.0, 300.0])) >= 40.0 - 1e-3,
            "{e} inside at {p}"
        );
    }
    assert_eq!(app.world().resource::<FlockStats>().repaired, 0);
}
