//! Before the hash: validate the bounds once per change, repair non-finite boids, and the run
//! conditions of a step. (Flock parameters are validated by [`resolve_flocks`](crate::flock).)

use bevy::prelude::*;

use crate::bounds::{SimulationBounds, StepBounds};
use crate::components::{Acceleration, Agents, Position, Velocity};
use crate::control::SimulationControl;
use crate::math::Vector;
use crate::math::finite;
use crate::parallel::{DENSE, Parts, fold_parts};
use crate::params::{FlockParams, ParamIssue};
use crate::stats::FlockStats;

/// Validates [`SimulationBounds`] when they change, writes the clamped values back (without
/// triggering change detection) and warns once per change.
pub(crate) fn validate_bounds(mut bounds: ResMut<SimulationBounds>, mut valid: ResMut<StepBounds>) {
    if !bounds.is_changed() {
        return;
    }
    let mut b = *bounds;
    let issues: Vec<ParamIssue> = b.validate();
    if !issues.is_empty() {
        let list: Vec<String> = issues.iter().map(ToString::to_string).collect();
        warn!("bevy_murmuration: {}", list.join("; "));
        *bounds.bypass_change_detection() = b;
    }
    valid.0 = b;
}

/// Repairs boids and hunters whose state is not finite, so a NaN fed in by user code never
/// reaches a neighbour: a non-finite position moves the entity to the centre of the bounds and
/// stops it; a non-finite velocity or acceleration alone is zeroed. Warns the first time only;
/// [`FlockStats::repaired`] counts them all.
pub(crate) fn repair_non_finite(
    bounds: Res<StepBounds>,
    mut agents: Query<(&mut Position, &mut Velocity, &mut Acceleration), Agents>,
    mut stats: ResMut<FlockStats>,
    mut warned: Local<bool>,
) {
    // Nearly always all finite: a read-only scan of the slices first, so nothing else happens.
    if agents.contiguous_iter().expect(DENSE).all(all_finite) {
        return;
    }
    let centre = bounds.rect.center();
    let mut repaired = 0u64;
    for (mut p, mut v, mut a) in &mut agents {
        let (pf, vf, af) = (p.is_finite(), v.is_finite(), a.is_finite());
        if pf && vf && af {
            continue;
        }
        repaired += 1;
        if !pf {
            p.0 = centre;
            v.0 = Vector::ZERO;
        }
        if !v.is_finite() {
            v.0 = Vector::ZERO;
        }
        if !af {
            a.0 = Vector::ZERO;
        }
    }
    if repaired > 0 {
        stats.repaired += repaired;
        if !*warned {
            *warned = true;
            warn!(
                "bevy_murmuration: repaired {repaired} boid(s) with a non-finite position, velocity \
                 or acceleration (a bad position moves to the centre of the bounds and stops); \
                 further repairs are counted in FlockStats::repaired without a warning"
            );
        }
    }
}

/// The state of one table of agents, as [`repair_non_finite`] scans it.
type AgentSlices<'a> = (&'a [Position], &'a [Velocity], &'a [Acceleration]);

/// Whether every position, velocity and acceleration in `slices` is finite: in parts on the
/// compute task pool, without a branch (nearly always all are, so the whole of it is read).
fn all_finite(slices: AgentSlices) -> bool {
    let scan = |(p, v, a): AgentSlices| {
        let p = p.iter().fold(true, |ok, p| ok & finite(p.0));
        let v = v.iter().fold(true, |ok, v| ok & finite(v.0));
        p & v & a.iter().fold(true, |ok, a| ok & finite(a.0))
    };
    fold_parts(slices, Parts::EVEN, scan, |a, b| a & b)
}

/// Warns once if the simulation cannot run because a resource it needs was removed.
pub(crate) fn warn_missing_resources(
    params: Option<Res<FlockParams>>,
    bounds: Option<Res<SimulationBounds>>,
    mut warned: Local<bool>,
) {
    let missing = match (params.is_some(), bounds.is_some()) {
        (true, true) => {
            *warned = false;
            return;
        }
        (false, true) => "FlockParams",
        (true, false) => "SimulationBounds",
        (false, false) => "FlockParams and SimulationBounds",
    };
    if !*warned {
        *warned = true;
        warn!(
            "bevy_murmuration: the {missing} resource is missing, so the flock is paused; insert \
             it (or let BoidsPlugins insert the defaults) to resume"
        );
    }
}

/// Run condition: the resources a step needs are present and the flock is not paused.
pub(crate) fn can_step(
    params: Option<Res<FlockParams>>,
    bounds: Option<Res<SimulationBounds>>,
    control: Option<Res<SimulationControl>>,
) -> bool {
    params.is_some() && bounds.is_some() && control.is_none_or(|c| c.may_step())
}

#[cfg(test)]
mod tests {
    use bevy::prelude::*;

    use super::all_finite;
    use crate::components::{Acceleration, Position, Velocity};
    use crate::math::{DIM, Vector, xyz};

    /// One NaN or infinity anywhere, in any of the three, in any part, is found; none is none.
    #[test]
    fn the_scan_finds_one_bad_number_anywhere() {
        // Long enough to be cut into parts.
        let n = 50_000;
        let p = vec![Position(xyz([1.0, -2.0, 0.5])); n];
        let v = vec![Velocity(xyz([3.0, 4.0, -1.0])); n];
        let a = vec![Acceleration(Vector::ZERO); n];
        assert!(all_finite((&p, &v, &a)));
        for i in [0, 1, 4095, 4096, n / 2, n - 1] {
            for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                let (mut p2, mut v2, mut a2) = (p.clone(), v.clone(), a.clone());
                p2[i].0[DIM - 1] = bad;
                assert!(!all_finite((&p2, &v, &a)), "position {i}: {bad}");
                v2[i].0.x = bad;
                assert!(!all_finite((&p, &v2, &a)), "velocity {i}: {bad}");
                a2[i].0.y = bad;
                assert!(!all_finite((&p, &v, &a2)), "acceleration {i}: {bad}");
            }
        }
        assert!(all_finite((&[], &[], &[])));
    }
}
