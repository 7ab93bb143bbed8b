//! [`FlockParams`]: what a flock is (its speeds, radii and the weights of its rules), its
//! presets, and the one place they are checked.
//!
//! A flock's parameters are what differs between animals: how fast they fly, how far they see,
//! how they keep with each other, and how they answer a predator and a lure. The flee radius and
//! weight and the seek weight are here for that reason: sheep and swallows flee from further off
//! than starlings do, and in the `sky` example swallows ignore the roost that pulls the
//! starlings. What is the same for every flock lives with its behaviour: the edges in
//! [`SimulationBounds`](crate::SimulationBounds), the berth kept from obstacles in
//! [`ObstacleSettings`](crate::obstacles::ObstacleSettings), the units' arrive in
//! [`UnitSettings`](crate::units::UnitSettings), the hunters' chase in
//! [`HuntSettings`](crate::hunting::HuntSettings).

use bevy::ecs::component::Mutable;
use bevy::prelude::*;

/// How a boid picks the neighbours it reacts to.
#[derive(Reflect, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[reflect(Debug, Clone, Default)]
pub enum NeighbourMode {
    /// Every visible boid within [`FlockParams::perception_radius`] (metric neighbours, as in
    /// Reynolds' boids).
    #[default]
    Radius,
    /// The `k` nearest visible boids, however far, up to twice the perception radius
    /// (topological neighbours, as starlings do: about 7). `k` is clamped to
    /// `1..=`[`NeighbourMode::MAX_K`].
    Topological {
        /// How many neighbours each boid follows.
        k: u16,
    },
}

impl NeighbourMode {
    /// The largest `k` of [`NeighbourMode::Topological`].
    pub const MAX_K: u16 = 32;
    /// The `k` that starlings keep track of (Ballerini et al. 2008).
    pub const STARLING_K: u16 = 7;
    /// How far a topological neighbour can be, as a multiple of the perception radius.
    pub const TOPOLOGICAL_REACH: f32 = 2.0;
}

/// What a flock is: its speeds, radii and the weights of its rules. As a resource, the default
/// flock's (every boid in no [`Flock`](crate::Flock)); in a [`Flock`](crate::Flock), that
/// flock's. Change it at run time
/// and its boids follow on the next step.
///
/// Distances are in world units, speeds in units per second, forces in units per second squared,
/// angles in degrees. The defaults are the tutorial's; [`FlockParams::starlings`],
/// [`FlockParams::fish`] and [`FlockParams::sheep`] are presets. Values are checked by
/// [`FlockParams::validate`] before each step that follows a change.
#[derive(Resource, Reflect, Debug, Clone, PartialEq)]
#[reflect(Resource, Default, Debug, Clone)]
pub struct FlockParams {
    /// Top speed, units/s. Tutorial default 120.
    pub max_speed: f32,
    /// Lowest speed a flying boid may drop to, units/s, so nobody freezes. Units with
    /// [`Arrive`](crate::Arrive) and hunters ignore it. Default 40.
    pub min_speed: f32,
    /// Largest steering force one rule may apply, units/s^2. Tutorial default 200.
    pub max_force: f32,
    /// How far a boid sees its neighbours, units. Tutorial default 50. Also the spatial hash's
    /// cell size.
    pub perception_radius: f32,
    /// Neighbours closer than this push the boid away (all species), units. Tutorial default 25.
    pub separation_distance: f32,
    /// Weight of separation. Tutorial default 1.6.
    pub separation_weight: f32,
    /// Weight of alignment (same species). Tutorial default 1.0.
    pub alignment_weight: f32,
    /// Weight of cohesion (same species). Tutorial default 0.9.
    pub cohesion_weight: f32,
    /// How much crowding a boid bears before its pulls toward the others give way, as the sum of
    /// `(separation_distance / d)^2` over its neighbours closer than the separation distance
    /// (one neighbour at half the distance is 4; six at 0.8 of it, as in a packed honeycomb,
    /// about 9). From this crowding on, cohesion and an [`Attractor`](crate::seek::Attractor)'s pull
    /// weaken, and at twice it they are gone, so a pull no longer crushes the flock (a flock of
    /// 100,000 pulled to one point still tightens somewhat toward its middle; see
    /// [`metrics`](crate::metrics#why-the-presets-give-way-to-crowding)). 0 (the default) turns this off: the tutorial's rule
    /// exactly, under which a flock pulled together crushes, more the bigger it is.
    pub crowding_comfort: f32,
    /// The angle a boid sees, degrees, centred on its heading; 360 sees all around. Tutorial
    /// default 270 (a 90 degree blind spot behind).
    pub field_of_view: f32,
    /// Metric or topological neighbours. Default [`NeighbourMode::Radius`].
    pub neighbour_mode: NeighbourMode,
    /// Boids flee a [`Predator`](crate::flee::Predator) within this distance, units. Tutorial default 100.
    pub flee_radius: f32,
    /// Weight of fleeing. Tutorial default 4.
    pub flee_weight: f32,
    /// Weight of seeking an [`Attractor`](crate::seek::Attractor). Default 1.
    pub seek_weight: f32,
}

