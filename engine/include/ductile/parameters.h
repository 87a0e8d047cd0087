// The parameter table: one row per tunable number of the scene format (docs/scene-format.md), with its symbol, unit,
// valid range, default, the material models it applies to, whether a running simulation takes a change at the
// next step or only after a reset, and a line of documentation. It is the one place these facts live: LoadScene
// reads these keys through it (range checks, required keys), `--set` overrides are checked by that same reading,
// Simulator::SetParameter validates live edits against it, the studio's inspector builds its fields from it, and a
// test checks the tables of docs/scene-format.md against it. The table is immutable; every function here is
// thread-safe.
#pragma once

#include <array>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ductile/scene.h"

namespace ductile {

/// What kind of value a parameter takes.
enum class ParameterType {
  kNumber,   ///< A finite number.
  kInteger,  ///< A whole number, written without fraction or exponent.
  kVector,   ///< Three finite numbers `[x, y, z]`; KEY.0, KEY.1 and KEY.2 address one of them.
  kChoice,   ///< One of the row's `choices`, written by its name (`weak`); default_value is its index.
};

/// When a change of a parameter reaches a running simulation.
enum class ParameterApply {
  kLive,    ///< At the next step: Simulator::SetParameter patches the model in place.
  kReset,   ///< At the next reset: it changes the particles, the grid, the rigid bodies or the initial state.
  kReload,  ///< When the scene is loaded again (it is read once, when a simulator or a view starts).
};

/// What a live edit of a parameter recomputes in the compiled model (params/model_editor.cpp has one function per
/// kind); kNone for a row that a running simulation takes only after a reset or a reload.
enum class ParameterDerives {
  kNone,
  kTiming,           ///< The simulation settings: Δt, N, gravity, tolerances, coupling scheme, backend.
  kSolverSettings,   ///< Those and the rigid system's solver settings.
  kGeometryContact,  ///< The rigid geometries' contact parameters.
  kRobotLimits,      ///< The robot links' force limits.
  kWalls,            ///< The grid boundary's walls.
  kCollider,         ///< One collider.
  kMaterial,         ///< One material's constants (and, for its density, its particles' masses).
  kFem,              ///< The FEM–IPC domain's settings and bodies' materials.
  kPd,               ///< The projective-dynamics domain's settings, bodies' materials and actuators.
};

/// Where a row's value lives in a SceneDesc (scene/scene_binding.h): the front ends need not see it.
struct ParameterBinding;

/// The valid values of a number: an interval, each end open or closed; an infinite end is unbounded.
struct ParameterRange {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_open = true;
  bool max_open = true;

