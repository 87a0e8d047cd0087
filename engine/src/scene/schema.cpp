#include "scene/schema.h"

#include <algorithm>
#include <map>

#include "ductile/parameters.h"

namespace ductile::scene {

namespace {

SchemaNode Value(std::string name) {
  return {std::move(name), SchemaKind::kValue, 0, {}, {}, {}};
}

template <std::size_t N>
SchemaNode Vector(std::string name, const std::array<double, N>& defaults) {
  return {std::move(name), SchemaKind::kVector, static_cast<int>(N), {defaults.begin(), defaults.end()}, {}, {}};
}

SchemaNode Section(std::string name, std::vector<SchemaNode> children) {
  return {std::move(name), SchemaKind::kSection, 0, {}, {}, std::move(children)};
}

// Every row of the parameter table directly under `prefix` ("ipc."), in table order, then `more`: a section of fixed
// keys whose parameters are the table's rows is listed from them (a vector row with its default).
std::vector<SchemaNode> Rows(const std::string& prefix, std::vector<SchemaNode> more = {}) {
  std::vector<SchemaNode> out;
  for (const ParameterInfo& row : ParameterTable()) {
    if (row.key.rfind(prefix, 0) != 0 || row.key.find('.', prefix.size()) != std::string::npos) continue;
    std::string name = row.key.substr(prefix.size());
    out.push_back(row.type == ParameterType::kVector ? Vector(std::move(name), row.default_vector)
                                                     : Value(std::move(name)));
  }
  for (SchemaNode& node : more) out.push_back(std::move(node));
  return out;
}

SchemaNode NamedMap(std::string name, std::string noun, SchemaNode entry) {
  return {std::move(name), SchemaKind::kNamedMap, 0, {}, std::move(noun), {std::move(entry)}};
}

SchemaNode List(std::string name, std::string noun, SchemaNode entry) {
  return {std::move(name), SchemaKind::kList, 0, {}, std::move(noun), {std::move(entry)}};
}

SchemaNode Reserved(std::string name) {
  return {std::move(name), SchemaKind::kReserved, 0, {}, {}, {}};
}

// Every key of `lists`, each once, in first-seen order.
std::vector<std::string> Union(const std::vector<std::vector<std::string>>& lists) {
  std::vector<std::string> keys;
  for (const std::vector<std::string>& list : lists)
    for (const std::string& key : list)
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  return keys;
}

SchemaNode Shape() {
  const ShapeDesc shape;
  std::vector<SchemaNode> children;
  for (const std::string& key :
       Union({ShapeKeys(ShapeType::kBox), ShapeKeys(ShapeType::kSphere), ShapeKeys(ShapeType::kCylinder),
              ShapeKeys(ShapeType::kCapsule), ShapeKeys(ShapeType::kMesh), ShapeKeys(ShapeType::kPlane),
              ShapeKeys(ShapeType::kSheet)})) {
    if (key == "size") {
      children.push_back(Vector("size", shape.size));
    } else if (key == "normal") {
      children.push_back(Vector("normal", shape.normal));
    } else {
      children.push_back(Value(key));
    }
  }
  return Section("shape", std::move(children));
}

// The keys of a pose, also those of a keyframe after its `time`.
std::vector<SchemaNode> PoseKeys() {
  const PoseDesc pose;
  return {Vector("position", pose.position), Vector("rpy_deg", std::array<double, 3>{0, 0, 0}),
          Vector("quaternion", pose.quaternion)};
}

SchemaNode Pose() {
  return Section("pose", PoseKeys());
}

SchemaNode Keyframe() {
  std::vector<SchemaNode> children{Value("time")};
  for (SchemaNode& key : PoseKeys()) children.push_back(std::move(key));
  return Section("keyframe", std::move(children));
}

// A rigid body's `joint`: the keys of every joint type.
SchemaNode BodyJoint() {
  const BodyJointDesc joint;
  std::vector<SchemaNode> children;
  for (const std::string& key : BodyJointKeys(JointType::kRevolute)) {
    if (key == "origin") {
      children.push_back(Section("origin", PoseKeys()));
    } else if (key == "axis") {
      children.push_back(Vector("axis", joint.axis));
    } else {
      children.push_back(Value(key));
    }
  }
  return Section("joint", std::move(children));
}

SchemaNode RigidBody() {
  const RigidBodyDesc body;
  std::vector<SchemaNode> children;
  for (const std::string& key : Union({RigidBodyKeys(RigidBodyType::kDynamic), RigidBodyKeys(RigidBodyType::kStatic),
                                       RigidBodyKeys(RigidBodyType::kKinematic)})) {
    if (key == "shape") {
      children.push_back(Shape());
    } else if (key == "pose") {
      children.push_back(Pose());
    } else if (key == "velocity") {
      children.push_back(Vector("velocity", body.velocity));
    } else if (key == "angular_velocity") {
      children.push_back(Vector("angular_velocity", body.angular_velocity));
    } else if (key == "force") {
      children.push_back(Vector("force", body.force));
    } else if (key == "torque") {
      children.push_back(Vector("torque", body.torque));
    } else if (key == "keyframes") {
      children.push_back(List("keyframes", "keyframe", Keyframe()));
    } else if (key == "color") {
      children.push_back(Vector("color", body.rgba));
    } else if (key == "joint") {
      children.push_back(BodyJoint());
    } else {
      children.push_back(Value(key));
    }
  }
  return Section("rigid_body", std::move(children));
}

// A cloth's pinned vertex group: which vertices, how they move, when they are let go.
SchemaNode PinGroup() {
  return Section(
      "pin group",
      {Value("vertices"), Value("corners"),
       Section("box", {Vector("min", std::array<double, 3>{0, 0, 0}), Vector("max", std::array<double, 3>{0, 0, 0})}),
       List("keyframes", "keyframe",
            Section("keyframe", {Value("time"), Vector("offset", std::array<double, 3>{0, 0, 0})})),
       Value("release_time")});
}

// A robot's `script`: the tool link, its keyframes (a pose and an optional gripper command each).
SchemaNode RobotScript() {
  std::vector<SchemaNode> keyframe{Value("time")};
  for (SchemaNode& key : PoseKeys()) keyframe.push_back(std::move(key));
  keyframe.push_back(Section("gripper", {Value("opening"), Value("force")}));
  return Section("script",
                 {Value("link"), Vector("tool_point", std::array<double, 3>{0, 0, 0}), Value("track_orientation"),
                  Value("interpolation"), List("keyframes", "keyframe", Section("keyframe", std::move(keyframe)))});
}

SchemaNode Robot() {
  return Section(
      "robot", {Value("urdf"), Pose(), Value("floating_base"),
                NamedMap("initial_positions", "initial position", Value("position")),
                NamedMap("controllers", "controller",
                         Section("controller", {Value("kp"), Value("kd"), Value("target"), Value("feedforward")})),
                NamedMap("joint_efforts", "joint effort", Value("effort")), RobotScript(), Value("link_force_limit")});
}

SchemaNode Weld() {
  return Section("weld", {Value("body_a"), Value("body_b"), Section("frame_a", PoseKeys()),
                          Section("frame_b", PoseKeys()), Value("stiffness"), Value("damping")});
}

SchemaNode Boundary() {
  return Section("boundary", {Value("type"), Value("friction")});
}

SchemaNode Material() {
  std::vector<SchemaNode> children;
  std::vector<std::vector<std::string>> lists;
  for (const auto& [name, model] : MaterialModelNames()) lists.push_back(MaterialKeys(model));
  for (const std::string& key : Union(lists)) children.push_back(Value(key));
  children.push_back(Vector("color", std::array<double, 4>{0.5, 0.5, 0.5, 1}));
  return Section("material", std::move(children));
}

// A soft or affine body: its rows' keys (parameter_rows_bodies.cpp), then the keys no row carries.
SchemaNode SoftBody() {
  const SoftBodyDesc body;
  return Section("soft body",
                 Rows("soft_bodies.*.", {Shape(), Value("model"), Pose(),
                                         Section("pin_box", {Vector("min", body.pin_min), Vector("max", body.pin_max)}),
                                         Vector("color", body.rgba)}));
}

SchemaNode AffineBody() {
  const AffineBodyDesc body;
  return Section("affine body", Rows("affine_bodies.*.", {Shape(), Pose(), Vector("color", body.rgba)}));
}

// A projective-dynamics body: its rows' keys (parameter_rows_pd.cpp), then the keys no row carries.
SchemaNode PdBody() {
  const PdSoftBodyDesc body;
  const PdBoneDesc bone;
  return Section(
      "pd body",
      Rows("pd_bodies.*.",
           {Shape(), Pose(), Section("pin_box", {Vector("min", body.pin_min), Vector("max", body.pin_max)}),
            Value("skeleton_urdf"),
            NamedMap("skeleton", "bone",
                     Section("bone", Rows("pd_bodies.*.skeleton.*.", {Value("joint"), Value("parent"),
                                                                      Section("box", {Vector("min", bone.box_min),
                                                                                      Vector("max", bone.box_max)})}))),
            Vector("color", body.rgba)}));
}

SchemaNode Build() {
  const GridDesc grid;
  const MpmObjectDesc object;
  return Section(
      "",
      {Section("simulation", Rows("simulation.")),
       Section("grid", {Value("h"), Section("domain", {Vector("min", grid.domain_min), Vector("max", grid.domain_max)}),
                        Boundary()}),
       Section("contact", Rows("contact.")), NamedMap("materials", "material", Material()),
       NamedMap("objects", "object",
                Section("object", {Value("material"), Shape(), Pose(), Value("particles_per_cell"),
                                   Vector("velocity", object.velocity), NamedMap("pins", "pin group", PinGroup())})),
       NamedMap("colliders", "collider", Section("collider", {Shape(), Pose(), Boundary()})),
       NamedMap("rigid_bodies", "rigid body", RigidBody()), NamedMap("robots", "robot", Robot()),
       NamedMap("welds", "weld", Weld()),
       NamedMap("collision_filters", "collision filter",
                Section("collision filter", {Value("body_a"), Value("body_b")})),
       NamedMap("soft_bodies", "soft body", SoftBody()), NamedMap("affine_bodies", "affine body", AffineBody()),
       Section("ipc", Rows("ipc.")), NamedMap("pd_bodies", "pd body", PdBody()), Section("pd", Rows("pd.")),
       Section("output", {NamedMap("probes", "probe", Section("probe", {Value("object"), Value("quantity")}))}),
       NamedMap("cameras", "camera",
                Section("camera",
                        {Vector("eye", CameraDesc().eye), Vector("target", CameraDesc().target), Value("fov_deg")})),
       Reserved("recording")});
}

}  // namespace

const SchemaNode* SchemaNode::Find(const std::string& key) const {
  for (const SchemaNode& child : children)
    if (child.name == key) return &child;
  return nullptr;
}

std::vector<std::string> SchemaNode::ChildNames() const {
  std::vector<std::string> names;
  for (const SchemaNode& child : children) names.push_back(child.name);
  return names;
}

const SchemaNode& SceneSchema() {
  static const SchemaNode schema = Build();
  return schema;
}

const std::vector<std::string>& MaterialKeys(MaterialModelDesc model) {
  // `model`, then the rows of the parameter table that the model takes, in table order.
  static const std::map<MaterialModelDesc, std::vector<std::string>> keys = [] {
    std::map<MaterialModelDesc, std::vector<std::string>> out;
    const std::string prefix = "materials.*.";
    for (const auto& [name, m] : MaterialModelNames()) {
      std::vector<std::string>& list = out[m];
      list.emplace_back("model");
      for (const ParameterInfo& row : ParameterTable()) {
        const bool takes = std::find(row.models.begin(), row.models.end(), m) != row.models.end();
        if (row.key.rfind(prefix, 0) == 0 && takes) list.push_back(row.key.substr(prefix.size()));
      }
    }
    return out;
  }();
  return keys.at(model);
}

const std::vector<std::string>& ShapeKeys(ShapeType type) {
  static const std::vector<std::string> box{"type", "size"};
  static const std::vector<std::string> sphere{"type", "radius"};
  static const std::vector<std::string> cylinder{"type", "radius", "length"};
  static const std::vector<std::string> mesh{"type", "file", "scale"};
  static const std::vector<std::string> plane{"type", "normal"};
  static const std::vector<std::string> sheet{"type", "width", "length", "vertices"};
  switch (type) {
    case ShapeType::kBox:
      return box;
    case ShapeType::kSphere:
      return sphere;
    case ShapeType::kCylinder:
    case ShapeType::kCapsule:
      return cylinder;
    case ShapeType::kMesh:
      return mesh;
    case ShapeType::kPlane:
      return plane;
    case ShapeType::kSheet:
      return sheet;
  }
  return box;
}

const std::vector<std::string>& RigidBodyKeys(RigidBodyType type) {
  static const std::vector<std::string> dynamic{
      "type",  "shape",  "mass",     "density",   "pose",        "velocity", "angular_velocity",
      "force", "torque", "friction", "stiffness", "dissipation", "color",    "joint"};
  static const std::vector<std::string> fixed{"type", "shape", "pose", "friction", "stiffness", "dissipation", "color"};
  static const std::vector<std::string> kinematic{"type",     "shape",     "keyframes",   "interpolation",
                                                  "friction", "stiffness", "dissipation", "color"};
  switch (type) {
    case RigidBodyType::kDynamic:
      return dynamic;
    case RigidBodyType::kStatic:
      return fixed;
    case RigidBodyType::kKinematic:
      return kinematic;
  }
  return dynamic;
}

const std::vector<std::string>& BodyJointKeys(JointType type) {
  static const std::vector<std::string> moving{"type",  "parent", "origin",  "axis",   "position",
                                               "lower", "upper",  "damping", "effort", "effort_applied",
                                               "kp",    "kd",     "target"};
  static const std::vector<std::string> fixed{"type", "parent", "origin"};
  return type == JointType::kFixed ? fixed : moving;
}

const std::vector<std::pair<std::string, MaterialModelDesc>>& MaterialModelNames() {
  static const std::vector<std::pair<std::string, MaterialModelDesc>> names{
      {"fixed_corotated", MaterialModelDesc::kFixedCorotated},
      {"linear_corotated", MaterialModelDesc::kLinearCorotated},
      {"stvk_hencky", MaterialModelDesc::kStvkHencky},
      {"drucker_prager", MaterialModelDesc::kDruckerPrager},
      {"fluid", MaterialModelDesc::kFluid},
      {"cloth", MaterialModelDesc::kCloth}};
  return names;
}

const std::vector<std::pair<std::string, SoftModelDesc>>& SoftModelNames() {
  static const std::vector<std::pair<std::string, SoftModelDesc>> names{
      {"neo_hookean", SoftModelDesc::kNeoHookean},
      {"fixed_corotated", SoftModelDesc::kFixedCorotated},
      {"stvk", SoftModelDesc::kStvk}};
  return names;
}

const std::vector<std::pair<std::string, ShapeType>>& ShapeTypeNames() {
  static const std::vector<std::pair<std::string, ShapeType>> names{
      {"box", ShapeType::kBox},         {"sphere", ShapeType::kSphere}, {"cylinder", ShapeType::kCylinder},
      {"capsule", ShapeType::kCapsule}, {"mesh", ShapeType::kMesh},     {"plane", ShapeType::kPlane},
      {"sheet", ShapeType::kSheet}};
  return names;
}

const std::vector<std::pair<std::string, BoundaryType>>& BoundaryTypeNames() {
  static const std::vector<std::pair<std::string, BoundaryType>> names{{"sticky", BoundaryType::kSticky},
                                                                       {"slip", BoundaryType::kSlip},
                                                                       {"separate", BoundaryType::kSeparate},
                                                                       {"friction", BoundaryType::kFriction}};
  return names;
}

const std::vector<std::pair<std::string, CouplingKind>>& CouplingKindNames() {
  static const std::vector<std::pair<std::string, CouplingKind>> names{{"weak", CouplingKind::kWeak},
                                                                       {"strong", CouplingKind::kStrong}};
  return names;
}

const std::vector<std::pair<std::string, BackendKind>>& BackendKindNames() {
  static const std::vector<std::pair<std::string, BackendKind>> names{{"cpu", BackendKind::kCpu},
                                                                      {"cuda", BackendKind::kCuda},
                                                                      {"auto", BackendKind::kAuto},
                                                                      {"emulated", BackendKind::kEmulated}};
  return names;
}

const std::vector<std::pair<std::string, ProbeQuantity>>& ProbeQuantityNames() {
  static const std::vector<std::pair<std::string, ProbeQuantity>> names{
      {"center_of_mass", ProbeQuantity::kCenterOfMass},
      {"velocity", ProbeQuantity::kVelocity},
      {"bounds", ProbeQuantity::kBounds},
      {"kinetic_energy", ProbeQuantity::kKineticEnergy}};
  return names;
}

const std::vector<std::pair<std::string, RigidBodyType>>& RigidBodyTypeNames() {
  static const std::vector<std::pair<std::string, RigidBodyType>> names{{"dynamic", RigidBodyType::kDynamic},
                                                                        {"static", RigidBodyType::kStatic},
                                                                        {"kinematic", RigidBodyType::kKinematic}};
  return names;
}

const std::vector<std::pair<std::string, KeyframeInterpolation>>& KeyframeInterpolationNames() {
  static const std::vector<std::pair<std::string, KeyframeInterpolation>> names{
      {"linear", KeyframeInterpolation::kLinear}, {"smooth", KeyframeInterpolation::kSmooth}};
  return names;
}

const std::vector<std::pair<std::string, JointType>>& BodyJointTypeNames() {
  static const std::vector<std::pair<std::string, JointType>> names{
      {"revolute", JointType::kRevolute}, {"prismatic", JointType::kPrismatic}, {"fixed", JointType::kFixed}};
  return names;
}

std::string NameOf(MaterialModelDesc model) {
  for (const auto& [name, value] : MaterialModelNames())
    if (value == model) return name;
  return {};
}

std::string NameOf(ShapeType type) {
  for (const auto& [name, value] : ShapeTypeNames())
    if (value == type) return name;
  return {};
}

std::string NameOf(JointType type) {
  for (const auto& [name, value] : BodyJointTypeNames())
    if (value == type) return name;
  return type == JointType::kFloating ? "floating" : "";
}

std::string NameOf(RigidBodyType type) {
  for (const auto& [name, value] : RigidBodyTypeNames())
    if (value == type) return name;
  return {};
}

}  // namespace ductile::scene
