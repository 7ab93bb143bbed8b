//! [`FlockTable`]: every flock's parameters, validated and resolved into the numbers the hot path
//! reads ([`FlockRow`]), once per change, in one dense table indexed by [`FlockId`].
//!
//! Row 0 is the default flock, from the [`FlockParams`] resource: every boid that joins no
//! [`Flock`](crate::Flock) entity flies by it. Each `Flock` entity has a row of its own for as
//! long as it lives.

use bevy::platform::collections::HashMap;
use bevy::prelude::*;

use crate::components::FlockId;
use crate::params::{FlockParams, NeighbourMode};
use crate::rules::view_cos;
use crate::rules::{Weights, view_kind};

/// One flock's parameters as the simulation's hot path reads them: validated, and every
/// derived number (squares, the field of view's cosine) worked out once.
#[derive(Reflect, Debug, Clone, Copy, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct FlockRow {
    /// Top speed.
    pub max_speed: f32,
    /// Lowest speed of a flying boid.
    pub min_speed: f32,
    /// Largest steering force of one rule.
    pub max_force: f32,
    /// How far a boid sees.
    pub perception_radius: f32,
    /// `perception_radius^2`.
    pub perception2: f32,
    /// How close neighbours push a boid away.
    pub separation_distance: f32,
    /// `separation_distance^2`.
    pub separation2: f32,
    /// `cos(field_of_view / 2)`, -1 all around.
    pub view_cos: f32,
    /// `view_cos^2`.
    pub view_cos2: f32,
    /// The field of view's kind (all around, narrow or wide).
    pub view: u8,
    /// Metric or topological neighbours.
    pub neighbour_mode: NeighbourMode,
    /// Separation, alignment and cohesion weights.
    #[reflect(ignore)]
    pub weights: Weights<f32>,
    /// Distance within which boids flee a predator.
    pub flee_radius: f32,
    /// Weight of fleeing.
    pub flee_weight: f32,
    /// Weight of seeking an attractor.
    pub seek_weight: f32,
}

impl FlockRow {
    /// The row of `params`, which must be valid ([`FlockParams::validate`]).
    pub fn new(params: &FlockParams) -> Self {
        let view_cos = view_cos(params.field_of_view);
        Self {
            max_speed: params.max_speed,
            min_speed: params.min_speed,
            max_force: params.max_force,
            perception_radius: params.perception_radius,
            perception2: params.perception_radius * params.perception_radius,
            separation_distance: params.separation_distance,
            separation2: params.separation_distance * params.separation_distance,
            view_cos,
            view_cos2: view_cos * view_cos,
            view: view_kind(view_cos),
            neighbour_mode: params.neighbour_mode,
            weights: Weights {
                separation: params.separation_weight,
                alignment: params.alignment_weight,
                cohesion: params.cohesion_weight,
                give_way: if params.crowding_comfort > 0.0 {
                    params.separation_distance * params.separation_distance
                        / params.crowding_comfort
                } else {
                    0.0
                },
            },
            flee_radius: params.flee_radius,
            flee_weight: params.flee_weight,
            seek_weight: params.seek_weight,
        }
    }

    /// How a boid of this flock finds its neighbours.
    pub fn perception(&self) -> Perception {
        Perception {
            mode: self.neighbour_mode,
            radius: self.perception_radius,
            view_cos: self.view_cos,
        }
    }

    /// The speed limits of a boid of this flock with its own top speed `max_speed` (if any),
    /// as `(min, max)`: units and hunters (`can_stop`) have no minimum.
    #[inline]
    pub fn speed_limits(&self, max_speed: Option<f32>, can_stop: bool) -> (f32, f32) {
        let max = max_speed.unwrap_or(self.max_speed).max(0.0);
        let min = if can_stop {
            0.0
        } else {
            self.min_speed.min(max)
        };
        (min, max)
    }
}

impl Default for FlockRow {
    fn default() -> Self {
        Self::new(&FlockParams::default())
    }
}

/// Every flock's [`FlockRow`], indexed by [`FlockId`]: row 0 from the [`FlockParams`] resource,
/// one row for each [`Flock`](crate::Flock) entity. Rebuilt by the plugin only where something
/// changed; read it (`Res<FlockTable>`) to see what a boid flies by.
///
/// The spatial hash's cells are [`FlockTable::cell_size`] wide: the largest perception radius of
/// any flock, so that every boid's neighbours lie in the 3x3 block of cells around it. A flock
/// that sees less far than another checks the candidates of cells sized for the other: at twice
/// the perception radius of its own it tests about four times the candidates per neighbour found
/// (the flocking pass's cost grows with it, not the hash's).
#[derive(Resource, Reflect, Debug, Clone)]
#[reflect(Resource, Debug)]
pub struct FlockTable {
    rows: Vec<FlockRow>,
    /// The `Flock` entity of each row (`None` for the default flock and for free rows).
    owners: Vec<Option<Entity>>,
    #[reflect(ignore)]
    row_of: HashMap<Entity, u16>,
    cell_size: f32,
}

