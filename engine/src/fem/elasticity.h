// Hyperelasticity of linear tetrahedra for the FEM-IPC domain: three isotropic energy densities Ψ(F) per unit rest
// volume [J/m³], their first Piola-Kirchhoff stress P = ∂Ψ/∂F [Pa] and their Hessian ∂²Ψ/∂F² [Pa], and the element
// energy, gradient and Hessian over the tetrahedron's 12 vertex coordinates (Sifakis, Barbič 2012, "FEM simulation
// of 3D deformable solids: a practitioner's guide to theory, discretization and model reduction", SIGGRAPH course
// notes, Sec. 3.3 for the energies and Sec. 4 for the element). With J = det F:
//
//   neo-Hookean       Ψ = μ/2 (tr(FᵀF) − 3) − μ ln J + λ/2 (ln J)²,        Ψ = +∞ for J ≤ 0
//   (compressible, Bonet, Wood 2008, "Nonlinear continuum mechanics for finite element analysis", 2nd ed.,
//   Sec. 6.4.3; the elastic energy of Li et al. 2020, "Incremental Potential Contact")
//                     P = μ (F − F⁻ᵀ) + λ ln J F⁻ᵀ
//                     dP = μ dF + (μ − λ ln J) F⁻ᵀ dFᵀ F⁻ᵀ + λ tr(F⁻¹ dF) F⁻ᵀ
//   fixed corotated   Ψ = μ ‖F − R‖²_F + λ/2 (J − 1)²      (Stomakhin, Howes, Schroeder, Teran 2012, "Energetically
//                                                          consistent invertible elasticity", the fixed corotated
//                                                          model)
//                     P = 2μ (F − R) + λ (J − 1) cof F,       cof F = J F⁻ᵀ
//                     dP = 2μ (dF − dR) + λ (cof F : dF) cof F + λ (J − 1) d(cof F)
//   St. Venant–Kirchhoff  Ψ = μ ‖E‖²_F + λ/2 tr(E)²,  E = ½ (FᵀF − I)
//                     P = F (2μ E + λ tr(E) I)
//                     dP = dF (2μ E + λ tr(E) I) + F (2μ dE + λ tr(dE) I),  dE = ½ (dFᵀF + FᵀdF)
//
// F = R S is the signed rotation-polar decomposition (R ∈ SO(3) also for inverted F) and dR its differential,
// dR = R [ω]× with ω = (tr(S) I − S)⁻¹ axial(Rᵀ dF − dFᵀ R), both written out in core/signed_polar.h. (This
// reproduces the twist and flip eigenpairs of Smith, De Goes, Kim 2019, "Analytic eigensystems for isotropic
// distortion energies", the rotation-variant terms.) Where two signed singular values sum to zero, R is not
// differentiable and the sum is kept at least 10⁻¹² in magnitude, which leaves a large negative eigenvalue that
// ProjectToPsd removes.
//
// Ordering: a 3x3 matrix is flattened column-major, vec(F)[i + 3j] = F(i, j) (Eigen's default storage, so
// Eigen::Map<Vector9d>(F.data()) is vec(F)). The 9x9 Hessian is H[a][b] = ∂²Ψ/∂vec(F)_a ∂vec(F)_b.
//
// Element: Dm = [X₁ − X₀, X₂ − X₀, X₃ − X₀] (rest), Ds the same for the current positions, F = Ds Dm⁻¹, rest volume
// V = det(Dm)/6 > 0. F is linear in x = [x₀; x₁; x₂; x₃], vec(F) = (∂vec(F)/∂x) x, so the element energy V Ψ(F) has
//
//   gradient  V (∂vec(F)/∂x)ᵀ vec(P),      Hessian  V (∂vec(F)/∂x)ᵀ ∂²Ψ/∂F² (∂vec(F)/∂x).
//
// PSD projection (the projected Newton method of Li et al. 2020): the 9x9 ∂²Ψ/∂F² is projected (negative
// eigenvalues set to 0) before it is mapped to the 12x12. Since yᵀ (Aᵀ H A) y = (Ay)ᵀ H (Ay), a PSD H gives a PSD
// element Hessian (it differs in general from projecting the 12x12, which is PSD too). The 9x9 projection comes
// from the energies' analytic eigensystems (ProjectedEnergyDensityHessian: Smith, De Goes, Kim 2019), not from a
// numerical eigen-decomposition.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <Eigen/Eigenvalues>

#include "core/elastic_moduli.h"

