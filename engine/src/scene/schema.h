// The shape of a scene file: which keys exist where, and the names of enumerated values. The loader checks keys
// against it, and `--set` overrides walk it to reject paths that are not in the format (docs/scene-format.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ductile/scene.h"

namespace ductile::scene {

enum class SchemaKind {
  kValue,     ///< A scalar (number, integer, name).
  kVector,    ///< A list of `size` numbers; elements are addressed by index in overrides.
  kSection,   ///< A map with the fixed keys in `children`.
  kNamedMap,  ///< A map from user-chosen names to entries shaped like `children[0]`.
  kList,      ///< A list of entries shaped like `children[0]`; addressed by index in overrides (it must exist).
  kReserved,  ///< A section that a later version will add; rejected as not supported yet.
};

/// One key of the scene format. Immutable after SceneSchema() built it; safe to share between threads.
struct SchemaNode {
  std::string name;
  SchemaKind kind = SchemaKind::kValue;
  int size = 0;                  ///< kVector: the number of elements.
  std::vector<double> defaults;  ///< kVector: the default elements, used when an override creates the key.
  std::string entry_noun;        ///< kNamedMap, kList: what an entry is called in messages ("material").
  std::vector<SchemaNode> children;

  /// The child called `key`, or nullptr.
  const SchemaNode* Find(const std::string& key) const;
  /// The names of the children, in schema order.
  std::vector<std::string> ChildNames() const;
};

/// The whole scene format; material and shape entries list the union of the keys of all models and types.
const SchemaNode& SceneSchema();

/// The keys a material of `model` accepts (including `model`).
const std::vector<std::string>& MaterialKeys(MaterialModelDesc model);
/// The keys a shape of `type` accepts (including `type`).
const std::vector<std::string>& ShapeKeys(ShapeType type);
/// The keys a rigid body of `type` accepts (including `type`).
const std::vector<std::string>& RigidBodyKeys(RigidBodyType type);
/// The keys a rigid body's `joint` of `type` (revolute, prismatic or fixed) accepts (including `type`).
const std::vector<std::string>& BodyJointKeys(JointType type);

/// Names of enumerated values as written in scene files, in documentation order.
const std::vector<std::pair<std::string, MaterialModelDesc>>& MaterialModelNames();
/// A soft body's elastic energies: neo_hookean, fixed_corotated, stvk.
const std::vector<std::pair<std::string, SoftModelDesc>>& SoftModelNames();
const std::vector<std::pair<std::string, ShapeType>>& ShapeTypeNames();
const std::vector<std::pair<std::string, BoundaryType>>& BoundaryTypeNames();
const std::vector<std::pair<std::string, CouplingKind>>& CouplingKindNames();
/// simulation.backend's names.
const std::vector<std::pair<std::string, BackendKind>>& BackendKindNames();
const std::vector<std::pair<std::string, ProbeQuantity>>& ProbeQuantityNames();
const std::vector<std::pair<std::string, RigidBodyType>>& RigidBodyTypeNames();
/// How a kinematic rigid body moves between keyframes: linear, smooth.
const std::vector<std::pair<std::string, KeyframeInterpolation>>& KeyframeInterpolationNames();
/// The joint types a rigid body's `joint` may have: revolute, prismatic, fixed (not floating).
const std::vector<std::pair<std::string, JointType>>& BodyJointTypeNames();

/// The scene-file name of a model, shape type, joint type or rigid body type, e.g. "fixed_corotated", "box",
/// "revolute", "static"; JointType::kFloating (which scene files do not spell) is "floating".
std::string NameOf(MaterialModelDesc model);
std::string NameOf(ShapeType type);
std::string NameOf(JointType type);
std::string NameOf(RigidBodyType type);

}  // namespace ductile::scene
