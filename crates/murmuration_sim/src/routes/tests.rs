//! The routes against brute force, as property tests on random maps (proptest, which shrinks a
//! failing map to a small one): the open cells against each box's distance worked out
//! directly, the flow field against a search that relaxes every link until nothing changes;
//! and (2D) a route's length against the shortest path round the boxes.

use bevy::prelude::*;
use proptest::prelude::*;

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

/// Random boxes over a world of `size`: centres anywhere in it, half sizes 4 to 34.
fn random_boxes(count: std::ops::Range<usize>) -> impl Strategy<Value = Vec<([f32; 3], [f32; 3])>> {
    prop::collection::vec(
        (
            prop::array::uniform3(0.0f32..1.0),
            prop::array::uniform3(4.0f32..34.0),
        ),
        count,
    )
}

/// `fractions` of the world `size`: boxes (centre, half size) and points.
fn scaled(boxes: &[([f32; 3], [f32; 3])], size: [f32; 3]) -> Boxes {
    boxes
        .iter()
        .map(|(c, h)| (per_axis(|a| c[a] * size[a]), per_axis(|a| h[a])))
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

/// The world of the random maps: 50 x 38 cells (10 x 15 x 10 in 3D).
const RANDOM_WORLD: [f32; 3] = if DIM == 2 {
    [400.0, 300.0, 0.0]
} else {
    [160.0, 120.0, 80.0]
};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// On random maps: each cell is open exactly when its centre is at least the clearance
    /// from every box (worked out directly), and each goal's field is the cheapest route from
    /// every cell, one end per component, each cell's next one move cheaper.
    #[test]
    fn the_open_cells_and_the_field_match_brute_force_on_random_maps(
        boxes in random_boxes(6..18),
        goals in prop::collection::vec(prop::array::uniform3(0.0f32..1.0), 1..4),
    ) {
        let size = RANDOM_WORLD;
        let settings = RouteSettings::default();
        let bounds = world(size);
        let boxes = scaled(&boxes, size);
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
                prop_assert_eq!(grid.open[i], d >= clearance, "cell {}: {}", i, d);
            }
        }
        prop_assume!(grid.components > 0);
        for goal in goals {
            let goal = per_axis(|a| goal[a] * size[a]);
            let field = FlowField::build(&grid, &bounds, goal).expect("open cells");
            let seeds: Vec<usize> = (0..grid.len()).filter(|&i| field.cost[i] == 0).collect();
            // One end per component, the goal's own where it is open.
            prop_assert_eq!(seeds.len(), grid.components as usize);
            prop_assert_eq!(
                &field.cost,
                &brute_force(&grid, &seeds),
                "the search is not the shortest"
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
                prop_assert_eq!(Some(field.cost[i] - field.cost[next]), step);
            }
            if !field.goal_closed {
                prop_assert_eq!(field.cost[field.goal_cell], 0);
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
    let grid = std::sync::Arc::new(grid);
    Routes {
        grid: Some(grid.clone()),
        fields: vec![super::Planned { grid, field }],
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

#[cfg(feature = "2d")]
proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// A route through a row of walls with doors anywhere along them, past boxes anywhere in
    /// the rooms, is within 1.1x of the shortest path round them (kept as far from them as the
    /// route's clearance), and never enters a wall.
    #[test]
    fn a_route_is_within_a_tenth_of_the_shortest_path(
        doors in prop::array::uniform3(60.0f32..340.0),
        rooms in random_boxes(4..5),
        from in (0.0f32..1.0, 0.0f32..1.0),
        goal in (0.0f32..1.0, 0.0f32..1.0),
    ) {
        let size = [600.0, 400.0, 0.0];
        let bounds = world(size);
        let clearance = RouteSettings::default().clearance;
        // Three walls across the world, each with a door somewhere along it.
        let mut boxes = Boxes::new();
        for (k, door) in doors.into_iter().enumerate() {
            let x = 150.0 * (k + 1) as f32;
            let gap = 60.0;
            // Each piece runs far past the world's edge, so the shortest path has no way round
            // it outside the world (100 past was not enough: proptest found a path round the
            // top, grown by the clearance, shorter than one through three low doors).
            let (low, high) = (door - gap / 2.0, door + gap / 2.0);
            boxes.push((
                Vec2::new(x, (low - 1_000.0) / 2.0),
                Vec2::new(6.0, (low + 1_000.0) / 2.0),
            ));
            boxes.push((
                Vec2::new(x, (high + 1_400.0) / 2.0),
                Vec2::new(6.0, (1_400.0 - high) / 2.0),
            ));
        }
        // A few small boxes in the rooms, kept clear of the walls: a gap narrower than a cell
        // beyond the clearance is below what the grid resolves.
        let walls = boxes.clone();
        boxes.extend(
            scaled(&rooms, size)
                .into_iter()
                .map(|(c, h)| (c, h * 0.5))
                .filter(|&(c, h)| {
                    walls
                        .iter()
                        .all(|w| (c.x - w.0.x).abs() - h.x - w.1.x > 2.0 * clearance + 16.0)
                }),
        );
        // From the first room to the last.
        let from = Vec2::new(20.0 + from.0 * 100.0, 20.0 + from.1 * 360.0);
        let goal = Vec2::new(480.0 + goal.0 * 100.0, 20.0 + goal.1 * 360.0);
        let free = |p: Vector| box_distance(&boxes, p) > clearance + 8.0;
        prop_assume!(free(from) && free(goal));
        let routes = routes_over(&boxes, &bounds, goal);
        let path = routes.path(&bounds, from, goal, 2.0, 10_000);
        prop_assert!(path.len() > 2, "no route");
        prop_assert!(
            path.last().unwrap().distance(goal) < 0.5,
            "the route ends at {:?}, not {}",
            path.last(),
            goal
        );
        for p in &path {
            prop_assert!(box_distance(&boxes, *p) > 0.0, "the route enters a wall at {}", p);
        }
        let best = shortest(&boxes, clearance, from, goal);
        let ratio = length(&path) / best;
        prop_assert!(ratio <= 1.1, "the route is {}x the shortest path ({})", ratio, best);
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
