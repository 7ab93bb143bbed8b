//! `steer` and the other behaviour functions: bounded, zero-safe, never NaN, in both dimensions.

use murmuration_sim::internal::{
    Candidate, Coords, NeighbourSums, Observer, accumulate, accumulate_coincident,
};
use murmuration_sim::math::{Vector, xyz};
use murmuration_sim::obstacles::obstacle_push;
use murmuration_sim::steering::{flee_direction, steer, steer_to_velocity};
use murmuration_sim::units::arrive;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// The separation push one neighbour at delta `d` adds to a boid's sums (through the rule
/// itself); one on the very same spot pushes along `tie`.
fn separation_push(d: Vector, tie: Vector) -> Vector {
    let o = Observer::new(Coords::zero(), Coords::zero(), 0, 1e6, 1e6, 0.0);
    let c = Candidate {
        position: Coords::of(d),
        velocity: Coords::zero(),
        key: 1,
    };
    let mut sums = NeighbourSums::zero();
    let d2 = d.length_squared();
    if d2 > 0.0 {
        accumulate(&mut sums, &o, true, Coords::of(d), d2, &c);
    } else {
        accumulate_coincident(&mut sums, &o, &c, Coords::of(tie));
    }
    sums.separation.to_vector()
}

fn random_vec(rng: &mut Xoshiro256PlusPlus, scale: f32) -> Vector {
    let a: [f32; 3] = std::array::from_fn(|_| rng.random::<f32>() - 0.5);
    xyz(a) * 2.0 * scale
}

#[test]
fn steer_never_exceeds_max_force_and_is_never_nan() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    for _ in 0..100_000 {
        let scale = 10f32.powf(rng.random::<f32>() * 8.0 - 4.0);
        let dir = random_vec(&mut rng, scale);
        let v = random_vec(&mut rng, 500.0);
        let speed = rng.random::<f32>() * 300.0;
        let max_force = rng.random::<f32>() * 400.0;
        let f = steer(dir, v, speed, max_force);
        assert!(
            f.is_finite(),
            "steer({dir}, {v}, {speed}, {max_force}) = {f}"
        );
        assert!(
            f.length() <= max_force * (1.0 + 1e-5) + 1e-5,
            "|steer| = {} > {max_force}",
            f.length()
        );
    }
}

#[test]
fn steer_turns_toward_the_desired_velocity() {
    // Flying +x at 100, asked to go +y at 120, with plenty of force: the force is exactly
    // desired - v.
    let f = steer(xyz([0.0, 5.0, 0.0]), xyz([100.0, 0.0, 0.0]), 120.0, 1000.0);
    assert!((f - xyz([-100.0, 120.0, 0.0])).length() < 1e-3, "{f}");
    // With little force it keeps the direction of desired - v.
    let f = steer(xyz([0.0, 5.0, 0.0]), xyz([100.0, 0.0, 0.0]), 120.0, 10.0);
    assert!((f.length() - 10.0).abs() < 1e-4);
    assert!(f.normalize().dot(xyz([-100.0, 120.0, 0.0]).normalize()) > 0.9999);
}

#[test]
fn zero_direction_gives_zero_force() {
    assert_eq!(
        steer(Vector::ZERO, xyz([30.0, -4.0, 0.0]), 120.0, 200.0),
        Vector::ZERO
    );
    assert_eq!(
        steer(Vector::NAN, xyz([30.0, -4.0, 0.0]), 120.0, 200.0),
        Vector::ZERO
    );
    assert_eq!(steer(Vector::ZERO, Vector::ZERO, 0.0, 0.0), Vector::ZERO);
    assert_eq!(
        steer_to_velocity(Vector::ZERO, Vector::ZERO, 200.0),
        Vector::ZERO
    );
}

#[test]
fn coincident_things_push_along_the_tie_break() {
    let push = separation_push(Vector::ZERO, Vector::X);
    assert!(push.is_finite() && push.x > 0.0 && push.y == 0.0);
    // Inside an obstacle (10 deep), the push is more than a whole one.
    assert_eq!(
        obstacle_push(-10.0, Vector::Y, 30.0),
        Vector::Y * (40.0 / 30.0)
    );
    assert_eq!(obstacle_push(30.0, Vector::Y, 30.0), Vector::ZERO);
    assert_eq!(
        flee_direction(Vector::ZERO, 100.0, || -Vector::X),
        -Vector::X
    );
}

#[test]
fn separation_is_inverse_distance() {
    // A neighbour 5 away pushes four times as hard as one 20 away (the tutorial's example).
    let near = separation_push(xyz([5.0, 0.0, 0.0]), Vector::X);
    let far = separation_push(xyz([20.0, 0.0, 0.0]), Vector::X);
    assert!((near.length() / far.length() - 4.0).abs() < 1e-5);
    assert!(near.x < 0.0, "pushes away from the neighbour");
}

#[test]
fn arrive_slows_inside_the_slow_radius_and_brakes_at_the_target() {
    // The gain is 4 k = 4 * 120 / 80 = 6 per second.
    // At rest, 40 units away with slow radius 80: desired speed is half of max.
    let f = arrive(xyz([40.0, 0.0, 0.0]), Vector::ZERO, 80.0, 120.0, 1000.0);
    assert!((f - xyz([360.0, 0.0, 0.0])).length() < 1e-3, "{f}");
    // On the target and moving: brake against the velocity.
    let f = arrive(Vector::ZERO, xyz([10.0, 0.0, 0.0]), 80.0, 120.0, 1000.0);
    assert!((f - xyz([-60.0, 0.0, 0.0])).length() < 1e-4, "{f}");
    // Already at the desired velocity: no force; capped at max force.
    let f = arrive(
        xyz([500.0, 0.0, 0.0]),
        xyz([120.0, 0.0, 0.0]),
        80.0,
        120.0,
        1000.0,
    );
    assert!(f.length() < 1e-3, "{f}");
    let f = arrive(xyz([500.0, 0.0, 0.0]), Vector::ZERO, 80.0, 120.0, 200.0);
    assert!((f - xyz([200.0, 0.0, 0.0])).length() < 1e-3, "{f}");
}