impl Default for FlockParams {
    fn default() -> Self {
        Self {
            max_speed: 120.0,
            min_speed: 40.0,
            max_force: 200.0,
            perception_radius: 50.0,
            separation_distance: 25.0,
            separation_weight: 1.6,
            alignment_weight: 1.0,
            cohesion_weight: 0.9,
            crowding_comfort: 0.0,
            field_of_view: 270.0,
            neighbour_mode: NeighbourMode::Radius,
            flee_radius: 100.0,
            flee_weight: 4.0,
            seek_weight: 1.0,
        }
    }
}

impl FlockParams {
    /// A murmuration: fast, with a separation distance below the tutorial's (relative to what a
    /// bird sees) and strong separation, so thousands of birds fly as one dense cloud that folds
    /// as one.
    ///
    /// Measured (`report` example, and 300 to 800 birds released together in a wrapping
    /// 1200 x 900 sky): one group after 30 s, polarization above 0.9. With the tutorial's
    /// perception radius (50) and less (40) the same birds broke into two to four groups; with
    /// separation distance 12 they crushed into knots 3 units apart.
    ///
    /// Its pulls give way to crowding (`crowding_comfort` 2, as fish and sheep), so the cloud
    /// keeps its spacing when it is pulled together: after 60 s the nearest neighbour is
    /// 0.83-0.84 separation distances away flying freely and 0.59-0.67 pulled to a roost, at
    /// 1,000 and at 8,000 birds (`report` example; the tutorial's rule gave 0.49 and 0.32 free,
    /// 0.20 and 0.04 pulled).
    pub fn starlings() -> Self {
        Self {
            max_speed: 180.0,
            min_speed: 90.0,
            max_force: 320.0,
            perception_radius: 70.0,
            separation_distance: 22.0,
            separation_weight: 2.0,
            alignment_weight: 1.2,
            cohesion_weight: 0.8,
            field_of_view: 290.0,
            crowding_comfort: 2.0,
            ..Self::default()
        }
    }

    /// A school of fish: strong alignment and a wide perception, so the school turns as one.
    ///
    /// The steering force, 120, was chosen for the spacing of a big school: pulled to one point
    /// for 60 s, the nearest neighbour sits 0.66-0.68 separation distances away at 1,000 fish and
    /// 0.52-0.57 at 100,000 (seeds 1-3, `report` example); with 180 it was 0.68-0.71 and
    /// 0.54-0.55, and with 90 the big school packed tighter (0.50 and 0.53, seeds 3 and 1).
    pub fn fish() -> Self {
        Self {
            max_speed: 110.0,
            min_speed: 50.0,
            max_force: 120.0,
            perception_radius: 60.0,
            separation_distance: 18.0,
            separation_weight: 1.5,
            alignment_weight: 2.2,
            cohesion_weight: 0.8,
            field_of_view: 300.0,
            crowding_comfort: 2.0,
            ..Self::default()
        }
    }

