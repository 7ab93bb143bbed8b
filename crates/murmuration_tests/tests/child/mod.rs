//! Running a test again in a child process of its own test binary: Bevy's task pools are one
//! per process, so a test that compares thread counts (or counts every allocation) runs each
//! case in a process of its own. The child is the same test, run with `--exact`: it knows it is
//! one by [`is_child`], works out its case and [`answer`]s.
#![allow(dead_code)]

use std::process::Command;

/// Set in a child's environment.
const CHILD_VAR: &str = "MURMURATION_TEST_CHILD";

/// Whether this process is a child of [`from_child`]: the test then works out its case and
/// prints it, instead of comparing.
pub fn is_child() -> bool {
    std::env::var_os(CHILD_VAR).is_some()
}

/// In a child: prints `key=value` for the parent and ends the process, its case done.
pub fn answer(key: &str, value: impl core::fmt::Display) -> ! {
    println!("{key}={value}");
    std::process::exit(0)
}

/// A variable of the child's environment, parsed (the case it runs).
pub fn var<T: core::str::FromStr>(name: &str) -> T {
    let value = std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set"));
    value
        .parse()
        .unwrap_or_else(|_| panic!("{name} = {value} does not parse"))
}

/// Runs the test `test` of this binary again in a child process with `vars` in its
/// environment, and returns what it printed after `key=` on a line of its own.
pub fn from_child(test: &str, vars: &[(&str, String)], key: &str) -> String {
    let mut child = Command::new(std::env::current_exe().unwrap());
    child
        .args(["--exact", test, "--include-ignored", "--nocapture"])
        .env(CHILD_VAR, "1");
    for (name, value) in vars {
        child.env(name, value);
    }
    let out = child.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "child failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let prefix = format!("{key}=");
    stdout
        .lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no {key} from the child {test}: {stdout}"))
        .to_string()
}
