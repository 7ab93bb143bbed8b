//! Boids wear the colour the look asks for: by heading, a boid flying along +x and one flying
//! along -z (a quarter turn) get hues a quarter of the wheel apart, and a change of look repaints
//! every boid the next frame. Headless: assets without a renderer.

mod drawing;

use bevy::prelude::*;
use murmuration_render::{BoidsRenderPlugin, ColourMode, FlockLook};
use murmuration_sim::math::Box3;
use murmuration_sim::prelude::*;

use drawing::headless_app;

/// The colour `boid` is drawn in.
fn colour(app: &App, boid: Entity) -> Color {
    let handle = &app
        .world()
        .get::<MeshMaterial3d<StandardMaterial>>(boid)
        .expect("the boid is dressed")
        .0;
    let materials = app.world().resource::<Assets<StandardMaterial>>();
    materials
        .get(handle)
        .expect("its material exists")
        .base_color
}

#[test]
fn boids_wear_the_colour_of_their_heading_or_species() {
    let mut app = headless_app(
        BoidsPlugins::new(Update).with_bounds(SimulationBounds::wrap(Box3::from_corners(
            Vec3::ZERO,
            Vec3::splat(1000.0),
        ))),
        BoidsRenderPlugin::new(FlockLook {
            colour: ColourMode::Heading,
            ..FlockLook::fish()
        })
        .without_pointer_predator(),
    );
    // Far apart, so that neither turns the other.
    let boid = |app: &mut App, at: Vec3, v: Vec3, species: u16| {
        app.world_mut()
            .spawn((Boid, Position(at), Velocity(v * 60.0), Species(species)))
            .id()
    };
    let east = boid(&mut app, Vec3::splat(100.0), Vec3::X, 0);
    let north = boid(&mut app, Vec3::splat(600.0), Vec3::NEG_Z, 1);
    for _ in 0..3 {
        app.update();
    }
    let hue = |c: Color| Hsla::from(c).hue;
    let (a, b) = (hue(colour(&app, east)), hue(colour(&app, north)));
    let apart = (b - a).rem_euclid(360.0);
    assert!((apart - 90.0).abs() < 1.0, "hues {a} and {b}");

    let look = FlockLook::fish();
    app.insert_resource(FlockLook {
        colour: ColourMode::Species,
        ..look.clone()
    });
    app.update();
    for (boid, species) in [(east, 0), (north, 1)] {
        let wanted = look.palette[species].to_srgba();
        let got = colour(&app, boid).to_srgba();
        assert!(
            (wanted.red - got.red).abs() < 1e-4 && (wanted.blue - got.blue).abs() < 1e-4,
            "species {species}: {got:?}, not {wanted:?}"
        );
    }
}