  bool Contains(double x) const;
  /// As error messages say it: "> 0", ">= 0", "in (-1, 0.5)", "in (0, 1]"; "finite" when unbounded.
  std::string Describe() const;
  /// As docs/scene-format.md writes it: "> 0", "≥ 0", "(−1, 0.5)", "[0, 90)", "finite".
  std::string Notation() const;
};

/// One row of the table.
struct ParameterInfo {
  /// The dotted key as `--set` spells it, `*` standing for a named entry or a list index:
  /// "simulation.dt", "materials.*.youngs_modulus", "rigid_bodies.*.keyframes.*.time".
  std::string key;
  std::string name;    ///< What it is, for labels: "Young's modulus".
  std::string symbol;  ///< Its symbol: "E", "Δt", "ν".
  /// Its SI unit as docs/scene-format.md writes it ("Pa", "kg/m³", "N·m/rad or N/m"); empty when it has none.
  std::string unit;
  ParameterType type = ParameterType::kNumber;
  /// How the docs write the type when the key is an entry of a map ("map JOINT -> number"); empty for the plain
  /// name of `type`.
  std::string type_note;
  ParameterRange range;  ///< Valid values (of every element of a vector); an integer's is closed below.
  /// When the valid values also depend on other keys, what the docs say of them ("within [`lower`, `upper`]");
  /// LoadScene checks that part. Empty otherwise.
  std::string range_note;
  std::vector<std::string> choices;  ///< kChoice: the names it takes, in the order of their indices.
  bool required = false;             ///< The key must be given (where it applies).
  double default_value = 0;          ///< The value of an omitted key (kNumber, kInteger) when `default_note` is empty.
  Vector3 default_vector{0, 0, 0};   ///< Likewise for a kVector.
  /// When an omitted key has no value of its own, what the docs say instead: "*required*", "not set",
  /// "from `contact`", "unbounded (−∞)". Empty when default_value or default_vector is the default.
  std::string default_note;
  /// materials.*: the models that take it; empty for every other key.
  std::vector<MaterialModelDesc> models;
  ParameterApply apply = ParameterApply::kLive;
  /// kLive: what an edit recomputes in the compiled model; kNone otherwise.
  ParameterDerives derives = ParameterDerives::kNone;
  /// Its field in a SceneDesc, for the named entries its `*` stand for (LoadScene's reads, `--set`, the live edits
  /// and ListParameters go through it).
  std::shared_ptr<const ParameterBinding> binding;
  /// kReset, kReload: why a running simulation cannot take it, completing "KEY ...: reset to apply"
  /// ("changes the grid and the particles"). Empty for kLive.
  std::string reason;
  /// kReset: the row is an initial condition (an initial velocity or joint position): a running state does not
  /// depend on it, so a model that changes it acts at the next reset (Simulator::UpdateModel says so).
  bool initial_condition = false;
  std::string doc;  ///< One line.
};

/// Every row, in the order of docs/scene-format.md.
const std::vector<ParameterInfo>& ParameterTable();
/// The row whose key is `pattern` exactly ("materials.*.density"), or null.
const ParameterInfo* FindParameter(const std::string& pattern);

/// A concrete key matched to its row.
struct ParameterKey {
  const ParameterInfo* info = nullptr;
  std::string key;                 ///< As given: "materials.dough.youngs_modulus", "simulation.gravity.2".
  std::vector<std::string> names;  ///< What the row's `*` stand for, in order: {"dough"}.
  int element = -1;                ///< A vector's element (0, 1, 2), or −1 for the whole value.
};

/// The row of a concrete key; nullopt when the table has none. Named entries are not looked up (see CheckParameter).
std::optional<ParameterKey> MatchParameter(const std::string& key);

/// One parameter of a scene: a row, expanded over the scene's named entries, and its value there.
struct SceneParameter {
  const ParameterInfo* info = nullptr;
  std::string key;                 ///< "materials.dough.youngs_modulus".
  std::vector<std::string> names;  ///< {"dough"}.
  /// The value as `--set` takes it ("0.001", "8", "[0, 0, -9.81]"); empty when the key is not set and has no
  /// value of its own (a material's `friction`, a joint's limits; default_note says what applies instead).
  std::string value;
};

/// The parameters that apply to `scene`, in table order and, within a row, in the order of the scene's entries:
/// every simulation, grid and contact parameter, and per named entry the keys its model or type takes (a dynamic
/// rigid body's `mass` or `density`, whichever it gives; a joint's keys when it moves).
std::vector<SceneParameter> ListParameters(const SceneDesc& scene);

/// Checks `key` = `value` against the table and `scene`: a row exists, the named entries exist in the scene, the key
/// applies to the entry's model or type, and the value has the row's type and lies in its range. Returns an empty
/// string, or why not, beginning with "KEY = VALUE: " and with LoadScene's wording for a bad value ("'dt' must be >
/// 0, got 0"). Rules between keys (a joint's target within its limits) are LoadScene's.
std::string CheckParameter(const SceneDesc& scene, const std::string& key, const std::string& value);

/// The table as Markdown, in the layout of docs/scene-format.md: per section of the docs (its heading), a table of
/// its rows with the columns Key, Type, Unit, Default, Valid range, Meaning (and Models for materials).
/// `ductile-cli docs parameters` prints it.
std::string ParameterDocs();

/// What UpdateParameterDocs made of a Markdown text.
struct ParameterDocsUpdate {
  std::string text;                   ///< The text with the line of every row generated from the row.
  std::vector<int> changed;           ///< The (1-based) numbers of the lines that differ from the input (or are new).
  std::vector<std::string> added;     ///< The rows that had no line: theirs was added to their section's table.
  std::vector<std::string> problems;  ///< Rows without a table for their line, or two rows that one line documents.
};

/// Generates, in `markdown` (docs/scene-format.md), the line of every row of the table: under the heading of the
/// row's section, the first table line whose first cell is the row's name (`dt`; `initial_positions` for
/// robots.*.initial_positions.*) gets the cells of the columns its table's header names (Key, Type, Unit, Default,
/// Valid range or Valid, Models, Meaning: the row's doc); a column the row does not know (Types) keeps its cell, and
/// the lines of keys that are not rows (`shape`, `pose`) are left as they are. A row without a line (a new
/// parameter) gets one, at the end of the first table under its heading (`–` in the columns it does not know).
ParameterDocsUpdate UpdateParameterDocs(const std::string& markdown);

/// "KEY REASON: reset to apply" (or "... load the scene again to apply") for a row that is not kLive.
std::string NeedsResetMessage(const ParameterKey& key);

/// A parameter whose value differs between two scenes (DiffParameters).
struct ParameterChange {
  const ParameterInfo* info = nullptr;
  std::string key;            ///< "objects.cube.velocity".
  std::string before, after;  ///< Its values as `--set` takes them; empty where the scene gives it no value.
  /// Whether each scene has the key at all (its named entry exists and takes it): an entry added or removed.
  bool in_before = true, in_after = true;
};

/// The parameters whose values differ between `before` and `after` (ListParameters of each, compared key by key):
/// those of `after` in its order, then the keys only `before` has. What a scene edit changed, each with its row, whose
/// `apply` says when a running simulation takes it (Simulator::UpdateModel).
std::vector<ParameterChange> DiffParameters(const SceneDesc& before, const SceneDesc& after);

}  // namespace ductile
