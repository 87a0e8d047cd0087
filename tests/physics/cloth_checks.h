// Checks on a cloth's triangle mesh in a snapshot, shared by the cloth fold test (tests/physics/cloth_fold_test.cpp)
// and the towel fold by teleoperation (tests/physics/teleop_scenes_test.cpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "ductile/snapshot.h"
#include "support/triangle_intersection.h"

namespace ductile::testing {

using Triangle = std::array<Point3, 3>;

// The triangles of the snapshot's cloth number `index` at its vertex positions (floats, exact as doubles).
inline std::vector<Triangle> ClothTriangles(const Snapshot& s, std::vector<std::array<std::uint32_t, 3>>& corners,
                                            std::size_t index = 0) {
  const SnapshotCloth& cloth = s.cloths.at(index);
  corners = cloth.triangles;
  std::vector<Triangle> triangles;
  triangles.reserve(corners.size());
  for (const auto& c : corners) {
    Triangle t;
    for (int k = 0; k < 3; ++k) {
      const std::array<float, 3>& p = s.particles.position[cloth.first_particle + c[k]];
      t[k] = {p[0], p[1], p[2]};
    }
    triangles.push_back(t);
  }
  return triangles;
}

// Pairs of triangles that share no vertex and intersect (exactly, touching included), leaving out pairs of which both
// triangles stand at `unchecked_from` or later (rigid geometry, whose overlaps are not the test's business). Broad
// phase: the triangles' bounding boxes sorted by their lower x, each box tested against those that start before it
// ends.
inline int CountIntersectingPairs(const std::vector<Triangle>& triangles,
                                  const std::vector<std::array<std::uint32_t, 3>>& corners,
                                  std::size_t unchecked_from = static_cast<std::size_t>(-1)) {
  const std::size_t n = triangles.size();
  std::vector<std::array<double, 6>> box(n);  // min x, y, z, max x, y, z
  for (std::size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) {
      box[i][a] = std::min({triangles[i][0][a], triangles[i][1][a], triangles[i][2][a]});
      box[i][a + 3] = std::max({triangles[i][0][a], triangles[i][1][a], triangles[i][2][a]});
    }
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return box[a][0] < box[b][0]; });
  int count = 0;
  for (std::size_t u = 0; u < n; ++u) {
    const std::size_t i = order[u];
    for (std::size_t w = u + 1; w < n && box[order[w]][0] <= box[i][3]; ++w) {
      const std::size_t j = order[w];
      if (i >= unchecked_from && j >= unchecked_from) continue;
      if (box[j][1] > box[i][4] || box[i][1] > box[j][4] || box[j][2] > box[i][5] || box[i][2] > box[j][5]) continue;
      bool shared = false;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) shared = shared || corners[i][a] == corners[j][b];
      if (!shared && TrianglesIntersect(triangles[i], triangles[j])) ++count;
    }
  }
  return count;
}

}  // namespace ductile::testing
