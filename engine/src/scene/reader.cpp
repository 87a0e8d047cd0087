#include "scene/reader.h"

#include "scene/scene_binding.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ductile::scene {

namespace {

// Whether `path` is `prefix` or lies below it.
bool IsWithin(const std::string& path, const std::string& prefix) {
  return path == prefix ||
         (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 && path[prefix.size()] == '.');
}

}  // namespace

Range Positive() {
  return Between(0, std::numeric_limits<double>::infinity(), true, true);
}
Range NonNegative() {
  return Between(0, std::numeric_limits<double>::infinity(), false, true);
}
Range AtLeast(double lo) {
  return Between(lo, std::numeric_limits<double>::infinity(), false, true);
}
Range Between(double lo, double hi, bool lo_open, bool hi_open) {
  return {lo, hi, lo_open, hi_open};
}

std::string FormatNumber(double x) {
  std::ostringstream text;
  text << x;
  return text.str();
}

void Reader::Fail(const YAML::Node& at, const std::string& path, const std::string& message,
                  const std::vector<std::string>& related) const {
  const YAML::Mark mark = at.IsDefined() ? at.Mark() : YAML::Mark::null_mark();
  // The last override wins when several set the same path, so it is the one to blame.
  for (auto o = overrides_.rbegin(); o != overrides_.rend(); ++o) {
    bool blamed = IsWithin(path, o->path) || (mark.is_null() && IsWithin(o->path, path));
    for (const std::string& r : related) blamed = blamed || IsWithin(o->path, r);
    if (blamed) throw SceneError("--set", 0, 0, "--set " + o->text + ": " + message);
  }
  if (mark.is_null()) throw SceneError(file_, 0, 0, message);
  throw SceneError(file_, mark.line + 1, mark.column + 1, message);
}

void Reader::FailAtKey(const Field& field, const std::string& message) const {
  if (field.key_node.IsDefined()) Fail(field.key_node, field.path, message);
  Fail(field, message);
}

std::string Reader::Got(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return "'" + node.Scalar() + "'";
    case YAML::NodeType::Sequence:
      return "a list of " + std::to_string(node.size());
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      break;
  }
  return "nothing";
}

double Reader::Number(const Field& field) const {
  double x = 0;
  if (!field.node.IsScalar() || !YAML::convert<double>::decode(field.node, x))
    Fail(field, "'" + field.key + "' must be a number, got " + Got(field.node));
  if (!std::isfinite(x)) Fail(field, "'" + field.key + "' must be finite, got " + field.node.Scalar());
  return x;
}

double Reader::Number(const Field& field, const Range& range) const {
  const double x = Number(field);
  if (!range.Contains(x))
    Fail(field, "'" + field.key + "' must be " + range.Describe() + ", got " + field.node.Scalar());
  return x;
}

int Reader::Integer(const Field& field, int min) const {
  int n = 0;
  if (!field.node.IsScalar() || !YAML::convert<int>::decode(field.node, n))
    Fail(field, "'" + field.key + "' must be an integer, got " + Got(field.node));
  if (n < min) Fail(field, "'" + field.key + "' must be >= " + std::to_string(min) + ", got " + field.node.Scalar());
  return n;
}

std::string Reader::Text(const Field& field) const {
  if (!field.node.IsScalar()) Fail(field, "'" + field.key + "' must be a name, got " + Got(field.node));
  return field.node.Scalar();
}

bool Reader::Bool(const Field& field) const {
  bool value = false;
  if (!field.node.IsScalar() || !YAML::convert<bool>::decode(field.node, value))
    Fail(field, "'" + field.key + "' must be true or false, got " + Got(field.node));
  return value;
}

Field Reader::Element(const Field& list, std::size_t i) {
  return {list.node[i], list.path + "." + std::to_string(i), list.key + "[" + std::to_string(i) + "]", {}};
}

std::vector<Field> Reader::Entries(const Field& map, const std::string& what) const {
  std::vector<Field> entries;
  if (map.node.IsNull()) return entries;
  if (!map.node.IsMap()) Fail(map, what + " must be a map, got " + Got(map.node));
  for (auto it = map.node.begin(); it != map.node.end(); ++it) {
    const YAML::Node key = it->first;
    const std::string at = map.path.empty() ? "" : map.path + ".";
    if (!key.IsScalar()) Fail(key, map.path, "a key in " + what + " must be a name, got " + Got(key));
    const std::string& name = key.Scalar();
    for (const Field& earlier : entries) {
      if (earlier.key == name) {
        Fail(key, at + name,  // NOLINTNEXTLINE(performance-inefficient-string-concatenation): once, for the error
             "duplicate key '" + name + "' in " + what + " (first at line " +
                 std::to_string(earlier.key_node.Mark().line + 1) + ")");
      }
    }
    entries.push_back({it->second, at + name, name, key});
  }
  return entries;
}

