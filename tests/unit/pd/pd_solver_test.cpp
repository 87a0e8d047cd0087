// The projective-dynamics step (pd/pd_solver.h): the energy falls at every local/global iteration, the converged
// state is a stationary point of the implicit Euler energy (checked by central differences of the energy, not by the
// solver's own residual), a free pneumatic cell settles at det F = a, the model's checks name bad input, and the
// projections' differentials agree with central differences.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <Eigen/LU>

#include "fem/tetrahedralise.h"
#include "pd/pd_model.h"
#include "pd/pd_projection.h"
#include "pd/pd_solver.h"

namespace ductile::pd {
namespace {

PdBodyDesc Block(double half, double h, double E, double nu) {
  PdBodyDesc desc;
  desc.mesh = fem::TetrahedraliseBox(Eigen::Vector3d::Constant(half), h);
  desc.youngs_modulus = {E};
  desc.poisson_ratio = {nu};
  desc.density = 1000;
  return desc;
}

PdModel MakeOrDie(PdBodyDesc desc) {
  PdModelResult result = MakePdModel(std::move(desc));
  EXPECT_TRUE(result.ok()) << result.error;
  return std::move(result.model);
}

// A state away from rest: the block sheared and squashed, moving.
PdState Deformed(const PdModel& model) {
  PdState state = PdState::AtRest(model);
  for (int i = 0; i < model.vertex_count(); ++i) {
    const Eigen::Vector3d x = model.rest[static_cast<std::size_t>(i)];
    state.q.row(i) = Eigen::Vector3d(x.x() + 0.4 * x.z(), x.y(), 0.7 * x.z()).transpose();
    state.v.row(i) = Eigen::Vector3d(0.1 * x.y(), -0.3, 0.2).transpose();
  }
  return state;
}

// Plain local/global sweeps (Bouaziz et al. 2014, Sec. 4.3) and the sweeps finished by Newton steps with a line
// search (pd/pd_solver.h, "Iteration") both lower Φ at every iteration.
TEST(PdSolver, EnergyNeverRisesOverTheIterations) {
  PdBodyDesc desc = Block(0.05, 0.025, 2e5, 0.3);
  desc.dt = 0.02;
  const PdSolver solver(MakeOrDie(std::move(desc)));
  ASSERT_TRUE(solver.error().empty());
  const PdState in = Deformed(solver.model());
  for (const bool newton : {false, true}) {
    PdState out;
    std::vector<double> energies;
    const PdStepReport report = solver.Step(in, PdControls::Rest(solver.model()), out,
                                            {.max_iterations = 300, .tolerance = 1e-10, .newton = newton}, &energies);
    // The sweeps alone stall far above 1e-10 (linear convergence); with Newton the step converges.
    EXPECT_EQ(report.converged, newton) << report.residual << " of " << report.reference;
    ASSERT_GT(energies.size(), 5u);
    for (std::size_t k = 1; k < energies.size(); ++k)
      // Round-off only (pd/pd_solver.h: the last Newton steps may raise Φ by 1e-12 of itself).
      EXPECT_LE(energies[k], energies[k - 1] * (1 + 1e-12)) << "iteration " << k << (newton ? " (Newton)" : "");
    EXPECT_LT(energies.back(), 0.5 * energies.front());
  }
}

TEST(PdSolver, TheConvergedStepIsAStationaryPointOfTheImplicitEulerEnergy) {
  PdBodyDesc desc = Block(0.05, 0.025, 1e5, 0.35);
  desc.pinned = {0, 1};
  const PdModel model = MakeOrDie(std::move(desc));
  const PdSolver solver(model);
  const PdState in = Deformed(solver.model());
  PdControls controls = PdControls::Rest(solver.model());
  PdState out;
  const PdStepReport report = solver.Step(in, controls, out, {.max_iterations = 2000, .tolerance = 1e-12});
  ASSERT_TRUE(report.converged);
  // dΦ/dε along random directions of the free vertices, by central differences with ε = 1e-6 m: Φ is smooth (C²
  // away from degenerate singular values), so the error is O(ε²) times its third derivative, far below what an
  // unconverged state would show; the reference is |dΦ/dε| along the same direction from the starting guess's
  // gradient scale (the weight of the body times a metre, ~ 1 N·m).
  std::mt19937 random(7);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 5; ++trial) {
    Eigen::MatrixX3d direction = Eigen::MatrixX3d::Zero(out.q.rows(), 3);
    for (const int i : solver.model().free_vertices)
      direction.row(i) = Eigen::RowVector3d(normal(random), normal(random), normal(random));
    direction /= direction.norm();
    const double eps = 1e-6;
    const double derivative =
        (solver.Energy(in, controls, out.q + eps * direction) - solver.Energy(in, controls, out.q - eps * direction)) /
        (2 * eps);
    const double scale =
        (solver.Energy(in, controls, in.q + eps * direction) - solver.Energy(in, controls, in.q - eps * direction)) /
        (2 * eps);
    EXPECT_LT(std::abs(derivative), 1e-7 * std::max(1.0, std::abs(scale))) << "trial " << trial;
  }
  // The pinned vertices stayed where the controls put them.
  EXPECT_EQ(out.q.row(0), controls.pinned_targets[0].transpose());
}

TEST(PdSolver, AFreePneumaticCellSettlesAtItsTargetVolumeRatio) {
  PdBodyDesc desc = Block(0.02, 0.02, 5e4, 0.3);
  desc.gravity.setZero();
  desc.pneumatic_cell.assign(desc.mesh.tets.size(), 0);
  const PdSolver solver(MakeOrDie(std::move(desc)));
  PdControls controls = PdControls::Rest(solver.model());
  controls.cell_volume_ratio[0] = 1.6;
  PdState state = PdState::AtRest(solver.model()), next;
  for (int step = 0; step < 200; ++step) {
    // 1e-10 of the body's weight-like reference force (0.064 N here, no gravity): two orders above the residual's
    // round-off floor (the elastic forces are ~1 N).
    const PdStepReport report = solver.Step(state, controls, next, {.max_iterations = 100, .tolerance = 1e-10});
    ASSERT_TRUE(report.converged) << "step " << step << " " << report.residual << " of " << report.reference
                                  << " after " << report.iterations << " (" << report.newton_iterations << " Newton)";
    state = next;
  }
  const PdModel& model = solver.model();
  for (const Term& term : model.terms) {
    if (term.kind != TermKind::kStrain) continue;
    // Every tet at det F = 1.6: the energy's unique minimum (header); 1e-6 is what 200 steps of implicit Euler's
    // damping leave of the initial expansion's oscillation here (it decays by ~10% a step).
    EXPECT_NEAR(TermY(model, term, state.q).determinant(), 1.6, 1e-6) << "tet " << term.tet;
  }
}

TEST(PdModel, BadInputIsNamed) {
  PdBodyDesc desc = Block(0.05, 0.05, 1e5, 0.5);
  EXPECT_NE(MakePdModel(desc).error.find("poisson_ratio of tet 0"), std::string::npos);
  desc.poisson_ratio = {-0.1};
  EXPECT_NE(MakePdModel(desc).error.find("[0, 0.5)"), std::string::npos);
  desc.poisson_ratio = {0.3};
  desc.youngs_modulus = {-1};
  EXPECT_NE(MakePdModel(desc).error.find("youngs_modulus of tet 0: -1 Pa"), std::string::npos);
  desc.youngs_modulus = {1, 2};
  EXPECT_NE(MakePdModel(desc).error.find("2 values for"), std::string::npos);
  desc.youngs_modulus = {1e5};
  desc.pinned = {100000};
  EXPECT_NE(MakePdModel(desc).error.find("pinned vertex 100000 out of range"), std::string::npos);
  desc.pinned = {};
  desc.muscles = {{.tet = 0, .group = 0, .direction = Eigen::Vector3d::Zero(), .stiffness = 1e4}};
  EXPECT_NE(MakePdModel(desc).error.find("muscle 0: the fibre direction is zero"), std::string::npos);
  desc.muscles = {};
  desc.density = 0;
  EXPECT_NE(MakePdModel(desc).error.find("density: 0"), std::string::npos);
  desc.density = 1000;
  EXPECT_TRUE(MakePdModel(desc).ok());
  desc.bones = {{.parent = 0,
                 .joint = JointKind::kRevolute,
                 .axis = Eigen::Vector3d::UnitX(),
                 .anchor = Eigen::Vector3d::Zero(),
                 .vertices = {0}}};
  EXPECT_NE(MakePdModel(desc).error.find("bone 0: parent 0 (must be an earlier bone"), std::string::npos);
  desc.bones[0].parent = -1;
  desc.pinned = {0};
  EXPECT_NE(MakePdModel(desc).error.find("bone 0: vertex 0 is pinned"), std::string::npos);
  desc.pinned = {};
  desc.bones.push_back(desc.bones[0]);
  EXPECT_NE(MakePdModel(desc).error.find("bone 1: vertex 0 is in bone 0 too"), std::string::npos);
  desc.bones.pop_back();
  EXPECT_TRUE(MakePdModel(desc).ok());
  desc.obstacles = {PdHalfSpace{.normal = Eigen::Vector3d::UnitZ()}};  // bones and obstacles together
  EXPECT_TRUE(MakePdModel(desc).ok());
}

// Each projection's differential and target derivative against central differences of the projection itself.
TEST(PdProjection, DifferentialsAgreeWithCentralDifferences) {
  std::mt19937 random(3);
  std::uniform_real_distribution<double> uniform(-0.3, 0.3);
  for (const TermKind kind : {TermKind::kStrain, TermKind::kVolume, TermKind::kMuscle}) {
    for (int trial = 0; trial < 10; ++trial) {
      Eigen::Matrix3d Y = Eigen::Matrix3d::Identity();
      Eigen::Matrix3d dY;
      for (int k = 0; k < 9; ++k) {
        Y.data()[k] += uniform(random);
        dY.data()[k] = uniform(random);
      }
      const double target = 0.8 + trial * 0.05;
      const TermProjection p = Project(kind, Y, target);
      const double eps = 1e-6;
      const Eigen::Matrix3d numeric =
          (Project(kind, Y + eps * dY, target).P - Project(kind, Y - eps * dY, target).P) / (2 * eps);
      // O(ε²) truncation against O(1) entries: 1e-8 leaves room for the SVD's round-off (1e-16/ε).
      EXPECT_LT((ProjectionDifferential(kind, p, dY) - numeric).norm(), 1e-8) << static_cast<int>(kind);
      const Eigen::Matrix3d numeric_target =
          (Project(kind, Y, target + eps).P - Project(kind, Y, target - eps).P) / (2 * eps);
      EXPECT_LT((ProjectionTargetDerivative(kind, p) - numeric_target).norm(), 1e-8);
      // Self-adjoint: ⟨dP[A], B⟩ = ⟨A, dP[B]⟩ (the adjoint's matrix is symmetric).
      Eigen::Matrix3d B;
      for (int k = 0; k < 9; ++k) B.data()[k] = uniform(random);
      if (kind == TermKind::kMuscle) {
        dY.rightCols<2>().setZero();
        B.rightCols<2>().setZero();
      }
      EXPECT_NEAR((ProjectionDifferential(kind, p, dY).cwiseProduct(B)).sum(),
                  (dY.cwiseProduct(ProjectionDifferential(kind, p, B))).sum(), 1e-12);
    }
  }
}

}  // namespace
}  // namespace ductile::pd