    /// A flock of sheep: slow, hardly aligning, cohesive, so they mill around in a loose herd
    /// and bunch up when the dog comes.
    ///
    /// Measured (`report` example): one group, polarization about 0.2, mean speed about 5. With
    /// alignment at 0.3 the same herd walked off in one direction (polarization 0.93).
    pub fn sheep() -> Self {
        Self {
            max_speed: 45.0,
            min_speed: 4.0,
            max_force: 60.0,
            perception_radius: 70.0,
            separation_distance: 26.0,
            separation_weight: 1.8,
            alignment_weight: 0.05,
            cohesion_weight: 0.8,
            field_of_view: 340.0,
            flee_radius: 140.0,
            crowding_comfort: 2.0,
            ..Self::default()
        }
    }

    /// Swallows: faster and more agile than starlings, in loose, small groups: a wider spacing,
    /// a shorter sight and weak alignment and cohesion, so they dart about rather than wheel as
    /// one cloud. Meant to share a sky with [`FlockParams::starlings`] (the `sky` example).
    pub fn swallows() -> Self {
        Self {
            max_speed: 240.0,
            min_speed: 120.0,
            max_force: 480.0,
            perception_radius: 55.0,
            separation_distance: 32.0,
            separation_weight: 2.4,
            alignment_weight: 0.6,
            cohesion_weight: 0.5,
            field_of_view: 300.0,
            flee_radius: 140.0,
            ..Self::default()
        }
    }

    /// The preset called `name` (`"default"`, `"starlings"`, `"swallows"`, `"fish"` or
    /// `"sheep"`).
    pub fn preset(name: &str) -> Option<Self> {
        match name {
            "default" => Some(Self::default()),
            "starlings" => Some(Self::starlings()),
            "swallows" => Some(Self::swallows()),
            "fish" => Some(Self::fish()),
            "sheep" => Some(Self::sheep()),
            _ => None,
        }
    }

    /// Clamps every value into its valid range and reports what it changed.
    ///
    /// The rules: a non-finite value becomes its default; `max_speed` and `perception_radius` are
    /// at least [`FlockParams::MIN_DISTANCE`]; `max_force`, `min_speed`, `separation_distance`,
    /// `flee_radius` and `crowding_comfort` are not negative; `min_speed` is at most `max_speed`; `separation_distance` at most `perception_radius` (a boid cannot keep
    /// away from what it does not see); `field_of_view` is within `0..=360`; topological `k` within
    /// `1..=`[`NeighbourMode::MAX_K`]. Weights may be any finite number (a negative weight
    /// inverts a rule). An empty list means nothing changed.
    pub fn validate(&mut self) -> Vec<ParamIssue> {
        let defaults = Self::default();
        let mut issues = Vec::new();
        let mut check = |field: &'static str, value: &mut f32, default: f32, lo: f32, hi: f32| {
            ParamIssue::check(&mut issues, field, value, default, lo..=hi);
        };
        let inf = f32::INFINITY;
        let min = Self::MIN_DISTANCE;
        check(
            "max_speed",
            &mut self.max_speed,
            defaults.max_speed,
            min,
            inf,
        );
        check(
            "max_force",
            &mut self.max_force,
            defaults.max_force,
            0.0,
            inf,
        );
        let max_speed = self.max_speed;
        check(
            "min_speed",
            &mut self.min_speed,
            defaults.min_speed,
            0.0,
            max_speed,
        );
        check(
            "perception_radius",
            &mut self.perception_radius,
            defaults.perception_radius,
            min,
            inf,
        );
        let perception = self.perception_radius;
        check(
            "separation_distance",
            &mut self.separation_distance,
            defaults.separation_distance,
            0.0,
            perception,
        );
        check(
            "field_of_view",
            &mut self.field_of_view,
            defaults.field_of_view,
            0.0,
            360.0,
        );
        check(
            "flee_radius",
            &mut self.flee_radius,
            defaults.flee_radius,
            0.0,
            inf,
        );
        check(
            "crowding_comfort",
            &mut self.crowding_comfort,
            defaults.crowding_comfort,
            0.0,
            inf,
        );
        let weights = [
            (
                "separation_weight",
                &mut self.separation_weight,
                defaults.separation_weight,
            ),
            (
                "alignment_weight",
                &mut self.alignment_weight,
                defaults.alignment_weight,
            ),
            (
                "cohesion_weight",
                &mut self.cohesion_weight,
                defaults.cohesion_weight,
            ),
            ("flee_weight", &mut self.flee_weight, defaults.flee_weight),
            ("seek_weight", &mut self.seek_weight, defaults.seek_weight),
        ];
        for (field, value, default) in weights {
            check(field, value, default, -inf, inf);
        }
        if let NeighbourMode::Topological { k } = &mut self.neighbour_mode {
            let fixed = (*k).clamp(1, NeighbourMode::MAX_K);
            if fixed != *k {
                issues.push(ParamIssue {
                    field: "neighbour_mode.k",
                    given: f32::from(*k),
                    used: f32::from(fixed),
                });
                *k = fixed;
            }
        }
        issues
    }

    /// The smallest positive distance or speed a parameter may have, in world units (per second).
    pub const MIN_DISTANCE: f32 = 0.01;
}

