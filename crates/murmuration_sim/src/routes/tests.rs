//! The routes against brute force: the open cells against each box's distance worked out
//! directly, the flow field against a search that relaxes every link until nothing changes, on
//! random maps; and (2D) a route's length against the shortest path round the boxes.

use bevy::prelude::*;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

use super::field::FlowField;
use super::grid::{NONE, NavGrid};
use super::{RouteSettings, Routes};
use crate::bounds::SimulationBounds;
use crate::math::{DIM, Vector, per_axis, xyz};
use crate::obstacles::{Obstacle, ObstacleIndex, Placed};

/// Axis-aligned boxes: centre and half size.
type Boxes = Vec<(Vector, Vector)>;

fn world(size: [f32; 3]) -> SimulationBounds {
    SimulationBounds::turn_back(crate::math::Region::from_corners(Vector::ZERO, xyz(size)))
}

fn index_of(boxes: &Boxes, bounds: &SimulationBounds) -> ObstacleIndex {
    let obstacles: Vec<Obstacle> = boxes.iter().map(|b| Obstacle::block(b.1 * 2.0)).collect();
    let placed = obstacles.iter().zip(boxes).enumerate().map(|(i, (o, b))| {
        let placed = Placed {
            shape: o.shape(),
            at: b.0,
            rotation: Quat::IDENTITY,
        };
        (Entity::from_raw_u32(i as u32 + 1).unwrap(), placed)
    });
    let mut index = ObstacleIndex::default();
    index.rebuild(placed, bounds, 40.0, |_, why| panic!("{why}"));
    index
}

/// The signed distance from `p` to the nearest box (negative inside).
fn box_distance(boxes: &Boxes, p: Vector) -> f32 {
    boxes
        .iter()
        .map(|&(c, h)| {
            let q = (p - c).abs() - h;
            q.max(Vector::ZERO).length() + q.max_element().min(0.0)
        })
        .fold(f32::INFINITY, f32::min)
}

fn random_boxes(rng: &mut Xoshiro256PlusPlus, count: usize, size: [f32; 3]) -> Boxes {
    (0..count)
        .map(|_| {
            let c = per_axis(|a| rng.random::<f32>() * size[a]);
            let h = per_axis(|_| 4.0 + rng.random::<f32>() * 30.0);
            (c, h)
        })
        .collect()
}

/// The cheapest route from every cell to the seeds by relaxing every link until nothing
/// changes (Bellman-Ford).
fn brute_force(grid: &NavGrid, seeds: &[usize]) -> Vec<u32> {
    let mut cost = vec![NONE; grid.len()];
    for &s in seeds {
        cost[s] = 0;
    }
    loop {
        let mut changed = false;
        for i in 0..grid.len() {
            if cost[i] == NONE {
                continue;
            }
            let c = grid.lattice.coords(i);
            let here = cost[i];
            let mut better = Vec::new();
            grid.for_each_link(i, c, |j, step| {
                if here + step < cost[j] {
                    better.push((j, here + step));
                }
            });
            for (j, through) in better {
                if through < cost[j] {
                    cost[j] = through;
                    changed = true;
                }
            }
        }
        if !changed {
            return cost;
        }
    }
}

#[test]
fn the_open_cells_and_the_field_match_brute_force_on_random_maps() {
    let size = if DIM == 2 {
        [400.0, 300.0, 0.0]
    } else {
        [160.0, 120.0, 80.0]
    };
    let settings = RouteSettings::default();
    for seed in 0..12u64 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let bounds = world(size);
        let boxes = random_boxes(&mut rng, 6 + seed as usize, size);
        let index = index_of(&boxes, &bounds);
        let grid = NavGrid::build(
            &index,
            &bounds,
            settings.cell_size,
            settings.clearance,
            settings.max_cells,
        );
        let clearance = settings
            .clearance
            .max(0.51 * grid.lattice.cell.max_element());
        for i in 0..grid.len() {
            let d = box_distance(&boxes, grid.centre(i));
            if (d - clearance).abs() > 1e-3 {
                assert_eq!(grid.open[i], d >= clearance, "seed {seed} cell {i}: {d}");
            }
        }
        for _ in 0..3 {
            let goal = per_axis(|a| rng.random::<f32>() * size[a]);
            let field = FlowField::build(&grid, &bounds, goal).expect("open cells");
            let seeds: Vec<usize> = (0..grid.len()).filter(|&i| field.cost[i] == 0).collect();
            // One end per component, the goal's own where it is open.
            assert_eq!(seeds.len(), grid.components as usize, "seed {seed}");
            assert_eq!(
                field.cost,
                brute_force(&grid, &seeds),
                "seed {seed}: the search is not the shortest"
            );
            for i in 0..grid.len() {
                if field.cost[i] == NONE || field.cost[i] == 0 {
                    continue;
                }
                // The next cell is a neighbour one move cheaper.
                let next = field.next[i] as usize;
                let mut step = None;
                grid.for_each_link(i, grid.lattice.coords(i), |j, cost| {
                    if j == next {
                        step = Some(cost);
                    }
                });
                assert_eq!(Some(field.cost[i] - field.cost[next]), step, "seed {seed}");
            }
            if !field.goal_closed {
                assert_eq!(field.cost[field.goal_cell], 0);
            }
        }
    }
}

