// Tests of the tetrahedral elasticity (fem/elasticity.h): stresses and Hessians of the three models against finite
// differences, the element's gradient and Hessian against finite differences of its energy, rest-state and
// rotation invariances, the PSD projection, the small-strain limit and the lumped masses.
//
// Finite differences are central, h = 1e-6, with moduli of a soft solid (E = 1 MPa, ν = 0.35) and deformations of
// order 1. The truncation error is h²|Ψ'''|/6 ≈ 1e-12 (relative to the stiffness scale μ + λ; the compressed and
// inverted samples keep singular values ≥ 0.3, so the third derivatives stay O(10 (μ + λ))) and the round-off error
// is ε_double |Ψ| / h ≈ 1e-10 relative. kFdTol = 1e-6, relative to |analytic| + stiffness scale, leaves four orders
// of margin, while a wrong term (a missing factor 2, a transposed F⁻ᵀ dFᵀ F⁻ᵀ, a rotation treated as constant) errs
// by 1e-2 or more.
#include "fem/elasticity.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <Eigen/Geometry>

namespace ductile::fem {
namespace {

constexpr double kFdStep = 1e-6;
constexpr double kFdTol = 1e-6;
/// Identities exact in real arithmetic, computed through an SVD or an inverse: a few ε relative.
constexpr double kExactTol = 1e-10;

constexpr ElasticModel kModels[] = {ElasticModel::kNeoHookean, ElasticModel::kFixedCorotated, ElasticModel::kStVK};

const LameParameters kLame = LameFromYoungPoisson(1e6, 0.35);
const double kStiffness = kLame.mu + kLame.lambda;

std::string Name(ElasticModel model) {
  if (model == ElasticModel::kNeoHookean) return "neo-Hookean";
  if (model == ElasticModel::kFixedCorotated) return "fixed corotated";
  return "StVK";
}

Eigen::Matrix3d RandomRotation(std::mt19937& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  return Eigen::Quaterniond(n(rng), n(rng), n(rng), n(rng)).normalized().toRotationMatrix();
}

Eigen::Matrix3d RandomMatrix(std::mt19937& rng, double amplitude) {
  std::uniform_real_distribution<double> u(-amplitude, amplitude);
  Eigen::Matrix3d A;
  for (int k = 0; k < 9; ++k) A.data()[k] = u(rng);
  return A;
}

struct Sample {
  std::string name;
  Eigen::Matrix3d F;
};

/// Deformation gradients for a model: general, near a rotation, compressed, stretched and (for the models defined
/// there) inverted, with singular values in [0.3, 2]. Fixed seed.
std::vector<Sample> Samples(ElasticModel model) {
  std::mt19937 rng(7);
  const Eigen::Matrix3d I = Eigen::Matrix3d::Identity();
  std::vector<Sample> samples = {
      {"general", RandomRotation(rng) * (I + RandomMatrix(rng, 0.3))},
      {"near rotation", RandomRotation(rng) * (I + RandomMatrix(rng, 1e-3))},
      {"compressed", RandomRotation(rng) * Eigen::Vector3d(0.5, 0.6, 0.7).asDiagonal() * RandomRotation(rng)},
      {"stretched", RandomRotation(rng) * Eigen::Vector3d(2.0, 1.5, 1.2).asDiagonal() * RandomRotation(rng)},
  };
  if (model != ElasticModel::kNeoHookean) {
    samples.push_back(
        {"inverted", RandomRotation(rng) * Eigen::Vector3d(1.2, 0.9, -0.4).asDiagonal() * RandomRotation(rng)});
  }
  return samples;
}

Eigen::Matrix3d UnitMatrix(int k) {
  Eigen::Matrix3d E = Eigen::Matrix3d::Zero();
  E.data()[k] = 1.0;  // column-major: vec(E)[k] = 1
  return E;
}

template <int N>
double MinEigenvalue(const Eigen::Matrix<double, N, N>& H) {
  return Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, N, N>>(H).eigenvalues().minCoeff();
}

TEST(FemElasticityLame, FromYoungPoisson) {
  const LameParameters lame = LameFromYoungPoisson(1.0, 0.25);
  EXPECT_NEAR(lame.mu, 0.4, 1e-15);
  EXPECT_NEAR(lame.lambda, 0.4, 1e-15);
  const LameParameters auxetic = LameFromYoungPoisson(3.0, -0.5);
  EXPECT_NEAR(auxetic.mu, 3.0, 1e-15);
  EXPECT_NEAR(auxetic.lambda, -1.5, 1e-15);
}

TEST(FemElasticityDensity, FirstPiolaMatchesFiniteDifferencesOfEnergy) {
  for (const ElasticModel model : kModels) {
    for (const Sample& sample : Samples(model)) {
      SCOPED_TRACE(Name(model) + ", " + sample.name);
      const Eigen::Matrix3d P = FirstPiola(model, kLame, sample.F);
      for (int k = 0; k < 9; ++k) {
        const Eigen::Matrix3d dF = kFdStep * UnitMatrix(k);
        const double fd =
            (EnergyDensity(model, kLame, sample.F + dF) - EnergyDensity(model, kLame, sample.F - dF)) / (2.0 * kFdStep);
        EXPECT_NEAR(P.data()[k], fd, kFdTol * (std::abs(P.data()[k]) + kStiffness)) << "vec index " << k;
      }
    }
  }
}

TEST(FemElasticityDensity, HessianMatchesFiniteDifferencesOfFirstPiola) {
  for (const ElasticModel model : kModels) {
    for (const Sample& sample : Samples(model)) {
      SCOPED_TRACE(Name(model) + ", " + sample.name);
      const Matrix9d H = EnergyDensityHessian(model, kLame, sample.F);
      for (int k = 0; k < 9; ++k) {
        const Eigen::Matrix3d dF = kFdStep * UnitMatrix(k);
        const Eigen::Matrix3d fd =
            (FirstPiola(model, kLame, sample.F + dF) - FirstPiola(model, kLame, sample.F - dF)) / (2.0 * kFdStep);
        for (int a = 0; a < 9; ++a) {
          EXPECT_NEAR(H(a, k), fd.data()[a], kFdTol * (std::abs(H(a, k)) + kStiffness)) << "entry " << a << "," << k;
        }
      }
    }
  }
}

TEST(FemElasticityDensity, RotationIsStressFree) {
  std::mt19937 rng(11);
  for (const ElasticModel model : kModels) {
    SCOPED_TRACE(Name(model));
    for (int trial = 0; trial < 5; ++trial) {
      const Eigen::Matrix3d R = RandomRotation(rng);
      EXPECT_NEAR(EnergyDensity(model, kLame, R), 0.0, kExactTol * kStiffness);
      EXPECT_LT(FirstPiola(model, kLame, R).norm(), kExactTol * kStiffness);
    }
  }
}

TEST(FemElasticityDensity, EnergyIsInvariantUnderRotations) {
  std::mt19937 rng(13);
  for (const ElasticModel model : kModels) {
    for (const Sample& sample : Samples(model)) {
      SCOPED_TRACE(Name(model) + ", " + sample.name);
      const double energy = EnergyDensity(model, kLame, sample.F);
      const Eigen::Matrix3d Q = RandomRotation(rng);
      EXPECT_NEAR(EnergyDensity(model, kLame, Q * sample.F), energy, kExactTol * (energy + kStiffness));
      EXPECT_NEAR(EnergyDensity(model, kLame, sample.F * Q), energy, kExactTol * (energy + kStiffness));
    }
  }
}

TEST(FemElasticityDensity, NeoHookeanIsInfiniteWhenInvertedOrFlat) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const Eigen::Matrix3d inverted = Eigen::Vector3d(1.0, 1.0, -0.5).asDiagonal();
  const Eigen::Matrix3d flat = Eigen::Vector3d(1.0, 1.0, 0.0).asDiagonal();
  EXPECT_EQ(EnergyDensity(ElasticModel::kNeoHookean, kLame, inverted), kInf);
  EXPECT_EQ(EnergyDensity(ElasticModel::kNeoHookean, kLame, flat), kInf);
  EXPECT_TRUE(FirstPiola(ElasticModel::kNeoHookean, kLame, inverted).array().isNaN().all());
  // The other two models are finite there.
  EXPECT_TRUE(std::isfinite(EnergyDensity(ElasticModel::kFixedCorotated, kLame, inverted)));
  EXPECT_TRUE(std::isfinite(EnergyDensity(ElasticModel::kStVK, kLame, inverted)));
}

TEST(FemElasticityDensity, FixedCorotatedUsesAProperRotationWhenInverted) {
  // Ψ = μ Σ (σᵢ − 1)² + λ/2 (J − 1)² with signed singular values (1.2, 0.9, −0.4): R has det +1, so the inverted
  // direction counts (−0.4 − 1)², not (0.4 − 1)² as a reflection would.
  std::mt19937 rng(23);
  const Eigen::Matrix3d F =
      RandomRotation(rng) * Eigen::Vector3d(1.2, 0.9, -0.4).asDiagonal() * RandomRotation(rng).transpose();
  const double J = 1.2 * 0.9 * -0.4;
  const double expected = kLame.mu * (0.2 * 0.2 + 0.1 * 0.1 + 1.4 * 1.4) + 0.5 * kLame.lambda * (J - 1) * (J - 1);
  EXPECT_NEAR(EnergyDensity(ElasticModel::kFixedCorotated, kLame, F), expected, kExactTol * expected);
}

TEST(FemElasticityDensity, SmallStrainLimitIsLinearElasticity) {
  std::mt19937 rng(17);
  for (const ElasticModel model : kModels) {
    SCOPED_TRACE(Name(model));
    for (int trial = 0; trial < 5; ++trial) {
      const Eigen::Matrix3d A = RandomMatrix(rng, 1e-4);
      const Eigen::Matrix3d eps = 0.5 * (A + A.transpose());
      const double linear = kLame.mu * eps.squaredNorm() + 0.5 * kLame.lambda * eps.trace() * eps.trace();
      // The nonlinear terms are O(|ε|³), 1e-4 relative to the quadratic ones.
      EXPECT_NEAR(EnergyDensity(model, kLame, Eigen::Matrix3d::Identity() + eps), linear, 1e-3 * linear);
    }
  }
}

TEST(FemElasticityProjection, ProjectedHessianIsPsdAndUnchangedWhereAlreadyPsd) {
  for (const ElasticModel model : kModels) {
    SCOPED_TRACE(Name(model));
    bool some_sample_indefinite = false;
    for (const Sample& sample : Samples(model)) {
      SCOPED_TRACE(sample.name);
      const Matrix9d H = EnergyDensityHessian(model, kLame, sample.F);
      Matrix9d projected = H;
      ProjectToPsd(projected);
      EXPECT_GE(MinEigenvalue(projected), -kExactTol * H.norm());
      EXPECT_LT((projected - projected.transpose()).norm(), kExactTol * H.norm());
      some_sample_indefinite |= MinEigenvalue(H) < -1e-3 * kStiffness;
    }
    EXPECT_TRUE(some_sample_indefinite) << "the samples do not exercise the projection";

    const Matrix9d at_rest = EnergyDensityHessian(model, kLame, Eigen::Matrix3d::Identity());
    Matrix9d projected = at_rest;
    ProjectToPsd(projected);
    EXPECT_LT((projected - at_rest).norm(), kExactTol * at_rest.norm());
  }
}

// The analytic eigensystems (Smith, De Goes, Kim 2019) against the numerical projection of the exact Hessian: both
// are the unique nearest PSD matrix, so they agree to round-off (kExactTol, relative to the norm of the Hessian the
// eigensolver decomposes: the flat element's twist modes reach 4μ/(σ₁ + σ₂) ≈ 10¹³ Pa), on the general samples,
// on repeated singular values (rest, a uniaxial stretch, a rotation), where the flip quotients (ψᵢ − ψⱼ)/(σᵢ − σⱼ)
// are 0/0 if not cancelled analytically, and on a nearly flat element.
TEST(FemElasticityProjection, AnalyticEigensystemMatchesNumericalProjection) {
  std::mt19937 rng(11);
  for (const ElasticModel model : kModels) {
    SCOPED_TRACE(Name(model));
    std::vector<Sample> samples = Samples(model);
    samples.push_back({"rest", Eigen::Matrix3d::Identity()});
    samples.push_back({"rotation", RandomRotation(rng)});
    samples.push_back({"uniaxial", RandomRotation(rng) * Eigen::Vector3d(1.5, 1.0, 1.0).asDiagonal()});
    samples.push_back({"squeezed", Eigen::Vector3d(0.4, 0.4, 1.1).asDiagonal() * RandomRotation(rng)});
    if (model != ElasticModel::kNeoHookean)  // nearly rank one: the SVD's fallback (elasticity.cpp, SignedSvd)
      samples.push_back(
          {"flattened", RandomRotation(rng) * Eigen::Vector3d(1.2, 1e-7, 5e-8).asDiagonal() * RandomRotation(rng)});
    for (const Sample& sample : samples) {
      SCOPED_TRACE(sample.name);
      const Matrix9d exact = EnergyDensityHessian(model, kLame, sample.F);
      Matrix9d numerical = exact;
      ProjectToPsd(numerical);
      const Matrix9d analytic = ProjectedEnergyDensityHessian(model, kLame, sample.F);
      EXPECT_LT((analytic - numerical).norm(), kExactTol * exact.norm());
    }
  }
  const Eigen::Matrix3d inverted = Eigen::Vector3d(1.0, 1.0, -0.5).asDiagonal();
  EXPECT_TRUE(ProjectedEnergyDensityHessian(ElasticModel::kNeoHookean, kLame, inverted).hasNaN());
}

/// A rest tetrahedron with edges of about 0.1 m and non-trivial shape, and current positions deformed by F plus
/// a translation.
struct TetFixture {
  std::array<Eigen::Vector3d, 4> X = {Eigen::Vector3d(0.01, -0.02, 0.0), Eigen::Vector3d(0.12, 0.01, 0.02),
                                      Eigen::Vector3d(0.03, 0.09, -0.01), Eigen::Vector3d(0.02, 0.03, 0.11)};
  std::array<Eigen::Vector3d, 4> Deformed(const Eigen::Matrix3d& F) const {
    std::array<Eigen::Vector3d, 4> x;
    for (int a = 0; a < 4; ++a) x[a] = F * X[a] + Eigen::Vector3d(0.3, -0.1, 0.2);
    return x;
  }
};

Vector12d Stack(const std::array<Eigen::Vector3d, 4>& x) {
  Vector12d stacked;
  for (std::size_t a = 0; a < 4; ++a) stacked.segment<3>(3 * static_cast<Eigen::Index>(a)) = x[a];
  return stacked;
}

std::array<Eigen::Vector3d, 4> Unstack(const Vector12d& stacked) {
  std::array<Eigen::Vector3d, 4> x;
  for (std::size_t a = 0; a < 4; ++a) x[a] = stacked.segment<3>(3 * static_cast<Eigen::Index>(a));
  return x;
}

TEST(FemElasticityTet, RestDataAndDeformationGradient) {
  const TetFixture tet;
  const std::optional<TetRest> rest = MakeTetRest(tet.X[0], tet.X[1], tet.X[2], tet.X[3]);
  ASSERT_TRUE(rest.has_value());
  Eigen::Matrix3d Dm;
  Dm << tet.X[1] - tet.X[0], tet.X[2] - tet.X[0], tet.X[3] - tet.X[0];
  EXPECT_NEAR(rest->volume, Dm.determinant() / 6.0, 1e-18);
  EXPECT_GT(rest->volume, 0.0);

  const auto& X = tet.X;
  EXPECT_LT((DeformationGradient(*rest, X[0], X[1], X[2], X[3]) - Eigen::Matrix3d::Identity()).norm(), kExactTol);
  std::mt19937 rng(19);
  const Eigen::Matrix3d F = Eigen::Matrix3d::Identity() + RandomMatrix(rng, 0.4);
  const auto x = tet.Deformed(F);
  const Eigen::Matrix3d F_computed = DeformationGradient(*rest, x[0], x[1], x[2], x[3]);
  EXPECT_LT((F_computed - F).norm(), kExactTol);
  // F is linear in x with no constant term: vec(F) = (∂vec(F)/∂x) x.
  const Vector9d vec_F = DeformationGradientJacobian(*rest) * Stack(x);
  EXPECT_LT((Eigen::Map<const Eigen::Matrix3d>(vec_F.data()) - F).norm(), kExactTol);

  // Swapping two vertices inverts the tetrahedron; a flat one has zero volume.
  EXPECT_FALSE(MakeTetRest(X[0], X[2], X[1], X[3]).has_value());
  EXPECT_FALSE(MakeTetRest(X[0], X[1], X[2], 0.5 * (X[1] + X[2])).has_value());
}

TEST(FemElasticityTet, GradientAndHessianMatchFiniteDifferences) {
  const TetFixture tet;
  const TetRest rest = *MakeTetRest(tet.X[0], tet.X[1], tet.X[2], tet.X[3]);
  // Scales of the gradient [N] and Hessian [N/m]: V (μ + λ) |Dm⁻¹| and V (μ + λ) |Dm⁻¹|².
  const double gradient_scale = rest.volume * kStiffness * rest.Dm_inv.norm();
  const double hessian_scale = gradient_scale * rest.Dm_inv.norm();
  for (const ElasticModel model : kModels) {
    for (const Sample& sample : Samples(model)) {
      SCOPED_TRACE(Name(model) + ", " + sample.name);
      const Vector12d x = Stack(tet.Deformed(sample.F));
      const auto energy = [&](const Vector12d& y) {
        const auto p = Unstack(y);
        return TetEnergy(model, kLame, rest, p[0], p[1], p[2], p[3]);
      };
      const auto gradient = [&](const Vector12d& y) {
        const auto p = Unstack(y);
        return TetGradient(model, kLame, rest, p[0], p[1], p[2], p[3]);
      };
      const auto p = Unstack(x);
      const Vector12d g = gradient(x);
      const Matrix12d H = TetHessian(model, kLame, rest, p[0], p[1], p[2], p[3], /*project=*/false);
      for (int k = 0; k < 12; ++k) {
        const Vector12d dx = kFdStep * Vector12d::Unit(k);
        const double fd_g = (energy(x + dx) - energy(x - dx)) / (2.0 * kFdStep);
        EXPECT_NEAR(g(k), fd_g, kFdTol * (std::abs(g(k)) + gradient_scale)) << "coordinate " << k;
        const Vector12d fd_H = (gradient(x + dx) - gradient(x - dx)) / (2.0 * kFdStep);
        EXPECT_LT((H.col(k) - fd_H).norm(), kFdTol * (H.col(k).norm() + hessian_scale)) << "column " << k;
      }
      // Translations are in the null space; the elastic forces sum to zero.
      for (int d = 0; d < 3; ++d) {
        EXPECT_NEAR(g(d) + g(3 + d) + g(6 + d) + g(9 + d), 0.0, kExactTol * gradient_scale);
      }
    }
  }
}

TEST(FemElasticityTet, ProjectedHessianIsPsd) {
  const TetFixture tet;
  const TetRest rest = *MakeTetRest(tet.X[0], tet.X[1], tet.X[2], tet.X[3]);
  for (const ElasticModel model : kModels) {
    for (const Sample& sample : Samples(model)) {
      SCOPED_TRACE(Name(model) + ", " + sample.name);
      const auto x = tet.Deformed(sample.F);
      const Matrix12d H = TetHessian(model, kLame, rest, x[0], x[1], x[2], x[3], /*project=*/true);
      EXPECT_GE(MinEigenvalue(H), -kExactTol * H.norm());
      EXPECT_LT((H - H.transpose()).norm(), kExactTol * H.norm());
    }
  }
  // Where the 9x9 Hessian is already PSD (at rest), projection changes nothing.
  for (const ElasticModel model : kModels) {
    const auto& X = tet.X;
    const Matrix12d projected = TetHessian(model, kLame, rest, X[0], X[1], X[2], X[3], true);
    const Matrix12d unprojected = TetHessian(model, kLame, rest, X[0], X[1], X[2], X[3], false);
    EXPECT_LT((projected - unprojected).norm(), kExactTol * unprojected.norm()) << Name(model);
  }
}

TEST(FemElasticityTet, NeoHookeanEnergyIsInfiniteForInvertedElement) {
  const TetFixture tet;
  const TetRest rest = *MakeTetRest(tet.X[0], tet.X[1], tet.X[2], tet.X[3]);
  const auto x = tet.Deformed(Eigen::Vector3d(1.0, 1.0, -0.3).asDiagonal());
  EXPECT_EQ(TetEnergy(ElasticModel::kNeoHookean, kLame, rest, x[0], x[1], x[2], x[3]),
            std::numeric_limits<double>::infinity());
}

TEST(FemElasticityMass, LumpedMassesSplitEachTetEqually) {
  // A unit cube's corner tetrahedron and a second one sharing its face (0, 1, 2), on the other side of it.
  const std::vector<Eigen::Vector3d> X = {Eigen::Vector3d(0, 0, 0), Eigen::Vector3d(1, 0, 0), Eigen::Vector3d(0, 1, 0),
                                          Eigen::Vector3d(0, 0, 1), Eigen::Vector3d(0.2, 0.3, -2)};
  const std::vector<std::array<int, 4>> tets = {{0, 1, 2, 3}, {0, 2, 1, 4}};
  const double density = 1000.0;
  double total_volume = 0;
  for (const auto& t : tets) total_volume += MakeTetRest(X[t[0]], X[t[1]], X[t[2]], X[t[3]])->volume;
  EXPECT_NEAR(total_volume, 1.0 / 6.0 + 2.0 / 6.0, 1e-15);

  const std::vector<double> masses = LumpedMasses(X, tets, density);
  ASSERT_EQ(masses.size(), X.size());
  double sum = 0;
  for (const double m : masses) sum += m;
  EXPECT_NEAR(sum, density * total_volume, 1e-12 * density);
  EXPECT_NEAR(masses[3], density / 6.0 / 4.0, 1e-12 * density);
  EXPECT_NEAR(masses[4], density * 2.0 / 6.0 / 4.0, 1e-12 * density);
  EXPECT_NEAR(masses[0], density * 3.0 / 6.0 / 4.0, 1e-12 * density);
}

}  // namespace
}  // namespace ductile::fem
