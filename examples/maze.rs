//! A school of fish finds its way through a maze to food: click to put the food somewhere else, right-drag to draw a wall (right click on a wall removes it), O to show the route of the picked fish.

mod common;

use bevy::prelude::*;
use bevy_murmuration::egui::Preset;
use bevy_murmuration::prelude::*;
use bevy_murmuration::render::debug::FlockDebug;
use bevy_murmuration::render::{
    FLOCK_LAYER, FlockControls, InputBlocked, PointerPosition, PointerRole,
};

use common::CapturePlugin;

const HELP: &str = "Click: put the food there   Right-drag: draw a wall   Right click: remove \
     it   O: route   Space: pause   H: hide panel";

/// The maze's rooms: columns, rows, and a room's size.
const COLUMNS: usize = 6;
const ROWS: usize = 4;
const ROOM: f32 = 180.0;

/// The food the fish seek.
#[derive(Component)]
struct Food;

fn main() {
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_murmuration: maze".into(),
                resolution: (1280, 720).into(),
                ..default()
            }),
            ..default()
        }))
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .add_plugins(
            BoidsPlugins::new(FixedUpdate)
                .with_params(FlockParams {
                    seek_weight: 1.5,
                    ..FlockParams::fish()
                })
                .with_bounds(SimulationBounds::turn_back(Rect::from_center_size(
                    Vec2::ZERO,
                    Vec2::new(COLUMNS as f32 * ROOM + 40.0, ROWS as f32 * ROOM + 40.0),
                ))),
        )
        .add_plugins(BoidsRenderPlugin::new(FlockLook {
            trails: false,
            ..FlockLook::fish()
        }))
        .add_plugins(
            BoidsEguiPlugin::new("Maze", Preset::Fish)
                .without_presets()
                .with_help(HELP),
        )
        .add_plugins(CapturePlugin)
        .insert_resource(FlockControls {
            pointer: PointerRole::Off,
            click_obstacles: false,
            draw_walls: true,
            ..default()
        })
        .insert_resource(FlockDebug {
            routes: true,
            ..default()
        })
        .add_systems(Startup, (build_maze, spawn_school))
        .add_systems(Update, (place_food, toggle_route))
        .run();
}

/// The corner of room `(column, row)` nearest the origin of the maze, and its centre.
fn room_centre(column: usize, row: usize) -> Vec2 {
    let origin = -Vec2::new(COLUMNS as f32, ROWS as f32) * ROOM * 0.5;
    origin + (Vec2::new(column as f32, row as f32) + 0.5) * ROOM
}

/// A maze carved by a depth-first walk from the first room (a seeded generator, so it is the
/// same maze every run): every room reaches every other by one way only.
fn build_maze(mut commands: Commands) {
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut random = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    // open[room][side]: east, north, west, south.
    let mut open = [[false; 4]; COLUMNS * ROWS];
    let mut seen = [false; COLUMNS * ROWS];
    let mut stack = vec![0usize];
    seen[0] = true;
    while let Some(&room) = stack.last() {
        let (c, r) = (room % COLUMNS, room / COLUMNS);
        let mut ways = Vec::new();
        for (side, (dc, dr)) in [(1, 0), (0, 1), (-1, 0), (0, -1)].into_iter().enumerate() {
            let (nc, nr) = (c as i32 + dc, r as i32 + dr);
            if nc >= 0 && nr >= 0 && (nc as usize) < COLUMNS && (nr as usize) < ROWS {
                let next = nr as usize * COLUMNS + nc as usize;
                if !seen[next] {
                    ways.push((side, next));
                }
            }
        }
        if ways.is_empty() {
            stack.pop();
            continue;
        }
        let (side, next) = ways[random(ways.len())];
        open[room][side] = true;
        open[next][(side + 2) % 4] = true;
        seen[next] = true;
        stack.push(next);
    }
    let mut wall = |from: Vec2, to: Vec2| {
        let size = (to - from).abs().max(Vec2::splat(10.0));
        commands.spawn((
            Name::new("Wall"),
            Obstacle::from(Rectangle::from_size(size)),
            Position((from + to) * 0.5),
        ));
    };
    let half = ROOM * 0.5;
    for row in 0..ROWS {
        for column in 0..COLUMNS {
            let sides = open[row * COLUMNS + column];
            let c = room_centre(column, row);
            // Each room draws its east and north walls, the first column and row their west and
            // south ones too.
            if !sides[0] {
                wall(c + Vec2::new(half, -half), c + Vec2::new(half, half));
            }
            if !sides[1] {
                wall(c + Vec2::new(-half, half), c + Vec2::new(half, half));
            }
            if column == 0 {
                wall(c + Vec2::new(-half, -half), c + Vec2::new(-half, half));
            }
            if row == 0 {
                wall(c + Vec2::new(-half, -half), c + Vec2::new(half, -half));
            }
        }
    }
}

/// The school in the first room, the food in the far corner.
fn spawn_school(mut commands: Commands) {
    let start = room_centre(0, 0);
    commands.queue(
        FlockSpawn::new(240, 7)
            .with_species(2)
            .with_region(Rect::from_center_size(start, Vec2::splat(ROOM * 0.6))),
    );
    let food = room_centre(COLUMNS - 1, ROWS - 1);
    commands.spawn((
        Name::new("Food"),
        Food,
        Attractor,
        Position(food),
        Sprite::from_color(Color::srgb(1.0, 0.85, 0.3), Vec2::splat(14.0)),
        Transform::from_translation(food.extend(5.0)),
        FLOCK_LAYER,
    ));
}

/// A left click puts the food where it is.
fn place_food(
    buttons: Res<ButtonInput<MouseButton>>,
    blocked: Res<InputBlocked>,
    pointer: Res<PointerPosition>,
    mut food: Query<(&mut Position, &mut Transform), With<Food>>,
) {
    if !buttons.just_pressed(MouseButton::Left) || blocked.pointer {
        return;
    }
    let Some(at) = pointer.0 else { return };
    for (mut position, mut transform) in &mut food {
        position.0 = at;
        transform.translation = at.extend(5.0);
    }
}

/// O shows and hides the picked fish's route.
fn toggle_route(keys: Res<ButtonInput<KeyCode>>, mut debug: ResMut<FlockDebug>) {
    if keys.just_pressed(KeyCode::KeyO) {
        debug.routes = !debug.routes;
    }
}