/// Routes with one field, to `goal`, over `boxes`.
fn routes_over(boxes: &Boxes, bounds: &SimulationBounds, goal: Vector) -> Routes {
    let index = index_of(boxes, bounds);
    let settings = RouteSettings::default();
    let grid = NavGrid::build(
        &index,
        bounds,
        settings.cell_size,
        settings.clearance,
        settings.max_cells,
    );
    let field = FlowField::build(&grid, bounds, goal).expect("open cells");
    Routes {
        grid: Some(grid),
        fields: vec![field],
        ..default()
    }
}

#[cfg(feature = "2d")]
fn length(points: &[Vector]) -> f32 {
    points.windows(2).map(|w| w[0].distance(w[1])).sum()
}

/// The shortest path from `a` to `b` round `boxes` grown by `margin`, through their corners
/// (a visibility graph searched by brute force).
#[cfg(feature = "2d")]
fn shortest(boxes: &Boxes, margin: f32, a: Vector, b: Vector) -> f32 {
    let grown: Boxes = boxes.iter().map(|&(c, h)| (c, h + margin)).collect();
    let mut nodes = vec![a, b];
    for &(c, h) in &grown {
        for sx in [-1.0, 1.0] {
            for sy in [-1.0, 1.0] {
                let corner = c + Vec2::new(sx, sy) * (h + 0.01);
                if box_distance(&grown, corner) >= 0.0 {
                    nodes.push(corner);
                }
            }
        }
    }
    // A segment is clear when no grown box's interior meets it (checked finely).
    let clear = |p: Vector, q: Vector| {
        let n = (p.distance(q) / 0.25).ceil().max(1.0) as usize;
        (0..=n).all(|k| box_distance(&grown, p.lerp(q, k as f32 / n as f32)) >= -1e-3)
    };
    let mut best = vec![f32::INFINITY; nodes.len()];
    best[0] = 0.0;
    let mut done = vec![false; nodes.len()];
    loop {
        let Some(i) = (0..nodes.len())
            .filter(|&i| !done[i] && best[i].is_finite())
            .min_by(|&x, &y| best[x].total_cmp(&best[y]))
        else {
            return best[1];
        };
        done[i] = true;
        for j in 0..nodes.len() {
            if !done[j] && clear(nodes[i], nodes[j]) {
                best[j] = best[j].min(best[i] + nodes[i].distance(nodes[j]));
            }
        }
    }
}

