// Matching keys to the rows of the parameter table, listing a scene's parameters and checking a value.
#include "ductile/parameters.h"

#include <algorithm>
#include <map>

#include "scene/overrides.h"
#include "scene/scene_slots.h"
#include "scene/suggest.h"

namespace ductile {

namespace {

// Whether `parts` spell `pattern`, collecting what its `*` stand for.
bool Matches(const std::vector<std::string>& pattern, const std::vector<std::string>& parts,
             std::vector<std::string>& names) {
  names.clear();
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (parts[i].empty()) return false;
    if (pattern[i] == "*") {
      names.push_back(parts[i]);
    } else if (pattern[i] != parts[i]) {
      return false;
    }
  }
  return true;
}

// The names of the entries of the section `section` ("materials"), in scene order.
std::vector<std::string> EntryNames(const SceneDesc& scene, const std::string& section) {
  std::vector<std::string> names;
  const auto add = [&names](const auto& entries) {
    for (const auto& entry : entries) names.push_back(entry.name);
  };
  if (section == "materials") add(scene.materials);
  if (section == "objects") add(scene.objects);
  if (section == "colliders") add(scene.colliders);
  if (section == "rigid_bodies") add(scene.rigid_bodies);
  if (section == "robots") add(scene.robots);
  if (section == "welds") add(scene.welds);
  if (section == "cameras") add(scene.cameras);
  if (section == "soft_bodies") add(scene.soft_bodies);
  if (section == "affine_bodies") add(scene.affine_bodies);
  if (section == "pd_bodies") add(scene.pd_bodies);
  return names;
}

// What the second `*` of a row may stand for in the entry `entry` of `scene`: keyframe indices, or joints.
std::vector<std::string> SubEntryNames(const SceneDesc& scene, const std::string& pattern, const std::string& entry) {
  std::vector<std::string> names;
  for (const RigidBodyDesc& body : scene.rigid_bodies)
    if (body.name == entry && pattern.find(".keyframes.") != std::string::npos)
      for (std::size_t i = 0; i < body.keyframes.size(); ++i) names.push_back(std::to_string(i));
  for (const RobotDesc& robot : scene.robots) {
    if (robot.name != entry) continue;
    if (pattern.find(".initial_positions.") != std::string::npos)
      for (const auto& [joint, q] : robot.initial_positions) names.push_back(joint);
    if (pattern.find(".joint_efforts.") != std::string::npos)
      for (const auto& [joint, u] : robot.joint_efforts) names.push_back(joint);
    if (pattern.find(".controllers.") != std::string::npos)
      for (const JointControllerDesc& c : robot.controllers) names.push_back(c.joint);
  }
  for (const PdSoftBodyDesc& body : scene.pd_bodies)
    if (body.name == entry && pattern.find(".skeleton.") != std::string::npos)
      for (const PdBoneDesc& bone : body.skeleton) names.push_back(bone.name);
  return names;
}

// Every way to fill the `*` of `pattern` with the entries of `scene`.
std::vector<std::vector<std::string>> Expand(const SceneDesc& scene, const std::string& pattern) {
  const std::vector<std::string> parts = scene::SplitPath(pattern);
  const long stars = std::count(parts.begin(), parts.end(), "*");
  if (stars == 0) return {{}};
  std::vector<std::vector<std::string>> out;
  for (const std::string& entry : EntryNames(scene, parts.front())) {
    if (stars == 1) {
      out.push_back({entry});
      continue;
    }
    for (const std::string& sub : SubEntryNames(scene, pattern, entry)) out.push_back({entry, sub});
  }
  return out;
}

// `pattern` with its `*` replaced by `names`.
std::string Fill(const std::string& pattern, const std::vector<std::string>& names) {
  std::string key;
  std::size_t next = 0;
  for (const std::string& part : scene::SplitPath(pattern)) {
    key += (key.empty() ? "" : ".") + (part == "*" ? names[next++] : part);
  }
  return key;
}

}  // namespace

std::optional<ParameterKey> MatchParameter(const std::string& key) {
  const std::vector<std::string> parts = scene::SplitPath(key);
  std::vector<std::string> names;
  for (const ParameterInfo& info : ParameterTable()) {
    const std::vector<std::string> pattern = scene::SplitPath(info.key);
    if (parts.size() == pattern.size() && Matches(pattern, parts, names)) return ParameterKey{&info, key, names, -1};
    const bool element = info.type == ParameterType::kVector && parts.size() == pattern.size() + 1 &&
                         (parts.back() == "0" || parts.back() == "1" || parts.back() == "2");
    if (element && Matches(pattern, parts, names)) return ParameterKey{&info, key, names, parts.back()[0] - '0'};
  }
  return std::nullopt;
}

std::vector<SceneParameter> ListParameters(const SceneDesc& scene) {
  SceneDesc copy = scene;  // slots point into a scene they may change; this list only reads them
  std::vector<SceneParameter> out;
  for (const ParameterInfo& info : ParameterTable()) {
    for (const std::vector<std::string>& names : Expand(scene, info.key)) {
      const ParameterKey key{&info, Fill(info.key, names), names, -1};
      std::string why;
      const scene::Slot slot = scene::FindSlot(copy, key, why);
      if (slot.empty()) continue;
      const bool holds = scene::HoldsValue(info, slot);
      if (info.default_note == "–" && !holds) continue;  // a body gives its mass or its density, not both
      out.push_back({&info, key.key, names, holds ? scene::FormatSlot(slot) : std::string()});
    }
  }
  return out;
}

std::string CheckParameter(const SceneDesc& scene, const std::string& key, const std::string& value) {
  const std::string prefix = key + " = " + value + ": ";
  const std::optional<ParameterKey> matched = MatchParameter(key);
  if (!matched) {
    std::vector<std::string> keys;
    for (const SceneParameter& p : ListParameters(scene)) keys.push_back(p.key);
    return prefix + "unknown parameter '" + key + "'" + scene::DidYouMean(key, keys);
  }
  SceneDesc copy = scene;
  std::string why;
  if (scene::FindSlot(copy, *matched, why).empty()) return prefix + why;
  scene::Value parsed;
  if (std::string bad = scene::ReadValue(*matched, value, parsed); !bad.empty()) return prefix + bad;
  return {};
}

std::vector<ParameterChange> DiffParameters(const SceneDesc& before, const SceneDesc& after) {
  const std::vector<SceneParameter> a = ListParameters(before), b = ListParameters(after);
  std::map<std::string, const SceneParameter*> by_key;
  for (const SceneParameter& p : a) by_key.emplace(p.key, &p);
  std::vector<ParameterChange> out;
  for (const SceneParameter& p : b) {
    const auto found = by_key.find(p.key);
    if (found == by_key.end()) {
      out.push_back({p.info, p.key, {}, p.value, false, true});
      continue;
    }
    if (found->second->value != p.value) out.push_back({p.info, p.key, found->second->value, p.value, true, true});
    by_key.erase(found);
  }
  for (const SceneParameter& p : a)
    if (by_key.count(p.key) > 0) out.push_back({p.info, p.key, p.value, {}, true, false});
  return out;
}

std::string NeedsResetMessage(const ParameterKey& key) {
  const bool reload = key.info->apply == ParameterApply::kReload;
  return key.key + " " + key.info->reason + (reload ? ": load the scene again to apply" : ": reset to apply");
}

}  // namespace ductile
