// Energy densities, stresses and Hessians of the three elastic models and the linear tetrahedron element; the
// equations, the vec(F) ordering and the polar-rotation differential are written out in fem/elasticity.h. Each
// Hessian is assembled column by column from the stress differential dP(F)[dF] at the nine unit directions dF.
#include "fem/elasticity.h"

#include "core/signed_polar.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <Eigen/Dense>

namespace ductile::fem {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Vector9d Vec(const Eigen::Matrix3d& A) {
  return Eigen::Map<const Vector9d>(A.data());
}

/// The 9x9 matrix whose column k is vec(dP(E_k)), E_k the unit matrix with vec(E_k) = e_k; symmetrized to remove the
/// round-off asymmetry (the exact Hessian is symmetric).
template <typename Differential>
Matrix9d HessianFromDifferential(const Differential& dP) {
  Matrix9d H;
  for (int k = 0; k < 9; ++k) {
    Eigen::Matrix3d dF = Eigen::Matrix3d::Zero();
    dF.data()[k] = 1.0;
    H.col(k) = Vec(dP(dF));
  }
  return 0.5 * (H + H.transpose());
}

/// cof F = J F⁻ᵀ, column by column: the columns of F are f₀, f₁, f₂ and cof F = [f₁×f₂, f₂×f₀, f₀×f₁] (finite and
/// exact also for singular F).
Eigen::Matrix3d Cofactor(const Eigen::Matrix3d& F) {
  Eigen::Matrix3d C;
  C.col(0) = F.col(1).cross(F.col(2));
  C.col(1) = F.col(2).cross(F.col(0));
  C.col(2) = F.col(0).cross(F.col(1));
  return C;
}

/// d(cof F) in direction dF (cof F is quadratic in F: the product rule on each cross product).
Eigen::Matrix3d CofactorDifferential(const Eigen::Matrix3d& F, const Eigen::Matrix3d& dF) {
  Eigen::Matrix3d dC;
  dC.col(0) = dF.col(1).cross(F.col(2)) + F.col(1).cross(dF.col(2));
  dC.col(1) = dF.col(2).cross(F.col(0)) + F.col(2).cross(dF.col(0));
  dC.col(2) = dF.col(0).cross(F.col(1)) + F.col(0).cross(dF.col(1));
  return dC;
}

// ---- neo-Hookean ----

double NeoHookeanEnergy(const LameParameters& lame, const Eigen::Matrix3d& F) {
  const double J = F.determinant();
  if (!(J > 0)) return std::numeric_limits<double>::infinity();
  const double log_J = std::log(J);
  return 0.5 * lame.mu * (F.squaredNorm() - 3.0) - lame.mu * log_J + 0.5 * lame.lambda * log_J * log_J;
}

Eigen::Matrix3d NeoHookeanPiola(const LameParameters& lame, const Eigen::Matrix3d& F) {
  const double J = F.determinant();
  if (!(J > 0)) return Eigen::Matrix3d::Constant(kNaN);
  const Eigen::Matrix3d F_inv_T = F.inverse().transpose();
  return lame.mu * (F - F_inv_T) + lame.lambda * std::log(J) * F_inv_T;
}

Matrix9d NeoHookeanHessian(const LameParameters& lame, const Eigen::Matrix3d& F) {
  const double J = F.determinant();
  if (!(J > 0)) return Matrix9d::Constant(kNaN);
  const Eigen::Matrix3d F_inv = F.inverse();
  const Eigen::Matrix3d F_inv_T = F_inv.transpose();
  const double transpose_coefficient = lame.mu - lame.lambda * std::log(J);
  return HessianFromDifferential([&](const Eigen::Matrix3d& dF) -> Eigen::Matrix3d {
    return lame.mu * dF + transpose_coefficient * F_inv_T * dF.transpose() * F_inv_T +
           lame.lambda * (F_inv * dF).trace() * F_inv_T;
  });
}

// ---- fixed corotated ----

double FixedCorotatedEnergy(const LameParameters& lame, const Eigen::Matrix3d& F) {
  const SignedPolar polar = ComputeSignedPolar(F);
  const double J_minus_1 = F.determinant() - 1.0;
  return lame.mu * (F - polar.R).squaredNorm() + 0.5 * lame.lambda * J_minus_1 * J_minus_1;
}

Eigen::Matrix3d FixedCorotatedPiola(const LameParameters& lame, const Eigen::Matrix3d& F) {
  const SignedPolar polar = ComputeSignedPolar(F);
  return 2.0 * lame.mu * (F - polar.R) + lame.lambda * (F.determinant() - 1.0) * Cofactor(F);
}

Matrix9d FixedCorotatedHessian(const LameParameters& lame, const Eigen::Matrix3d& F) {
  const SignedPolar polar = ComputeSignedPolar(F);
  const Eigen::Matrix3d cofactor = Cofactor(F);
  const double J_minus_1 = F.determinant() - 1.0;
  return HessianFromDifferential([&](const Eigen::Matrix3d& dF) -> Eigen::Matrix3d {
    return 2.0 * lame.mu * (dF - RotationDifferential(polar, dF)) +
           lame.lambda * cofactor.cwiseProduct(dF).sum() * cofactor +
           lame.lambda * J_minus_1 * CofactorDifferential(F, dF);
  });
}

// ---- St. Venant–Kirchhoff ----

Eigen::Matrix3d GreenStrain(const Eigen::Matrix3d& F) {
  return 0.5 * (F.transpose() * F - Eigen::Matrix3d::Identity());
}

double StVKEnergy(const LameParameters& lame, const Eigen::Matrix3d& F) {
  const Eigen::Matrix3d E = GreenStrain(F);
  const double trace = E.trace();
  return lame.mu * E.squaredNorm() + 0.5 * lame.lambda * trace * trace;
}

/// The second Piola-Kirchhoff stress S = 2μ E + λ tr(E) I; P = F S.
Eigen::Matrix3d StVKSecondPiola(const LameParameters& lame, const Eigen::Matrix3d& F) {
  const Eigen::Matrix3d E = GreenStrain(F);
  return 2.0 * lame.mu * E + lame.lambda * E.trace() * Eigen::Matrix3d::Identity();
}

Matrix9d StVKHessian(const LameParameters& lame, const Eigen::Matrix3d& F) {
  const Eigen::Matrix3d S = StVKSecondPiola(lame, F);
  return HessianFromDifferential([&](const Eigen::Matrix3d& dF) -> Eigen::Matrix3d {
    const Eigen::Matrix3d dE = 0.5 * (dF.transpose() * F + F.transpose() * dF);
    return dF * S + F * (2.0 * lame.mu * dE + lame.lambda * dE.trace() * Eigen::Matrix3d::Identity());
  });
}

// ---- Analytic eigensystems (Smith, De Goes, Kim 2019, "Analytic eigensystems for isotropic distortion energies",
// Sec. 5-7; the same blocks as Teran, Sifakis, Irving, Fedkiw 2005, "Robust quasistatic finite elements and flesh
// simulation", Sec. 5) ----
//
// For an isotropic Ψ(F) = Ψ̂(σ₀, σ₁, σ₂) of the signed singular values (F = U diag(σ) Vᵀ, U and V rotations), the
// 9x9 ∂²Ψ/∂F² has the eigenvectors vec(U M Vᵀ) for nine orthonormal M: three scalings M = diag(q) with q and the
// eigenvalues from the 3x3 ∂²Ψ̂/∂σ², and per pair (i, j) a flip M = (eᵢeⱼᵀ + eⱼeᵢᵀ)/√2 with eigenvalue
// (ψᵢ − ψⱼ)/(σᵢ − σⱼ) and a twist M = (eᵢeⱼᵀ − eⱼeᵢᵀ)/√2 with eigenvalue (ψᵢ + ψⱼ)/(σᵢ + σⱼ), ψᵢ = ∂Ψ̂/∂σᵢ. The
// quotients are written out per model below with the division by σᵢ − σⱼ cancelled, so repeated singular values
// need no special case. Clamping the nine eigenvalues at zero is the PSD projection, without a 9x9
// eigen-decomposition.
struct SingularSystem {
  Eigen::Matrix3d U, V;
  Eigen::Vector3d sigma;
  Eigen::Matrix3d scaling;      // ∂²Ψ̂/∂σ²
  Eigen::Vector3d flip, twist;  // pair k is (i, j) = ((k + 1) % 3, (k + 2) % 3)
};

// U, V rotations and signed σ (decreasing in magnitude, only the last negative, where det F < 0). From the
// closed-form eigen-decomposition of FᵀF = V Σ² Vᵀ (a cubic's roots, a fraction of a Jacobi SVD's cost): u₀ ∥ F v₀,
// u₁ from F v₁ orthogonalised against u₀, u₂ = u₀ × u₁, and σᵢ = uᵢ·F vᵢ, which carries det F's sign into σ₂. Where
// F is nearly rank-deficient (σ₁ below 10⁻⁶ σ₀) the columns F vᵢ / σᵢ lose their accuracy, and Eigen's Jacobi SVD
// is used instead.
// GCC 12 at -O3 reports Eigen's JacobiSVD singular values as maybe used uninitialised once SignedSvd is inlined
// (a false positive: compute() writes all three before they are read).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
void SignedSvd(const Eigen::Matrix3d& F, SingularSystem& s) {
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eigen;
  eigen.computeDirect(F.transpose() * F);
  s.V = eigen.eigenvectors().rowwise().reverse();  // decreasing eigenvalues
  if (s.V.determinant() < 0) s.V.col(2) *= -1.0;
  const Eigen::Matrix3d FV = F * s.V;
  const double sigma0 = FV.col(0).norm();
  Eigen::Vector3d u1 = FV.col(1) - FV.col(1).dot(FV.col(0)) / (sigma0 * sigma0) * FV.col(0);
  if (sigma0 > 0 && u1.norm() > 1e-6 * sigma0) {
    s.U.col(0) = FV.col(0) / sigma0;
    s.U.col(1) = u1.normalized();
    s.U.col(2) = s.U.col(0).cross(s.U.col(1));
    for (int i = 0; i < 3; ++i) s.sigma(i) = s.U.col(i).dot(FV.col(i));
    return;
  }
  const Eigen::JacobiSVD<Eigen::Matrix3d> svd(F, Eigen::ComputeFullU | Eigen::ComputeFullV);
  s.U = svd.matrixU();
  s.V = svd.matrixV();
  s.sigma = svd.singularValues();
  if (s.U.determinant() < 0) s.U.col(2) *= -1.0, s.sigma(2) *= -1.0;
  if (s.V.determinant() < 0) s.V.col(2) *= -1.0, s.sigma(2) *= -1.0;
}
#pragma GCC diagnostic pop

void NeoHookeanSingularSystem(const LameParameters& lame, SingularSystem& s) {
  const Eigen::Vector3d& sg = s.sigma;
  const double J = sg.prod();
  const double log_J = std::log(J);
  // ψᵢ = μσᵢ − (μ − λ ln J)/σᵢ: the pair quotients are μ ± (μ − λ ln J)/(σᵢσⱼ) = μ ± (μ − λ ln J) σₖ / J.
  for (int k = 0; k < 3; ++k) {
    const double c = (lame.mu - lame.lambda * log_J) * sg(k) / J;
    s.flip(k) = lame.mu + c;
    s.twist(k) = lame.mu - c;
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      s.scaling(i, j) =
          i == j ? lame.mu + (lame.mu + lame.lambda * (1.0 - log_J)) / (sg(i) * sg(i)) : lame.lambda / (sg(i) * sg(j));
}

void FixedCorotatedSingularSystem(const LameParameters& lame, SingularSystem& s) {
  const Eigen::Vector3d& sg = s.sigma;
  const double J = sg.prod();
  // ψᵢ = 2μ(σᵢ − 1) + λ(J − 1)σⱼσₖ.
  for (int k = 0; k < 3; ++k) {
    const double sum = sg((k + 1) % 3) + sg((k + 2) % 3);
    const double clamped = std::copysign(std::max(std::abs(sum), kMinSingularSum), sum);
    s.flip(k) = 2.0 * lame.mu - lame.lambda * (J - 1.0) * sg(k);
    s.twist(k) = 2.0 * lame.mu - 4.0 * lame.mu / clamped + lame.lambda * (J - 1.0) * sg(k);
  }
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    s.scaling(i, i) = 2.0 * lame.mu + lame.lambda * sg(j) * sg(j) * sg(k) * sg(k);
    s.scaling(j, k) = s.scaling(k, j) = lame.lambda * sg(i) * (2.0 * J - 1.0);
  }
}

void StVKSingularSystem(const LameParameters& lame, SingularSystem& s) {
  const Eigen::Vector3d& sg = s.sigma;
  // ψᵢ = σᵢ (μ(σᵢ² − 1) + t), t = λ/2 Σ(σₘ² − 1).
  const double t = 0.5 * lame.lambda * (sg.squaredNorm() - 3.0);
  for (int k = 0; k < 3; ++k) {
    const double a = sg((k + 1) % 3), b = sg((k + 2) % 3);
    s.flip(k) = lame.mu * (a * a + a * b + b * b - 1.0) + t;
    s.twist(k) = lame.mu * (a * a - a * b + b * b - 1.0) + t;
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      s.scaling(i, j) = i == j ? lame.mu * (3.0 * sg(i) * sg(i) - 1.0) + t + lame.lambda * sg(i) * sg(i)
                               : lame.lambda * sg(i) * sg(j);
}

// Σ max(λ, 0) vec(U M Vᵀ) vec(U M Vᵀ)ᵀ over the nine modes.
Matrix9d HessianFromSingularSystem(const SingularSystem& s) {
  // w[i][j] = vec(uᵢ vⱼᵀ).
  std::array<std::array<Vector9d, 3>, 3> w;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) w[i][j] = Vec(s.U.col(i) * s.V.col(j).transpose());
  Matrix9d H = Matrix9d::Zero();
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> scaling(s.scaling);
  for (int m = 0; m < 3; ++m) {
    const double value = scaling.eigenvalues()(m);
    if (value <= 0) continue;
    const Eigen::Vector3d q = scaling.eigenvectors().col(m);
    const Vector9d e = q(0) * w[0][0] + q(1) * w[1][1] + q(2) * w[2][2];
    H.noalias() += value * e * e.transpose();
  }
  for (int k = 0; k < 3; ++k) {
    const int i = (k + 1) % 3, j = (k + 2) % 3;
    if (s.flip(k) > 0) {
      const Vector9d e = M_SQRT1_2 * (w[i][j] + w[j][i]);
      H.noalias() += s.flip(k) * e * e.transpose();
    }
    if (s.twist(k) > 0) {
      const Vector9d e = M_SQRT1_2 * (w[i][j] - w[j][i]);
      H.noalias() += s.twist(k) * e * e.transpose();
    }
  }
  return H;
}

}  // namespace