namespace ductile::fem {

using Vector9d = Eigen::Matrix<double, 9, 1>;
using Matrix9d = Eigen::Matrix<double, 9, 9>;
using Vector12d = Eigen::Matrix<double, 12, 1>;
using Matrix12d = Eigen::Matrix<double, 12, 12>;
using Matrix9x12d = Eigen::Matrix<double, 9, 12>;

/// The isotropic hyperelastic energy density of an element (equations at the top of this file).
enum class ElasticModel { kNeoHookean, kFixedCorotated, kStVK };

// The moduli, shared with the MPM materials (core/elastic_moduli.h).
using ductile::LameFromYoungPoisson;
using ductile::LameParameters;
using ductile::YoungsModulus;

/// Energy density Ψ(F) [J/m³] of deformation gradient F. +∞ for the neo-Hookean model when det F ≤ 0 (a line search
/// relies on it); finite for every finite F otherwise. Pure, thread-safe.
double EnergyDensity(ElasticModel model, const LameParameters& lame, const Eigen::Matrix3d& F);

/// First Piola-Kirchhoff stress P = ∂Ψ/∂F [Pa]. For the neo-Hookean model only defined for det F > 0: all entries
/// are NaN otherwise. Pure, thread-safe.
Eigen::Matrix3d FirstPiola(ElasticModel model, const LameParameters& lame, const Eigen::Matrix3d& F);

/// Hessian ∂²Ψ/∂vec(F)² [Pa] (9x9, column-major vec, symmetric, not projected; may be indefinite). For the
/// neo-Hookean model only defined for det F > 0 (NaN otherwise). Pure, thread-safe.
Matrix9d EnergyDensityHessian(ElasticModel model, const LameParameters& lame, const Eigen::Matrix3d& F);

/// The projection of ∂²Ψ/∂vec(F)² onto the positive semi-definite cone (what ProjectToPsd does to
/// EnergyDensityHessian) from the analytic eigensystem of the isotropic energy (Smith, De Goes, Kim 2019; the modes
/// and the per-model eigenvalues in elasticity.cpp): one 3x3 SVD and a 3x3 eigenproblem instead of a 9x9 one. NaN
/// for the neo-Hookean model when det F ≤ 0. Pure, thread-safe.
Matrix9d ProjectedEnergyDensityHessian(ElasticModel model, const LameParameters& lame, const Eigen::Matrix3d& F);

/// Replaces symmetric H (only its lower triangle is read) by its projection onto the positive semi-definite cone:
/// H = Q max(Λ, 0) Qᵀ from its eigen-decomposition. Leaves H unchanged when no eigenvalue is negative. Thread-safe
/// for distinct H.
template <int N>
void ProjectToPsd(Eigen::Matrix<double, N, N>& H) {
  // A Cholesky factorisation (a few hundred flops) proves most element Hessians near rest positive definite; only
  // the others pay for the eigen-decomposition.
  if (Eigen::LLT<Eigen::Matrix<double, N, N>>(H).info() == Eigen::Success) return;
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, N, N>> eigen(H);
  if (eigen.eigenvalues().minCoeff() >= 0) return;
  H = eigen.eigenvectors() * eigen.eigenvalues().cwiseMax(0.0).asDiagonal() * eigen.eigenvectors().transpose();
}

/// Rest-state data of a linear tetrahedron. Plain data, const after MakeTetRest.
struct TetRest {
  Eigen::Matrix3d Dm_inv = Eigen::Matrix3d::Identity();  ///< Dm⁻¹ [1/m], Dm = [X₁ − X₀, X₂ − X₀, X₃ − X₀].
  double volume = 0;                                     ///< Rest volume V = det(Dm)/6 [m³], > 0.
};

/// The rest data of the tetrahedron with rest positions X0..X3 [m], or std::nullopt when its signed volume
/// det(Dm)/6 is not positive (inverted, degenerate or non-finite; the caller reports which element). Pure.
std::optional<TetRest> MakeTetRest(const Eigen::Vector3d& X0, const Eigen::Vector3d& X1, const Eigen::Vector3d& X2,
                                   const Eigen::Vector3d& X3);

/// Deformation gradient F = Ds Dm⁻¹ [–] at current positions x0..x3 [m]. Pure.
Eigen::Matrix3d DeformationGradient(const TetRest& rest, const Eigen::Vector3d& x0, const Eigen::Vector3d& x1,
                                    const Eigen::Vector3d& x2, const Eigen::Vector3d& x3);

/// The constant 9x12 matrix ∂vec(F)/∂x [1/m], x = [x₀; x₁; x₂; x₃] (3 coordinates per vertex, vertex-major); each
/// row sums to zero over every coordinate (translation invariance). Pure.
Matrix9x12d DeformationGradientJacobian(const TetRest& rest);

/// Element elastic energy V Ψ(F) [J] at current positions x0..x3 [m]; +∞ for an inverted neo-Hookean element. Pure.
double TetEnergy(ElasticModel model, const LameParameters& lame, const TetRest& rest, const Eigen::Vector3d& x0,
                 const Eigen::Vector3d& x1, const Eigen::Vector3d& x2, const Eigen::Vector3d& x3);

/// Gradient of TetEnergy with respect to x = [x₀; x₁; x₂; x₃] [N] (the negated elastic forces). Pure.
Vector12d TetGradient(ElasticModel model, const LameParameters& lame, const TetRest& rest, const Eigen::Vector3d& x0,
                      const Eigen::Vector3d& x1, const Eigen::Vector3d& x2, const Eigen::Vector3d& x3);

/// Hessian of TetEnergy with respect to x [N/m], symmetric; with `project` the 9x9 ∂²Ψ/∂F² is projected to PSD first
/// (see the top of this file), so the result is PSD. Pure.
Matrix12d TetHessian(ElasticModel model, const LameParameters& lame, const TetRest& rest, const Eigen::Vector3d& x0,
                     const Eigen::Vector3d& x1, const Eigen::Vector3d& x2, const Eigen::Vector3d& x3, bool project);

/// Lumped vertex masses [kg]: each tetrahedron's ρ V split equally among its four vertices. `tets` index
/// `rest_positions` [m]; density ρ [kg/m³]. Precondition (not checked): indices are in range and every tetrahedron
/// has positive rest volume (MakeTetRest succeeded). Returns one mass per rest position (0 for unused ones). Pure.
std::vector<double> LumpedMasses(std::span<const Eigen::Vector3d> rest_positions,
                                 std::span<const std::array<int, 4>> tets, double density);

}  // namespace ductile::fem
