// The parsers of a scene file's sections, one file each: parse_simulation.cpp (simulation, contact), parse_grid.cpp,
// parse_materials.cpp, parse_objects.cpp (objects, colliders), parse_rigid_bodies.cpp (rigid bodies, their joints
// and keyframes), parse_robots.cpp, parse_fem.cpp (soft and affine bodies, ipc), parse_welds.cpp (welds, collision
// filters), parse_outputs.cpp (probes, cameras). scene_loader.cpp calls them in the order of the format
// (docs/scene-format.md); each checks its keys and values and throws SceneError (Reader::Fail) at the first problem.
#pragma once

#include <string>
#include <vector>

#include "ductile/scene.h"
#include "scene/parse_context.h"

namespace ductile::scene {

// The sections of fixed keys read every parameter row of theirs into `scene` (MapFields::ReadRows).
void ParseSimulation(const ParseContext& context, const Field& field, SceneDesc& scene);
void ParseContact(const ParseContext& context, const Field& field, SceneDesc& scene);
/// The grid section: spacing, domain and walls (scene.grid, scene.walls).
void ParseGrid(const ParseContext& context, const Field& field, SceneDesc& scene);
MaterialDesc ParseMaterial(const ParseContext& context, const Field& entry);
/// An MPM object; its material must be among `scene.materials` and its bounds inside `scene.grid`'s domain.
MpmObjectDesc ParseObject(ParseContext& context, const Field& entry, const SceneDesc& scene);
ColliderDesc ParseCollider(ParseContext& context, const Field& entry);
/// A cloth object's pinned vertex groups (parse_pins.cpp); `owner` names the object in messages, `sheet` says
/// whether it is a sheet (only a sheet has `corners`).
std::vector<PinGroupDesc> ParsePinGroups(const ParseContext& context, const Field& field, const std::string& owner,
                                         bool sheet);
/// A rigid body. `entries` are all the entries of the section, `scene.rigid_bodies` those before `entry` (a
/// joint's parent must be one of them).
RigidBodyDesc ParseRigidBody(ParseContext& context, const Field& entry, const std::vector<Field>& entries,
                             const SceneDesc& scene);
RobotDesc ParseRobot(ParseContext& context, const Field& entry);

/// A soft body of the IPC domain (parse_fem.cpp).
SoftBodyDesc ParseSoftBody(ParseContext& context, const Field& entry);
/// An affine body of the IPC domain.
AffineBodyDesc ParseAffineBody(ParseContext& context, const Field& entry);
/// The `ipc` section.
void ParseIpc(const ParseContext& context, const Field& field, SceneDesc& scene);
/// A box {min, max} of `what` at the schema path `path` (parse_fem.cpp: a soft or pd body's `pin_box`, a pd bone's
/// `box`; the path's last key names it in messages): its corners, checked (min ≤ max per axis). Returns true, for the
/// body's has_pin_box.
bool ReadBox(const Reader& reader, const Field& box, const std::string& what, const std::vector<std::string>& path,
             Vector3& min, Vector3& max);
/// The `pd_bodies` entries and the `pd` section (parse_pd.cpp).
PdSoftBodyDesc ParsePdBody(ParseContext& context, const Field& entry);
void ParsePd(const ParseContext& context, const Field& field, SceneDesc& scene);

/// How a body that a weld names moves.
enum class Mobility {
  kFixed,       ///< The world, a static rigid body, a robot link with no moving joint to the world.
  kPrescribed,  ///< A kinematic rigid body: moves along its keyframes whatever the forces.
  kFree,        ///< A dynamic rigid body, a robot link behind a moving joint or a floating base.
};

/// A body that welds and collision filters may name.
struct WeldBody {
  std::string name;         ///< As a weld names it: "world", "cup", "arm/iiwa_link_7".
  std::string description;  ///< For messages: "the world", "static rigid body 'table'".
  Mobility mobility = Mobility::kFixed;
};

/// The bodies a weld may name: "world", every rigid body, then "ROBOT/LINK" for every link of every robot, in
/// file order (the order in which suggestions are tried).
std::vector<WeldBody> WeldBodies(const SceneDesc& scene);
/// Two different bodies of `bodies`, at least one of which forces move; a damper only with a spring.
WeldDesc ParseWeld(const ParseContext& context, const Field& entry, const std::vector<WeldBody>& bodies);
/// Two different bodies that must not collide.
CollisionFilterDesc ParseCollisionFilter(const ParseContext& context, const Field& entry,
                                         const std::vector<WeldBody>& bodies);

/// The output section: probes of `scene.objects` (into scene.probes).
void ParseOutput(const ParseContext& context, const Field& field, SceneDesc& scene);
/// A viewpoint: eye, target and field of view.
CameraDesc ParseCamera(const ParseContext& context, const Field& entry);

}  // namespace ductile::scene
