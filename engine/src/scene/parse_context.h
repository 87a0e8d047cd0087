// What the parsers of a scene's sections share while one scene file is read: the Reader (typed, located values and
// errors), the scene file (source locations, relative paths), the meshes loaded so far and the names that objects,
// rigid bodies and robots have claimed; and the readers of the pieces several sections use: shapes, poses and
// boundaries. The sections themselves are parsed by the functions of scene/scene_sections.h, one file per section.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <Eigen/Geometry>

#include "ductile/scene.h"
#include "geometry/triangle_mesh.h"
#include "scene/reader.h"

namespace ductile::scene {

/// The keys of the schema node at `path`; an empty component stands for any entry of a named map or a list.
std::vector<std::string> KeysOf(const std::vector<std::string>& path);

/// The names in alphabetical order, for messages that list them.
std::vector<std::string> SortedNames(const std::vector<std::string>& names);

/// "(x, y, z)" for messages.
std::string FormatPoint(const Eigen::Vector3d& x);

/// "[-2.0944, 2.0944] rad" for a robot's joint (JointDesc) or a rigid body's (BodyJointDesc).
template <typename Joint>
std::string Limits(const Joint& joint) {
  return "[" + FormatNumber(joint.lower) + ", " + FormatNumber(joint.upper) + "] " +
         (joint.type == JointType::kRevolute ? "rad" : "m");
}

/// "N·m" for a revolute joint, "N" for a prismatic one.
template <typename Joint>
std::string EffortUnit(const Joint& joint) {
  return joint.type == JointType::kRevolute ? "N·m" : "N";
}

/// One parse of one scene file. Not thread-safe.
class ParseContext {
 public:
  ParseContext(const Reader& reader, std::filesystem::path file) : reader_(reader), file_(std::move(file)) {}

  const Reader& reader() const { return reader_; }

  /// Names become `--set` path components, so they cannot be empty or contain the separator.
  void CheckName(const Field& entry, const std::string& noun) const;
  /// Welds name a robot's link "ROBOT/LINK" and the world "world": a rigid body or robot named with a '/', or a
  /// rigid body named "world", would be ambiguous there.
  void CheckWeldableName(const Field& entry, const std::string& noun) const;
  /// Objects, rigid bodies and robots share one set of names: outputs (trajectory rows, probes) are keyed by
  /// name. Of two entries with the same name, the one later in the file is the error.
  void ClaimName(const Field& entry, const std::string& noun);
  /// Where `entry`'s key is in the scene file (line 0 when an override created it).
  SourceLocation Where(const Field& entry) const;
  /// The absolute path of `name`, a relative one resolved against the scene file's folder.
  std::filesystem::path Resolve(const std::string& name) const;
  /// Resolves a mesh path against the scene's folder, loads it and checks that it is closed (a solid) or, for a
  /// `cloth`, that it is a surface a cloth can be made of (geometry::FindClothDefect); returns the path.
  std::filesystem::path LoadMesh(const Field& field, bool cloth);
  /// Resolves a Gmsh tetrahedral mesh's path and checks that it reads as one (fem/tet_mesh.h); returns the path.
  std::filesystem::path LoadTetMesh(const Field& field) const;
  /// A mesh that LoadMesh loaded, by its resolved path.
  const geometry::TriangleMesh& mesh(const std::filesystem::path& path) const { return meshes_.at(path); }

 private:
  struct NamedEntry {
    std::string noun;  // "object", "rigid body" or "robot".
    Field field;
  };

  const Reader& reader_;
  std::filesystem::path file_;
  std::map<std::filesystem::path, geometry::TriangleMesh> meshes_;  // Loaded meshes by resolved path.
  std::map<std::string, NamedEntry> names_;  // Objects, rigid bodies and robots by name (see ClaimName).
};

/// Which shape types a use of a shape allows.
enum class ShapeUse {
  kMpmObject,   ///< A solid filled with particles: box, sphere, cylinder, capsule, mesh (closed).
  kCloth,       ///< A cloth object: sheet, or mesh (open or closed); ParseObject refuses the solid types.
  kCollider,    ///< An analytic MPM collider: plane, box, sphere, cylinder.
  kStaticBody,  ///< A static rigid body: every type.
  kMovingBody,  ///< A dynamic or kinematic rigid body: every type but plane.
  kSoftBody,    ///< An FEM soft body: box, sphere, cylinder, capsule, sheet, mesh (closed OBJ or Gmsh `.msh`).
  kAffineBody,  ///< An affine body: box, sphere, cylinder, capsule, mesh (closed OBJ).
};

/// A shape of `owner` ("object 'cube'"); `use` selects the shape types allowed; an override of a `related` path
/// (the owner's type) takes the blame for a type that is not allowed.
ShapeDesc ParseShape(ParseContext& context, const Field& field, const std::string& owner, ShapeUse use,
                     const std::vector<std::string>& related = {});
/// A `pose` of `owner`.
PoseDesc ParsePose(const ParseContext& context, const Field& field, const std::string& owner);
/// The pose keys of `map` (a pose, a keyframe, a joint's origin, a weld's frame): position, and rpy_deg or
/// quaternion. `what` names the map in messages.
PoseDesc ReadPose(const ParseContext& context, const MapFields& map, const std::string& what);
/// Whose boundary ParseBoundary reads: the rows of its friction differ (grid.boundary.*, colliders.*.boundary.*).
enum class BoundaryOwner { kGrid, kCollider };
/// A boundary (the domain walls', a collider's); `what` names it in messages.
BoundaryDesc ParseBoundary(const ParseContext& context, const Field& field, const std::string& what,
                           BoundaryOwner owner);

}  // namespace ductile::scene
