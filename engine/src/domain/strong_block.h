// A deformable domain's part of the strong scheme's joint problem (coupling/strong_coupling.h; Castro et al. 2022,
// "An Unconstrained Convex Formulation of Compliant Contact", Sec. IV: a SAP problem is a quadratic free-motion cost
// over the dofs, ½‖v − v*‖²_A, plus one convex cost per constraint on its Jacobian rows J v + b): the domain's block
// of A and its free motion at the step's start, and its contacts, each with the stencil of dofs its velocity is
// interpolated from. A domain finds its contacts itself (the MPM domain: its particles against the frozen rigid
// geometry and its own walls) or gives points for the scheme to find them (the FEM soft bodies' surface vertices).
// The scheme reduces each block with contacts onto its contacts' dofs by the Schur complement of A (or keeps it
// whole and sparse when that would be large: simulation.strong_dense_limit), solves one SAP problem with the rigid
// system and the other domains, and gives the solved velocities back (DeformableDomain::ApplyStrongVelocities).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <vector>

namespace ductile {

/// A contact registers within this share of the MPM grid spacing h beyond its contact surface (the strong scheme's
/// reach; coupling/strong_coupling.h, 2).
inline constexpr double kStrongContactReach = 0.05;

/// One dof triple of a contact's stencil: the contact point's velocity on the block's side is Σ weight · v[dof..dof+2]
/// over its entries.
struct StrongStencilEntry {
  int dof = 0;          ///< The first of the three dofs (x, y, z).
  double weight = 0;    ///< Its weight in the point's velocity.
  double delassus = 0;  ///< Its share of the contact's Delassus estimate on the block's side [1/kg] (w²/m).
};

/// One contact of a block with rigid geometry or one of the domain's own walls, registered at the step's start.
struct StrongContact {
  int body = -1;  ///< Rigid body touched (−1: static geometry or a wall).
  /// Normal [-], world, pointing from the geometry into the domain's material.
  Eigen::Vector3d normal_W = Eigen::Vector3d::UnitZ();
  Eigen::Vector3d point = Eigen::Vector3d::Zero();  ///< Where it acts [m], world.
  double phi = 0;                                   ///< Signed gap at the step's start [m].
  double friction = 0;                              ///< Coulomb μ.
  /// The block side's Delassus estimate when its entries' shares (and the body's) sum to zero [1/kg].
  double inverse_mass = 0;
  int first = 0;  ///< Its stencil: StrongBlock::stencil[first, first + count).
  int count = 0;
};

struct StrongBlock {
  /// The free-motion Hessian over the domain's n dofs (SPD), held dofs with identity rows and columns; filled by
  /// BuildStrongBlock or, when the block has contacts, by DeformableDomain::AssembleStrongSystem.
  Eigen::SparseMatrix<double> A;
  /// The free motion's right-hand side: A v* = b (0 at held dofs); filled with A.
  Eigen::VectorXd b;
  /// Per dof: held (its velocity is 0; no contact acts on it).
  std::vector<bool> fixed;
  /// The dofs' velocities at the step's start: the Newton iteration's first guess (held dofs start at 0).
  Eigen::VectorXd v_start;
  /// The contacts the domain found, and their stencils; the scheme appends those it finds at `points`.
  std::vector<StrongContact> contacts;
  std::vector<StrongStencilEntry> stencil;
  /// Points where the domain may touch rigid geometry, for the scheme to search (a soft body's surface vertices)
  /// [m], world, at the step's start; each with the first of the three dofs its velocity is and its mass [kg].
  std::vector<Eigen::Vector3d> points;
  std::vector<int> point_dof;
  std::vector<double> point_mass;
  /// Coulomb μ of the points' contacts with rigid geometry.
  double friction = 0;

  /// Empties the lists for the next step, keeping their storage (and A's, which the domain writes over).
  void Clear() {
    contacts.clear();
    stencil.clear();
    points.clear();
    point_dof.clear();
    point_mass.clear();
    friction = 0;
  }
};

/// The free motion without contact, A v = b, by a sparse LDLᵀ (A is SPD). Throws std::runtime_error when it is not.
Eigen::VectorXd SolveFreeMotion(const StrongBlock& block);

}  // namespace ductile
