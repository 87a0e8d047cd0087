// A cloth folded into four layers (issue 22) never passes through itself. A strip of 0.4 × 0.1 m (41 × 11 vertices,
// 1 cm apart, on h = 1/64 m; 1 mm thick, ρ = 1000 kg/m³, E = 1e5 Pa) lies on the domain floor (friction 0.5). Two
// pinned vertex columns fold it twice: the +x edge turns over onto the −x half about the middle column, which is
// held on the floor meanwhile (0.05 to 0.75 s, released at 0.8 s), and then the middle column, now the fold, turns
// the two-layer stack over onto its own −x half (1.0 to 1.7 s, released at 1.75 s); at 2.2 s the four layers rest
// on [−0.2, −0.1] m. The pinned columns follow half circles whose radius shrinks a little (the cloth they pull is
// never stretched) and end above the stack they fold onto, then drop onto it: a pin is kinematic and would push its
// vertices through cloth in its way regardless of the contact (with the second fold's column brought down to 4.5 cm,
// inside the stack, its triangles pierced the fold under it: up to 77 intersecting pairs from t = 1.72 s on, caught
// by this test).
//
// MPM cloth meets cloth through the grid's one velocity field (Jiang, Gast, Teran 2017): a layer slows where its
// stencil reaches the nodes of the layer below, so layers settle about 1.5 h (2.4 cm) apart rather than a thickness
// apart, and the stack is 7 cm tall. Four substeps of 0.25 ms: the in-plane wave (√(E/ρ) = 10 m/s) crosses 0.16 h in
// one.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "cloth_checks.h"
#include "ductile/snapshot.h"
#include "scene_fixture.h"
#include "support/triangle_intersection.h"

namespace ductile {
namespace {

using testing::ClothTriangles;
using testing::CountIntersectingPairs;
using testing::Point3;
using testing::Triangle;

constexpr double kPi = 3.14159265358979323846;

// Keyframes that turn a pinned group over towards −x, between t0 and t1: along a half circle in the x-z plane
// whose radius shrinks from `radius` to `radius` − `slack` (offset (ρ cos φ − radius, 0, ρ sin φ + lift φ/π),
// ρ = radius − slack φ/π, φ from 0 to π), so the cloth between the group and the fold is never stretched, ending
// `lift` above where it started.
std::string TurnOver(double t0, double t1, double radius, double slack, double lift) {
  std::string keyframes = "[{time: " + std::to_string(t0) + ", offset: [0, 0, 0]}";
  constexpr int kSegments = 12;
  for (int k = 1; k <= kSegments; ++k) {
    const double f = static_cast<double>(k) / kSegments, phi = kPi * f, rho = radius - slack * f;
    char buffer[160];
    std::snprintf(buffer, sizeof buffer, ", {time: %.6f, offset: [%.6f, 0, %.6f]}", t0 + (t1 - t0) * f,
                  rho * std::cos(phi) - radius, rho * std::sin(phi) + lift * f);
    keyframes += buffer;
  }
  return keyframes + "]";
}

std::string FoldScene() {
  return R"(
simulation: {dt: 1.0e-3, substeps: 4}
grid: {h: 0.015625, domain: {min: [-0.35, -0.15, 0.0], max: [0.35, 0.15, 0.35]}, boundary: {type: friction, friction: 0.5}}
materials:
  cotton: {model: cloth, density: 1000, youngs_modulus: 1.0e5, poisson_ratio: 0.3, thickness: 0.001}
objects:
  strip:
    material: cotton
    shape: {type: sheet, width: 0.4, length: 0.1, vertices: 41}
    pose: {position: [0, 0, 0.005]}
    pins:
      edge:
        box: {min: [0.195, -0.1, 0], max: [0.205, 0.1, 0.01]}
        keyframes: )" +
         TurnOver(0.05, 0.75, 0.2, 0.03, 0.03) + R"(
        release_time: 0.8
      crease:
        box: {min: [-0.005, -0.1, 0], max: [0.005, 0.1, 0.01]}
        keyframes: )" +
         TurnOver(1.0, 1.7, 0.1, 0.015, 0.09) + R"(
        release_time: 1.75
)";
}

