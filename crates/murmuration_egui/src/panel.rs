//! The side panel and the help line.

use bevy::prelude::*;
use bevy_egui::EguiContexts;
use bevy_egui::egui::{self, Color32, Id, LayerId, RichText, Slider, Ui, UiBuilder};
use bevy_egui::input::EguiWantsInput;
use murmuration_render::{
    ColourMode, FlockControls, FlockLook, HELP, InputBlocked, PointerRole, ViewInsets,
};
use murmuration_sim::bounds::Edges;
use murmuration_sim::control::SimulationControl;
use murmuration_sim::hunting::{CatchStats, HuntSettings};
use murmuration_sim::metrics::{FlockMetrics, FlockShape};
use murmuration_sim::obstacles::ObstacleSettings;
use murmuration_sim::params::NeighbourMode;
use murmuration_sim::prelude::*;
use murmuration_sim::stats::FlockStats;
use murmuration_sim::units::UnitSettings;

use crate::actions::{ActivePreset, PanelAction, Preset};

/// Width of the panel, logical pixels.
pub const PANEL_WIDTH: f32 = 290.0;
/// The most boids the count slider offers.
pub const MAX_BOIDS: usize = 20_000;

/// What the panel offers, so an example can leave out what does not fit it.
#[derive(Resource, Reflect, Debug, Clone, PartialEq)]
#[reflect(Resource, Debug, Clone)]
pub struct PanelOptions {
    /// The title at the top.
    pub title: String,
    /// Show the preset picker.
    pub presets: bool,
    /// The help line at the bottom; `None` for the flock controls' [`HELP`].
    pub help: Option<String>,
}

impl Default for PanelOptions {
    fn default() -> Self {
        Self {
            title: "bevy_murmuration".into(),
            presets: true,
            help: None,
        }
    }
}

/// Smoothed frame rate for the readout.
#[derive(Default)]
pub(crate) struct FrameRate {
    mean_dt: f32,
}

/// Which flock the panel edits: `None` for the default flock (the [`FlockParams`] resource),
/// else a [`Flock`] entity. The panel lists every flock when there is more than one.
#[derive(Resource, Reflect, Debug, Clone, Copy, Default, PartialEq, Eq)]
#[reflect(Resource, Debug, Clone, Default)]
pub struct PanelFlock(pub Option<Entity>);

/// What the panel edits.
#[derive(bevy::ecs::system::SystemParam)]
pub(crate) struct Edited<'w, 's> {
    params: ResMut<'w, FlockParams>,
    flocks: Query<
        'w,
        's,
        (
            Entity,
            &'static Name,
            &'static mut Flock,
            Option<&'static FlockShape>,
            Option<&'static mut Population>,
        ),
    >,
    picked: ResMut<'w, PanelFlock>,
    /// Boids of the default flock (in no `Flock`).
    default_flock: Query<'w, 's, (), (With<Boid>, Without<InFlock>)>,
    bounds: ResMut<'w, SimulationBounds>,
    look: ResMut<'w, FlockLook>,
    controls: ResMut<'w, FlockControls>,
    control: ResMut<'w, SimulationControl>,
    population: Option<ResMut<'w, FlockPopulation>>,
    /// The behaviours' own settings, where their plugins were added.
    obstacles: Option<ResMut<'w, ObstacleSettings>>,
    hunting: Option<ResMut<'w, HuntSettings>>,
    units: Option<ResMut<'w, UnitSettings>>,
    #[cfg(feature = "debug")]
    debug: ResMut<'w, murmuration_render::debug::FlockDebug>,
}