std::vector<Field> Reader::Items(const Field& list, const std::string& what) const {
  std::vector<Field> items;
  if (list.node.IsNull()) return items;
  if (!list.node.IsSequence()) Fail(list, what + " must be a list, got " + Got(list.node));
  for (std::size_t i = 0; i < list.node.size(); ++i) {
    Field item = Element(list, i);
    item.key_node = item.node;
    items.push_back(item);
  }
  return items;
}

MapFields::MapFields(const Reader& reader, const Field& map, std::string what)
    : reader_(reader), map_(map), what_(std::move(what)), entries_(reader.Entries(map, what_)) {}

void MapFields::CheckKeys(const std::vector<std::string>& allowed, const std::vector<std::string>& known,
                          const std::string& not_applicable) const {
  CheckKeys(allowed, known, [&](const std::string&) { return not_applicable; });
}

void MapFields::CheckKeys(const std::vector<std::string>& allowed, const std::vector<std::string>& known,
                          const std::function<std::string(const std::string& key)>& not_applicable) const {
  for (const Field& entry : entries_) {
    if (std::find(allowed.begin(), allowed.end(), entry.key) != allowed.end()) continue;
    if (std::find(known.begin(), known.end(), entry.key) != known.end())
      reader_.FailAtKey(entry, "'" + entry.key + "' " + not_applicable(entry.key));
    const std::string suggestion = DidYouMean(entry.key, allowed);
    reader_.FailAtKey(entry, "unknown key '" + entry.key + "' in " + what_ +
                                 (suggestion.empty() ? " (known keys: " + JoinNames(allowed) + ")" : suggestion));
  }
}

std::optional<Field> MapFields::Find(const std::string& key) const {
  for (const Field& entry : entries_)
    if (entry.key == key) return entry;
  return std::nullopt;
}

Field MapFields::Require(const std::string& key) const {
  std::optional<Field> found = Find(key);
  if (!found) reader_.Fail(map_.node, map_.path, "missing required key '" + key + "' in " + what_);
  return *found;
}

void MapFields::Read(const std::string& key, double& out, const Range& range) const {
  if (const std::optional<Field> found = Find(key)) out = reader_.Number(*found, range);
}

void MapFields::Read(const std::string& key, int& out, int min) const {
  if (const std::optional<Field> found = Find(key)) out = reader_.Integer(*found, min);
}

void MapFields::Read(const std::string& key, Vector3& out) const {
  if (const std::optional<Field> found = Find(key)) out = reader_.Numbers<3>(*found);
}

void MapFields::Read(const std::string& key, bool& out) const {
  if (const std::optional<Field> found = Find(key)) out = reader_.Bool(*found);
}

namespace {

// The key a row's value is read from: the last component of its key.
std::string LastComponent(const ParameterInfo& row) {
  return row.key.substr(row.key.rfind('.') + 1);
}

}  // namespace

void MapFields::Read(const ParameterInfo& row, double& out) const {
  const std::string key = LastComponent(row);
  if (row.required) {
    out = reader_.Number(Require(key), row.range);
  } else {
    Read(key, out, row.range);
  }
}

void MapFields::Read(const ParameterInfo& row, int& out) const {
  const std::string key = LastComponent(row);
  const int min = static_cast<int>(row.range.min);
  if (row.required) {
    out = reader_.Integer(Require(key), min);
  } else {
    Read(key, out, min);
  }
}

void MapFields::Read(const ParameterInfo& row, Vector3& out) const {
  const std::string key = LastComponent(row);
  if (const std::optional<Field> found = row.required ? Require(key) : Find(key))
    out = reader_.Numbers<3>(*found, row.range);
}

void MapFields::ReadRows(const std::string& prefix, SceneDesc& scene) const {
  ReadRows(prefix, {}, scene);
}

void MapFields::ReadRows(const std::string& prefix, const std::vector<std::string>& names, SceneDesc& scene) const {
  for (const ParameterInfo& row : ParameterTable()) {
    if (row.key.rfind(prefix, 0) != 0 || row.key.find('.', prefix.size()) != std::string::npos) continue;
    if (row.type == ParameterType::kChoice || !row.binding) continue;
    std::string why;
    const Slot slot = row.binding->slot(scene, names, why);
    if (slot.number) Read(row, *slot.number);
    if (slot.integer) Read(row, *slot.integer);
    if (slot.vector) Read(row, *slot.vector);
  }
}

}  // namespace ductile::scene
