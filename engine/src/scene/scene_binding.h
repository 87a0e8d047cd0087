// Where each row of the parameter table (ductile/parameters.h) lives in a SceneDesc: a row's binding
// (ParameterInfo::binding, set by parameter_table.cpp with the helpers here) finds the field of the named entries its
// `*` stand for, or says why they name nothing (a missing entry, a key its model or type does not take).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ductile/parameters.h"
#include "ductile/scene.h"
#include "scene/scene_slots.h"
#include "scene/suggest.h"

namespace ductile::scene {

using Names = std::vector<std::string>;
/// The slot of a row in `scene` for the names its `*` stand for; an empty slot with `why` when they name nothing.
using Accessor = std::function<Slot(SceneDesc& scene, const Names& names, std::string& why)>;

}  // namespace ductile::scene

namespace ductile {

struct ParameterBinding {
  scene::Accessor slot;
};

}  // namespace ductile

namespace ductile::scene {

/// The slot of one field.
Slot Of(double* x);
Slot Of(double& x);
Slot Of(int& x);
Slot Of(Vector3& x);
Slot Of(CouplingKind& x);
Slot Of(BackendKind& x);

/// The entry named `name`, or null.
template <typename Desc>
Desc* Named(std::vector<Desc>& entries, const std::string& name) {
  for (Desc& entry : entries)
    if (entry.name == name) return &entry;
  return nullptr;
}

// "no material 'rubbr' in the scene; did you mean 'rubber'? (defined: rubber)", as `--set` says it.
template <typename Desc>
std::string NoEntry(const std::vector<Desc>& entries, const std::string& noun, const std::string& name) {
  std::vector<std::string> names;
  names.reserve(entries.size());
  for (const Desc& entry : entries) names.push_back(entry.name);
  return "no " + noun + " '" + name + "' in the scene" + scene::DidYouMean(name, names) +
         " (defined: " + (names.empty() ? "none" : scene::JoinNames(names)) + ")";
}

// A number field of the named entry of a section: `section` selects the section's entries, `field` the value.
template <typename Desc, typename Field>
Accessor Entry(std::vector<Desc> SceneDesc::*section, const std::string& noun, Field Desc::*field) {
  return [section, noun, field](SceneDesc& scene, const Names& names, std::string& why) {
    Desc* entry = Named(scene.*section, names[0]);
    if (entry == nullptr) {
      why = NoEntry(scene.*section, noun, names[0]);
      return Slot{};
    }
    return Of(entry->*field);
  };
}

/// A field of the scene outside any named entry (simulation.dt: `s.simulation.dt`).
Accessor Fixed(std::function<Slot(SceneDesc&)> slot);
/// A material's constant, for the models its row lists (`key`: the row's last component).
Accessor Material(double MaterialDesc::*field, const std::string& key);
/// A rigid body's value; `applies` says whether the body's type (and joint) takes it, `requirement` which bodies do.
Accessor Body(std::function<double*(RigidBodyDesc&)> field, std::function<bool(const RigidBodyDesc&)> applies,
              const std::string& key, const std::string& requirement);
/// A value of a rigid body's joint (a dynamic body on a revolute or prismatic joint).
Accessor Joint(double BodyJointDesc::*field, const std::string& key);
/// A robot's per-joint value: `entry` finds it in the robot's map or list by the joint's name (null: not there).
Accessor RobotJoint(const std::string& noun, std::function<double*(RobotDesc&, const std::string& joint)> entry);
/// A robot's controller field for `joint`, or null.
double* Controller(RobotDesc& robot, const std::string& joint, double JointControllerDesc::*field);
/// A per-joint map's value for `joint`, or null.
double* MapValue(std::map<std::string, double>& map, const std::string& joint);
/// A field of a pd body's bone: pd_bodies.BODY.skeleton.BONE.FIELD.
Accessor PdBone(double PdBoneDesc::*field);
Accessor PdBone(Vector3 PdBoneDesc::*field);
/// A keyframe's time: rigid_bodies.BODY.keyframes.INDEX.time.
Slot KeyframeTime(SceneDesc& scene, const Names& names, std::string& why);
/// Which rigid bodies a row applies to.
bool IsDynamic(const RigidBodyDesc& body);
bool AnyBody(const RigidBodyDesc& body);

}  // namespace ductile::scene
