// The rotation-polar decomposition of a 3x3 double matrix and the differential of its rotation, for the elastic
// energies of the FEM domain (fem/elasticity.h) and the projections of the projective-dynamics domain
// (pd/pd_projection.h).
//
// F = R S with R ∈ SO(3) also for inverted F: from the SVD F = U Σ Vᵀ, the column of U belonging to the smallest
// singular value and that value are negated when det U det V < 0, so R = U Vᵀ and S = V Σ Vᵀ with signed Σ (Irving,
// Teran, Fedkiw 2004, "Invertible finite elements for robust simulation of large deformation"). R is the rotation
// closest to F in the Frobenius norm.
//
// Differentiating F = R S with Ω = Rᵀ dR skew and dS symmetric gives Ω S + S Ω = Rᵀ dF − dFᵀ R, and for symmetric S,
// Ω S + S Ω = [(tr(S) I − S) ω]× with ω the axial vector of Ω, so
//
//   ω = (tr(S) I − S)⁻¹ axial(Rᵀ dF − dFᵀ R) = V diag(1/(σ₁+σ₂), 1/(σ₀+σ₂), 1/(σ₀+σ₁)) Vᵀ axial(…),  dR = R [ω]×.
//
// It is singular where two signed singular values sum to zero (F = 0, or a reflection such as diag(1, 1, −1)), where
// R itself is not differentiable; there σᵢ + σⱼ is kept at least kMinSingularSum in magnitude. The map dF ↦ dR is
// self-adjoint in the Frobenius inner product (dR = ∂²tr(S)/∂F² [dF], tr(S) = max over rotations Q of tr(QᵀF)).
#pragma once

#include <Eigen/Core>

namespace ductile {

/// Smallest magnitude of σᵢ + σⱼ in the rotation differential (file comment), where R is not differentiable.
inline constexpr double kMinSingularSum = 1e-12;

/// F = R S with R ∈ SO(3) and S = V diag(sigma) Vᵀ, sigma the signed singular values in decreasing order of
/// magnitude (only the smallest may be negative). Plain data.
struct SignedPolar {
  Eigen::Matrix3d R;
  Eigen::Matrix3d V;
  Eigen::Vector3d sigma;
};

/// The signed polar decomposition of F (file comment). Pure.
SignedPolar ComputeSignedPolar(const Eigen::Matrix3d& F);

/// dR in direction dF at the decomposition `polar` (file comment). Pure.
Eigen::Matrix3d RotationDifferential(const SignedPolar& polar, const Eigen::Matrix3d& dF);

}  // namespace ductile