/// One value that [`FlockParams::validate`] (or
/// [`SimulationBounds::validate`](crate::SimulationBounds::validate)) had to change.
#[derive(Reflect, Debug, Clone, Copy, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
pub struct ParamIssue {
    /// The field's name.
    pub field: &'static str,
    /// What it was set to.
    pub given: f32,
    /// What the simulation uses instead.
    pub used: f32,
}

impl ParamIssue {
    /// Clamps `value` into `range`, a non-finite one becoming `default` (clamped too), and
    /// notes in `issues` what it changed: the one check every setting's `validate` is made of.
    pub(crate) fn check(
        issues: &mut Vec<ParamIssue>,
        field: &'static str,
        value: &mut f32,
        default: f32,
        range: core::ops::RangeInclusive<f32>,
    ) {
        let (lo, hi) = (*range.start(), *range.end());
        let fixed = if value.is_finite() {
            value.clamp(lo, hi)
        } else {
            default.clamp(lo, hi)
        };
        if fixed != *value {
            issues.push(ParamIssue {
                field,
                given: *value,
                used: fixed,
            });
            *value = fixed;
        }
    }
}

/// Settings that check themselves: clamp bad values into range and say what they changed.
pub trait Validate {
    /// Clamps every value into its valid range and reports what it changed (nothing: empty).
    fn validate(&mut self) -> Vec<ParamIssue>;
}

/// Warns once about the values `validate` changed in `what`.
pub(crate) fn warn_issues(what: &str, issues: &[ParamIssue]) {
    let list: Vec<String> = issues.iter().map(ToString::to_string).collect();
    warn!("bevy_murmuration: {what}: {}", list.join("; "));
}

/// Validates the settings resource `T` after each change, writes the clamped values back
/// (without marking it changed again) and warns once per change.
pub(crate) fn validate_on_change<T>(settings: Option<ResMut<T>>)
where
    T: Resource + Component<Mutability = Mutable> + Validate + Clone,
{
    let Some(mut settings) = settings else { return };
    if !settings.is_changed() {
        return;
    }
    let mut fixed = settings.clone();
    let issues = fixed.validate();
    if !issues.is_empty() {
        let name = core::any::type_name::<T>()
            .rsplit("::")
            .next()
            .unwrap_or("settings");
        warn_issues(name, &issues);
        *settings.bypass_change_detection() = fixed;
    }
}

impl core::fmt::Display for ParamIssue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{} = {} is out of range, using {}",
            self.field, self.given, self.used
        )
    }
}
