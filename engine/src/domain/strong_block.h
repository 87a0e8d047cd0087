// A deformable domain's part of the strong scheme's joint problem (coupling/strong_coupling.h; Castro et al. 2022,
// "An Unconstrained Convex Formulation of Compliant Contact", Sec. IV: a SAP problem is a quadratic free-motion cost
// over the dofs, ½‖v − v*‖²_A, plus one convex cost per constraint on its Jacobian rows J v + b): the domain's block
// of A and its free motion at the step's start, and the points where it may touch rigid geometry, each with the dofs
// its velocity is. The scheme finds which points touch (against the frozen rigid geometry), reduces the block onto
// the touching points' dofs by the Schur complement of A, solves one SAP problem with the rigid system and the other
// domains, and gives the solved velocities back (DeformableDomain::ApplyStrongVelocities).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <vector>

namespace ductile {

struct StrongBlock {
  /// The free-motion Hessian over the domain's n dofs (SPD), held dofs with identity rows and columns.
  Eigen::SparseMatrix<double> A;
  /// The free motion's right-hand side: A v* = b (0 at held dofs).
  Eigen::VectorXd b;
  /// Per dof: held (its velocity is 0; no contact acts on it).
  std::vector<bool> fixed;
  /// The dofs' velocities at the step's start: the Newton iteration's first guess.
  Eigen::VectorXd v_start;
  /// Where the domain may touch rigid geometry (a soft body's surface vertices) [m], world, at the step's start.
  std::vector<Eigen::Vector3d> points;
  /// Per point: the first of the three dofs its velocity is (x, y, z).
  std::vector<int> point_dof;
  /// Per point: its mass [kg], for the contact's Delassus estimate 1/m.
  std::vector<double> point_mass;
  /// Coulomb μ of its contacts with rigid geometry.
  double friction = 0;
};

}  // namespace ductile