/// Draws the panel (unless H hid it) and the help line, and tells the view how much it covers.
pub(crate) fn draw_panel(
    mut contexts: EguiContexts,
    mut edited: Edited,
    stats: Res<FlockStats>,
    metrics: Res<FlockMetrics>,
    catches: Option<Res<CatchStats>>,
    rules: Option<Res<CatchRules>>,
    time: Res<Time<Real>>,
    options: Res<PanelOptions>,
    active: Res<ActivePreset>,
    mut insets: ResMut<ViewInsets>,
    mut actions: MessageWriter<PanelAction>,
    mut rate: Local<FrameRate>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let dt = time.delta_secs();
    if dt > 0.0 {
        rate.mean_dt = if rate.mean_dt == 0.0 {
            dt
        } else {
            rate.mean_dt * 0.95 + dt * 0.05
        };
    }
    help_line(ctx, options.help.as_deref().unwrap_or(HELP));
    let visible = edited.controls.panel_visible;
    let width = if visible { PANEL_WIDTH } else { 0.0 };
    if insets.left != width {
        insets.left = width;
    }
    if !visible {
        return Ok(());
    }
    let mut root = Ui::new(
        ctx.clone(),
        Id::new("murmuration_root"),
        UiBuilder::new()
            .layer_id(LayerId::background())
            .max_rect(ctx.content_rect()),
    );
    egui::Panel::left("murmuration_panel")
        .resizable(false)
        .exact_size(PANEL_WIDTH)
        .show(&mut root, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                ui.heading(&options.title);
                readouts(ui, &stats, rate.mean_dt);
                pick_flock(ui, &mut edited);
                let shape_of_picked = edited
                    .picked
                    .0
                    .and_then(|e| edited.flocks.get(e).ok())
                    .and_then(|(.., shape, _)| shape.map(|s| s.0.clone()));
                let picked_metrics = shape_of_picked.unwrap_or_else(|| metrics.clone());
                ui.collapsing("Flock shape", |ui| shape(ui, &picked_metrics));
                if let (Some(catches), Some(_)) = (catches.as_deref(), rules.as_deref()) {
                    egui::Grid::new("catches").num_columns(2).show(ui, |ui| {
                        ui.label("Catches");
                        ui.label(catches.catches.to_string());
                        ui.end_row();
                        ui.label("Per minute");
                        ui.label(format!("{:.1}", catches.per_minute()));
                        ui.end_row();
                    });
                }
                ui.separator();
                run_controls(ui, &mut edited, &mut actions);
                if options.presets {
                    ui.separator();
                    presets(ui, active.0, &mut actions);
                }
                ui.separator();
                population(ui, &mut edited, &mut actions);
                flocking(ui, &mut edited);
                edges(ui, &mut edited);
                predators(ui, &mut edited, &mut actions);
                drawing(ui, &mut edited);
                #[cfg(feature = "debug")]
                debug_overlays(ui, &mut edited);
            });
        });
    Ok(())
}

/// Tells the flock controls which input the UI took: anything egui wants, and the pointer
/// anywhere over the panel (egui claims it only over a widget, and a press on the panel's empty
/// space must not turn the camera or place an obstacle under it).
pub(crate) fn block_input(
    wants: Res<EguiWantsInput>,
    controls: Res<FlockControls>,
    windows: Query<&Window, With<bevy::window::PrimaryWindow>>,
    mut blocked: ResMut<InputBlocked>,
) {
    let over_panel = controls.panel_visible
        && windows
            .single()
            .ok()
            .and_then(Window::cursor_position)
            .is_some_and(|cursor| cursor.x < PANEL_WIDTH);
    let now = InputBlocked {
        pointer: wants.wants_any_pointer_input() || over_panel,
        keyboard: wants.wants_any_keyboard_input(),
    };
    if *blocked != now {
        *blocked = now;
    }
}

fn help_line(ctx: &egui::Context, help: &str) {
    egui::Area::new(Id::new("murmuration_help"))
        .anchor(egui::Align2::CENTER_BOTTOM, egui::vec2(0.0, -8.0))
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::new()
                .fill(Color32::from_black_alpha(200))
                .corner_radius(4.0)
                .inner_margin(egui::Margin::symmetric(8, 4))
                .show(ui, |ui| {
                    ui.label(RichText::new(help).color(Color32::WHITE).small());
                });
        });
}

fn readouts(ui: &mut Ui, stats: &FlockStats, mean_dt: f32) {
    let ms = |d: core::time::Duration| d.as_secs_f64() * 1e3;
    egui::Grid::new("readouts").num_columns(2).show(ui, |ui| {
        let fps = if mean_dt > 0.0 { 1.0 / mean_dt } else { 0.0 };
        ui.label("FPS");
        ui.label(format!("{fps:.0}"));
        ui.end_row();
        ui.label("Boids");
        ui.label(stats.boids.to_string());
        ui.end_row();
        ui.label("Step");
        ui.label(format!("{:.2} ms", ms(stats.step_time())));
        ui.end_row();
        ui.label("Hash build");
        ui.label(format!("{:.2} ms", ms(stats.hash_build)));
        ui.end_row();
        ui.label("Distance checks");
        ui.label(format!(
            "{} ({:.1}/boid)",
            stats.candidates,
            stats.candidates_per_boid()
        ));
        ui.end_row();
        ui.label("Neighbours");
        ui.label(format!(
            "{} ({:.1}/boid)",
            stats.neighbours,
            stats.neighbours_per_boid()
        ));
        ui.end_row();
    });
}