double EnergyDensity(ElasticModel model, const LameParameters& lame, const Eigen::Matrix3d& F) {
  if (model == ElasticModel::kNeoHookean) return NeoHookeanEnergy(lame, F);
  if (model == ElasticModel::kFixedCorotated) return FixedCorotatedEnergy(lame, F);
  return StVKEnergy(lame, F);
}

Eigen::Matrix3d FirstPiola(ElasticModel model, const LameParameters& lame, const Eigen::Matrix3d& F) {
  if (model == ElasticModel::kNeoHookean) return NeoHookeanPiola(lame, F);
  if (model == ElasticModel::kFixedCorotated) return FixedCorotatedPiola(lame, F);
  return F * StVKSecondPiola(lame, F);
}

Matrix9d EnergyDensityHessian(ElasticModel model, const LameParameters& lame, const Eigen::Matrix3d& F) {
  if (model == ElasticModel::kNeoHookean) return NeoHookeanHessian(lame, F);
  if (model == ElasticModel::kFixedCorotated) return FixedCorotatedHessian(lame, F);
  return StVKHessian(lame, F);
}

Matrix9d ProjectedEnergyDensityHessian(ElasticModel model, const LameParameters& lame, const Eigen::Matrix3d& F) {
  if (model == ElasticModel::kNeoHookean && !(F.determinant() > 0)) return Matrix9d::Constant(kNaN);
  SingularSystem s;
  SignedSvd(F, s);
  if (model == ElasticModel::kNeoHookean)
    NeoHookeanSingularSystem(lame, s);
  else if (model == ElasticModel::kFixedCorotated)
    FixedCorotatedSingularSystem(lame, s);
  else
    StVKSingularSystem(lame, s);
  return HessianFromSingularSystem(s);
}

