//! [`MeasuredRun`]: a flock flown from its seed in an app of its own, and its mean
//! [`FlockMetrics`] over the end of the run.

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use murmuration_sim::math::{DIM, Region, Vector, xyz};
use murmuration_sim::metrics::FlockMetrics;
use murmuration_sim::prelude::*;
use murmuration_sim::stats::FlockStats;

use crate::room_per_boid;

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
    /// An [`Attractor`] here pulls the whole flock together (as the starlings example's roost),
    /// or none.
    pub roost: Option<Vector>,
}

impl MeasuredRun {
    /// World area a boid in [`Self::steady`]: 1200 x 900 for 1,000 boids. (In 3D the world is
    /// as crowded for a perception radius of 50, [`room_per_boid`]: a box of the same shape,
    /// 900 deep.)
    pub const AREA_PER_BOID: f32 = 1080.0;

    /// The steady-state run of the `report` example and the spacing tests: `boids` boids from
    /// `seed` in a wrapping world of [`Self::AREA_PER_BOID`] a boid (4:3), released together in
    /// the middle of it (70% of its width and height, about twice its mean density), flown for 60 simulated seconds at 60 steps a second; `pulled`, with an
    /// [`Attractor`] at the centre of the world (as the starlings example's roost).
    pub fn steady(params: FlockParams, boids: usize, seed: u64, pulled: bool) -> Self {
        let shape = xyz([1200.0, 900.0, 900.0]);
        let per_boid = room_per_boid(Self::AREA_PER_BOID, 50.0);
        let shape_measure = shape.to_array().iter().product::<f32>();
        let size = shape * (boids as f32 * per_boid / shape_measure).powf(1.0 / DIM as f32);
        let world = Region::from_corners(Vector::ZERO, size);
        Self {
            params,
            bounds: SimulationBounds::wrap(world),
            population: FlockPopulation {
                region: Some(Region::from_center_size(world.center(), size * 0.7)),
                ..FlockPopulation::new(boids, seed)
            },
            seconds: 60.0,
            steps_per_second: 60.0,
            roost: pulled.then_some(world.center()),
        }
    }

    /// Flies the run and returns the mean [`FlockMetrics`] over its last fifth (sampled at every
    /// refresh, every 30 steps).
    pub fn measure(&self) -> FlockMetrics {
        let steps = (f64::from(self.seconds) * self.steps_per_second).round() as u64;
        let mut app = self.app();
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

    /// Flies the run until the flock has settled: until the mean nearest-neighbour distance over
    /// the last [`Self::SETTLE_WINDOW`] seconds is within 2% of the window's before, or for
    /// [`Self::seconds`] at most. Returns the mean [`FlockMetrics`] of the last window and the
    /// simulated seconds flown.
    pub fn measure_settled(&self) -> (FlockMetrics, f32) {
        let window = (f64::from(Self::SETTLE_WINDOW) * self.steps_per_second).round() as u64;
        let most = (f64::from(self.seconds) * self.steps_per_second).round() as u64;
        let mut app = self.app();
        let (mut samples, mut before) = (Vec::new(), None::<f32>);
        let mut last = 0;
        loop {
            app.update();
            let metrics = app.world().resource::<FlockMetrics>();
            if metrics.step != last {
                samples.push(metrics.clone());
            }
            last = metrics.step;
            let steps = app.world().resource::<FlockStats>().steps;
            if steps.is_multiple_of(window) && steps > 0 && !samples.is_empty() {
                let mean = FlockMetrics::mean(&samples);
                let settled = before.is_some_and(|b| (mean.nn_distance - b).abs() <= 0.02 * b);
                if settled || steps >= most {
                    return (mean, (steps as f64 / self.steps_per_second) as f32);
                }
                before = Some(mean.nn_distance);
                samples.clear();
            }
        }
    }

    /// The window over which [`Self::measure_settled`] compares the nearest-neighbour distance:
    /// 30 simulated seconds.
    pub const SETTLE_WINDOW: f32 = 30.0;

    /// The run's headless app, its flock spawned (and its roost), not yet updated.
    fn app(&self) -> App {
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
        if let Some(at) = self.roost {
            app.world_mut().spawn((Attractor, Position(at)));
        }
        app
    }
}
