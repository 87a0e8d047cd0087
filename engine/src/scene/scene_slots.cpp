// Reading a parameter's value from text, and the slot of a SceneDesc behind a row (its binding, scene_binding.h).
#include "scene/scene_slots.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "scene/scene_binding.h"

namespace ductile::scene {

namespace {

// The key's name in messages, as LoadScene names it: its last component ("youngs_modulus", a joint's name under a
// robot's `initial_positions`), with the element of a vector ("gravity[2]").
std::string ShortKey(const ParameterKey& key) {
  const std::string& pattern = key.info->key;
  std::string last = pattern.substr(pattern.rfind('.') + 1);
  if (last == "*") last = key.names.back();
  return key.element >= 0 ? last + "[" + std::to_string(key.element) + "]" : last;
}

// Reads one number as LoadScene does (yaml-cpp's conversion of a scalar), so both give the same double.
std::string ReadNumber(const std::string& name, const YAML::Node& node, bool integer, double& out) {
  if (integer) {
    int n = 0;
    if (!node.IsScalar() || !YAML::convert<int>::decode(node, n))
      return "'" + name + "' must be an integer, got '" + node.Scalar() + "'";
    out = n;
    return {};
  }
  if (!node.IsScalar() || !YAML::convert<double>::decode(node, out))
    return "'" + name + "' must be a number, got '" + node.Scalar() + "'";
  if (!std::isfinite(out)) return "'" + name + "' must be finite, got " + node.Scalar();
  return {};
}

// The text of `x` with the fewest digits that reads back as `x`.
std::string Shortest(double x) {
  for (int digits = 6; digits <= 17; ++digits) {
    std::ostringstream text;
    text << std::setprecision(digits) << x;
    if (std::stod(text.str()) == x) return text.str();
  }
  return {};
}

}  // namespace

Slot FindSlot(SceneDesc& scene, const ParameterKey& key, std::string& why) {
  if (!key.info->binding) {
    why = "'" + key.key + "' has no place in a scene description";
    return {};
  }
  return key.info->binding->slot(scene, key.names, why);
}

bool HoldsValue(const ParameterInfo& info, const Slot& slot) {
  if (slot.number == nullptr) return !slot.empty();
  const double x = *slot.number;
  const std::string& note = info.default_note;
  if (note.rfind("unbounded", 0) == 0) return std::isfinite(x);
  if (note == "–") return x > 0;  // a body's mass or density: 0 when the other is given
  if (note == "not set" || note.rfind("from `", 0) == 0) return x >= 0;  // negative: not set
  return true;
}

std::string ReadValue(const ParameterKey& key, const std::string& text, Value& out) {
  const ParameterInfo& info = *key.info;
  const std::string name = ShortKey(key);
  const bool whole_vector = info.type == ParameterType::kVector && key.element < 0;
  if (whole_vector) {
    YAML::Node list;
    try {
      list = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      return "value '" + text + "' is not a valid YAML list: " + e.msg;
    }
    if (!list.IsSequence() || list.size() != 3)
      return "'" + name + "' must be a list of 3 numbers, got " +
             (list.IsSequence() ? "a list of " + std::to_string(list.size()) : "'" + text + "'");
    for (std::size_t i = 0; i < 3; ++i) {
      const std::string element = name + "[" + std::to_string(i) + "]";
      if (std::string bad = ReadNumber(element, list[i], false, out.vector[i]); !bad.empty()) return bad;
      if (!info.range.Contains(out.vector[i]))
        return "'" + element + "' must be " + info.range.Describe() + ", got " + list[i].Scalar();
    }
    return {};
  }
  if (info.type == ParameterType::kChoice) {
    const auto found = std::find(info.choices.begin(), info.choices.end(), text);
    if (found != info.choices.end()) {
      out.number = static_cast<double>(found - info.choices.begin());
      return {};
    }
    std::string names;
    for (const std::string& c : info.choices) names += (names.empty() ? "" : ", ") + c;
    return "'" + name + "' must be one of " + names + ", got '" + text + "'";
  }
  const YAML::Node node(text);
  if (std::string bad = ReadNumber(name, node, info.type == ParameterType::kInteger, out.number); !bad.empty())
    return bad;
  if (info.type == ParameterType::kInteger && !info.range.Contains(out.number))
    return "'" + name + "' must be >= " + Shortest(info.range.min) + ", got " + text;
  if (!info.range.Contains(out.number)) return "'" + name + "' must be " + info.range.Describe() + ", got " + text;
  return {};
}

void Store(const Slot& slot, const ParameterKey& key, const Value& value) {
  if (slot.number) *slot.number = value.number;
  if (slot.integer) *slot.integer = static_cast<int>(value.number);
  if (slot.vector && key.element >= 0) (*slot.vector)[key.element] = value.number;
  if (slot.vector && key.element < 0) *slot.vector = value.vector;
  if (slot.set_choice) slot.set_choice(static_cast<int>(value.number));
}

std::string FormatSlot(const Slot& slot) {
  if (slot.number) return Shortest(*slot.number);
  if (slot.integer) return std::to_string(*slot.integer);
  if (slot.get_choice) {
    const int i = slot.get_choice();
    return slot.choices && i >= 0 && i < static_cast<int>(slot.choices->size()) ? (*slot.choices)[i]
                                                                                : std::to_string(i);
  }
  if (slot.vector) {
    const Vector3& v = *slot.vector;
    return "[" + Shortest(v[0]) + ", " + Shortest(v[1]) + ", " + Shortest(v[2]) + "]";
  }
  return {};
}

}  // namespace ductile::scene
