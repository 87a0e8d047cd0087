// LoadScene: YAML text -> tree (+ `--set` overrides) -> validated SceneDesc. The checks follow the tree top
// down, section by section in a fixed order; the first problem found is thrown as a SceneError that names the
// place in the file (or the override) and the key. The format is documented in docs/scene-format.md.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <yaml-cpp/yaml.h>
#include <Eigen/Geometry>

#include "ductile/multibody_desc.h"
#include "ductile/scene.h"
#include "geometry/triangle_mesh.h"
#include "scene/desc_eigen.h"
#include "scene/overrides.h"
#include "scene/reader.h"
#include "scene/schema.h"
#include "scene/suggest.h"

namespace ductile {

namespace scene {

namespace {

constexpr double kDegree = 3.14159265358979323846 / 180.0;

// The keys of the schema node at `path`; an empty component stands for any entry of a named map or a list.
std::vector<std::string> KeysOf(const std::vector<std::string>& path) {
  const SchemaNode* node = &SceneSchema();
  for (const std::string& key : path) {
    const bool entry = node->kind == SchemaKind::kNamedMap || node->kind == SchemaKind::kList;
    node = entry ? &node->children.front() : node->Find(key);
  }
  return node->ChildNames();
}

// Which shape types a use of a shape allows.
enum class ShapeUse {
  kMpmObject,   // A solid filled with particles: box, sphere, cylinder, capsule, mesh.
  kCollider,    // An analytic MPM collider: plane, box, sphere, cylinder.
  kStaticBody,  // A static rigid body: every type.
  kMovingBody,  // A dynamic or kinematic rigid body: every type but plane.
};

// Why `key` does not apply to a rigid body of `type` (it is a key of another type), after "'KEY' ".
std::string NotApplicableToRigidBody(RigidBodyType type, const std::string& key) {
  const std::string prefix = "does not apply to " + NameOf(type) + " rigid bodies: ";
  if (key == "keyframes") return prefix + "only kinematic bodies follow keyframes (set 'type: kinematic')";
  if (key == "interpolation")
    return prefix +
           "only kinematic bodies follow keyframes, and 'interpolation' says how they move between them "
           "(set 'type: kinematic')";
  if (key == "joint") {
    const std::string reason =
        type == RigidBodyType::kStatic ? "they are fixed in the world" : "they follow their 'keyframes'";
    return prefix + reason + "; only dynamic bodies hang on a joint (a " + NameOf(type) +
           " body may be a joint's 'parent')";
  }
  switch (type) {
    case RigidBodyType::kStatic:
      if (key == "mass" || key == "density") return prefix + "they are fixed in the world (infinite mass)";
      if (key == "force" || key == "torque") return prefix + "they are fixed in the world, no force moves them";
      return prefix + "they do not move";
    case RigidBodyType::kKinematic:
      if (key == "pose") return prefix + "they follow their 'keyframes' (the first keyframe gives the initial pose)";
      if (key == "mass" || key == "density" || key == "force" || key == "torque")
        return prefix + "they follow their keyframes whatever the forces (infinite mass)";
      return prefix + "their motion comes from their 'keyframes'";
    case RigidBodyType::kDynamic:
      break;
  }
  return prefix + "it is not one of their keys";
}

std::string FormatPoint(const Eigen::Vector3d& x) {
  std::ostringstream text;
  text << '(' << x.x() << ", " << x.y() << ", " << x.z() << ')';
  return text.str();
}

using ductile::ToEigen;  // Vector3 -> Eigen (scene/desc_eigen.h), next to this file's quaternion overload

Eigen::Quaterniond ToEigen(const std::array<double, 4>& q) {
  return {q[0], q[1], q[2], q[3]};
}

std::vector<std::string> SortedNames(const std::vector<std::string>& names) {
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

// How a body that a weld names moves.
enum class Mobility {
  kFixed,       // The world, a static rigid body, a robot link with no moving joint to the world.
  kPrescribed,  // A kinematic rigid body: moves along its keyframes whatever the forces.
  kFree,        // A dynamic rigid body, a robot link behind a moving joint or a floating base.
};

struct WeldBody {
  std::string name;         // As a weld names it: "world", "cup", "arm/iiwa_link_7".
  std::string description;  // For messages: "the world", "static rigid body 'table'".
  Mobility mobility = Mobility::kFixed;
};

// Checks a scene tree and builds the SceneDesc. One use; not thread-safe.
class SceneParser {
 public:
  SceneParser(const Reader& reader, std::filesystem::path file) : reader_(reader), file_(std::move(file)) {}

  SceneDesc Parse(const YAML::Node& root) {
    SceneDesc scene;
    scene.file = file_;
    std::vector<std::string> sections, reserved;
    for (const SchemaNode& section : SceneSchema().children)
      (section.kind == SchemaKind::kReserved ? reserved : sections).push_back(section.name);
    const MapFields top(reader_, Field{root, "", "", {}}, "the scene");
    top.CheckKeys(sections, reserved, "is not supported yet");

    if (const auto field = top.Find("simulation")) scene.simulation = ParseSimulation(*field);
    if (const auto field = top.Find("grid")) ParseGrid(*field, scene);
    if (const auto field = top.Find("contact")) scene.contact = ParseContact(*field);
    if (const auto field = top.Find("materials")) {
      for (const Field& entry : reader_.Entries(*field, "section 'materials'"))
        scene.materials.push_back(ParseMaterial(entry));
    }
    if (const auto field = top.Find("objects")) {
      for (const Field& entry : reader_.Entries(*field, "section 'objects'"))
        scene.objects.push_back(ParseObject(entry, scene));
    }
    if (const auto field = top.Find("colliders")) {
      for (const Field& entry : reader_.Entries(*field, "section 'colliders'"))
        scene.colliders.push_back(ParseCollider(entry));
    }
    if (const auto field = top.Find("rigid_bodies")) {
      const std::vector<Field> entries = reader_.Entries(*field, "section 'rigid_bodies'");
      for (const Field& entry : entries) scene.rigid_bodies.push_back(ParseRigidBody(entry, entries, scene));
    }
    if (const auto field = top.Find("robots")) {
      for (const Field& entry : reader_.Entries(*field, "section 'robots'")) scene.robots.push_back(ParseRobot(entry));
    }
    if (const auto field = top.Find("welds")) {
      const std::vector<WeldBody> bodies = WeldBodies(scene);
      for (const Field& entry : reader_.Entries(*field, "section 'welds'"))
        scene.welds.push_back(ParseWeld(entry, bodies));
    }
    if (const auto field = top.Find("collision_filters")) {
      const std::vector<WeldBody> bodies = WeldBodies(scene);
      for (const Field& entry : reader_.Entries(*field, "section 'collision_filters'"))
        scene.collision_filters.push_back(ParseCollisionFilter(entry, bodies));
    }
    if (const auto field = top.Find("output")) ParseOutput(*field, scene);
    if (const auto field = top.Find("cameras")) {
      for (const Field& entry : reader_.Entries(*field, "section 'cameras'"))
        scene.cameras.push_back(ParseCamera(entry));
    }
    return scene;
  }

 private:
  SimulationDesc ParseSimulation(const Field& field) const {
    SimulationDesc simulation;
    const MapFields map(reader_, field, "section 'simulation'");
    map.CheckKeys(KeysOf({"simulation"}));
    map.Read("dt", simulation.dt, Positive());
    map.Read("substeps", simulation.substeps, 1);
    map.Read("duration", simulation.duration, Positive());
    map.Read("gravity", simulation.gravity);
    map.Read("output_rate", simulation.output_rate, Positive());
    map.Read("contact_tolerance_relative", simulation.contact_tolerance_relative, Positive());
    map.Read("contact_tolerance_absolute", simulation.contact_tolerance_absolute, NonNegative());
    map.Read("max_solver_iterations", simulation.max_solver_iterations, 1);
    map.Read("cfl", simulation.cfl, Between(0, 1, true, false));
    map.Read("threads", simulation.threads, 0);
    return simulation;
  }

  void ParseGrid(const Field& field, SceneDesc& scene) const {
    const MapFields map(reader_, field, "section 'grid'");
    map.CheckKeys(KeysOf({"grid"}));
    map.Read("h", scene.grid.h, Positive());
    if (const auto domain_field = map.Find("domain")) {
      const MapFields domain(reader_, *domain_field, "grid domain");
      domain.CheckKeys(KeysOf({"grid", "domain"}));
      domain.Read("min", scene.grid.domain_min);
      domain.Read("max", scene.grid.domain_max);
      for (int axis = 0; axis < 3; ++axis) {
        if (scene.grid.domain_min[axis] >= scene.grid.domain_max[axis]) {
          const std::string name(1, static_cast<char>('x' + axis));
          reader_.Fail(domain_field->node, domain_field->path,
                       "grid domain 'min' must be below 'max' on every axis, got min " + name + " = " +
                           FormatNumber(scene.grid.domain_min[axis]) + " >= max " + name + " = " +
                           FormatNumber(scene.grid.domain_max[axis]));
        }
      }
    }
    if (const auto boundary = map.Find("boundary")) scene.walls = ParseBoundary(*boundary, "grid boundary");
    // The grid's block table spans the whole domain: refuse sizes that cannot be allocated instead of failing later.
    constexpr double kMaxGridNodes = 1e9;
    double nodes = 1;
    std::string dims;
    for (int axis = 0; axis < 3; ++axis) {
      const double n = std::ceil((scene.grid.domain_max[axis] - scene.grid.domain_min[axis]) / scene.grid.h) + 1;
      nodes *= n;
      dims += (axis ? " x " : "") + FormatNumber(n);
    }
    if (nodes > kMaxGridNodes) {
      const auto h = map.Find("h");
      reader_.Fail(h ? h->node : field.node, h ? h->path : field.path,
                   "the grid would have " + dims +
                       " nodes (domain / h), more than the 1e9 supported: raise 'h' or "
                       "shrink the domain");
    }
  }

  BoundaryDesc ParseBoundary(const Field& field, const std::string& what) const {
    BoundaryDesc boundary;
    const MapFields map(reader_, field, what);
    map.CheckKeys(KeysOf({"grid", "boundary"}));
    if (const auto type = map.Find("type")) boundary.type = reader_.Choice(*type, "boundary type", BoundaryTypeNames());
    map.Read("friction", boundary.friction, NonNegative());
    return boundary;
  }

  // Names become `--set` path components, so they cannot be empty or contain the separator.
  void CheckName(const Field& entry, const std::string& noun) const {
    if (entry.key.empty()) reader_.FailAtKey(entry, "a " + noun + " name must not be empty");
    if (entry.key.find('.') != std::string::npos)
      reader_.FailAtKey(entry, noun + " name '" + entry.key + "' must not contain '.' (it separates --set keys)");
  }

  // Welds name a robot's link "ROBOT/LINK" and the world "world": a rigid body or robot named with a '/', or a
  // rigid body named "world", would be ambiguous there.
  void CheckWeldableName(const Field& entry, const std::string& noun) const {
    if (entry.key.find('/') != std::string::npos)
      reader_.FailAtKey(entry,
                        noun + " name '" + entry.key + "' must not contain '/' (welds name robot links ROBOT/LINK)");
    if (noun == "rigid body" && entry.key == "world")
      reader_.FailAtKey(entry, "rigid body name 'world' is reserved: welds use it for the world frame");
  }

  // Objects, rigid bodies and robots share one set of names: outputs (trajectory rows, probes) are keyed by
  // name. Of two entries with the same name, the one later in the file is the error.
  void ClaimName(const Field& entry, const std::string& noun) {
    const auto [claimed, inserted] = names_.try_emplace(entry.key, NamedEntry{noun, entry});
    if (inserted) return;
    const NamedEntry& first = claimed->second;
    const bool entry_is_later = entry.key_node.Mark().pos > first.field.key_node.Mark().pos;
    const Field& at = entry_is_later ? entry : first.field;
    const std::string& at_noun = entry_is_later ? noun : first.noun;
    const Field& other = entry_is_later ? first.field : entry;
    const std::string& other_noun = entry_is_later ? first.noun : noun;
    reader_.FailAtKey(at, at_noun + " name '" + entry.key + "' is already used by " + other_noun + " '" + entry.key +
                              "' (line " + std::to_string(other.key_node.Mark().line + 1) +
                              "): objects, rigid bodies and robots need distinct names (outputs are keyed by name)");
  }

  SourceLocation Where(const Field& entry) const {
    const YAML::Mark mark = entry.key_node.Mark();
    if (mark.is_null()) return {file_.string(), 0, 0};
    return {file_.string(), mark.line + 1, mark.column + 1};
  }

  MaterialDesc ParseMaterial(const Field& entry) const {
    CheckName(entry, "material");
    MaterialDesc material;
    material.name = entry.key;
    material.where = Where(entry);
    const MapFields map(reader_, entry, "material '" + entry.key + "'");
    material.model = reader_.Choice(map.Require("model"), "material model", MaterialModelNames());
    const std::string model = NameOf(material.model);
    map.CheckKeys(MaterialKeys(material.model), KeysOf({"materials", ""}), "does not apply to model " + model);

    material.density = reader_.Number(map.Require("density"), Positive());
    map.Read("friction", material.friction, NonNegative());
    if (material.model == MaterialModelDesc::kFluid) {
      material.bulk_modulus = reader_.Number(map.Require("bulk_modulus"), Positive());
      map.Read("gamma", material.gamma, AtLeast(1));
      map.Read("viscosity", material.viscosity, NonNegative());
      return material;
    }
    material.youngs_modulus = reader_.Number(map.Require("youngs_modulus"), Positive());
    material.poisson_ratio = reader_.Number(map.Require("poisson_ratio"), Between(-1, 0.5, true, true));
    map.Read("yield_stress", material.yield_stress, NonNegative());
    map.Read("friction_angle", material.friction_angle_deg, Between(0, 90, false, true));
    map.Read("cohesion", material.cohesion, NonNegative());
    return material;
  }

  MpmObjectDesc ParseObject(const Field& entry, const SceneDesc& scene) {
    CheckName(entry, "object");
    ClaimName(entry, "object");
    MpmObjectDesc object;
    object.name = entry.key;
    object.where = Where(entry);
    const std::string what = "object '" + entry.key + "'";
    const MapFields map(reader_, entry, what);
    map.CheckKeys(KeysOf({"objects", ""}));

    const Field material = map.Require("material");
    object.material = reader_.Text(material);
    if (scene.FindMaterial(object.material) == nullptr) {
      std::vector<std::string> names;
      for (const MaterialDesc& m : scene.materials) names.push_back(m.name);
      names = SortedNames(names);
      reader_.Fail(material, "undefined material '" + object.material +
                                 "' (defined: " + (names.empty() ? "none" : JoinNames(names)) + ")" +
                                 DidYouMean(object.material, names));
    }
    object.shape = ParseShape(map.Require("shape"), what, ShapeUse::kMpmObject);
    if (const auto pose = map.Find("pose")) object.pose = ParsePose(*pose, what);
    map.Read("particles_per_cell", object.particles_per_cell, 1);
    map.Read("velocity", object.velocity);
    CheckInsideDomain(entry, object, scene.grid);
    return object;
  }

  ColliderDesc ParseCollider(const Field& entry) {
    CheckName(entry, "collider");
    ColliderDesc collider;
    collider.name = entry.key;
    collider.where = Where(entry);
    const std::string what = "collider '" + entry.key + "'";
    const MapFields map(reader_, entry, what);
    map.CheckKeys(KeysOf({"colliders", ""}));
    collider.shape = ParseShape(map.Require("shape"), what, ShapeUse::kCollider);
    if (const auto pose = map.Find("pose")) collider.pose = ParsePose(*pose, what);
    if (const auto boundary = map.Find("boundary")) collider.boundary = ParseBoundary(*boundary, "boundary of " + what);
    return collider;
  }

  ContactDesc ParseContact(const Field& field) const {
    ContactDesc contact;
    contact.where = Where(field);
    const MapFields map(reader_, field, "section 'contact'");
    map.CheckKeys(KeysOf({"contact"}));
    map.Read("friction", contact.friction, NonNegative());
    map.Read("stiffness", contact.stiffness, Positive());
    map.Read("dissipation", contact.dissipation, NonNegative());
    map.Read("stiction_speed", contact.stiction_speed, Positive());
    map.Read("mpm_stiffness", contact.mpm_stiffness, Positive());
    map.Read("mpm_dissipation", contact.mpm_dissipation, NonNegative());
    return contact;
  }

  // `entries` are all the entries of the section, `scene.rigid_bodies` those before `entry` (a joint's parent
  // must be one of them).
  RigidBodyDesc ParseRigidBody(const Field& entry, const std::vector<Field>& entries, const SceneDesc& scene) {
    CheckName(entry, "rigid body");
    CheckWeldableName(entry, "rigid body");
    ClaimName(entry, "rigid body");
    RigidBodyDesc body;
    body.name = entry.key;
    body.where = Where(entry);
    const std::string what = "rigid body '" + entry.key + "'";
    const MapFields map(reader_, entry, what);
    if (const auto type = map.Find("type")) body.type = reader_.Choice(*type, "rigid body type", RigidBodyTypeNames());
    map.CheckKeys(RigidBodyKeys(body.type), KeysOf({"rigid_bodies", ""}),
                  [&](const std::string& key) { return NotApplicableToRigidBody(body.type, key); });
    const auto joint = map.Find("joint");
    if (joint) CheckNoInitialMotion(map, *joint, what);

    const bool is_static = body.type == RigidBodyType::kStatic;
    body.shape = ParseShape(map.Require("shape"), what, is_static ? ShapeUse::kStaticBody : ShapeUse::kMovingBody,
                            {entry.path + ".type"});
    if (body.type == RigidBodyType::kDynamic) {
      const auto mass = map.Find("mass");
      const auto density = map.Find("density");
      if (mass && density) {
        const Field& second = mass->key_node.Mark().pos > density->key_node.Mark().pos ? *mass : *density;
        reader_.Fail(second.key_node, second.path, what + " takes either 'mass' or 'density', not both",
                     {mass->path, density->path});
      }
      if (!mass && !density)
        reader_.Fail(entry.node, entry.path, "missing required key 'mass' or 'density' in dynamic " + what);
      map.Read("mass", body.mass, Positive());
      map.Read("density", body.density, Positive());
      map.Read("velocity", body.velocity);
      map.Read("angular_velocity", body.angular_velocity);
      map.Read("force", body.force);
      map.Read("torque", body.torque);
    }
    if (const auto pose = map.Find("pose")) body.pose = ParsePose(*pose, what);
    if (joint) {
      body.has_joint = true;
      body.joint = ParseBodyJoint(*joint, entry.key, entries, scene.rigid_bodies);
    }
    if (body.type == RigidBodyType::kKinematic) {
      const auto keyframes = map.Find("keyframes");
      if (!keyframes)
        reader_.Fail(entry.node, entry.path,
                     "missing required key 'keyframes' in kinematic " + what + " (the poses it follows)");
      body.keyframes = ParseKeyframes(*keyframes, what);
      if (const auto interpolation = map.Find("interpolation"))
        body.interpolation = reader_.Choice(*interpolation, "keyframe interpolation", KeyframeInterpolationNames());
    }
    map.Read("friction", body.friction, NonNegative());
    map.Read("stiffness", body.stiffness, Positive());
    map.Read("dissipation", body.dissipation, NonNegative());
    if (const auto color = map.Find("color")) body.rgba = reader_.Numbers<4>(*color, Between(0, 1, false, false));
    return body;
  }

  // A body on a joint starts where its parent and the joint put it, moving with its parent: it has no `pose`,
  // `velocity` or `angular_velocity` of its own. An override that added the joint takes the blame.
  void CheckNoInitialMotion(const MapFields& map, const Field& joint, const std::string& what) const {
    const std::vector<std::string> blame =
        joint.key_node.Mark().is_null() ? std::vector<std::string>{joint.path} : std::vector<std::string>{};
    if (const auto pose = map.Find("pose")) {
      reader_.Fail(pose->key_node, pose->path,
                   "'pose' does not apply to " + what +
                       ", which hangs on a 'joint': its pose follows from the joint's 'parent', 'origin' and "
                       "'position'",
                   blame);
    }
    for (const char* key : {"velocity", "angular_velocity"}) {
      if (const auto velocity = map.Find(key)) {
        reader_.Fail(velocity->key_node, velocity->path,
                     "'" + velocity->key + "' does not apply to " + what +
                         ", which hangs on a 'joint': it starts moving with its 'parent' (the joint at rest)",
                     blame);
      }
    }
  }

  // A dynamic body's `joint` (`field`): its type, a parent defined earlier in the file (`earlier`) or the world,
  // the joint frame in the parent's frame, and for a revolute or prismatic joint its axis, initial position,
  // limits, damping, effort limit, constant effort and PD controller. `body` is the name of the body it carries,
  // `entries` all the entries of the section (to tell a parent defined later from an unknown one).
  BodyJointDesc ParseBodyJoint(const Field& field, const std::string& body, const std::vector<Field>& entries,
                               const std::vector<RigidBodyDesc>& earlier) const {
    BodyJointDesc joint;
    joint.where = Where(field);
    const std::string owner = "rigid body '" + body + "'";
    const std::string what = "joint of " + owner;
    const MapFields map(reader_, field, what);
    if (const auto type = map.Find("type")) joint.type = reader_.Choice(*type, "joint type", BodyJointTypeNames());
    map.CheckKeys(BodyJointKeys(joint.type), KeysOf({"rigid_bodies", "", "joint"}),
                  "does not apply to fixed joints: they hold the body at 'origin' with no degree of freedom "
                  "(only revolute and prismatic joints move)");
    joint.parent = ParseParent(map.Require("parent"), body, entries, earlier);
    if (const auto origin = map.Find("origin")) {
      const MapFields origin_map(reader_, *origin, "'origin' of " + what);
      origin_map.CheckKeys(KeysOf({"rigid_bodies", "", "joint", "origin"}));
      joint.origin = ReadPose(origin_map, "'origin' of " + what);
    }
    if (joint.type == JointType::kFixed) return joint;

    if (const auto axis = map.Find("axis")) {
      const Eigen::Vector3d a = ToEigen(reader_.Numbers<3>(*axis));
      if (a.norm() == 0) reader_.Fail(*axis, "'axis' must not be zero");
      joint.axis = {a.x() / a.norm(), a.y() / a.norm(), a.z() / a.norm()};
    }
    const auto lower = map.Find("lower");
    const auto upper = map.Find("upper");
    if (lower) joint.lower = reader_.Number(*lower);
    if (upper) joint.upper = reader_.Number(*upper);
    const std::vector<std::string> limits{field.path + ".lower", field.path + ".upper"};
    if (lower && upper && joint.lower > joint.upper) {
      reader_.Fail(lower->node, lower->path,
                   what + " has 'lower' " + FormatNumber(joint.lower) + " above 'upper' " + FormatNumber(joint.upper) +
                       ": the limits need lower <= upper",
                   limits);
    }
    map.Read("damping", joint.damping, NonNegative());
    map.Read("effort", joint.effort, Positive());
    if (const auto applied = map.Find("effort_applied")) {
      joint.effort_applied = reader_.Number(*applied);
      if (std::abs(joint.effort_applied) > joint.effort) {
        reader_.Fail(applied->node, applied->path,
                     "'effort_applied' of " + owner + " must not exceed the joint's 'effort' limit " +
                         FormatNumber(joint.effort) + " " + EffortUnit(joint) + " in magnitude, got " +
                         applied->node.Scalar(),
                     {field.path + ".effort"});
      }
    }
    map.Read("kp", joint.kp, NonNegative());
    map.Read("kd", joint.kd, NonNegative());
    // The initial position always counts; the target only with a controller (kp or kd > 0), yet a target that
    // is given must be reachable.
    joint.position = ParseJointValue(map, field, "position", what, joint, limits, true);
    const bool controlled = joint.kp + joint.kd > 0;
    joint.target = ParseJointValue(map, field, "target", what, joint, limits, controlled);
    return joint;
  }

  // The joint's `key` (position or target), 0 when omitted; within the joint's limits when given, and 0 must
  // be within them when it is omitted and `required_in_limits`.
  double ParseJointValue(const MapFields& map, const Field& field, const std::string& key, const std::string& what,
                         const BodyJointDesc& joint, const std::vector<std::string>& limits,
                         bool required_in_limits) const {
    const auto value = map.Find(key);
    const double q = value ? reader_.Number(*value) : 0;
    const bool inside = joint.lower <= q && q <= joint.upper;
    if (value && !inside) {
      reader_.Fail(value->node, value->path,
                   "'" + key + "' of " + what + " must be within the joint's limits " + Limits(joint) + ", got " +
                       value->node.Scalar(),
                   limits);
    }
    if (!value && !inside && required_in_limits) {
      reader_.Fail(field.key_node, field.path,
                   what + " needs a '" + key + "': the default 0 is outside the joint's limits " + Limits(joint),
                   limits);
    }
    return q;
  }

  // A joint's parent: "world", or a rigid body before `body` in the file (of any type; a static body's pose is
  // then the parent frame). Parents come first, so the bodies form a tree whose parents are known first.
  std::string ParseParent(const Field& field, const std::string& body, const std::vector<Field>& entries,
                          const std::vector<RigidBodyDesc>& earlier) const {
    const std::string parent = reader_.Text(field);
    std::vector<std::string> names{"world"};
    for (const RigidBodyDesc& b : earlier) names.push_back(b.name);
    if (std::find(names.begin(), names.end(), parent) != names.end()) return parent;
    if (parent == body) reader_.Fail(field, "rigid body '" + body + "' cannot be its own 'parent'");
    for (const Field& entry : entries) {
      if (entry.key == parent) {
        reader_.Fail(field, "parent '" + parent + "' of rigid body '" + body + "' is defined later in the file (line " +
                                std::to_string(entry.key_node.Mark().line + 1) +
                                "): a parent must come before the bodies on its joints in 'rigid_bodies'");
      }
    }
    const std::string suggestion = DidYouMean(parent, names);
    reader_.Fail(field, "unknown parent '" + parent + "' of rigid body '" + body + "'" +
                            (suggestion.empty()
                                 ? " (a parent is 'world' or a rigid body defined before it: " + JoinNames(names) + ")"
                                 : suggestion));
  }

  // At least one keyframe; times from 0 on, strictly increasing.
  std::vector<KeyframeDesc> ParseKeyframes(const Field& field, const std::string& owner) const {
    const std::vector<Field> items = reader_.Items(field, "'keyframes' of " + owner);
    if (items.empty()) reader_.Fail(field, "'keyframes' of " + owner + " must list at least one keyframe");
    std::vector<KeyframeDesc> keyframes;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const std::string what = "keyframe " + std::to_string(i) + " of " + owner;
      const MapFields map(reader_, items[i], what);
      map.CheckKeys(KeysOf({"rigid_bodies", "", "keyframes", ""}));
      KeyframeDesc keyframe;
      keyframe.where = Where(items[i]);
      const Field time = map.Require("time");
      keyframe.time = reader_.Number(time, NonNegative());
      if (i > 0 && keyframe.time <= keyframes.back().time) {
        reader_.Fail(time.node, time.path,
                     "keyframe times must increase strictly: " + what + " has 'time' " + time.node.Scalar() +
                         ", not after keyframe " + std::to_string(i - 1) + "'s " + FormatNumber(keyframes.back().time),
                     {items[i - 1].path + ".time"});
      }
      keyframe.pose = ReadPose(map, what);
      keyframes.push_back(keyframe);
    }
    return keyframes;
  }

  RobotDesc ParseRobot(const Field& entry) {
    CheckName(entry, "robot");
    CheckWeldableName(entry, "robot");
    ClaimName(entry, "robot");
    RobotDesc robot;
    robot.name = entry.key;
    robot.where = Where(entry);
    const std::string what = "robot '" + entry.key + "'";
    const MapFields map(reader_, entry, what);
    map.CheckKeys(KeysOf({"robots", ""}));

    const Field urdf = map.Require("urdf");
    const std::string name = reader_.Text(urdf);
    robot.urdf = Resolve(name);
    std::error_code ec;
    if (!std::filesystem::exists(robot.urdf, ec))
      reader_.Fail(urdf, "URDF file '" + name + "' not found (looked for " + robot.urdf.string() + ")");
    // LoadUrdf's SceneError names the place in the URDF file, which is where the problem is.
    robot.model = std::make_shared<const MultibodyDesc>(LoadUrdf(robot.urdf));
    if (const auto pose = map.Find("pose")) robot.pose = ParsePose(*pose, what);
    map.Read("floating_base", robot.floating_base);

    if (const auto positions = map.Find("initial_positions")) {
      for (const Field& joint_entry : reader_.Entries(*positions, "'initial_positions' of " + what)) {
        const JointDesc& joint = MovableJoint(joint_entry, *robot.model, what);
        const double q = reader_.Number(joint_entry);
        CheckWithinLimits(joint_entry, q, joint, "initial position of joint '" + joint.name + "'");
        robot.initial_positions[joint.name] = q;
      }
    }
    if (const auto controllers = map.Find("controllers")) {
      for (const Field& joint_entry : reader_.Entries(*controllers, "'controllers' of " + what))
        robot.controllers.push_back(ParseController(joint_entry, *robot.model, what));
    }
    if (const auto efforts = map.Find("joint_efforts")) {
      for (const Field& joint_entry : reader_.Entries(*efforts, "'joint_efforts' of " + what)) {
        const JointDesc& joint = MovableJoint(joint_entry, *robot.model, what);
        const double effort = reader_.Number(joint_entry);
        // The limit is infinite when the URDF gives none.
        if (std::abs(effort) > joint.effort) {
          reader_.Fail(joint_entry, "effort of joint '" + joint.name +
                                        "' must not exceed the joint's URDF effort limit " +
                                        FormatNumber(joint.effort) + " " + EffortUnit(joint) + " in magnitude, got " +
                                        joint_entry.node.Scalar());
        }
        robot.joint_efforts[joint.name] = effort;
      }
    }
    return robot;
  }

  JointControllerDesc ParseController(const Field& entry, const MultibodyDesc& model, const std::string& owner) const {
    const JointDesc& joint = MovableJoint(entry, model, owner);
    JointControllerDesc controller;
    controller.joint = joint.name;
    controller.where = Where(entry);
    const std::string what = "controller of joint '" + joint.name + "' of " + owner;
    const MapFields map(reader_, entry, what);
    map.CheckKeys(KeysOf({"robots", "", "controllers", ""}));
    map.Read("kp", controller.kp, NonNegative());
    map.Read("kd", controller.kd, NonNegative());
    if (controller.kp + controller.kd <= 0) {
      reader_.Fail(entry.key_node, entry.path, what + " needs a positive 'kp' or 'kd' (both are 0)",
                   {entry.path + ".kp", entry.path + ".kd"});
    }
    if (const auto target = map.Find("target")) {
      controller.target = reader_.Number(*target);
      CheckWithinLimits(*target, controller.target, joint, "'target' of joint '" + joint.name + "'");
    } else if (joint.lower > 0 || joint.upper < 0) {
      reader_.Fail(entry.key_node, entry.path,
                   what + " needs a 'target': the default 0 is outside the joint's limits " + Limits(joint));
    }
    if (const auto feedforward = map.Find("feedforward")) controller.feedforward = reader_.Number(*feedforward);
    return controller;
  }

  // The revolute or prismatic joint of `model` that `entry`'s key names.
  const JointDesc& MovableJoint(const Field& entry, const MultibodyDesc& model, const std::string& owner) const {
    std::vector<std::string> movable;
    for (const JointDesc& j : model.joints)
      if (j.type == JointType::kRevolute || j.type == JointType::kPrismatic) movable.push_back(j.name);
    const JointDesc* joint = model.FindJoint(entry.key);
    if (joint == nullptr) {
      const std::string suggestion = DidYouMean(entry.key, movable);
      reader_.FailAtKey(
          entry, "unknown joint '" + entry.key + "' in " + owner +
                     (suggestion.empty() ? " (movable joints: " + (movable.empty() ? "none" : JoinNames(movable)) + ")"
                                         : suggestion));
    }
    if (joint->type != JointType::kRevolute && joint->type != JointType::kPrismatic) {
      reader_.FailAtKey(entry,
                        "joint '" + entry.key + "' of " + owner + " is " + NameOf(joint->type) +
                            ": only revolute and prismatic joints take initial positions, controllers and efforts");
    }
    return *joint;
  }

  // "[-2.0944, 2.0944] rad" for a robot's joint (JointDesc) or a rigid body's (BodyJointDesc).
  template <typename Joint>
  static std::string Limits(const Joint& joint) {
    return "[" + FormatNumber(joint.lower) + ", " + FormatNumber(joint.upper) + "] " +
           (joint.type == JointType::kRevolute ? "rad" : "m");
  }

  // "N·m" for a revolute joint, "N" for a prismatic one.
  template <typename Joint>
  static std::string EffortUnit(const Joint& joint) {
    return joint.type == JointType::kRevolute ? "N·m" : "N";
  }

  void CheckWithinLimits(const Field& field, double q, const JointDesc& joint, const std::string& what) const {
    if (q < joint.lower || q > joint.upper)
      reader_.Fail(field,
                   what + " must be within the joint's limits " + Limits(joint) + ", got " + field.node.Scalar());
  }

  // Whether forces can move `link` of `robot`: a moving joint lies between it and the world, or the robot's
  // root floats. URDF trees have no cycles (LoadUrdf checks), so the walk towards the root ends.
  static bool LinkMoves(const RobotDesc& robot, const std::string& link) {
    std::string at = link;
    while (true) {
      const JointDesc* parent_joint = nullptr;
      for (const JointDesc& j : robot.model->joints)
        if (j.child == at) parent_joint = &j;
      if (parent_joint == nullptr) return robot.floating_base;
      if (parent_joint->type != JointType::kFixed) return true;
      if (parent_joint->parent == "world") return false;
      at = parent_joint->parent;
    }
  }

  // The bodies a weld may name: "world", every rigid body, then "ROBOT/LINK" for every link of every robot, in
  // file order (the order in which suggestions are tried).
  static std::vector<WeldBody> WeldBodies(const SceneDesc& scene) {
    std::vector<WeldBody> bodies{{"world", "the world", Mobility::kFixed}};
    for (const RigidBodyDesc& body : scene.rigid_bodies) bodies.push_back(RigidWeldBody(body, bodies));
    for (const RobotDesc& robot : scene.robots) {
      for (const LinkDesc& link : robot.model->links) {
        const bool moves = LinkMoves(robot, link.name);
        bodies.push_back({robot.name + "/" + link.name, "link '" + link.name + "' of robot '" + robot.name + "'",
                          moves ? Mobility::kFree : Mobility::kFixed});
      }
    }
    return bodies;
  }

  // How a rigid body moves, by its type; a dynamic body on a joint as the joint says. A revolute or prismatic
  // joint leaves the body a degree of freedom that forces move (kFree), whatever its parent; a fixed joint makes
  // it move as its parent does: fixed to the world or a static body, prescribed by a kinematic body's keyframes,
  // free with a free body. Parents come before their bodies in the file, so `earlier` (the world and the rigid
  // bodies before `body`) holds the parent.
  static WeldBody RigidWeldBody(const RigidBodyDesc& body, const std::vector<WeldBody>& earlier) {
    WeldBody weld_body{body.name, NameOf(body.type) + " rigid body '" + body.name + "'", Mobility::kFree};
    if (body.type == RigidBodyType::kStatic) weld_body.mobility = Mobility::kFixed;
    if (body.type == RigidBodyType::kKinematic) weld_body.mobility = Mobility::kPrescribed;
    if (!body.has_joint || body.joint.type != JointType::kFixed) return weld_body;
    for (const WeldBody& parent : earlier)
      if (parent.name == body.joint.parent) weld_body.mobility = parent.mobility;
    const std::string parent = body.joint.parent == "world" ? "the world" : "'" + body.joint.parent + "'";
    weld_body.description += " (on a fixed joint to " + parent + ")";
    return weld_body;
  }

  // Two different bodies of `bodies`, at least one of which forces move; a damper only with a spring.
  WeldDesc ParseWeld(const Field& entry, const std::vector<WeldBody>& bodies) const {
    CheckName(entry, "weld");
    WeldDesc weld;
    weld.name = entry.key;
    weld.where = Where(entry);
    const std::string what = "weld '" + entry.key + "'";
    const MapFields map(reader_, entry, what);
    map.CheckKeys(KeysOf({"welds", ""}));

    const Field field_a = map.Require("body_a");
    const Field field_b = map.Require("body_b");
    const WeldBody& a = FindWeldBody(field_a, bodies, what);
    const WeldBody& b = FindWeldBody(field_b, bodies, what);
    weld.body_a = a.name;
    weld.body_b = b.name;
    if (a.name == b.name) {
      reader_.Fail(field_b.node, field_b.path,
                   what + " joins " + a.description + " to itself: 'body_a' and 'body_b' must differ", {field_a.path});
    }
    if (a.mobility != Mobility::kFree && b.mobility != Mobility::kFree) {
      const bool both_fixed = a.mobility == Mobility::kFixed && b.mobility == Mobility::kFixed;
      reader_.Fail(field_b.node, field_b.path,
                   what + " joins " + a.description + " and " + b.description +
                       (both_fixed ? ", which are both fixed in the world: nothing to move"
                                   : ", which no force moves: nothing for the weld to act on") +
                       " (one of them must be a dynamic rigid body or a robot link behind a moving joint)",
                   {field_a.path});
    }
    if (const auto frame = map.Find("frame_a")) weld.frame_a = ParseFrame(*frame, "'frame_a' of " + what);
    if (const auto frame = map.Find("frame_b")) weld.frame_b = ParseFrame(*frame, "'frame_b' of " + what);
    map.Read("stiffness", weld.stiffness, NonNegative());
    map.Read("damping", weld.damping, NonNegative());
    if (weld.damping > 0 && weld.stiffness == 0) {
      const Field damping = *map.Find("damping");
      reader_.Fail(damping.node, damping.path,
                   "'damping' of " + what +
                       " needs a 'stiffness' > 0: with stiffness 0 the weld is near-rigid and has no damper, got "
                       "damping " +
                       damping.node.Scalar(),
                   {entry.path + ".stiffness"});
    }
    return weld;
  }

  // A viewpoint: eye, target and field of view.
  CameraDesc ParseCamera(const Field& entry) const {
    CheckName(entry, "camera");
    CameraDesc camera;
    camera.name = entry.key;
    camera.where = Where(entry);
    const std::string what = "camera '" + entry.key + "'";
    const MapFields map(reader_, entry, what);
    map.CheckKeys(KeysOf({"cameras", ""}));
    map.Read("eye", camera.eye);
    map.Read("target", camera.target);
    map.Read("fov_deg", camera.fov_deg, Between(0, 180, true, true));
    double distance2 = 0;
    for (int a = 0; a < 3; ++a) distance2 += (camera.eye[a] - camera.target[a]) * (camera.eye[a] - camera.target[a]);
    if (!(distance2 > 0)) {
      const auto eye = map.Find("eye");
      reader_.FailAtKey(eye ? *eye : entry,
                        what + ": 'eye' and 'target' are the same point; the camera needs a direction");
    }
    return camera;
  }

  // Two different bodies that must not collide.
  CollisionFilterDesc ParseCollisionFilter(const Field& entry, const std::vector<WeldBody>& bodies) const {
    CheckName(entry, "collision filter");
    CollisionFilterDesc filter;
    filter.name = entry.key;
    filter.where = Where(entry);
    const std::string what = "collision filter '" + entry.key + "'";
    const MapFields map(reader_, entry, what);
    map.CheckKeys(KeysOf({"collision_filters", ""}));
    const Field field_a = map.Require("body_a");
    const Field field_b = map.Require("body_b");
    filter.body_a = FindWeldBody(field_a, bodies, what).name;
    filter.body_b = FindWeldBody(field_b, bodies, what).name;
    if (filter.body_a == filter.body_b)
      reader_.Fail(field_b.node, field_b.path,
                   what + " names '" + filter.body_a + "' twice: 'body_a' and 'body_b' must differ", {field_a.path});
    return filter;
  }

  // The body that `field` names; an unknown name fails with a suggestion, or with the names it could be.
  const WeldBody& FindWeldBody(const Field& field, const std::vector<WeldBody>& bodies,
                               const std::string& owner) const {
    const std::string name = reader_.Text(field);
    std::vector<std::string> names;
    for (const WeldBody& body : bodies) {
      if (body.name == name) return body;
      names.push_back(body.name);
    }
    const std::string unknown = "unknown body '" + name + "' in '" + field.key + "' of " + owner;
    const std::string suggestion = DidYouMean(name, names);
    if (!suggestion.empty()) reader_.Fail(field, unknown + suggestion);
    // "ROBOT/LINK" of a known robot: list that robot's links; otherwise every name.
    const std::string robot = name.substr(0, name.find('/'));
    std::vector<std::string> links;
    if (robot.size() < name.size()) {
      for (const std::string& n : names)
        if (n.rfind(robot + "/", 0) == 0) links.push_back(n);
    }
    if (!links.empty()) reader_.Fail(field, unknown + " (robot '" + robot + "' has: " + JoinNames(links) + ")");
    reader_.Fail(field, unknown + " (bodies are 'world', a rigid body or ROBOT/LINK: " + JoinNames(names) + ")");
  }

  // A weld's `frame_a` or `frame_b`: the keys of a pose.
  PoseDesc ParseFrame(const Field& field, const std::string& what) const {
    const MapFields map(reader_, field, what);
    map.CheckKeys(KeysOf({"welds", "", "frame_a"}));
    return ReadPose(map, what);
  }

  void ParseOutput(const Field& field, SceneDesc& scene) const {
    const MapFields map(reader_, field, "section 'output'");
    map.CheckKeys(KeysOf({"output"}));
    const auto probes = map.Find("probes");
    if (!probes) return;
    std::vector<std::string> objects;
    for (const MpmObjectDesc& o : scene.objects) objects.push_back(o.name);
    objects = SortedNames(objects);
    for (const Field& entry : reader_.Entries(*probes, "'output.probes'")) {
      CheckName(entry, "probe");
      ProbeDesc probe;
      probe.name = entry.key;
      probe.where = Where(entry);
      const MapFields probe_map(reader_, entry, "probe '" + entry.key + "'");
      probe_map.CheckKeys(KeysOf({"output", "probes", ""}));
      const Field object = probe_map.Require("object");
      probe.object = reader_.Text(object);
      if (std::find(objects.begin(), objects.end(), probe.object) == objects.end()) {
        reader_.Fail(object, "undefined object '" + probe.object +
                                 "' (defined: " + (objects.empty() ? "none" : JoinNames(objects)) + ")" +
                                 DidYouMean(probe.object, objects));
      }
      probe.quantity = reader_.Choice(probe_map.Require("quantity"), "probe quantity", ProbeQuantityNames());
      scene.probes.push_back(probe);
    }
  }

  // `use` selects the shape types allowed (see ShapeUse); an override of a `related` path (the owner's type)
  // takes the blame for a type that is not allowed.
  ShapeDesc ParseShape(const Field& field, const std::string& owner, ShapeUse use,
                       const std::vector<std::string>& related = {}) {
    ShapeDesc shape;
    const MapFields map(reader_, field, "shape of " + owner);
    const Field type = map.Require("type");
    shape.type = reader_.Choice(type, "shape type", ShapeTypeNames());
    if (use == ShapeUse::kMpmObject && shape.type == ShapeType::kPlane)
      reader_.Fail(type, "shape type 'plane' cannot be an MPM object (use box, sphere, cylinder, capsule or mesh)");
    if (use == ShapeUse::kCollider && (shape.type == ShapeType::kMesh || shape.type == ShapeType::kCapsule))
      reader_.Fail(type, "shape type '" + NameOf(shape.type) +
                             "' is not supported for colliders (use plane, box, sphere or cylinder)");
    if (use == ShapeUse::kMovingBody && shape.type == ShapeType::kPlane)
      reader_.Fail(type.node, type.path,
                   "shape type 'plane' is only for static rigid bodies (a half-space cannot move)", related);
    map.CheckKeys(ShapeKeys(shape.type), KeysOf({"objects", "", "shape"}),
                  "does not apply to shape type " + NameOf(shape.type));
    switch (shape.type) {
      case ShapeType::kBox:
        shape.size = reader_.Numbers<3>(map.Require("size"), Positive());
        break;
      case ShapeType::kSphere:
        shape.radius = reader_.Number(map.Require("radius"), Positive());
        break;
      case ShapeType::kCylinder:
      case ShapeType::kCapsule:
        shape.radius = reader_.Number(map.Require("radius"), Positive());
        shape.length = reader_.Number(map.Require("length"), Positive());
        break;
      case ShapeType::kMesh:
        map.Read("scale", shape.mesh_scale, Positive());
        shape.mesh_file = LoadMesh(map.Require("file"));
        break;
      case ShapeType::kPlane:
        if (const auto normal = map.Find("normal")) {
          const Eigen::Vector3d n = ToEigen(reader_.Numbers<3>(*normal));
          if (n.norm() == 0) reader_.Fail(*normal, "'normal' must not be zero");
          shape.normal = {n.x() / n.norm(), n.y() / n.norm(), n.z() / n.norm()};
        }
        break;
    }
    return shape;
  }

  // The absolute path of `name`, a relative one resolved against the scene file's folder.
  std::filesystem::path Resolve(const std::string& name) const {
    const std::filesystem::path folder = file_.parent_path().empty() ? std::filesystem::path(".") : file_.parent_path();
    return std::filesystem::absolute(folder / name).lexically_normal();
  }

  // Resolves a mesh path against the scene's folder, loads it and checks that it is closed.
  std::filesystem::path LoadMesh(const Field& field) {
    const std::string name = reader_.Text(field);
    const std::filesystem::path path = Resolve(name);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
      reader_.Fail(field, "mesh file '" + name + "' not found (looked for " + path.string() + ")");
    geometry::TriangleMesh mesh;
    try {
      mesh = geometry::LoadObjMesh(path);
    } catch (const std::runtime_error& e) {
      reader_.Fail(field, "cannot load mesh '" + name + "': " + e.what());
    }
    if (const auto open = geometry::FindOpenEdge(mesh))
      reader_.Fail(field, "mesh '" + name + "' is not closed: " + *open);
    meshes_[path] = std::move(mesh);
    return path;
  }

  PoseDesc ParsePose(const Field& field, const std::string& owner) const {
    const std::string what = "pose of " + owner;
    const MapFields map(reader_, field, what);
    map.CheckKeys(KeysOf({"objects", "", "pose"}));
    return ReadPose(map, what);
  }

  // The pose keys of `map` (a pose or a keyframe): position, and rpy_deg or quaternion.
  PoseDesc ReadPose(const MapFields& map, const std::string& what) const {
    PoseDesc pose;
    map.Read("position", pose.position);
    const auto rpy = map.Find("rpy_deg");
    const auto quaternion = map.Find("quaternion");
    if (rpy && quaternion) {
      const Field& second = rpy->key_node.Mark().pos > quaternion->key_node.Mark().pos ? *rpy : *quaternion;
      reader_.FailAtKey(second, what + " takes either 'rpy_deg' or 'quaternion', not both");
    }
    if (rpy) {
      const std::array<double, 3> angles = reader_.Numbers<3>(*rpy);
      // Extrinsic X-Y-Z: R = Rz(yaw)·Ry(pitch)·Rx(roll).
      const Eigen::Quaterniond q = Eigen::AngleAxisd(angles[2] * kDegree, Eigen::Vector3d::UnitZ()) *
                                   Eigen::AngleAxisd(angles[1] * kDegree, Eigen::Vector3d::UnitY()) *
                                   Eigen::AngleAxisd(angles[0] * kDegree, Eigen::Vector3d::UnitX());
      pose.quaternion = {q.w(), q.x(), q.y(), q.z()};
    }
    if (quaternion) {
      std::array<double, 4> q = reader_.Numbers<4>(*quaternion);
      const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
      if (norm == 0) reader_.Fail(*quaternion, "'quaternion' must not be zero");
      for (double& c : q) c /= norm;
      pose.quaternion = q;
    }
    return pose;
  }

  // The object's world bounds must lie in the grid domain.
  void CheckInsideDomain(const Field& entry, const MpmObjectDesc& object, const GridDesc& grid) const {
    const Eigen::Matrix3d R = ToEigen(object.pose.quaternion).toRotationMatrix();
    const Eigen::Vector3d p = ToEigen(object.pose.position);
    geometry::Bounds bounds;
    Eigen::Vector3d half = Eigen::Vector3d::Zero();
    switch (object.shape.type) {
      case ShapeType::kBox:
        half = R.cwiseAbs() * (0.5 * ToEigen(object.shape.size));
        bounds = {p - half, p + half};
        break;
      case ShapeType::kSphere:
        half.setConstant(object.shape.radius);
        bounds = {p - half, p + half};
        break;
      case ShapeType::kCylinder:
        // Axis along R's third column: half-length along it plus the radius across it.
        for (int i = 0; i < 3; ++i) {
          const double a = std::abs(R(i, 2));
          half[i] = a * 0.5 * object.shape.length + object.shape.radius * std::sqrt(std::max(0.0, 1 - a * a));
        }
        bounds = {p - half, p + half};
        break;
      case ShapeType::kCapsule:
        // The segment between the caps' centres, grown by the radius.
        half = R.col(2).cwiseAbs() * 0.5 * object.shape.length + Eigen::Vector3d::Constant(object.shape.radius);
        bounds = {p - half, p + half};
        break;
      default: {  // kMesh: an object is never a plane.
        geometry::TriangleMesh mesh = meshes_.at(object.shape.mesh_file);
        geometry::Transform(mesh, object.shape.mesh_scale, ToEigen(object.pose.quaternion), p);
        bounds = geometry::AxisAlignedBounds(mesh);
        break;
      }
    }
    const Eigen::Vector3d lo = ToEigen(grid.domain_min), hi = ToEigen(grid.domain_max);
    if ((bounds.min.array() < lo.array()).any() || (bounds.max.array() > hi.array()).any()) {
      reader_.Fail(entry.key_node, entry.path,
                   "object '" + object.name + "' is not inside the grid domain: its bounds are " +
                       FormatPoint(bounds.min) + " to " + FormatPoint(bounds.max) + ", the domain is " +
                       FormatPoint(lo) + " to " + FormatPoint(hi),
                   {entry.path + ".shape", entry.path + ".pose", "grid.domain"});
    }
  }

  struct NamedEntry {
    std::string noun;  // "object", "rigid body" or "robot".
    Field field;
  };

  const Reader& reader_;
  std::filesystem::path file_;
  std::map<std::filesystem::path, geometry::TriangleMesh> meshes_;  // Loaded meshes by resolved path.
  std::map<std::string, NamedEntry> names_;  // Objects, rigid bodies and robots by name (see ClaimName).
};

}  // namespace

}  // namespace scene

SceneDesc LoadSceneFromString(const std::string& text, const std::filesystem::path& file_name,
                              const std::vector<Override>& overrides) {
  const std::string file = file_name.string();
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::ParserException& e) {
    throw SceneError(file, e.mark.line + 1, e.mark.column + 1, "YAML syntax error: " + e.msg);
  }
  if (documents.empty() || documents.front().IsNull()) throw SceneError(file, 1, 1, "the scene file is empty");
  if (documents.size() > 1) {
    const YAML::Mark mark = documents[1].Mark();
    throw SceneError(file, mark.line + 1, mark.column + 1, "a scene file holds one YAML document; this is a second");
  }
  YAML::Node root = documents.front();
  if (!root.IsMap()) {
    const YAML::Mark mark = root.Mark();
    throw SceneError(file, mark.line + 1, mark.column + 1,
                     "a scene must be a map of sections (simulation, grid, materials, objects, ...), got " +
                         scene::Reader::Got(root));
  }
  const scene::Reader reader(file, scene::ApplyOverrides(root, overrides));
  return scene::SceneParser(reader, file_name).Parse(root);
}

SceneDesc LoadScene(const std::filesystem::path& file, const std::vector<Override>& overrides) {
  std::ifstream in(file, std::ios::binary);
  std::error_code ec;
  if (!in || std::filesystem::is_directory(file, ec))
    throw SceneError(file.string(), 0, 0, "cannot open the scene file");
  std::ostringstream text;
  text << in.rdbuf();
  return LoadSceneFromString(text.str(), file, overrides);
}

}  // namespace ductile
