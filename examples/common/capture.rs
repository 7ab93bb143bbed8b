//! [`CapturePlugin`]: run an app for a number of frames, save a screenshot, and exit, for smoke
//! runs and README pictures. Driven by environment variables, so any example can do it:
//!
//! - `MURMURATION_CAPTURE=path.png`: turns it on and names the screenshot;
//! - `MURMURATION_CAPTURE_FRAMES=120`: the frame to take it at (default 120);
//! - every frame then advances the simulation by exactly 1/60 s, so a capture shows the same
//!   flock however slow the machine (or software renderer) is.
//!
//! The app exits with status 0 once the file is written, or 1 if the screenshot is blank (every
//! pixel the same colour) or cannot be saved. It turns vsync off and logs the mean real frame
//! time, so the log says what a frame really costs on the machine.

use std::path::PathBuf;
use std::time::Duration;

use bevy::app::AppExit;
use bevy::diagnostic::FrameCount;
use bevy::platform::time::Instant;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use bevy::time::TimeUpdateStrategy;
use bevy::window::PresentMode;

/// Environment variable naming the screenshot to take; the plugin does nothing without it.
pub const CAPTURE_VAR: &str = "MURMURATION_CAPTURE";
/// Environment variable with the frame to take it at.
pub const FRAMES_VAR: &str = "MURMURATION_CAPTURE_FRAMES";

/// Takes a screenshot after a number of frames and exits; see the [module docs](self).
#[derive(Debug, Default, Clone)]
pub struct CapturePlugin;

/// What the capture is doing.
#[derive(Resource, Debug, Clone)]
struct Capture {
    path: PathBuf,
    frame: u32,
    requested: bool,
    /// Wall-clock time at frame 10 (not `Time<Real>`, which the manual time step drives).
    started: Option<Instant>,
    outcome: Option<AppExit>,
}

impl Plugin for CapturePlugin {
    fn build(&self, app: &mut App) {
        let Some(path) = std::env::var_os(CAPTURE_VAR) else {
            return;
        };
        let frame = std::env::var(FRAMES_VAR)
            .ok()
            .and_then(|f| f.parse().ok())
            .unwrap_or(120);
        app.insert_resource(Capture {
            path: path.into(),
            frame,
            requested: false,
            started: None,
            outcome: None,
        })
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            1.0 / 60.0,
        )))
        .add_systems(Startup, no_vsync)
        .add_systems(Last, capture);
    }
}

/// Frames as fast as the machine draws them, so the logged frame time is the real cost.
fn no_vsync(mut windows: Query<&mut Window>) {
    for mut window in &mut windows {
        window.present_mode = PresentMode::AutoNoVsync;
    }
}

fn capture(
    mut commands: Commands,
    mut state: ResMut<Capture>,
    frames: Res<FrameCount>,
    mut exit: MessageWriter<AppExit>,
) {
    if frames.0 == 10 {
        // Timing starts once the first frames (pipeline compilation) are over.
        state.started = Some(Instant::now());
    }
    if let Some(outcome) = state.outcome.clone() {
        if let Some(started) = state.started {
            let measured = frames.0.saturating_sub(10).max(1);
            let mean = started.elapsed().as_secs_f64() * 1e3 / f64::from(measured);
            info!("capture: mean frame time {mean:.1} ms over {measured} frames");
        }
        exit.write(outcome);
        return;
    }
    if state.requested || frames.0 < state.frame {
        return;
    }
    state.requested = true;
    let path = state.path.clone();
    commands.spawn(Screenshot::primary_window()).observe(
        move |captured: On<ScreenshotCaptured>, mut state: ResMut<Capture>| {
            state.outcome = Some(save(&captured.image, &path));
        },
    );
}

/// Saves the screenshot and says how the app should exit.
fn save(image: &Image, path: &PathBuf) -> AppExit {
    let rgb = match image.clone().try_into_dynamic() {
        Ok(image) => image.to_rgb8(),
        Err(e) => {
            error!("capture: cannot convert the screenshot: {e}");
            return AppExit::error();
        }
    };
    if let Err(e) = rgb.save(path) {
        error!("capture: cannot save {}: {e}", path.display());
        return AppExit::error();
    }
    let first = rgb.pixels().next().copied();
    if rgb.pixels().all(|p| Some(*p) == first) {
        error!(
            "capture: {} is blank: every pixel is {first:?}",
            path.display()
        );
        return AppExit::error();
    }
    info!("capture: saved {}", path.display());
    AppExit::Success
}