std::optional<TetRest> MakeTetRest(const Eigen::Vector3d& X0, const Eigen::Vector3d& X1, const Eigen::Vector3d& X2,
                                   const Eigen::Vector3d& X3) {
  Eigen::Matrix3d Dm;
  Dm << X1 - X0, X2 - X0, X3 - X0;
  const double volume = Dm.determinant() / 6.0;
  if (!(volume > 0 && std::isfinite(volume))) return std::nullopt;
  return TetRest{.Dm_inv = Dm.inverse(), .volume = volume};
}

Eigen::Matrix3d DeformationGradient(const TetRest& rest, const Eigen::Vector3d& x0, const Eigen::Vector3d& x1,
                                    const Eigen::Vector3d& x2, const Eigen::Vector3d& x3) {
  Eigen::Matrix3d Ds;
  Ds << x1 - x0, x2 - x0, x3 - x0;
  return Ds * rest.Dm_inv;
}

Matrix9x12d DeformationGradientJacobian(const TetRest& rest) {
  // F(i, j) = Σₐ (x_{a+1} − x₀)(i) Dm⁻¹(a, j): ∂F(i, j)/∂x_{a+1}(i) = Dm⁻¹(a, j), ∂F(i, j)/∂x₀(i) = −Σₐ Dm⁻¹(a, j).
  const Eigen::Matrix3d& B = rest.Dm_inv;
  Matrix9x12d dF_dx = Matrix9x12d::Zero();
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 3; ++i) {
      const int row = i + 3 * j;
      dF_dx(row, i) = -B.col(j).sum();
      for (int a = 0; a < 3; ++a) dF_dx(row, 3 * (a + 1) + i) = B(a, j);
    }
  }
  return dF_dx;
}

