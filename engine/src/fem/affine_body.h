// Affine body dynamics (Lan, Kaufman, Li, Jiang, Yang 2022, "Affine Body Dynamics: Fast, Stable and
// Intersection-free Simulation of Stiff Materials", Sec. 3). A stiff body's configuration is q = (p, a₁, a₂, a₃) ∈ R¹²,
// the translation and the columns of A, and its material point at rest position x̄ (body frame, relative to the
// centre of mass) is at
//
//   x = p + A x̄ = J(x̄) q,    J(x̄) = [ I₃  x̄₁I₃  x̄₂I₃  x̄₃I₃ ]   (3 × 12).                           (Eq. 3)
//
// The mass matrix M = ∫ρ JᵀJ dV is constant: with x̄ about the centre of mass it is block-diagonal,
// diag(m I₃, S ⊗ I₃), S = ∫ρ x̄ x̄ᵀ dV (the second moment; for inertia tensor I_c, S = ½ tr(I_c) I₃ − I_c).
// Rigidity is enforced by the orthogonality potential (Eq. 7)
//
//   V⊥(A) = κ_A V ‖AAᵀ − I‖²_F,   ∂V⊥/∂A = 4κ_A V (AAᵀ − I) A,
//   d(∂V⊥/∂A)[dA] = 4κ_A V ((dA Aᵀ + A dAᵀ) A + (AAᵀ − I) dA),
//
// κ_A a stiffness [Pa] (the paper uses about 100 times the body's Young's modulus; a larger one only costs Newton
// iterations), V the body's volume. Its 9 × 9 Hessian is projected to be positive semi-definite.
#pragma once

#include <Eigen/Core>

namespace ductile::fem {

using Vector9d = Eigen::Matrix<double, 9, 1>;

/// The 12 × 12 constant mass matrix of an affine body of mass m [kg] and second moment S about its centre of mass
/// [kg m²].
Eigen::Matrix<double, 12, 12> AffineMassMatrix(double mass, const Eigen::Matrix3d& second_moment);

/// S = ½ tr(I_c) I₃ − I_c from the inertia tensor about the centre of mass [kg m²].
Eigen::Matrix3d SecondMomentFromInertia(const Eigen::Matrix3d& inertia);

/// x = J(x̄) q: the world position of rest point x_bar (body frame about the centre of mass).
Eigen::Vector3d AffinePoint(const Eigen::Matrix<double, 12, 1>& q, const Eigen::Vector3d& x_bar);

/// A as a matrix from q.
Eigen::Matrix3d AffineMatrix(const Eigen::Matrix<double, 12, 1>& q);

/// The orthogonality potential's value ‖AAᵀ − I‖²_F, gradient (9, over vec(A) column-major) and PSD-projected
/// Hessian (9 × 9), each per unit κ_A V.
struct OrthogonalityTerms {
  double value = 0;
  Vector9d gradient = Vector9d::Zero();
  Eigen::Matrix<double, 9, 9> hessian = Eigen::Matrix<double, 9, 9>::Zero();
};
OrthogonalityTerms Orthogonality(const Eigen::Matrix3d& A, bool with_hessian);

/// The body's angular momentum about the world origin [kg m²/s]: m p × ṗ + Σⱼₖ Sⱼₖ aⱼ × ȧₖ.
Eigen::Vector3d AffineAngularMomentum(const Eigen::Matrix<double, 12, 1>& q, const Eigen::Matrix<double, 12, 1>& q_dot,
                                      double mass, const Eigen::Matrix3d& second_moment);

}  // namespace ductile::fem