fn shape(ui: &mut Ui, m: &FlockMetrics) {
    egui::Grid::new("shape").num_columns(2).show(ui, |ui| {
        for (label, value) in [
            ("Polarization", format!("{:.2}", m.polarization)),
            ("Groups", m.groups.to_string()),
            ("Largest group", format!("{:.0}%", m.largest_share * 100.0)),
            ("Nearest neighbour", format!("{:.1}", m.nn_distance)),
            ("Too close", format!("{:.0}%", m.violations * 100.0)),
            ("Milling", format!("{:.2}", m.milling)),
            ("Mean speed", format!("{:.0}", m.mean_speed)),
        ] {
            ui.label(label);
            ui.label(value);
            ui.end_row();
        }
    });
}

/// The flock list, where there are flocks to pick from: every [`Flock`], and the default flock
/// while it has boids. A world whose boids all fly in flocks starts on the first flock.
fn pick_flock(ui: &mut Ui, edited: &mut Edited) {
    if edited.flocks.is_empty() {
        return;
    }
    let default_in_use = !edited.default_flock.is_empty() || edited.population.is_some();
    // A picked flock that is gone, or the default flock with nobody in it: the first there is.
    let gone = edited
        .picked
        .0
        .is_some_and(|e| edited.flocks.get(e).is_err());
    if gone || (edited.picked.0.is_none() && !default_in_use) {
        edited.picked.0 = if default_in_use {
            None
        } else {
            edited.flocks.iter().next().map(|(e, ..)| e)
        };
    }
    let name = |edited: &Edited, e: Option<Entity>| match e.and_then(|e| edited.flocks.get(e).ok())
    {
        Some((_, name, ..)) => name.as_str().to_string(),
        None => "default flock".to_string(),
    };
    let mut choice = edited.picked.0;
    let mut options: Vec<(Option<Entity>, String)> = Vec::new();
    if default_in_use {
        options.push((None, name(edited, None)));
    }
    options.extend(
        edited
            .flocks
            .iter()
            .map(|(e, name, ..)| (Some(e), name.as_str().to_string())),
    );
    ui.horizontal(|ui| {
        ui.label("Flock");
        egui::ComboBox::from_id_salt("murmuration_flock")
            .selected_text(name(edited, choice))
            .show_ui(ui, |ui| {
                for (value, label) in options {
                    ui.selectable_value(&mut choice, value, label);
                }
            });
    });
    if choice != edited.picked.0 {
        edited.picked.0 = choice;
    }
}

/// Edits the picked flock's parameters (the resource for the default flock), writing back only
/// what changed.
fn edit_params(edited: &mut Edited, ui: &mut Ui, f: impl FnOnce(&mut Ui, &mut FlockParams)) {
    match edited.picked.0 {
        Some(e) => {
            if let Ok((_, _, flock, ..)) = edited.flocks.get_mut(e) {
                edit(&mut flock.map_unchanged(|f| &mut f.params), ui, f);
            }
        }
        None => edit(&mut edited.params.reborrow(), ui, f),
    }
}

fn run_controls(ui: &mut Ui, edited: &mut Edited, actions: &mut MessageWriter<PanelAction>) {
    ui.horizontal(|ui| {
        let label = if edited.control.paused {
            "Run"
        } else {
            "Pause"
        };
        if ui.button(label).clicked() {
            edited.control.toggle_pause();
        }
        if ui.button("Step").clicked() {
            edited.control.step_once();
        }
        if ui.button("Reset").clicked() {
            actions.write(PanelAction::Reset);
        }
    });
}

fn presets(ui: &mut Ui, active: Preset, actions: &mut MessageWriter<PanelAction>) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Preset");
        for preset in Preset::ALL {
            if ui
                .selectable_label(active == preset, preset.name())
                .clicked()
            {
                actions.write(PanelAction::Preset(preset));
            }
        }
    });
}

