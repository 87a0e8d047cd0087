// The bindings of the parameter table's rows to the fields of a SceneDesc (scene_binding.h).
#include "scene/scene_binding.h"

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "scene/schema.h"

namespace ductile::scene {

Slot Of(double* x) {
  Slot slot;
  slot.number = x;
  return slot;
}
Slot Of(double& x) {
  return Of(&x);
}
Slot Of(int& x) {
  Slot slot;
  slot.integer = &x;
  return slot;
}
Slot Of(Vector3& x) {
  Slot slot;
  slot.vector = &x;
  return slot;
}
Slot Of(CouplingKind& x) {
  Slot slot;
  slot.get_choice = [&x] { return static_cast<int>(x); };
  slot.set_choice = [&x](int i) { x = static_cast<CouplingKind>(i); };
  slot.choices = &FindParameter("simulation.coupling")->choices;
  return slot;
}

Slot Of(BackendKind& x) {
  Slot slot;
  slot.get_choice = [&x] { return static_cast<int>(x); };
  slot.set_choice = [&x](int i) { x = static_cast<BackendKind>(i); };
  slot.choices = &FindParameter("simulation.backend")->choices;
  return slot;
}

Accessor Material(double MaterialDesc::*field, const std::string& key) {
  return [field, key](SceneDesc& scene, const Names& names, std::string& why) {
    MaterialDesc* m = Named(scene.materials, names[0]);
    if (m == nullptr) {
      why = NoEntry(scene.materials, "material", names[0]);
      return Slot{};
    }
    const std::vector<MaterialModelDesc>& models = FindParameter("materials.*." + key)->models;
    if (std::find(models.begin(), models.end(), m->model) == models.end()) {
      why = "'" + key + "' does not apply to model " + scene::NameOf(m->model);
      return Slot{};
    }
    return Of(m->*field);
  };
}

Accessor Body(std::function<double*(RigidBodyDesc&)> field, std::function<bool(const RigidBodyDesc&)> applies,
              const std::string& key, const std::string& requirement) {
  return [field = std::move(field), applies = std::move(applies), key, requirement](
             SceneDesc& scene, const Names& names, std::string& why) {
    RigidBodyDesc* body = Named(scene.rigid_bodies, names[0]);
    if (body == nullptr) {
      why = NoEntry(scene.rigid_bodies, "rigid body", names[0]);
      return Slot{};
    }
    if (!applies(*body)) {
      why = "'" + key + "' does not apply to " + scene::NameOf(body->type) + " rigid body '" + body->name +
            "': " + requirement;
      return Slot{};
    }
    return Of(field(*body));
  };
}

Accessor Joint(double BodyJointDesc::*field, const std::string& key) {
  return Body([field](RigidBodyDesc& b) { return &(b.joint.*field); },
              [](const RigidBodyDesc& b) { return b.has_joint && b.joint.type != JointType::kFixed; }, key,
              "only a dynamic body on a revolute or prismatic joint takes it");
}

Accessor RobotJoint(const std::string& noun, std::function<double*(RobotDesc&, const std::string& joint)> entry) {
  return [noun, entry = std::move(entry)](SceneDesc& scene, const Names& names, std::string& why) {
    RobotDesc* robot = Named(scene.robots, names[0]);
    if (robot == nullptr) {
      why = NoEntry(scene.robots, "robot", names[0]);
      return Slot{};
    }
    double* value = entry(*robot, names[1]);
    if (value == nullptr) why = "no " + noun + " '" + names[1] + "' in robot '" + names[0] + "'";
    return Of(value);
  };
}

namespace {

// The bone names[1] of the pd body names[0], or null with `why`.
PdBoneDesc* FindPdBone(SceneDesc& scene, const Names& names, std::string& why) {
  PdSoftBodyDesc* body = Named(scene.pd_bodies, names[0]);
  if (body == nullptr) {
    why = NoEntry(scene.pd_bodies, "pd body", names[0]);
    return nullptr;
  }
  PdBoneDesc* bone = Named(body->skeleton, names[1]);
  if (bone == nullptr) why = NoEntry(body->skeleton, "bone", names[1]) + " of pd body '" + names[0] + "'";
  return bone;
}

}  // namespace

Accessor PdBone(double PdBoneDesc::*field) {
  return [field](SceneDesc& scene, const Names& names, std::string& why) {
    PdBoneDesc* bone = FindPdBone(scene, names, why);
    return bone == nullptr ? Slot{} : Of(bone->*field);
  };
}

Accessor PdBone(Vector3 PdBoneDesc::*field) {
  return [field](SceneDesc& scene, const Names& names, std::string& why) {
    PdBoneDesc* bone = FindPdBone(scene, names, why);
    return bone == nullptr ? Slot{} : Of(bone->*field);
  };
}

double* Controller(RobotDesc& robot, const std::string& joint, double JointControllerDesc::*field) {
  for (JointControllerDesc& c : robot.controllers)
    if (c.joint == joint) return &(c.*field);
  return nullptr;
}

double* MapValue(std::map<std::string, double>& map, const std::string& joint) {
  const auto found = map.find(joint);
  return found == map.end() ? nullptr : &found->second;
}

Accessor Fixed(std::function<Slot(SceneDesc&)> slot) {
  return [slot = std::move(slot)](SceneDesc& scene, const Names&, std::string&) { return slot(scene); };
}

Slot KeyframeTime(SceneDesc& scene, const Names& names, std::string& why) {
  RigidBodyDesc* body = Named(scene.rigid_bodies, names[0]);
  if (body == nullptr) {
    why = NoEntry(scene.rigid_bodies, "rigid body", names[0]);
    return {};
  }
  for (std::size_t i = 0; i < body->keyframes.size(); ++i)
    if (names[1] == std::to_string(i)) return Of(body->keyframes[i].time);
  why = "no keyframe '" + names[1] + "' in 'rigid_bodies." + names[0] + ".keyframes': the body has " +
        std::to_string(body->keyframes.size());
  return {};
}

bool IsDynamic(const RigidBodyDesc& body) {
  return body.type == RigidBodyType::kDynamic;
}
bool AnyBody(const RigidBodyDesc& /*body*/) {
  return true;
}

}  // namespace ductile::scene
