// The field of a SceneDesc behind each row of the parameter table, and reading values from text.
#include "params/scene_slots.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iomanip>
#include <map>
#include <sstream>

#include "scene/schema.h"
#include "scene/suggest.h"

namespace ductile::params {

namespace {

using Names = std::vector<std::string>;
// The slot of a row in `scene` for the names its `*` stand for; an empty slot with `why` when they name nothing.
using Accessor = std::function<Slot(SceneDesc& scene, const Names& names, std::string& why)>;

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

// A material's constant, for the models the row lists.
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

// A rigid body's value; `applies` says whether the body's type (and joint) takes it, `requirement` which bodies do.
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

// A robot's per-joint value: `entry` finds it in the robot's map or list by the joint's name (null: not there).
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

std::map<std::string, Accessor> SimulationAccessors() {
  return {
      {"simulation.dt", Fixed([](SceneDesc& s) { return Of(s.simulation.dt); })},
      {"simulation.substeps", Fixed([](SceneDesc& s) { return Of(s.simulation.substeps); })},
      {"simulation.duration", Fixed([](SceneDesc& s) { return Of(s.simulation.duration); })},
      {"simulation.gravity", Fixed([](SceneDesc& s) { return Of(s.simulation.gravity); })},
      {"simulation.output_rate", Fixed([](SceneDesc& s) { return Of(s.simulation.output_rate); })},
      {"simulation.contact_tolerance_relative",
       Fixed([](SceneDesc& s) { return Of(s.simulation.contact_tolerance_relative); })},
      {"simulation.contact_tolerance_absolute",
       Fixed([](SceneDesc& s) { return Of(s.simulation.contact_tolerance_absolute); })},
      {"simulation.max_solver_iterations", Fixed([](SceneDesc& s) { return Of(s.simulation.max_solver_iterations); })},
      {"simulation.cfl", Fixed([](SceneDesc& s) { return Of(s.simulation.cfl); })},
      {"simulation.threads", Fixed([](SceneDesc& s) { return Of(s.simulation.threads); })},
      {"simulation.coupling", Fixed([](SceneDesc& s) { return Of(s.simulation.coupling); })},
      {"simulation.backend", Fixed([](SceneDesc& s) { return Of(s.simulation.backend); })},
      {"simulation.strong_tolerance", Fixed([](SceneDesc& s) { return Of(s.simulation.strong_tolerance); })},
      {"simulation.strong_dense_limit", Fixed([](SceneDesc& s) { return Of(s.simulation.strong_dense_limit); })},
      {"simulation.implicit_tolerance", Fixed([](SceneDesc& s) { return Of(s.simulation.implicit_tolerance); })},
      {"simulation.seed", Fixed([](SceneDesc& s) { return Of(s.simulation.seed); })},
      {"grid.h", Fixed([](SceneDesc& s) { return Of(s.grid.h); })},
      {"grid.boundary.friction", Fixed([](SceneDesc& s) { return Of(s.walls.friction); })},
      {"contact.friction", Fixed([](SceneDesc& s) { return Of(s.contact.friction); })},
      {"contact.stiffness", Fixed([](SceneDesc& s) { return Of(s.contact.stiffness); })},
      {"contact.dissipation", Fixed([](SceneDesc& s) { return Of(s.contact.dissipation); })},
      {"contact.stiction_speed", Fixed([](SceneDesc& s) { return Of(s.contact.stiction_speed); })},
      {"contact.mpm_stiffness", Fixed([](SceneDesc& s) { return Of(s.contact.mpm_stiffness); })},
      {"contact.mpm_dissipation", Fixed([](SceneDesc& s) { return Of(s.contact.mpm_dissipation); })},
      {"ipc.dhat", Fixed([](SceneDesc& s) { return Of(s.ipc.dhat); })},
      {"ipc.barrier_stiffness", Fixed([](SceneDesc& s) { return Of(s.ipc.barrier_stiffness); })},
      {"ipc.friction", Fixed([](SceneDesc& s) { return Of(s.ipc.friction); })},
      {"ipc.friction_velocity", Fixed([](SceneDesc& s) { return Of(s.ipc.friction_velocity); })},
      {"ipc.newton_tolerance", Fixed([](SceneDesc& s) { return Of(s.ipc.newton_tolerance); })},
      {"ipc.max_newton_iterations", Fixed([](SceneDesc& s) { return Of(s.ipc.max_newton_iterations); })},
  };
}

std::map<std::string, Accessor> EntryAccessors() {
  const auto dynamic = [](const RigidBodyDesc& b) { return b.type == RigidBodyType::kDynamic; };
  const auto any = [](const RigidBodyDesc&) { return true; };
  return {
      {"materials.*.density", Material(&MaterialDesc::density, "density")},
      {"materials.*.friction", Material(&MaterialDesc::friction, "friction")},
      {"materials.*.youngs_modulus", Material(&MaterialDesc::youngs_modulus, "youngs_modulus")},
      {"materials.*.poisson_ratio", Material(&MaterialDesc::poisson_ratio, "poisson_ratio")},
      {"materials.*.yield_stress", Material(&MaterialDesc::yield_stress, "yield_stress")},
      {"materials.*.friction_angle", Material(&MaterialDesc::friction_angle_deg, "friction_angle")},
      {"materials.*.cohesion", Material(&MaterialDesc::cohesion, "cohesion")},
      {"materials.*.bulk_modulus", Material(&MaterialDesc::bulk_modulus, "bulk_modulus")},
      {"materials.*.gamma", Material(&MaterialDesc::gamma, "gamma")},
      {"materials.*.viscosity", Material(&MaterialDesc::viscosity, "viscosity")},
      {"materials.*.thickness", Material(&MaterialDesc::thickness, "thickness")},
      {"materials.*.normal_stiffness", Material(&MaterialDesc::normal_stiffness, "normal_stiffness")},
      {"materials.*.shear_stiffness", Material(&MaterialDesc::shear_stiffness, "shear_stiffness")},
      {"materials.*.layer_friction", Material(&MaterialDesc::layer_friction, "layer_friction")},
      {"materials.*.implicit_in_plane", Material(&MaterialDesc::implicit_in_plane, "implicit_in_plane")},
      {"objects.*.particles_per_cell", Entry(&SceneDesc::objects, "object", &MpmObjectDesc::particles_per_cell)},
      {"objects.*.velocity", Entry(&SceneDesc::objects, "object", &MpmObjectDesc::velocity)},
      {"colliders.*.boundary.friction",
       [](SceneDesc& scene, const Names& names, std::string& why) {
         ColliderDesc* collider = Named(scene.colliders, names[0]);
         if (collider == nullptr) why = NoEntry(scene.colliders, "collider", names[0]);
         return collider ? Of(collider->boundary.friction) : Slot{};
       }},
      {"rigid_bodies.*.mass",
       Body([](RigidBodyDesc& b) { return &b.mass; }, dynamic, "mass", "only dynamic bodies have a mass")},
      {"rigid_bodies.*.density",
       Body([](RigidBodyDesc& b) { return &b.density; }, dynamic, "density", "only dynamic bodies have a mass")},
      {"rigid_bodies.*.friction", Body([](RigidBodyDesc& b) { return &b.friction; }, any, "friction", "")},
      {"rigid_bodies.*.stiffness", Body([](RigidBodyDesc& b) { return &b.stiffness; }, any, "stiffness", "")},
      {"rigid_bodies.*.dissipation", Body([](RigidBodyDesc& b) { return &b.dissipation; }, any, "dissipation", "")},
      {"rigid_bodies.*.keyframes.*.time", KeyframeTime},
      {"soft_bodies.*.resolution", Entry(&SceneDesc::soft_bodies, "soft body", &SoftBodyDesc::resolution)},
      {"soft_bodies.*.thickness", Entry(&SceneDesc::soft_bodies, "soft body", &SoftBodyDesc::thickness)},
      {"soft_bodies.*.youngs_modulus", Entry(&SceneDesc::soft_bodies, "soft body", &SoftBodyDesc::youngs_modulus)},
      {"soft_bodies.*.poisson_ratio", Entry(&SceneDesc::soft_bodies, "soft body", &SoftBodyDesc::poisson_ratio)},
      {"soft_bodies.*.density", Entry(&SceneDesc::soft_bodies, "soft body", &SoftBodyDesc::density)},
      {"soft_bodies.*.velocity", Entry(&SceneDesc::soft_bodies, "soft body", &SoftBodyDesc::velocity)},
      {"affine_bodies.*.resolution", Entry(&SceneDesc::affine_bodies, "affine body", &AffineBodyDesc::resolution)},
      {"affine_bodies.*.density", Entry(&SceneDesc::affine_bodies, "affine body", &AffineBodyDesc::density)},
      {"affine_bodies.*.stiffness", Entry(&SceneDesc::affine_bodies, "affine body", &AffineBodyDesc::stiffness)},
      {"affine_bodies.*.velocity", Entry(&SceneDesc::affine_bodies, "affine body", &AffineBodyDesc::velocity)},
      {"affine_bodies.*.angular_velocity",
       Entry(&SceneDesc::affine_bodies, "affine body", &AffineBodyDesc::angular_velocity)},
      {"welds.*.stiffness", Entry(&SceneDesc::welds, "weld", &WeldDesc::stiffness)},
      {"welds.*.damping", Entry(&SceneDesc::welds, "weld", &WeldDesc::damping)},
      {"cameras.*.fov_deg", Entry(&SceneDesc::cameras, "camera", &CameraDesc::fov_deg)},
  };
}

std::map<std::string, Accessor> JointAccessors() {
  return {
      {"rigid_bodies.*.joint.position", Joint(&BodyJointDesc::position, "position")},
      {"rigid_bodies.*.joint.lower", Joint(&BodyJointDesc::lower, "lower")},
      {"rigid_bodies.*.joint.upper", Joint(&BodyJointDesc::upper, "upper")},
      {"rigid_bodies.*.joint.damping", Joint(&BodyJointDesc::damping, "damping")},
      {"rigid_bodies.*.joint.effort", Joint(&BodyJointDesc::effort, "effort")},
      {"rigid_bodies.*.joint.effort_applied", Joint(&BodyJointDesc::effort_applied, "effort_applied")},
      {"rigid_bodies.*.joint.kp", Joint(&BodyJointDesc::kp, "kp")},
      {"rigid_bodies.*.joint.kd", Joint(&BodyJointDesc::kd, "kd")},
      {"rigid_bodies.*.joint.target", Joint(&BodyJointDesc::target, "target")},
      {"robots.*.link_force_limit", Entry(&SceneDesc::robots, "robot", &RobotDesc::link_force_limit)},
      {"robots.*.initial_positions.*",
       RobotJoint("initial position",
                  [](RobotDesc& r, const std::string& j) { return MapValue(r.initial_positions, j); })},
      {"robots.*.joint_efforts.*",
       RobotJoint("joint effort", [](RobotDesc& r, const std::string& j) { return MapValue(r.joint_efforts, j); })},
      {"robots.*.controllers.*.kp",
       RobotJoint("controller",
                  [](RobotDesc& r, const std::string& j) { return Controller(r, j, &JointControllerDesc::kp); })},
      {"robots.*.controllers.*.kd",
       RobotJoint("controller",
                  [](RobotDesc& r, const std::string& j) { return Controller(r, j, &JointControllerDesc::kd); })},
      {"robots.*.controllers.*.target",
       RobotJoint("controller",
                  [](RobotDesc& r, const std::string& j) { return Controller(r, j, &JointControllerDesc::target); })},
      {"robots.*.controllers.*.feedforward", RobotJoint("controller",
                                                        [](RobotDesc& r, const std::string& j) {
                                                          return Controller(r, j, &JointControllerDesc::feedforward);
                                                        })},
  };
}

const std::map<std::string, Accessor>& Accessors() {
  static const std::map<std::string, Accessor> accessors = [] {
    std::map<std::string, Accessor> all = SimulationAccessors();
    all.merge(EntryAccessors());
    all.merge(JointAccessors());
    return all;
  }();
  return accessors;
}

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
  const auto found = Accessors().find(key.info->key);
  if (found == Accessors().end()) {
    why = "'" + key.key + "' has no place in a scene description";
    return {};
  }
  return found->second(scene, key.names, why);
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

}  // namespace ductile::params
