// The minimisers (grad/optimize.h) on the Rosenbrock function: unconstrained to its minimum (1, 1), and with a box
// that excludes it to the constrained minimum on the box's face.
#include <gtest/gtest.h>

#include "grad/optimize.h"

namespace ductile::grad {
namespace {

double Rosenbrock(const Eigen::VectorXd& x, Eigen::VectorXd& g) {
  g.resize(2);
  g(0) = -2 * (1 - x(0)) - 400 * x(0) * (x(1) - x(0) * x(0));
  g(1) = 200 * (x(1) - x(0) * x(0));
  return (1 - x(0)) * (1 - x(0)) + 100 * (x(1) - x(0) * x(0)) * (x(1) - x(0) * x(0));
}

TEST(Optimize, LbfgsbFindsRosenbrocksMinimumAndItsBoxedOne) {
  const Eigen::Vector2d start(-1.2, 1.0);
  const Eigen::Vector2d wide(-5, -5), high(5, 5);
  OptimizeResult free = MinimizeLbfgsb(Rosenbrock, start, wide, high, {.max_iterations = 200});
  EXPECT_NEAR(free.x(0), 1.0, 1e-6) << free.stop;
  EXPECT_NEAR(free.x(1), 1.0, 1e-6);
  // x₀ ≤ 0.5: the minimum over the box is on x₀ = 0.5 at x₁ = 0.25 (∂f/∂x₁ = 0 there, ∂f/∂x₀ < 0 pushes to the face).
  OptimizeResult boxed = MinimizeLbfgsb(Rosenbrock, start, wide, Eigen::Vector2d(0.5, 5), {.max_iterations = 200});
  EXPECT_NEAR(boxed.x(0), 0.5, 1e-8) << boxed.stop;
  EXPECT_NEAR(boxed.x(1), 0.25, 1e-6);
  EXPECT_EQ(static_cast<int>(boxed.history.size()), boxed.evaluations);
}

TEST(Optimize, AdamApproachesTheMinimumOfAQuadratic) {
  // f = Σ (xᵢ − i)²/2 from 0: Adam's steps are ~α each, so 3000 steps of α = 0.01 reach x = (0, 1, 2) closely.
  auto quadratic = [](const Eigen::VectorXd& x, Eigen::VectorXd& g) {
    g = x - Eigen::Vector3d(0, 1, 2);
    return 0.5 * g.squaredNorm();
  };
  const OptimizeResult result =
      MinimizeAdam(quadratic, Eigen::Vector3d::Zero(), Eigen::Vector3d::Constant(-10), Eigen::Vector3d::Constant(10),
                   {.max_iterations = 3000, .learning_rate = 0.01});
  EXPECT_LT((result.x - Eigen::Vector3d(0, 1, 2)).norm(), 1e-2);
}

TEST(Optimize, CmaesMinimisesASphereAndRosenbrockInTheirBoxes) {
  // A 10-D sphere centred off the start: CMA-ES's linear convergence reaches 1e-10 within a few thousand samples.
  const Eigen::VectorXd centre = Eigen::VectorXd::LinSpaced(10, -1, 1);
  auto sphere = [&](const Eigen::VectorXd& x) { return (x - centre).squaredNorm(); };
  const OptimizeResult s = MinimizeCmaes(sphere, Eigen::VectorXd::Zero(10), Eigen::VectorXd::Constant(10, -5),
                                         Eigen::VectorXd::Constant(10, 5),
                                         {.max_evaluations = 6000, .sigma = 0.5, .value_tolerance = 1e-10});
  EXPECT_LE(s.value, 1e-10) << s.stop << " after " << s.evaluations;
  // Rosenbrock with x₀ ≤ 0.5: the boxed minimum (0.5, 0.25), every sample inside the box.
  auto rosenbrock = [](const Eigen::VectorXd& x) {
    return (1 - x(0)) * (1 - x(0)) + 100 * (x(1) - x(0) * x(0)) * (x(1) - x(0) * x(0));
  };
  const OptimizeResult r = MinimizeCmaes(rosenbrock, Eigen::Vector2d(-1.2, 1.0), Eigen::Vector2d(-5, -5),
                                         Eigen::Vector2d(0.5, 5), {.max_evaluations = 4000, .sigma = 0.5});
  EXPECT_NEAR(r.x(0), 0.5, 1e-4) << r.stop;
  EXPECT_NEAR(r.x(1), 0.25, 1e-3);
  EXPECT_LE(r.x(0), 0.5);
  EXPECT_EQ(static_cast<int>(r.history.size()), r.evaluations);
}

}  // namespace
}  // namespace ductile::grad