double TetEnergy(ElasticModel model, const LameParameters& lame, const TetRest& rest, const Eigen::Vector3d& x0,
                 const Eigen::Vector3d& x1, const Eigen::Vector3d& x2, const Eigen::Vector3d& x3) {
  return rest.volume * EnergyDensity(model, lame, DeformationGradient(rest, x0, x1, x2, x3));
}

Vector12d TetGradient(ElasticModel model, const LameParameters& lame, const TetRest& rest, const Eigen::Vector3d& x0,
                      const Eigen::Vector3d& x1, const Eigen::Vector3d& x2, const Eigen::Vector3d& x3) {
  const Eigen::Matrix3d P = FirstPiola(model, lame, DeformationGradient(rest, x0, x1, x2, x3));
  return rest.volume * DeformationGradientJacobian(rest).transpose() * Vec(P);
}

Matrix12d TetHessian(ElasticModel model, const LameParameters& lame, const TetRest& rest, const Eigen::Vector3d& x0,
                     const Eigen::Vector3d& x1, const Eigen::Vector3d& x2, const Eigen::Vector3d& x3, bool project) {
  const Eigen::Matrix3d F = DeformationGradient(rest, x0, x1, x2, x3);
  const Matrix9d H = project ? ProjectedEnergyDensityHessian(model, lame, F) : EnergyDensityHessian(model, lame, F);
  // V (∂vec(F)/∂x)ᵀ H (∂vec(F)/∂x) through its block structure: ∂F(i, j)/∂x_a(i) = B̃(a, j) with B̃ = [−1ᵀDm⁻¹; Dm⁻¹]
  // (4 x 3; DeformationGradientJacobian), so the 3x3 block (a, b) is V Σⱼ Σₗ B̃(a, j) B̃(b, l) H₍ⱼₗ₎, H₍ⱼₗ₎ the 3x3
  // block of H at rows 3j, columns 3l: a third of the dense product's flops.
  Eigen::Matrix<double, 4, 3> B;
  B.row(0) = -rest.Dm_inv.colwise().sum();
  B.bottomRows<3>() = rest.Dm_inv;
  Eigen::Matrix<double, 12, 9> T;  // (B̃ ⊗ I₃) H
  for (Eigen::Index a = 0; a < 4; ++a)
    for (Eigen::Index l = 0; l < 3; ++l)
      T.block<3, 3>(3 * a, 3 * l) =
          B(a, 0) * H.block<3, 3>(0, 3 * l) + B(a, 1) * H.block<3, 3>(3, 3 * l) + B(a, 2) * H.block<3, 3>(6, 3 * l);
  Matrix12d out;
  for (Eigen::Index a = 0; a < 4; ++a)
    for (Eigen::Index b = 0; b < 4; ++b)
      out.block<3, 3>(3 * a, 3 * b) =
          rest.volume *
          (B(b, 0) * T.block<3, 3>(3 * a, 0) + B(b, 1) * T.block<3, 3>(3 * a, 3) + B(b, 2) * T.block<3, 3>(3 * a, 6));
  return out;
}

std::vector<double> LumpedMasses(std::span<const Eigen::Vector3d> rest_positions,
                                 std::span<const std::array<int, 4>> tets, double density) {
  std::vector<double> masses(rest_positions.size(), 0.0);
  for (const std::array<int, 4>& tet : tets) {
    const Eigen::Vector3d& X0 = rest_positions[tet[0]];
    Eigen::Matrix3d Dm;
    Dm << rest_positions[tet[1]] - X0, rest_positions[tet[2]] - X0, rest_positions[tet[3]] - X0;
    const double vertex_mass = density * Dm.determinant() / 6.0 / 4.0;
    for (const int v : tet) masses[v] += vertex_mass;
  }
  return masses;
}

}  // namespace ductile::fem
