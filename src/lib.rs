#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

/// The simulation crate: components, resources, the spatial hash, behaviours and systems.
pub use murmuration_sim as sim;
pub use murmuration_sim::*;

/// `use bevy_murmuration::prelude::*;` brings the plugin, the components and the resources.
pub mod prelude {
    pub use murmuration_sim::prelude::*;
}