fn population(ui: &mut Ui, edited: &mut Edited, actions: &mut MessageWriter<PanelAction>) {
    if let Some(e) = edited.picked.0 {
        // A flock's own population, edited in place.
        if let Ok((.., Some(population))) = edited.flocks.get_mut(e) {
            edit(&mut population.map_unchanged(|p| &mut p.0), ui, |ui, p| {
                ui.add(
                    Slider::new(&mut p.count, 0..=MAX_BOIDS)
                        .logarithmic(true)
                        .text("boids"),
                );
                ui.add(Slider::new(&mut p.species, 1..=4).text("species"));
                ui.label(format!("seed {}", p.seed));
            });
        }
        return;
    }
    let Some(population) = edited.population.as_deref_mut() else {
        return;
    };
    let mut count = population.count;
    let mut species = population.species;
    ui.add(
        Slider::new(&mut count, 0..=MAX_BOIDS)
            .logarithmic(true)
            .text("boids"),
    );
    ui.add(Slider::new(&mut species, 1..=4).text("species"));
    if count != population.count {
        actions.write(PanelAction::BoidCount(count));
    }
    if species != population.species {
        population.species = species;
    }
    ui.label(format!("seed {}", population.seed));
}

/// Edits a copy of `value` and writes it back only if it changed, so an idle panel does not
/// mark the resource changed every frame.
fn edit<T: Clone + PartialEq>(value: &mut Mut<T>, ui: &mut Ui, f: impl FnOnce(&mut Ui, &mut T)) {
    let mut copy = (**value).clone();
    f(ui, &mut copy);
    if copy != **value {
        **value = copy;
    }
}

fn flocking(ui: &mut Ui, edited: &mut Edited) {
    ui.collapsing("Flocking", |ui| {
        edit_params(edited, ui, |ui, p| {
            ui.add(Slider::new(&mut p.separation_weight, 0.0..=5.0).text("separation"));
            ui.add(Slider::new(&mut p.alignment_weight, 0.0..=5.0).text("alignment"));
            ui.add(Slider::new(&mut p.cohesion_weight, 0.0..=5.0).text("cohesion"));
            ui.add(Slider::new(&mut p.perception_radius, 5.0..=200.0).text("perception radius"));
            let perception = p.perception_radius;
            ui.add(
                Slider::new(&mut p.separation_distance, 0.0..=perception)
                    .text("separation distance"),
            );
            ui.add(Slider::new(&mut p.max_speed, 1.0..=400.0).text("max speed"));
            let max_speed = p.max_speed;
            ui.add(Slider::new(&mut p.min_speed, 0.0..=max_speed).text("min speed"));
            ui.add(Slider::new(&mut p.max_force, 0.0..=1000.0).text("max force"));
            ui.add(Slider::new(&mut p.field_of_view, 0.0..=360.0).text("field of view"));
            ui.horizontal(|ui| {
                let topological = matches!(p.neighbour_mode, NeighbourMode::Topological { .. });
                if ui.radio(!topological, "radius").clicked() {
                    p.neighbour_mode = NeighbourMode::Radius;
                }
                if ui.radio(topological, "k nearest").clicked() && !topological {
                    p.neighbour_mode = NeighbourMode::Topological {
                        k: NeighbourMode::STARLING_K,
                    };
                }
            });
            if let NeighbourMode::Topological { k } = &mut p.neighbour_mode {
                ui.add(Slider::new(k, 1..=NeighbourMode::MAX_K).text("k"));
            }
        });
    });
}

fn edges(ui: &mut Ui, edited: &mut Edited) {
    ui.collapsing("Edges", |ui| {
        edit(&mut edited.bounds.reborrow(), ui, |ui, b| {
            ui.horizontal(|ui| {
                let wrap = b.wraps();
                if ui.radio(wrap, "wrap").clicked() {
                    b.edges = Edges::Wrap;
                }
                if ui.radio(!wrap, "turn back").clicked() && wrap {
                    b.edges = Edges::TURN_BACK;
                }
            });
            if let Edges::TurnBack { margin, weight } = &mut b.edges {
                ui.add(Slider::new(margin, 0.0..=200.0).text("margin"));
                ui.add(Slider::new(weight, 0.0..=10.0).text("weight"));
            }
        });
    });
}

/// The predator the panel offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PredatorMode {
    None,
    Mouse,
    Hunter,
}

