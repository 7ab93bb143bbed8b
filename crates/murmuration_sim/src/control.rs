//! [`SimulationControl`]: pause the flock and advance it one step at a time.

use bevy::prelude::*;

/// Pauses the simulation or steps it by hand. Inserted by the plugin; while `paused`, a step
/// only runs while `pending_steps > 0`, and each step uses one up.
///
/// ```
#[cfg_attr(
    feature = "2d",
    doc = "# use murmuration_sim::control::SimulationControl;"
)]
#[cfg_attr(
    feature = "3d",
    doc = "# use murmuration_sim3d::control::SimulationControl;"
)]
/// let mut control = SimulationControl::default();
/// control.paused = true;
/// control.step_once(); // the next step runs, then the flock is paused again
/// ```
#[derive(Resource, Reflect, Debug, Clone, Default, PartialEq, Eq)]
#[reflect(Resource, Default, Debug, Clone)]
pub struct SimulationControl {
    /// Whether the flock is paused.
    pub paused: bool,
    /// Steps still to run while paused.
    pub pending_steps: u32,
}

impl SimulationControl {
    /// Pauses or resumes.
    pub fn toggle_pause(&mut self) {
        self.paused = !self.paused;
        self.pending_steps = 0;
    }

    /// Runs exactly one more step, then stays paused (pauses if running).
    pub fn step_once(&mut self) {
        self.paused = true;
        self.pending_steps += 1;
    }

    /// Whether the next step may run.
    pub fn may_step(&self) -> bool {
        !self.paused || self.pending_steps > 0
    }
}

/// Uses up one pending step after a paused step ran.
pub(crate) fn consume_step(mut control: ResMut<SimulationControl>) {
    if control.paused && control.pending_steps > 0 {
        control.pending_steps -= 1;
    }
}
