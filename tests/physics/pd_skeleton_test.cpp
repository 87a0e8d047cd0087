// PD skeletons (pd/pd_skeleton.h): the joint Jacobian against central differences of the bones' placement; a
// horizontal rigid link on a revolute joint held by the torque m g d stays where it is (and falls without it); a soft
// body with a two-bone chain keeps each bone's shape exactly while its joints move; and a soft arm swept over the
// ground by its joints meets Signorini's condition and Coulomb's law, its Newton steps converging to 1e-10.
#include <gtest/gtest.h>

#include <cmath>

#include "fem/tetrahedralise.h"
#include "pd/pd_skeleton.h"
#include "pd/pd_solver.h"
#include "support/pd_arm_fixture.h"

namespace ductile::pd {
namespace {

// A 10 cm x 1 cm x 1 cm bar along x, every vertex in one bone on a revolute joint about y at its −x end.
PdModel Link() {
  PdBodyDesc desc;
  desc.mesh = fem::TetrahedraliseBox(Eigen::Vector3d(0.05, 0.005, 0.005), 0.005);
  desc.youngs_modulus = {1e5};
  desc.poisson_ratio = {0.3};
  PdBone bone{.parent = -1,
              .joint = JointKind::kRevolute,
              .axis = Eigen::Vector3d::UnitY(),
              .anchor = Eigen::Vector3d(-0.05, 0, 0),
              .vertices = {}};
  for (std::size_t i = 0; i < desc.mesh.vertices.size(); ++i) bone.vertices.push_back(static_cast<int>(i));
  desc.bones = {bone};
  PdModelResult made = MakePdModel(std::move(desc));
  EXPECT_TRUE(made.ok()) << made.error;
  return std::move(made.model);
}

// A 6 cm x 2 cm x 2 cm soft block: its −x slab a bone on the world (revolute about y at x = −3 cm), its +x slab a
// child bone (revolute about z at x = +3 cm, prismatic when `slide`), the flesh between them free.
PdModel Arm(bool slide) {
  PdBodyDesc desc;
  desc.mesh = fem::TetrahedraliseBox(Eigen::Vector3d(0.03, 0.01, 0.01), 0.01);
  desc.youngs_modulus = {5e4};
  desc.poisson_ratio = {0.3};
  PdBone upper{.parent = -1,
               .joint = JointKind::kRevolute,
               .axis = Eigen::Vector3d::UnitY(),
               .anchor = Eigen::Vector3d(-0.03, 0, 0),
               .vertices = {}};
  PdBone lower{.parent = 0,
               .joint = slide ? JointKind::kPrismatic : JointKind::kRevolute,
               .axis = slide ? Eigen::Vector3d(1, 0, 1) : Eigen::Vector3d::UnitZ(),
               .anchor = Eigen::Vector3d(0.03, 0, 0),
               .vertices = {}};
  for (std::size_t i = 0; i < desc.mesh.vertices.size(); ++i) {
    const double x = desc.mesh.vertices[i].x();
    if (x < -0.019) upper.vertices.push_back(static_cast<int>(i));
    if (x > 0.019) lower.vertices.push_back(static_cast<int>(i));
  }
  desc.bones = {upper, lower};
  PdModelResult made = MakePdModel(std::move(desc));
  EXPECT_TRUE(made.ok()) << made.error;
  return std::move(made.model);
}

TEST(PdSkeleton, JointJacobianAgreesWithCentralDifferences) {
  for (const bool slide : {false, true}) {
    const PdModel model = Arm(slide);
    const Eigen::Vector2d z(0.4, -0.3);
    Eigen::MatrixX3d q = PdState::AtRest(model).q;
    PlaceBoneVertices(model, z, q);
    const std::vector<Eigen::MatrixX3d> B = JointJacobian(model, z, q);
    for (int j = 0; j < 2; ++j) {
      const double eps = 1e-6;
      Eigen::MatrixX3d plus = q, minus = q;
      PlaceBoneVertices(model, z + eps * Eigen::Vector2d::Unit(j), plus);
      PlaceBoneVertices(model, z - eps * Eigen::Vector2d::Unit(j), minus);
      // O(ε²) truncation on coordinates of centimetres: 1e-10 m.
      EXPECT_LT((B[static_cast<std::size_t>(j)] - (plus - minus) / (2 * eps)).cwiseAbs().maxCoeff(), 1e-10)
          << "joint " << j << (slide ? " (prismatic child)" : "");
    }
  }
}

TEST(PdSkeleton, JointCurvatureIsTheDerivativeOfTheGeneralisedForces) {
  for (const bool slide : {false, true}) {
    const PdModel model = Arm(slide);
    const Eigen::Vector2d z(0.4, slide ? 0.01 : -0.3);
    Eigen::MatrixX3d q = PdState::AtRest(model).q, g(q.rows(), 3);
    for (Eigen::Index i = 0; i < g.rows(); ++i) g.row(i) = Eigen::RowVector3d(std::sin(i), std::cos(2.0 * i), 0.5);
    PlaceBoneVertices(model, z, q);
    const Eigen::MatrixXd K = JointCurvature(model, z, q, g);
    // (B_j(z)ᵀ g) differentiated in z_k with g fixed, the bones placed at each z.
    auto generalised = [&](const Eigen::Vector2d& at, int j) {
      Eigen::MatrixX3d placed = q;
      PlaceBoneVertices(model, at, placed);
      return JointJacobian(model, at, placed)[static_cast<std::size_t>(j)].cwiseProduct(g).sum();
    };
    const double eps = 1e-6;
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 2; ++k) {
        const double numeric =
            (generalised(z + eps * Eigen::Vector2d::Unit(k), j) - generalised(z - eps * Eigen::Vector2d::Unit(k), j)) /
            (2 * eps);
        // K's entries are ~|g| × lever ~ 0.1 N·m: the differences' truncation (ε² K‴ ~ 1e-13) and round-off
        // (1e-16 |Bᵀg|/ε ~ 1e-11) are far below 1e-7, which a wrong term (of the size of K itself) is far above.
        EXPECT_NEAR(K(j, k), numeric, 1e-7) << "K(" << j << ", " << k << ")" << (slide ? " (prismatic child)" : "");
      }
    EXPECT_NEAR(K(0, 1), K(1, 0), 1e-12);
  }
}

TEST(PdSkeleton, AHorizontalLinkHeldByItsWeightsTorqueDoesNotDrift) {
  const PdSolver solver(Link());
  ASSERT_TRUE(solver.error().empty()) << solver.error();
  double mass = 0;
  for (const double m : solver.model().masses) mass += m;
  // Gravity −z on the centre of mass 5 cm from the axis: torque +m g d about +y; the joint applies −m g d.
  for (const bool held : {true, false}) {
    PdControls controls = PdControls::Rest(solver.model());
    controls.joint_torques[0] = held ? -mass * 9.81 * 0.05 : 0.0;
    PdState state = PdState::AtRest(solver.model()), next;
    for (int n = 0; n < 30; ++n) {
      const PdStepReport report = solver.Step(state, controls, next, {.max_iterations = 100, .tolerance = 1e-12});
      ASSERT_TRUE(report.converged) << n << ": " << report.residual << " of " << report.reference << " after "
                                    << report.iterations;
      state = next;
    }
    if (held)
      EXPECT_LT(std::abs(state.z(0)), 1e-12);  // round-off over 30 steps
    else
      EXPECT_GT(state.z(0), 0.1);  // falls: 0.3 s of a pendulum from horizontal turns it by ~0.5 rad
  }
}

TEST(PdSkeleton, BonesKeepTheirShapeExactlyWhileTheJointsMove) {
  for (const bool slide : {false, true}) {
    const PdSolver solver(Arm(slide));
    const PdModel& model = solver.model();
    PdControls controls = PdControls::Rest(model);
    controls.joint_torques = {0.002, slide ? 1.0 : -0.005};
    PdState state = PdState::AtRest(model), next;
    for (int n = 0; n < 20; ++n) {
      ASSERT_TRUE(solver.Step(state, controls, next, {.max_iterations = 500, .tolerance = 1e-6}).converged) << n;
      state = next;
    }
    EXPECT_GT(std::abs(state.z(0)), 1e-3);
    EXPECT_GT(std::abs(state.z(1)), 1e-3);
    // Every pair of vertices of a bone at its rest distance (issue 47: bone lengths constant to 1e-12).
    double worst = 0;
    for (const PdBone& bone : model.bones)
      for (const int a : bone.vertices)
        for (const int b : bone.vertices) {
          const double rest =
              (model.rest[static_cast<std::size_t>(a)] - model.rest[static_cast<std::size_t>(b)]).norm();
          worst = std::max(worst, std::abs((state.q.row(a) - state.q.row(b)).norm() - rest));
        }
    EXPECT_LT(worst, 1e-12) << (slide ? "prismatic child" : "revolute child");
  }
}

// The arm of support/pd_arm_fixture.h swept over the ground by its root joint, with its actuators working: every
// step converges to 1e-10 of the reference force within 60 iterations (Newton over the free vertices and the joints
// with the contact rows, pd_solver_skeleton.cpp; the sweeps alone took 300-1000 to 1e-6), no vertex goes below the
// ground, the bones keep their shape, and at the last step each contact satisfies Signorini's condition and
// Coulomb's law as in PdContact.ConvergedForcesSatisfySignoriniAndCoulomb (the same tolerances: the contact solve's
// round-off).
TEST(PdSkeleton, ASoftArmSweptOverTheGroundMeetsSignoriniAndCoulomb) {
  const PdSolver solver(GroundedArm());
  ASSERT_TRUE(solver.error().empty()) << solver.error();
  const PdModel& model = solver.model();
  PdState state = PdState::AtRest(model), next;
  for (int n = 0; n < 12; ++n) {
    const PdStepReport report =
        solver.Step(state, GroundedArmControls(model, n), next, {.max_iterations = 60, .tolerance = 1e-10});
    ASSERT_TRUE(report.converged) << n << ": " << report.residual / report.reference << " after " << report.iterations;
    if (n == 11) {
      const double mu = model.obstacles[0].friction;
      int touching = 0;
      for (const PdContact& c : solver.contacts()) {
        const Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();
        const double lambda = c.force.dot(normal);
        const double gap = next.q(c.vertex, 2) + 0.0105;
        EXPECT_GE(gap, -1e-12);
        if (!(lambda > 0)) {
          EXPECT_EQ(c.force, Eigen::Vector3d::Zero());
          continue;
        }
        ++touching;
        EXPECT_LE(gap * lambda, 1e-14);
        const Eigen::Vector3d tangential = c.force - lambda * normal;
        const Eigen::Vector3d u =
            TangentialSlip(model.obstacles[0], next.q.row(c.vertex).transpose(), state.q.row(c.vertex).transpose());
        EXPECT_GT(u.norm(), SlipRegularisation(model));  // sweeping: every contact slides
        EXPECT_NEAR(tangential.norm(), mu * lambda, 1e-9 * lambda);
        EXPECT_LT(tangential.dot(u), -0.999999 * tangential.norm() * u.norm());
      }
      EXPECT_GE(touching, 5);
    }
    state = next;
    for (Eigen::Index i = 0; i < state.q.rows(); ++i) EXPECT_GE(state.q(i, 2), -0.0105 - 1e-9) << i;
  }
  EXPECT_GT(state.z(0), 1.0);  // it swept more than a radian
  double worst = 0;
  for (const PdBone& bone : model.bones)
    for (const int a : bone.vertices)
      for (const int b : bone.vertices)
        worst = std::max(
            worst,
            std::abs((state.q.row(a) - state.q.row(b)).norm() -
                     (model.rest[static_cast<std::size_t>(a)] - model.rest[static_cast<std::size_t>(b)]).norm()));
  EXPECT_LT(worst, 1e-12);
}

}  // namespace
}  // namespace ductile::pd
