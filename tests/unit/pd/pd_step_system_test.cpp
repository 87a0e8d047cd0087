// The contact step's equations (pd/pd_step_system.h): J against central differences of G, with vertices touching two
// half-spaces (slips below and above the friction law's ε) and free ones, at a configuration away from equilibrium.
#include <gtest/gtest.h>

#include <random>

#include "fem/tetrahedralise.h"
#include "pd/pd_solver.h"
#include "pd/pd_step_system.h"

namespace ductile::pd {
namespace {

TEST(PdStepSystem, JacobianAgreesWithCentralDifferences) {
  PdBodyDesc desc;
  desc.mesh = fem::TetrahedraliseBox(Eigen::Vector3d::Constant(0.02), 0.01);
  desc.youngs_modulus = {2e5};
  desc.poisson_ratio = {0.35};
  desc.obstacles = {{.normal = Eigen::Vector3d::UnitZ(), .offset = -0.02, .friction = 0.4},
                    {.normal = Eigen::Vector3d(1, 0, 1).normalized(), .offset = -0.03, .friction = 0.7}};
  desc.pinned = {40};
  desc.stick_velocity = 1e-3;  // ε = 1e-5 m at h = 0.01 s
  const PdSolver solver(MakePdModel(desc).model);
  const PdModel& model = solver.model();
  PdState in = PdState::AtRest(model);
  std::mt19937 random(9);
  std::uniform_real_distribution<double> unit(-1, 1);
  for (Eigen::Index i = 0; i < in.q.rows(); ++i)
    in.v.row(i) = Eigen::RowVector3d(unit(random), unit(random), 0.1 * unit(random));
  const PdControls controls = PdControls::Rest(model);
  Eigen::MatrixX3d q = in.q + 0.01 * in.v;
  for (Eigen::Index i = 0; i < q.rows(); ++i)
    q.row(i) += 1e-3 * Eigen::RowVector3d(unit(random), unit(random), unit(random));
  // Bottom-face vertices (z = −0.02) touch the ground, those of the x = 0.02 face the tilted plane; their slips
  // over the step span both sides of ε (1e-5 m here: a third of them 1e-6 m, the others ~1e-3 m), so both branches
  // of the regularised law are checked; the differences' step of 1e-8 m stays within either branch.
  std::vector<VertexConstraint> constraints;
  for (const int i : model.free_vertices) {
    const Eigen::Vector3d& x = model.rest[static_cast<std::size_t>(i)];
    const int obstacle = x.z() < -0.019 ? 0 : x.x() > 0.019 ? 1 : -1;
    if (obstacle < 0) continue;
    constraints.push_back(
        {.vertex = i, .free_row = model.free_index[static_cast<std::size_t>(i)], .obstacle = obstacle});
    if (constraints.size() % 3 == 0) q.row(i) = in.q.row(i) + 1e-6 * Eigen::RowVector3d(unit(random), unit(random), 0);
  }
  ASSERT_GT(constraints.size(), 10u);
  auto system_at = [&](const Eigen::MatrixX3d& x) {
    const PdHessian hessian(solver, solver.Projections(x, controls));
    return AssembleStepSystem(hessian, constraints, in.q, x, solver.Residual(in, controls, x));
  };
  const StepSystem system = system_at(q);
  Eigen::MatrixX3d direction = Eigen::MatrixX3d::Zero(q.rows(), 3);
  for (const int i : model.free_vertices)
    direction.row(i) = Eigen::RowVector3d(unit(random), unit(random), unit(random));
  const double eps = 1e-8;
  const Eigen::MatrixX3d numeric = (system_at(q + eps * direction).G - system_at(q - eps * direction).G) / (2 * eps);
  Eigen::VectorXd d(3 * model.free_vertices.size());
  for (std::size_t f = 0; f < model.free_vertices.size(); ++f)
    d.segment<3>(3 * static_cast<Eigen::Index>(f)) = direction.row(model.free_vertices[f]).transpose();
  const Eigen::VectorXd analytic = system.J * d;
  for (std::size_t f = 0; f < model.free_vertices.size(); ++f) {
    const Eigen::Vector3d a = analytic.segment<3>(3 * static_cast<Eigen::Index>(f));
    const Eigen::Vector3d n = numeric.row(static_cast<Eigen::Index>(f)).transpose();
    // Central differences with a 1e-8 m step: round-off ~1e-16 |G|/1e-8 ~ 1e-6 for rows of ~1e2, truncation
    // ~1e-16 |G'''|; 1e-5 relative to the row's size leaves room.
    EXPECT_LT((a - n).norm(), 1e-5 * std::max(1.0, n.norm()))
        << "free vertex " << f << ": " << a.transpose() << " vs " << n.transpose();
  }
}

}  // namespace
}  // namespace ductile::pd