/// A route through a row of walls with offset doors is within 1.1x of the shortest path round
/// them (kept as far from them as the route's clearance), and never enters a wall.
#[cfg(feature = "2d")]
#[test]
fn a_route_is_within_a_tenth_of_the_shortest_path() {
    let size = [600.0, 400.0, 0.0];
    let bounds = world(size);
    let clearance = RouteSettings::default().clearance;
    for seed in 0..8u64 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(100 + seed);
        // Three walls across the world, each with a door somewhere along it.
        let mut boxes = Boxes::new();
        for k in 0..3 {
            let x = 150.0 * (k + 1) as f32;
            let door = 60.0 + rng.random::<f32>() * 280.0;
            let gap = 60.0;
            // Each piece runs past the world's edge, so no way round it outside the world.
            let (low, high) = (door - gap / 2.0, door + gap / 2.0);
            boxes.push((
                Vec2::new(x, (low - 100.0) / 2.0),
                Vec2::new(6.0, (low + 100.0) / 2.0),
            ));
            boxes.push((
                Vec2::new(x, (high + 500.0) / 2.0),
                Vec2::new(6.0, (500.0 - high) / 2.0),
            ));
        }
        // A few small boxes in the rooms, kept clear of the walls: a gap narrower than a cell
        // beyond the clearance is below what the grid resolves.
        let walls = boxes.clone();
        boxes.extend(
            random_boxes(&mut rng, 4, size)
                .into_iter()
                .map(|(c, h)| (c, h * 0.5))
                .filter(|&(c, h)| {
                    walls
                        .iter()
                        .all(|w| (c.x - w.0.x).abs() - h.x - w.1.x > 2.0 * clearance + 16.0)
                }),
        );
        let free = |p: Vector| box_distance(&boxes, p) > clearance + 8.0;
        let pick = |rng: &mut Xoshiro256PlusPlus, x0: f32| loop {
            let p = Vec2::new(
                x0 + rng.random::<f32>() * 100.0,
                20.0 + rng.random::<f32>() * 360.0,
            );
            if free(p) {
                return p;
            }
        };
        let from = pick(&mut rng, 20.0);
        let goal = pick(&mut rng, 480.0);
        let routes = routes_over(&boxes, &bounds, goal);
        let path = routes.path(&bounds, from, goal, 2.0, 10_000);
        assert!(path.len() > 2, "seed {seed}: no route");
        assert!(
            path.last().unwrap().distance(goal) < 0.5,
            "seed {seed}: the route ends at {:?}, not {goal}",
            path.last()
        );
        for p in &path {
            assert!(
                box_distance(&boxes, *p) > 0.0,
                "seed {seed}: the route enters a wall at {p}"
            );
        }
        let best = shortest(&boxes, clearance, from, goal);
        let ratio = length(&path) / best;
        assert!(
            ratio <= 1.1,
            "seed {seed}: the route is {ratio}x the shortest path ({best})"
        );
    }
}

/// A goal inside a box routes to the nearest open cell; a cell shut off from the goal routes to
/// the nearest cell of its own room.
#[test]
fn goals_out_of_reach_route_to_the_nearest_reachable_point() {
    let size = [300.0, 300.0, 100.0];
    let bounds = world(size);
    // A closed box room round the middle: a ring of four walls.
    let c = xyz([150.0, 150.0, 50.0]);
    let mut boxes: Boxes = Vec::new();
    for a in 0..2 {
        for s in [-1.0, 1.0] {
            let mut centre = c;
            centre[a] += s * 60.0;
            let half = per_axis(|b| if b == a { 5.0 } else { 65.0 });
            boxes.push((centre, half));
        }
    }
    if DIM == 3 {
        for s in [-1.0, 1.0] {
            let mut centre = c;
            centre[DIM - 1] += s * 40.0;
            let half = per_axis(|b| if b == DIM - 1 { 5.0 } else { 65.0 });
            boxes.push((centre, half));
        }
    }
    let inside = c;
    let outside = xyz([20.0, 20.0, 50.0]);
    let routes = routes_over(&boxes, &bounds, inside);
    assert_eq!(
        routes.reaches(inside + Vector::splat(3.0), inside),
        Some(true)
    );
    assert_eq!(routes.reaches(outside, inside), Some(false));
    let path = routes.path(&bounds, outside, inside, 2.0, 10_000);
    let end = *path.last().expect("a route");
    assert!(end.is_finite());
    assert!(box_distance(&boxes, end) > 0.0, "it ends in a wall");
    // The end is outside the room, by the wall nearest the goal.
    assert!(end.distance(inside) < 60.0 + 5.0 + 25.0, "it ends at {end}");
    assert!(end.distance(inside) > 60.0, "it ends at {end}");

    // A goal inside a solid block.
    let block = vec![(c, Vector::splat(30.0))];
    let routes = routes_over(&block, &bounds, c);
    let (_, field) = routes.field(c).unwrap();
    assert!(field.goal_closed);
    let path = routes.path(&bounds, outside, c, 2.0, 10_000);
    let end = *path.last().expect("a route");
    assert!(box_distance(&block, end) >= 10.0 - 8.0, "it ends at {end}");
    assert!(box_distance(&block, end) < 10.0 + 8.0, "it ends at {end}");
}
