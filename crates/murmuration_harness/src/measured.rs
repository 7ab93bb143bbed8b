//! [`MeasuredRun`]: a flock flown from its seed in an app of its own, and its mean
//! [`FlockMetrics`] over the end of the run.

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use murmuration_sim::prelude::*;

/// A headless run to measure: a flock flown from its seed in its own app for `seconds` of
/// simulated time at `steps_per_second`.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredRun {
    /// The flock's parameters.
    pub params: FlockParams,
    /// Its world.
    pub bounds: SimulationBounds,
    /// Its boids.
    pub population: FlockPopulation,
    /// Simulated seconds.
    pub seconds: f32,
    /// Fixed steps per simulated second.
    pub steps_per_second: f64,
}

impl MeasuredRun {
    /// Flies the run and returns the mean [`FlockMetrics`] over its last fifth (sampled at every
    /// refresh, every 30 steps).
    pub fn measure(&self) -> FlockMetrics {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .add_plugins(
                BoidsPlugins::new(FixedUpdate)
                    .with_params(self.params.clone())
                    .with_bounds(self.bounds),
            )
            .insert_resource(Time::<Fixed>::from_hz(self.steps_per_second))
            .insert_resource(TimeUpdateStrategy::FixedTimesteps(1))
            .insert_resource(self.population.clone());
        let steps = (f64::from(self.seconds) * self.steps_per_second).round() as u64;
        let mut samples = Vec::new();
        let mut last = 0;
        // The first update only starts the clock.
        while app.world().resource::<FlockStats>().steps < steps {
            app.update();
            let metrics = app.world().resource::<FlockMetrics>();
            if metrics.step != last && metrics.step * 5 >= steps * 4 {
                samples.push(metrics.clone());
            }
            last = metrics.step;
        }
        FlockMetrics::mean(&samples)
    }
}
