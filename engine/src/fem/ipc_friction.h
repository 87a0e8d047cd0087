// Lagged smoothed friction of IPC (Li et al. 2020, "Incremental Potential Contact", Sec. 5, Eqs. 10–15).
// Per contact pair, frozen at the start of a step (or of a lagged iteration): the contact force λ (fem/ipc_barrier.h),
// the closest-point weights w (Σᵢ wᵢxᵢ is the relative position of the two closest points) and an orthonormal
// basis T (3 × 2) of the plane normal to it. The pair's relative tangential displacement over the step is
//
//   u = Γ (x − xᵗ),   Γ = Tᵀ (wᵀ ⊗ I₃)   (2 × 12),
//
// and its dissipative potential, with ε = ε_v Δt (ε_v the velocity below which friction is smoothed into sticking),
//
//   D(x) = μ λ f₀(‖u‖),   f₁(y) = f₀′(y) = 2y/ε − y²/ε² (y < ε), 1 (y ≥ ε),   f₀(y) = y²/ε − y³/(3ε²) + ε/3 (y < ε).
//
//   ∇D = μλ f₁(y)/y Γᵀu,   ∇²D = μλ Γᵀ [ (f₁′(y) y − f₁(y))/y³ uuᵀ + f₁(y)/y I₂ ] Γ.
//
// The 2 × 2 matrix in brackets is positive semi-definite for every y (for y < ε it is (2/ε − y/ε²)I − uuᵀ/(ε²y),
// eigenvalues 2/ε − 2y/ε² and 2/ε − y/ε²; for y ≥ ε it is (I − ûûᵀ)/y), so no projection is needed; at y = 0 it is
// (2/ε) I₂, the limit.
#pragma once

#include <Eigen/Core>

#include "fem/ipc_barrier.h"

namespace ductile::fem {

/// One pair's frozen friction data.
struct FrictionFrame {
  Eigen::Vector4d weights = Eigen::Vector4d::Zero();                        ///< w over the pair's four points.
  Eigen::Matrix<double, 3, 2> basis = Eigen::Matrix<double, 3, 2>::Zero();  ///< T, orthonormal columns.
  double normal_force = 0;                                                  ///< λ [N].
};

/// An orthonormal basis (3 × 2) of the plane normal to `normal` (any non-zero vector).
Eigen::Matrix<double, 3, 2> TangentBasis(const Eigen::Vector3d& normal);

/// The frame of a pair whose closest-point weights are w over points x (relative position Σ wᵢxᵢ), with force λ.
FrictionFrame MakeFrictionFrame(const Eigen::Vector4d& w, const Eigen::Vector3d& x0, const Eigen::Vector3d& x1,
                                const Eigen::Vector3d& x2, const Eigen::Vector3d& x3, double normal_force);

/// f₀ and f₁ of the smoothed friction for y ≥ 0 and ε > 0 [m].
double FrictionF0(double y, double eps);
double FrictionF1(double y, double eps);

/// D, ∇D and ∇²D of one pair (μ the friction coefficient, eps = ε_v Δt [m]) for the displacements over the step of
/// the pair's four points, stacked (12).
PairEnergy FrictionPotential(const FrictionFrame& frame, const Vector12d& displacement, double mu, double eps);

/// The pair's tangential relative displacement u = Γ (x − xᵗ) [m].
Eigen::Vector2d TangentialDisplacement(const FrictionFrame& frame, const Vector12d& displacement);

}  // namespace ductile::fem
