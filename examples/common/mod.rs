//! What the windowed examples share beside the crate: [`CapturePlugin`], the screenshot that
//! CI's smoke runs and the README's pictures are made with (`.ci/capture`).

mod capture;

pub use capture::CapturePlugin;
