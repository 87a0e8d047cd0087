// The AVX2 lane loads and stores of cell_batch_kernels.h that move particle records (Vec3f, Mat3f, the integer
// stencil bases) into and out of SIMD lanes: GatherLanes and ScatterLanes against the plain element-by-element
// definition, with lanes in any order, repeated padding lanes and partial batches. Built where AVX2 is (the
// solver uses plain loops elsewhere).
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "mpm/cell_batch_kernels.h"

#if DUCTILE_CELL_BATCH

namespace ductile::mpm {
namespace {

constexpr int L = kCellBatch;

// Records of n elements for 20 particles, element e of particle p = 100 p + e.
template <typename T>
std::vector<T> Records(int n) {
  std::vector<T> r(20 * n);
  for (int p = 0; p < 20; ++p)
    for (int e = 0; e < n; ++e) r[p * n + e] = static_cast<T>(100 * p + e);
  return r;
}

// Lanes out of order and apart in memory, as the sort leaves them after particles moved.
constexpr int kIndex[L] = {7, 3, 12, 4, 19, 0, 8, 15};

template <int N>
void CheckGather() {
  const std::vector<float> records = Records<float>(N);
  alignas(32) float lanes[N][L];
  GatherLanes(records.data(), N, kIndex, lanes);
  for (int e = 0; e < N; ++e)
    for (int l = 0; l < L; ++l) EXPECT_EQ(lanes[e][l], 100.0f * kIndex[l] + e) << "element " << e << " lane " << l;
}

TEST(CellBatch, GatherLanesReadsEachLanesRecord) {
  CheckGather<3>();
  CheckGather<9>();
}

// Writes lane values −(100 p + e) for the first `count` lanes; every other record and element must keep its value.
template <typename T, int N>
void CheckScatter(int count) {
  std::vector<T> records = Records<T>(N);
  alignas(32) T lanes[N][L];
  for (int e = 0; e < N; ++e)
    for (int l = 0; l < L; ++l) lanes[e][l] = static_cast<T>(-(100 * kIndex[l] + e));
  ScatterLanes(lanes, records.data(), N, kIndex, count);
  for (int p = 0; p < 20; ++p) {
    bool written = false;
    for (int l = 0; l < count; ++l) written |= kIndex[l] == p;
    for (int e = 0; e < N; ++e) {
      const T expected = static_cast<T>(written ? -(100 * p + e) : 100 * p + e);
      EXPECT_EQ(records[p * N + e], expected) << "particle " << p << " element " << e << " count " << count;
    }
  }
}

TEST(CellBatch, ScatterLanesWritesExactlyTheUsedLanesRecords) {
  for (int count = 1; count <= L; ++count) {
    CheckScatter<float, 3>(count);
    CheckScatter<float, 9>(count);
    CheckScatter<int, 3>(count);
  }
}

// A partial run pads its lanes with the first lane's particle: the padding lanes are never written.
TEST(CellBatch, ScatterLanesLeavesPaddingLanesAlone) {
  std::vector<float> records = Records<float>(9);
  const int index[L] = {5, 6, 5, 5, 5, 5, 5, 5};
  alignas(32) float lanes[9][L];
  for (int e = 0; e < 9; ++e)
    for (int l = 0; l < L; ++l) lanes[e][l] = l < 2 ? -1.0f - l : 1e9f;  // padding lanes hold junk
  ScatterLanes(lanes, records.data(), 9, index, 2);
  for (int e = 0; e < 9; ++e) {
    EXPECT_EQ(records[5 * 9 + e], -1.0f);
    EXPECT_EQ(records[6 * 9 + e], -2.0f);
    EXPECT_EQ(records[7 * 9 + e], 700.0f + e);  // the record after the last written one
  }
}

}  // namespace
}  // namespace ductile::mpm

#endif
