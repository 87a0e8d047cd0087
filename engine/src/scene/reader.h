// Typed, located access to a parsed scene tree. Every read either returns a value that passed its check or
// throws SceneError naming FILE:LINE:COL (or the `--set` override that produced the value) and the key.
#pragma once

#include <array>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "ductile/parameters.h"
#include "ductile/scene.h"
#include "scene/suggest.h"

namespace ductile::scene {

/// A node of the tree with where it is: `path` is its dotted path from the root as `--set` spells it
/// ("simulation.gravity.2"), `key` its name in messages ("gravity[2]"), `key_node` the map key it sits under
/// (for a list item from Reader::Items the item itself; undefined for the elements of a vector).
struct Field {
  YAML::Node node;
  std::string path;
  std::string key;
  YAML::Node key_node;
};

/// An interval of valid numbers; infinite ends are unbounded (the parameter table's ranges).
using Range = ParameterRange;

/// (0, ∞).
Range Positive();
/// [0, ∞).
Range NonNegative();
/// [lo, ∞).
Range AtLeast(double lo);
/// (lo, hi), [lo, hi), (lo, hi] or [lo, hi] as the flags say.
Range Between(double lo, double hi, bool lo_open, bool hi_open);

/// An override as applied to the tree: its dotted path and its text "path=value".
struct AppliedOverride {
  std::string path;
  std::string text;
};

/// Shortest text for a number in messages, e.g. "0.5", "1e+05".
std::string FormatNumber(double x);

/// Reads and checks values; knows the file name and the overrides for its messages. Not thread-safe.
class Reader {
 public:
  Reader(std::string file, std::vector<AppliedOverride> overrides)
      : file_(std::move(file)), overrides_(std::move(overrides)) {}

  /// Throws SceneError for `message` about the node at `path`. The error names the override when one set this
  /// path or a path containing it, when `at` was created by an override below `path`, or when an override set
  /// something under one of the `related` paths; otherwise the node's line and column in the file.
  [[noreturn]] void Fail(const YAML::Node& at, const std::string& path, const std::string& message,
                         const std::vector<std::string>& related = {}) const;
  [[noreturn]] void Fail(const Field& field, const std::string& message) const {
    Fail(field.node, field.path, message);
  }
  /// Fails at the key of `field` (its value when it has no key).
  [[noreturn]] void FailAtKey(const Field& field, const std::string& message) const;

  /// A finite number.
  double Number(const Field& field) const;
  /// A finite number in `range`.
  double Number(const Field& field, const Range& range) const;
  /// An integer ≥ `min`.
  int Integer(const Field& field, int min) const;
  /// A scalar as text.
  std::string Text(const Field& field) const;
  /// `true` or `false` (YAML's spellings: also yes/no, on/off and their capitalised forms).
  bool Bool(const Field& field) const;
  /// A list of exactly N finite numbers.
  template <std::size_t N>
  std::array<double, N> Numbers(const Field& field) const {
    if (!field.node.IsSequence() || field.node.size() != N)
      Fail(field, "'" + field.key + "' must be a list of " + std::to_string(N) + " numbers, got " + Got(field.node));
    std::array<double, N> values{};
    for (std::size_t i = 0; i < N; ++i) values[i] = Number(Element(field, i));
    return values;
  }
  /// A list of exactly N finite numbers, each in `range`.
  template <std::size_t N>
  std::array<double, N> Numbers(const Field& field, const Range& range) const {
    const std::array<double, N> values = Numbers<N>(field);
    for (std::size_t i = 0; i < N; ++i) Number(Element(field, i), range);
    return values;
  }
  /// One of `names`; `noun` says what it is in messages ("shape type").
  template <typename E>
  E Choice(const Field& field, const std::string& noun, const std::vector<std::pair<std::string, E>>& names) const {
    const std::string text = Text(field);
    std::vector<std::string> known;
    for (const auto& [name, value] : names) {
      if (name == text) return value;
      known.push_back(name);
    }
    Fail(field,
         "unknown " + noun + " '" + text + "'" + DidYouMean(text, known) + " (one of: " + JoinNames(known) + ")");
  }

