// Additive CCD and the spatial-hash broad phase: conservative times of impact, found crossings, no missed pairs.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <random>

#include "fem/ipc_broad_phase.h"
#include "fem/ipc_ccd.h"
#include "fem/ipc_distance.h"

namespace ductile::fem {
namespace {

using Eigen::Vector3d;

// A point falling through a triangle's interior: the time of impact is before the crossing (t = 0.5) and keeps a
// gap of at least 10% of the initial distance, as the method promises.
TEST(FemIpcCcd, APointCrossingATriangleStopsBeforeIt) {
  const Vector3d t0(0, 0, 0), t1(1, 0, 0), t2(0, 1, 0), p(0.2, 0.2, 0.5), dp(0, 0, -1), zero = Vector3d::Zero();
  const double t = PointTriangleTimeOfImpact(p, t0, t1, t2, dp, zero, zero, zero, 1.0);
  EXPECT_LT(t, 0.5);
  EXPECT_GT(t, 0.5 - 0.05 - 1e-12 - 0.5 * 0.1);  // within the kept gap (10% of 0.5) and the 0.9 step factor
  EXPECT_GE(std::sqrt(PointTriangleSquaredDistance(p + t * dp, t0, t1, t2)), 0.1 * 0.5 - 1e-12);
}

TEST(FemIpcCcd, MotionsThatStayApartReturnTheFullStep) {
  const Vector3d zero = Vector3d::Zero();
  // Parallel to the triangle, and a translation of the whole pair.
  EXPECT_EQ(
      PointTriangleTimeOfImpact({0.2, 0.2, 0.5}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 0, 0}, zero, zero, zero, 1.0),
      1.0);
  const Vector3d d(0, 0, -3);
  EXPECT_EQ(EdgeEdgeTimeOfImpact({0, 0, 1}, {1, 0, 1}, {0, -1, 0}, {0, 1, 0}, d, d, d, d, 1.0), 1.0);
}

// Random crossing edge pairs: every configuration before the returned time is apart (sampled), and the pair does
// meet at some time after it within the step (the method does not give up the whole step needlessly: t > 0).
TEST(FemIpcCcd, RandomEdgeMotionsAreNeverAdvancedIntoContact) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(-1, 1);
  int crossings = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::array<Vector3d, 4> x, dx;
    for (int i = 0; i < 4; ++i) x[i] = Vector3d(u(rng), u(rng), u(rng)), dx[i] = 2 * Vector3d(u(rng), u(rng), u(rng));
    const double t = EdgeEdgeTimeOfImpact(x[0], x[1], x[2], x[3], dx[0], dx[1], dx[2], dx[3], 1.0);
    const double d0 = std::sqrt(EdgeEdgeSquaredDistance(x[0], x[1], x[2], x[3]));
    double min_before = 1e30;
    for (int k = 0; k <= 200; ++k) {
      const double s = t * k / 200;
      min_before = std::min(min_before, std::sqrt(EdgeEdgeSquaredDistance(x[0] + s * dx[0], x[1] + s * dx[1],
                                                                          x[2] + s * dx[2], x[3] + s * dx[3])));
    }
    EXPECT_GT(min_before, 0.1 * d0 * 0.999) << trial;
    if (t < 1) {
      ++crossings;
      EXPECT_GT(t, 0) << trial;
    }
  }
  EXPECT_GT(crossings, 10);  // the sample did contain approaching pairs
}

TEST(FemIpcCcd, APointReachesAPlaneOnlyUpToTheGap) {
  const double t = PointPlaneTimeOfImpact({0, 0, 1}, {0, 0, -4}, Vector3d::UnitZ(), 0, 1.0);
  EXPECT_NEAR(t, 0.9 / 4, 1e-15);
  EXPECT_EQ(PointPlaneTimeOfImpact({0, 0, 1}, {0, 0, 4}, Vector3d::UnitZ(), 0, 1.0), 1.0);
}

// The broad phase finds every pair a brute-force search finds (boxes within the inflation), and no pair of one
// rigid body with itself.
TEST(FemIpcBroadPhase, FindsEveryPairNearerThanTheInflation) {
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> u(0, 1);
  ContactSurface s;
  std::vector<Vector3d> x;
  // Two random triangle soups, bodies 0 (soft: self contact) and 1 (rigid).
  for (int body = 0; body < 2; ++body)
    for (int t = 0; t < 60; ++t) {
      const Vector3d c(u(rng), u(rng), u(rng));
      const int first = static_cast<int>(x.size());
      for (int k = 0; k < 3; ++k)
        x.push_back(c + 0.05 * Vector3d(u(rng), u(rng), u(rng))), s.vertex_body.push_back(body);
      s.faces.push_back({first, first + 1, first + 2});
      s.edges.push_back({first, first + 1});
      s.edges.push_back({first + 1, first + 2});
      s.edges.push_back({first, first + 2});
    }
  s.body_self_contact = {true, false};
  s.body_moves = {true, true};
  const double inflation = 0.03;
  Candidates found;
  FindCandidates(s, x, x, inflation, found);
  int expected = 0;
  for (int v = 0; v < static_cast<int>(x.size()); ++v)
    for (int f = 0; f < static_cast<int>(s.faces.size()); ++f) {
      const auto& t = s.faces[f];
      if (t[0] == v || t[1] == v || t[2] == v) continue;
      if (s.vertex_body[v] == 1 && s.vertex_body[t[0]] == 1) continue;
      if (PointTriangleSquaredDistance(x[v], x[t[0]], x[t[1]], x[t[2]]) >= inflation * inflation) continue;
      ++expected;
      const bool listed = std::any_of(found.point_triangle.begin(), found.point_triangle.end(),
                                      [&](const PointTriangleCandidate& c) { return c.vertex == v && c.face == f; });
      EXPECT_TRUE(listed) << v << " " << f;
    }
  EXPECT_GT(expected, 5);
  for (const auto& c : found.point_triangle)
    EXPECT_FALSE(s.vertex_body[c.vertex] == 1 && s.vertex_body[s.faces[c.face][0]] == 1);
  int expected_ee = 0;
  for (int a = 0; a < static_cast<int>(s.edges.size()); ++a)
    for (int b = a + 1; b < static_cast<int>(s.edges.size()); ++b) {
      const auto &ea = s.edges[a], &eb = s.edges[b];
      if (ea[0] == eb[0] || ea[0] == eb[1] || ea[1] == eb[0] || ea[1] == eb[1]) continue;
      if (s.vertex_body[ea[0]] == 1 && s.vertex_body[eb[0]] == 1) continue;
      if (EdgeEdgeSquaredDistance(x[ea[0]], x[ea[1]], x[eb[0]], x[eb[1]]) >= inflation * inflation) continue;
      ++expected_ee;
      const bool listed = std::any_of(found.edge_edge.begin(), found.edge_edge.end(),
                                      [&](const EdgeEdgeCandidate& c) { return c.edge_a == a && c.edge_b == b; });
      EXPECT_TRUE(listed) << a << " " << b;
    }
  EXPECT_GT(expected_ee, 5);
}

}  // namespace
}  // namespace ductile::fem
