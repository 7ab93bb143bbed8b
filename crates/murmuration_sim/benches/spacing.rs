//! The spacing of a preset's flock at a steady state, from a release build of the simulation
//! alone: `MeasuredRun::steady` flown until it has settled (the mean nearest-neighbour distance
//! within 2% over 30 simulated seconds, or 180 seconds at most), one line per run.
//!
//! `cargo bench -p murmuration_sim --bench spacing -- --preset fish --boids 100000 --seed 1
//! [--pulled] [--seconds 180]`

use murmuration_harness::measured::MeasuredRun;
use murmuration_sim::prelude::*;

fn main() {
    // `cargo bench` adds `--bench`.
    let all: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let value = |flag: &str| -> Option<&String> {
        let at = all.iter().position(|a| a == flag)?;
        Some(
            all.get(at + 1)
                .unwrap_or_else(|| panic!("{flag} needs a value")),
        )
    };
    let number = |flag: &str, default: f64| -> f64 {
        value(flag).map_or(default, |v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{flag} needs a number"))
        })
    };
    let preset = value("--preset").map_or("fish", String::as_str);
    let params = match preset {
        "fish" => FlockParams::fish(),
        "starlings" => FlockParams::starlings(),
        "sheep" => FlockParams::sheep(),
        other => panic!("no preset {other}; use fish, starlings or sheep"),
    };
    let boids = number("--boids", 100_000.0) as usize;
    let seed = number("--seed", 1.0) as u64;
    let pulled = all.iter().any(|a| a == "--pulled");
    let run = MeasuredRun {
        seconds: number("--seconds", 180.0) as f32,
        ..MeasuredRun::steady(params.clone(), boids, seed, pulled)
    };
    let (m, flown) = run.measure_settled();
    println!(
        "preset={preset} case={} boids={boids} seed={seed} seconds={flown} nn_distance={:.2} \
         nn_per_separation={:.3} polarization={:.2} groups={} largest_share={:.2}",
        if pulled { "pulled" } else { "free" },
        m.nn_distance,
        m.nn_distance / params.separation_distance,
        m.polarization,
        m.groups,
        m.largest_share,
    );
}
