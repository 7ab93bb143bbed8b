//! [`Bank`]: a boid rolls into its turns, as a bird banks: the roll follows the turn rate about
//! the vertical, smoothed, and is added to the heading the simulation gave its `Transform`.

use bevy::prelude::*;
use murmuration_sim::prelude::Velocity;

use crate::look::FlockLook;

/// How far a drawn boid is rolled into its turn, and the heading it had last frame.
#[derive(Component, Debug, Clone, Copy, Default, PartialEq)]
pub struct Bank {
    /// Roll about its own forward axis, radians (positive: left wing down, turning left).
    pub roll: f32,
    /// Its horizontal heading angle last frame, radians.
    previous: Option<f32>,
}

/// Rolls every banked boid into its turn: the turn rate of its horizontal heading, times the
/// look's gain, capped at its greatest bank, eased toward frame by frame.
pub(crate) fn bank(
    look: Res<FlockLook>,
    time: Res<Time>,
    mut boids: Query<(&Velocity, &mut Bank, &mut Transform)>,
) {
    let dt = time.delta_secs();
    if dt <= 0.0 {
        return;
    }
    let ease = 1.0 - (-dt * 6.0).exp();
    for (v, mut bank, mut transform) in &mut boids {
        let heading = (-v.z).atan2(v.x);
        if !heading.is_finite() || v.x == 0.0 && v.z == 0.0 {
            continue;
        }
        let turn = match bank.previous {
            Some(before) => {
                let mut d = heading - before;
                if d > core::f32::consts::PI {
                    d -= core::f32::consts::TAU;
                } else if d < -core::f32::consts::PI {
                    d += core::f32::consts::TAU;
                }
                d / dt
            }
            None => 0.0,
        };
        bank.previous = Some(heading);
        let target = (turn * look.bank_gain).clamp(-look.max_bank, look.max_bank);
        bank.roll += (target - bank.roll) * ease;
        // A left turn (heading growing) dips the left wing (+z): roll about +x, negative.
        transform.rotation *= Quat::from_rotation_x(-bank.roll);
    }
}
