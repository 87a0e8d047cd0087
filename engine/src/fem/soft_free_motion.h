// The soft bodies' free motion for the strong scheme (coupling/strong_coupling.h, domain/strong_block.h): one step
// of implicit Euler linearised at the step's start (Baraff and Witkin 1998, "Large Steps in Cloth Simulation",
// Sec. 4.1), a quadratic cost in the vertex velocities v,
//   E(v) = ½ vᵀ A v − bᵀ v,   A = M + Δt² K,   b = M vⁿ + Δt (f(xⁿ) + M g),
// M the lumped vertex masses, f = −∂Ψ/∂x the elastic forces at the step's start and K = ∂²Ψ/∂x² their stiffness with
// each element's ∂²Ψ/∂F² projected to PSD (fem/elasticity.h), so A is SPD. Its minimiser is the velocity without
// contact; x^{n+1} = xⁿ + Δt v. At rest (v = 0) the cost's gradient is the force balance f + M g + contact = 0, so a
// resting or held body carries its loads exactly, whatever Δt. Pinned vertices are held: v = 0. No barrier and no
// contact between soft bodies: the strong scheme's contacts with rigid geometry are SAP's (Castro et al. 2022).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <array>
#include <span>
#include <vector>

#include "fem/elasticity.h"
#include "fem/ipc_system.h"

namespace ductile::fem {

class SoftFreeMotion {
 public:
  /// For `bodies` (their rest shapes, materials, pins) with boundary triangles `surfaces` (one list per body, its
  /// own vertex indices). Throws std::invalid_argument naming the body and tet for a tet of non-positive volume.
  void Configure(std::span<const SoftBodyDesc> bodies, std::span<const std::vector<std::array<int, 3>>> surfaces);
  /// Live edits: body b's energy and Lamé parameters.
  void SetMaterial(int body, ElasticModel model, const LameParameters& lame);

  /// A, b, the held dofs and the starting velocities at positions `x` and velocities `v` (every soft vertex, the
  /// bodies in order) for a step of `dt` [s] under `gravity` [m/s²].
  void Build(const std::vector<Eigen::Vector3d>& x, const std::vector<Eigen::Vector3d>& v, double dt,
             const Eigen::Vector3d& gravity, Eigen::SparseMatrix<double>& A, Eigen::VectorXd& b,
             std::vector<bool>& fixed, Eigen::VectorXd& v_start) const;

  /// Every vertex on a body's boundary (global vertex index), once, in order.
  const std::vector<int>& surface_vertices() const { return surface_vertices_; }
  const std::vector<double>& masses() const { return mass_; }
  int num_vertices() const { return static_cast<int>(mass_.size()); }

 private:
  struct Tet {
    std::array<int, 4> v{};  // global vertex indices
    TetRest rest;
    int body = 0;
  };
  struct Material {
    ElasticModel model = ElasticModel::kNeoHookean;
    LameParameters lame;
  };
  std::vector<Tet> tets_;
  std::vector<Material> materials_;  // per body
  std::vector<double> mass_;         // per vertex [kg]
  std::vector<bool> pinned_;         // per vertex
  std::vector<int> surface_vertices_;
};

}  // namespace ductile::fem