  /// The entries of a map, in file order; a null node (an empty section) has none. Fails when the node is not a
  /// map, a key is not a plain scalar, or a key repeats. `what` names the map in messages ("material 'rubber'").
  std::vector<Field> Entries(const Field& map, const std::string& what) const;
  /// The elements of a list, in file order; a null node (an empty key) has none. Fails when the node is not a
  /// list. Each element's `key_node` is the element itself, so that FailAtKey and locations point at the item;
  /// `what` names the list in messages ("'keyframes' of rigid body 'pin'").
  std::vector<Field> Items(const Field& list, const std::string& what) const;

  /// Describes a node's value for messages: "'fast'", "a map", "a list of 2", "nothing".
  static std::string Got(const YAML::Node& node);

 private:
  static Field Element(const Field& list, std::size_t i);

  std::string file_;
  std::vector<AppliedOverride> overrides_;
};

/// A map of fixed keys (a section, a material, a shape, ...) with checks for unknown keys.
class MapFields {
 public:
  /// Reads the entries of `map` (see Reader::Entries).
  MapFields(const Reader& reader, const Field& map, std::string what);

  /// Fails on the first key (in file order) not in `allowed`, suggesting the closest allowed key. A key that is
  /// in `known` but not in `allowed` fails with "'KEY' " + `not_applicable` instead.
  void CheckKeys(const std::vector<std::string>& allowed, const std::vector<std::string>& known = {},
                 const std::string& not_applicable = {}) const;
  /// Same, with a reason per key: a key in `known` but not in `allowed` fails with
  /// "'KEY' " + `not_applicable(KEY)`.
  void CheckKeys(const std::vector<std::string>& allowed, const std::vector<std::string>& known,
                 const std::function<std::string(const std::string& key)>& not_applicable) const;

  std::optional<Field> Find(const std::string& key) const;
  /// Fails with "missing required key 'KEY' in WHAT" at the map when absent.
  Field Require(const std::string& key) const;

  /// Sets `out` from `key` when present, checked against `range`.
  void Read(const std::string& key, double& out, const Range& range) const;
  void Read(const std::string& key, int& out, int min) const;
  void Read(const std::string& key, Vector3& out) const;
  void Read(const std::string& key, bool& out) const;
  /// Sets `out` from the key that `row` of the parameter table (ductile/parameters.h) ends in, checked against the
  /// row's type and range; fails at the map when the row is required and the key is absent.
  void Read(const ParameterInfo& row, double& out) const;
  void Read(const ParameterInfo& row, int& out) const;
  void Read(const ParameterInfo& row, Vector3& out) const;
  /// Reads every row of the parameter table directly under `prefix` (`ipc.`: ipc.dhat, ipc.friction, ...) into its
  /// field of `scene` (the row's binding, scene/scene_binding.h), as Read(row, ...) does, in table order. Choices are
  /// left to their parsers (they record where they were written).
  void ReadRows(const std::string& prefix, SceneDesc& scene) const;
  /// The same for the rows of a named entry (`materials.*.`: the entry `names[0]` of `scene`); a row whose binding
  /// says the entry does not take it (another material model, a static body's mass) is skipped.
  void ReadRows(const std::string& prefix, const std::vector<std::string>& names, SceneDesc& scene) const;
  /// Reads the rows under `prefix` ("materials.*.") into `entry`, an entry of the SceneDesc section `section` that
  /// is being parsed: the rows' bindings find its fields as they find them in a whole scene, so that a key is spelled
  /// in its row only.
  template <typename Desc>
  void ReadEntryRows(const std::string& prefix, std::vector<Desc> SceneDesc::*section, Desc& entry) const {
    SceneDesc scene;
    (scene.*section).push_back(std::move(entry));
    Desc& held = (scene.*section).front();
    ReadRows(prefix, {held.name}, scene);
    entry = std::move(held);
  }

 private:
  const Reader& reader_;
  Field map_;
  std::string what_;
  std::vector<Field> entries_;
};

}  // namespace ductile::scene
