// The compiled FEM–IPC domain of a Model (docs/architecture.md, "FEM with IPC contact"): the soft bodies' tet meshes
// and materials, the affine bodies' surfaces and mass properties, the rigid geometry that enters the IPC solve as
// kinematic bodies (robot links, rigid bodies, static geometry) or half-spaces (static planes), and the settings.
// What fem::IpcSystem is built from (fem/fem_domain.h).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "ductile/model.h"
#include "ductile/scene.h"
#include "fem/ipc_system.h"
#include "fem/tet_mesh.h"

namespace ductile {

struct FemModel {
  fem::IpcSettings settings;

  struct SoftBody {
    std::string name;
    fem::SoftBodyDesc desc;  ///< World-frame vertices at t = 0, tets, material, velocity, pinned vertices.
    /// The boundary triangles (vertex indices of `desc`), outward; what is drawn.
    std::vector<std::array<int, 3>> surface;
    double mass = 0;  ///< [kg].
    std::array<double, 4> rgba{0.85, 0.45, 0.35, 1.0};
  };
  std::vector<SoftBody> soft_bodies;

  struct AffineBody {
    std::string name;
    fem::AffineBodyDesc desc;  ///< Surface about the centre of mass, mass properties, initial pose and velocity.
    std::array<double, 4> rgba{0.55, 0.6, 0.7, 1.0};
  };
  std::vector<AffineBody> affine_bodies;

  /// A rigid geometry (RigidModel::world) as a kinematic body of the IPC solve: its surface in the geometry frame
  /// and its pose at t = 0; it follows its rigid body (−1: static) and receives the contact forces.
  struct Kinematic {
    int geometry = -1;
    int body = -1;
    fem::KinematicBodyDesc desc;
  };
  std::vector<Kinematic> kinematic;
  std::vector<fem::HalfSpaceDesc> half_spaces;  ///< The static planes.

  /// No soft and no affine bodies: the domain does not exist.
  bool empty() const { return soft_bodies.empty() && affine_bodies.empty(); }
};

/// The tet mesh of a shape in its frame S: a sheet one tet layer `thickness` thick with the spacing of its
/// `vertices`, a `.msh` file as it is (scaled), every other shape tetrahedralised at `h` (fem/tetrahedralise.h).
/// Throws SceneError at `where`, naming `what`, when it cannot be meshed.
fem::TetMesh ShapeTetMesh(const ShapeDesc& shape, double h, double thickness, const SourceLocation& where,
                          const std::string& what);

/// ShapeTetMesh checked and oriented (fem::CheckAndOrient), unreferenced vertices dropped; SceneError as it.
fem::TetMesh CheckedShapeTetMesh(const ShapeDesc& shape, double h, double thickness, const SourceLocation& where,
                                 const std::string& what);
/// The indices of `vertices` [m] inside the box [min, max] (a soft or pd body's `pin_box`); SceneError at `where`,
/// naming `what`, when there are none.
std::vector<int> PinnedVertices(const std::vector<Eigen::Vector3d>& vertices, const Vector3& min, const Vector3& max,
                                const SourceLocation& where, const std::string& what);

/// The IPC settings of the scene's `ipc:` section and gravity.
fem::IpcSettings CompileIpcSettings(const SceneDesc& scene);
/// The Lamé parameters and energy of a soft body's material.
fem::ElasticModel ElasticModelOf(SoftModelDesc model);

/// The IPC system of the model's bodies at t = 0, finalized. Throws std::invalid_argument as IpcSystem::Finalize.
fem::IpcSystem BuildIpcSystem(const FemModel& fem);

/// Whether the IPC domains of two models differ in their bodies or meshes (a state of one does not fit the other).
bool FemStructureChanged(const Model& a, const Model& b);

/// Compiles the scene's soft and affine bodies against the rigid geometry of `model.rigid` (which must be compiled)
/// into `model.fem`. Throws SceneError naming the body when a shape cannot be meshed, a `.msh` file is bad, or the
/// initial configuration has an intersection or touching surfaces.
void CompileFem(const SceneDesc& scene, Model& model);

}  // namespace ductile
