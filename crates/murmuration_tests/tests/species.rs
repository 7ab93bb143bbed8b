//! Species keep their distance from everyone but align and cohere only with their own kind.

mod common;

use common::*;
use murmuration_sim::math::Vector;
use murmuration_sim::prelude::*;

/// A's velocity after one step next to B, who is `offset` away flying along +y.
fn velocity_of_a_next_to(b_species: u16, offset: Vector) -> Vector {
    let params = FlockParams {
        field_of_view: 360.0,
        ..FlockParams::default()
    };
    let mut app = app(params, SimulationBounds::wrap(rect(600.0, 600.0)));
    let a = spawn_boid(
        &mut app,
        xyz([300.0, 300.0, 300.0]),
        xyz([100.0, 0.0, 0.0]),
        0,
    );
    spawn_boid(
        &mut app,
        xyz([300.0, 300.0, 300.0]) + offset,
        xyz([0.0, 100.0, 0.0]),
        b_species,
    );
    step(&mut app, 1);
    app.world().get::<Velocity>(a).unwrap().0
}

#[test]
fn another_species_outside_separation_distance_is_ignored() {
    // 40 apart: inside the perception radius (50), outside the separation distance (25).
    let v = velocity_of_a_next_to(1, xyz([0.0, 40.0, 0.0]));
    assert_eq!(
        v,
        xyz([100.0, 0.0, 0.0]),
        "no alignment or cohesion across species"
    );
    let v = velocity_of_a_next_to(0, xyz([0.0, 40.0, 0.0]));
    assert!(v.y > 1.0, "its own species pulls it toward and along: {v}");
}

#[test]
fn species_separate_from_each_other() {
    // 10 apart: another species only pushes A away (down, as B is above) ...
    let other = velocity_of_a_next_to(1, xyz([0.0, 10.0, 0.0]));
    assert!(
        other.y < -1.0,
        "A moves away from the other species: {other}"
    );
    // ... while its own species also pulls it along and toward B.
    let own = velocity_of_a_next_to(0, xyz([0.0, 10.0, 0.0]));
    assert!(own.y > other.y + 1.0, "own {own} vs other {other}");
}

#[test]
fn two_mixed_species_sort_themselves_into_groups() {
    // Two species dealt round-robin over one area start with half their neighbours of the other
    // kind; once they flock, groups of one colour form. (Groups of the two kinds may still fly
    // side by side, as the tutorial says, so headings across species can agree too.)
    let params = FlockParams::default();
    let bounds = SimulationBounds::wrap(rect(700.0, 700.0));
    let rect = bounds.rect;
    let mut app = app(params, bounds);
    app.world_mut()
        .commands()
        .queue(FlockSpawn::new(600, 21).with_species(2).with_region(rect));
    step(&mut app, 900);
    let hash = fresh_hash(&mut app);
    let (mut same, mut same_n, mut other, mut other_n) = (0.0, 0, 0.0, 0);
    for i in 0..hash.len() {
        let vi = hash.velocity(i).normalize();
        hash.for_each_within(hash.position(i), 50.0, |hit| {
            if hit.slot == i {
                return;
            }
            let agree = vi.dot(hash.velocity(hit.slot).normalize());
            if hash.species_of(hit.slot) == hash.species_of(i) {
                same += agree;
                same_n += 1;
            } else {
                other += agree;
                other_n += 1;
            }
        });
    }
    let share = same_n as f32 / (same_n + other_n) as f32;
    let (same, other) = (same / same_n as f32, other / other_n.max(1) as f32);
    println!("own-species share {share}, heading agreement own {same} other {other}");
    assert!(
        share > 0.7,
        "neighbours of the own species: {share} (0.5 when mixed)"
    );
    assert!(
        same > 0.8,
        "own species fly together: mean heading agreement {same}"
    );
}
