//! The `stress` example's headless runs, in 2D and 3D, without the window's dependencies: the
//! crowd cases and the spread flock they are compared with, from a release build of the
//! simulation alone.
//!
//! `cargo bench -p murmuration_sim --bench crowd -- --boids 100000 --steps 20 --threads 2
//! [--case one-point|one-cell|line|outside|huge-radius|all-hunters] [--3d]` prints the
//! example's line (see `murmuration_harness::stress::StressArgs` for every flag).

fn main() {
    // `cargo bench` adds `--bench`, which the stress flags do not know.
    let all: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let args = murmuration_harness::stress::StressArgs::parse(&all);
    let report = if args.three_d {
        murmuration_harness3d::stress::StressArgs::parse(&all)
            .run_headless()
            .to_string()
    } else {
        args.run_headless().to_string()
    };
    println!("{report}");
}
