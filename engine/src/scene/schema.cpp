#include "scene/schema.h"

#include <algorithm>

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

SchemaNode NamedMap(std::string name, std::string noun, SchemaNode entry) {
  return {std::move(name), SchemaKind::kNamedMap, 0, {}, std::move(noun), {std::move(entry)}};
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
              ShapeKeys(ShapeType::kMesh), ShapeKeys(ShapeType::kPlane)})) {
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

SchemaNode Pose() {
  const PoseDesc pose;
  return Section("pose", {Vector("position", pose.position), Vector("rpy_deg", std::array<double, 3>{0, 0, 0}),
                          Vector("quaternion", pose.quaternion)});
}

SchemaNode Boundary() {
  return Section("boundary", {Value("type"), Value("friction")});
}

SchemaNode Material() {
  std::vector<SchemaNode> children;
  std::vector<std::vector<std::string>> lists;
  for (const auto& [name, model] : MaterialModelNames()) lists.push_back(MaterialKeys(model));
  for (const std::string& key : Union(lists)) children.push_back(Value(key));
  return Section("material", std::move(children));
}

SchemaNode Build() {
  const SimulationDesc simulation;
  const GridDesc grid;
  const MpmObjectDesc object;
  return Section(
      "",
      {Section("simulation",
               {Value("dt"), Value("substeps"), Value("duration"), Vector("gravity", simulation.gravity),
                Value("output_rate"), Value("contact_tolerance_relative"), Value("contact_tolerance_absolute"),
                Value("max_solver_iterations"), Value("cfl"), Value("threads")}),
       Section("grid", {Value("h"), Section("domain", {Vector("min", grid.domain_min), Vector("max", grid.domain_max)}),
                        Boundary()}),
       NamedMap("materials", "material", Material()),
       NamedMap("objects", "object",
                Section("object", {Value("material"), Shape(), Pose(), Value("particles_per_cell"),
                                   Vector("velocity", object.velocity)})),
       NamedMap("colliders", "collider", Section("collider", {Shape(), Pose(), Boundary()})),
       Section("output", {NamedMap("probes", "probe", Section("probe", {Value("object"), Value("quantity")}))}),
       Reserved("rigid_bodies"), Reserved("robots"), Reserved("cameras"), Reserved("recording")});
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
  static const std::vector<std::string> elastic{"model", "density", "youngs_modulus", "poisson_ratio"};
  static const std::vector<std::string> plastic{"model", "density", "youngs_modulus", "poisson_ratio", "yield_stress"};
  static const std::vector<std::string> sand{"model",         "density",        "youngs_modulus",
                                             "poisson_ratio", "friction_angle", "cohesion"};
  static const std::vector<std::string> fluid{"model", "density", "bulk_modulus", "gamma", "viscosity"};
  switch (model) {
    case MaterialModelDesc::kFixedCorotated:
      return elastic;
    case MaterialModelDesc::kLinearCorotated:
    case MaterialModelDesc::kStvkHencky:
      return plastic;
    case MaterialModelDesc::kDruckerPrager:
      return sand;
    case MaterialModelDesc::kFluid:
      return fluid;
  }
  return elastic;
}

const std::vector<std::string>& ShapeKeys(ShapeType type) {
  static const std::vector<std::string> box{"type", "size"};
  static const std::vector<std::string> sphere{"type", "radius"};
  static const std::vector<std::string> cylinder{"type", "radius", "length"};
  static const std::vector<std::string> mesh{"type", "file", "scale"};
  static const std::vector<std::string> plane{"type", "normal"};
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
  }
  return box;
}

const std::vector<std::pair<std::string, MaterialModelDesc>>& MaterialModelNames() {
  static const std::vector<std::pair<std::string, MaterialModelDesc>> names{
      {"fixed_corotated", MaterialModelDesc::kFixedCorotated},
      {"linear_corotated", MaterialModelDesc::kLinearCorotated},
      {"stvk_hencky", MaterialModelDesc::kStvkHencky},
      {"drucker_prager", MaterialModelDesc::kDruckerPrager},
      {"fluid", MaterialModelDesc::kFluid}};
  return names;
}

const std::vector<std::pair<std::string, ShapeType>>& ShapeTypeNames() {
  static const std::vector<std::pair<std::string, ShapeType>> names{
      {"box", ShapeType::kBox},         {"sphere", ShapeType::kSphere}, {"cylinder", ShapeType::kCylinder},
      {"capsule", ShapeType::kCapsule}, {"mesh", ShapeType::kMesh},     {"plane", ShapeType::kPlane}};
  return names;
}

const std::vector<std::pair<std::string, BoundaryType>>& BoundaryTypeNames() {
  static const std::vector<std::pair<std::string, BoundaryType>> names{{"sticky", BoundaryType::kSticky},
                                                                       {"slip", BoundaryType::kSlip},
                                                                       {"separate", BoundaryType::kSeparate},
                                                                       {"friction", BoundaryType::kFriction}};
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

}  // namespace ductile::scene