// The heights at which the vertical line through (x, y) crosses the cloth, crossings on a shared edge counted once.
std::vector<double> Crossings(const std::vector<Triangle>& triangles, double x, double y) {
  std::vector<double> z;
  const Point3 q{x, y, 0};
  for (const Triangle& t : triangles) {
    const int s0 = testing::Orient2d(t[0], t[1], q, 0, 1), s1 = testing::Orient2d(t[1], t[2], q, 0, 1),
              s2 = testing::Orient2d(t[2], t[0], q, 0, 1);
    if ((s0 > 0 || s1 > 0 || s2 > 0) && (s0 < 0 || s1 < 0 || s2 < 0)) continue;
    if (s0 == 0 && s1 == 0 && s2 == 0) continue;  // seen edge-on
    // Barycentric interpolation of z at (x, y).
    const double d = (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) - (t[2][0] - t[0][0]) * (t[1][1] - t[0][1]);
    const double b1 = ((x - t[0][0]) * (t[2][1] - t[0][1]) - (t[2][0] - t[0][0]) * (y - t[0][1])) / d;
    const double b2 = ((t[1][0] - t[0][0]) * (y - t[0][1]) - (x - t[0][0]) * (t[1][1] - t[0][1])) / d;
    z.push_back(t[0][2] + b1 * (t[1][2] - t[0][2]) + b2 * (t[2][2] - t[0][2]));
  }
  std::sort(z.begin(), z.end());
  z.erase(std::unique(z.begin(), z.end(), [](double a, double b) { return b - a < 1e-7; }), z.end());
  return z;
}

// Exact check, every step: no two triangles that share no vertex have a point in common (tests/support/
// triangle_intersection.h; coordinates taken as the floats the simulation holds), and no triangle has collapsed to a
// segment (the predicate's precondition). At the end, vertical lines through the stack cross four to eight layers
// (measured: 4 over x in [−0.16, −0.13] m on each line, 2 on either side of it: the layers come to rest offset by
// up to 3 cm from one another). 800 triangles, 2,200 steps.
TEST(ClothFold, FourLayersNeverIntersect) {
  auto sim = testing::SimulatorFromYaml(FoldScene());
  Snapshot s;
  std::vector<std::array<std::uint32_t, 3>> corners;
  int steps = 0, steps_with_intersections = 0, worst = 0, degenerate = 0;
  double first_intersection_time = -1;
  std::vector<Triangle> triangles;
  while (sim->time() + 0.5 * sim->model().dt < 2.2) {
    sim->Step();
    sim->CaptureSnapshot(s, false);
    triangles = ClothTriangles(s, corners);
    for (const Triangle& t : triangles) degenerate += testing::IsDegenerate(t[0], t[1], t[2]);
    const int intersecting = CountIntersectingPairs(triangles, corners);
    if (intersecting > 0 && steps_with_intersections++ == 0) first_intersection_time = sim->time();
    worst = std::max(worst, intersecting);
    ++steps;
  }
  RecordProperty("steps_checked", steps);
  RecordProperty("triangles", static_cast<int>(triangles.size()));
  EXPECT_EQ(degenerate, 0);
  EXPECT_EQ(steps_with_intersections, 0) << "first at t = " << first_intersection_time << " s, at most " << worst
                                         << " intersecting pairs in a step";
  // Layers along three lines across the stack, every centimetre of x in [−0.2, −0.1] m: at most eight anywhere, and
  // four or more over at least three centimetres of each line.
  for (const double y : {-0.029, 0.0037, 0.031}) {
    std::string counts;
    int widest = 0, run = 0;
    for (int i = 0; i <= 10; ++i) {
      const std::size_t layers = Crossings(triangles, -0.2 + 0.01 * i, y).size();
      counts += " " + std::to_string(layers);
      EXPECT_LE(layers, 8u) << "at (" << -0.2 + 0.01 * i << ", " << y << ")";
      run = layers >= 4 ? run + 1 : 0;
      widest = std::max(widest, run);
    }
    RecordProperty("layers_at_y" + std::to_string(y), counts);
    EXPECT_GE(widest, 4) << "layers along y = " << y << " from x = -0.2 m:" << counts;
  }
}

}  // namespace
}  // namespace ductile