impl Default for FlockTable {
    fn default() -> Self {
        Self::new(&FlockParams::default())
    }
}

impl FlockTable {
    /// A table with only the default flock, flying by `params` (which must be valid, see
    /// [`FlockParams::validate`]): for tools and benchmarks that run the hot path without an
    /// app.
    pub fn new(params: &FlockParams) -> Self {
        let row = FlockRow::new(params);
        Self {
            rows: vec![row],
            owners: vec![None],
            row_of: HashMap::default(),
            cell_size: row.perception_radius,
        }
    }

    /// The most flocks a world can hold, the default one included.
    pub const MAX_FLOCKS: usize = 4096;

    /// The row of flock `id` (the default flock's for a row that is gone).
    #[inline]
    pub fn row(&self, id: FlockId) -> &FlockRow {
        self.rows.get(id.index()).unwrap_or(&self.rows[0])
    }

    /// The default flock's row.
    pub fn default_row(&self) -> &FlockRow {
        &self.rows[0]
    }

    /// Every row, indexed by [`FlockId::index`] (free rows included).
    pub fn rows(&self) -> &[FlockRow] {
        &self.rows
    }

    /// The id of `flock`'s row, if it is a [`Flock`](crate::Flock) the table knows.
    pub fn id_of(&self, flock: Entity) -> Option<FlockId> {
        self.row_of.get(&flock).map(|&r| FlockId(r))
    }

    /// The [`Flock`](crate::Flock) entity of row `id`, `None` for the default flock.
    pub fn entity_of(&self, id: FlockId) -> Option<Entity> {
        self.owners.get(id.index()).copied().flatten()
    }

    /// The width of the spatial hash's cells: the largest perception radius of any flock.
    pub fn cell_size(&self) -> f32 {
        self.cell_size
    }

    /// Sets the default flock's row.
    pub(crate) fn set_default(&mut self, params: &FlockParams) {
        self.rows[0] = FlockRow::new(params);
        self.update_cell_size();
    }

    /// Sets `flock`'s row, giving it one if it has none; `None` if the table is full.
    pub(crate) fn set(&mut self, flock: Entity, params: &FlockParams) -> Option<FlockId> {
        let row = FlockRow::new(params);
        let index = match self.row_of.get(&flock) {
            Some(&i) => usize::from(i),
            None => {
                let free = self.owners.iter().skip(1).position(Option::is_none);
                let i = match free {
                    Some(i) => i + 1,
                    None if self.rows.len() < Self::MAX_FLOCKS => {
                        self.rows.push(row);
                        self.owners.push(None);
                        self.rows.len() - 1
                    }
                    None => return None,
                };
                self.owners[i] = Some(flock);
                self.row_of.insert(flock, i as u16);
                i
            }
        };
        self.rows[index] = row;
        self.update_cell_size();
        Some(FlockId(index as u16))
    }

    /// Frees `flock`'s row, if it has one, and returns its id.
    pub(crate) fn remove(&mut self, flock: Entity) -> Option<FlockId> {
        let index = self.row_of.remove(&flock)?;
        self.owners[usize::from(index)] = None;
        self.update_cell_size();
        Some(FlockId(index))
    }

    fn update_cell_size(&mut self) {
        let live = self
            .rows
            .iter()
            .zip(&self.owners)
            .enumerate()
            .filter(|(i, (_, owner))| *i == 0 || owner.is_some());
        self.cell_size = live
            .map(|(_, (row, _))| row.perception_radius)
            .fold(FlockParams::MIN_DISTANCE, f32::max);
    }
}

/// How far and how wide a boid sees, derived from [`FlockParams`].
#[derive(Reflect, Debug, Clone, Copy, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct Perception {
    /// Metric or topological neighbours.
    pub mode: NeighbourMode,
    /// Perception radius, world units.
    pub radius: f32,
    /// [`view_cos`] of the field of view.
    pub view_cos: f32,
}

impl Perception {
    /// The perception of boids flying under `params`.
    pub fn new(params: &FlockParams) -> Self {
        Self {
            mode: params.neighbour_mode,
            radius: params.perception_radius,
            view_cos: view_cos(params.field_of_view),
        }
    }
}