fn predators(ui: &mut Ui, edited: &mut Edited, actions: &mut MessageWriter<PanelAction>) {
    ui.collapsing("Predator and obstacles", |ui| {
        edit(&mut edited.controls.reborrow(), ui, |ui, c| {
            let mode = if c.hunters > 0 {
                PredatorMode::Hunter
            } else if c.pointer == PointerRole::Predator {
                PredatorMode::Mouse
            } else {
                PredatorMode::None
            };
            ui.horizontal(|ui| {
                ui.label("predator");
                for (m, name) in [
                    (PredatorMode::None, "none"),
                    (PredatorMode::Mouse, "mouse"),
                    (PredatorMode::Hunter, "hunter"),
                ] {
                    if ui.radio(mode == m, name).clicked() && mode != m {
                        c.hunters = usize::from(m == PredatorMode::Hunter);
                        c.pointer = if m == PredatorMode::Mouse {
                            PointerRole::Predator
                        } else {
                            PointerRole::Off
                        };
                    }
                }
            });
            let mut attract = c.pointer == PointerRole::Attractor;
            if ui.checkbox(&mut attract, "mouse attracts").changed() {
                c.pointer = if attract {
                    PointerRole::Attractor
                } else {
                    PointerRole::Predator
                };
            }
            if c.hunters > 0 {
                let mut hunters = c.hunters;
                ui.add(Slider::new(&mut hunters, 1..=8).text("hunters"));
                c.hunters = hunters;
                ui.add(Slider::new(&mut c.hunter_speed, 20.0..=400.0).text("hunter speed"));
            }
            // In 3D a drag turns the camera; only 2D places obstacles with a click.
            #[cfg(not(feature = "3d"))]
            {
                ui.checkbox(&mut c.click_obstacles, "click places obstacles");
                ui.add(Slider::new(&mut c.obstacle_radius, 5.0..=120.0).text("obstacle radius"));
            }
        });
        edit_params(edited, ui, |ui, p| {
            ui.add(Slider::new(&mut p.flee_radius, 0.0..=300.0).text("flee radius"));
            ui.add(Slider::new(&mut p.flee_weight, 0.0..=10.0).text("flee weight"));
            ui.add(Slider::new(&mut p.seek_weight, 0.0..=5.0).text("seek weight"));
        });
        // Every flock's alike: the settings of the behaviours themselves.
        if let Some(obstacles) = edited.obstacles.as_mut() {
            edit(&mut obstacles.reborrow(), ui, |ui, o| {
                ui.add(Slider::new(&mut o.avoid_distance, 1.0..=100.0).text("avoid distance"));
                ui.add(Slider::new(&mut o.weight, 0.0..=10.0).text("obstacle weight"));
            });
        }
        if let Some(hunting) = edited.hunting.as_mut() {
            edit(&mut hunting.reborrow(), ui, |ui, h| {
                ui.add(Slider::new(&mut h.weight, 0.0..=5.0).text("hunt weight"));
            });
        }
        if let Some(units) = edited.units.as_mut() {
            edit(&mut units.reborrow(), ui, |ui, u| {
                ui.add(Slider::new(&mut u.arrive_weight, 0.0..=5.0).text("arrive weight"));
            });
        }
        if ui.button("Clear obstacles").clicked() {
            actions.write(PanelAction::ClearObstacles);
        }
    });
}

fn drawing(ui: &mut Ui, edited: &mut Edited) {
    ui.collapsing("Drawing", |ui| {
        edit(&mut edited.look.reborrow(), ui, |ui, look| {
            ui.horizontal_wrapped(|ui| {
                ui.label("colour");
                ui.radio_value(&mut look.colour, ColourMode::Heading, "heading");
                ui.radio_value(&mut look.colour, ColourMode::Species, "species");
                ui.radio_value(&mut look.colour, ColourMode::Flock, "flock");
                ui.radio_value(&mut look.colour, ColourMode::Single, "single");
            });
            ui.add(Slider::new(&mut look.boid_length, 2.0..=40.0).text("boid size"));
            #[cfg(not(feature = "3d"))]
            {
                look.boid_width = look.boid_length * 0.65;
                ui.checkbox(&mut look.trails, "trails");
                ui.add(
                    Slider::new(&mut look.trail_seconds, 0.02..=2.0)
                        .logarithmic(true)
                        .text("trail length (s)"),
                );
            }
            #[cfg(feature = "3d")]
            ui.add(Slider::new(&mut look.max_bank, 0.0..=1.5).text("bank (rad)"));
        });
    });
}

#[cfg(feature = "debug")]
fn debug_overlays(ui: &mut Ui, edited: &mut Edited) {
    ui.collapsing("Debug overlays", |ui| {
        edit(&mut edited.debug.reborrow(), ui, |ui, d| {
            ui.label("P or middle click picks the boid nearest the pointer");
            ui.checkbox(&mut d.perception, "perception and field of view");
            ui.checkbox(&mut d.neighbours, "neighbours");
            ui.checkbox(&mut d.forces, "velocity and steering");
            ui.checkbox(&mut d.margin, "edge margin");
            ui.checkbox(&mut d.grid, "hash grid");
            ui.checkbox(&mut d.routes, "routes round walls");
        });
    });
}
