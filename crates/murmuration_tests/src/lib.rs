//! The behaviour tests of [bevy_murmuration](https://crates.io/crates/bevy_murmuration), in
//! `tests/`: headless Bevy apps stepped by hand that check what a flock does. This package holds
//! no code of its own; `murmuration_tests3d` runs the files that mean the same in both
//! dimensions over the 3D crates.
