// The CPU implementation of the launch-and-memory layer (backend/cpu_device.h): what the device backend's
// orchestration relies on from any device, checked against the standard library.
#include "backend/cpu_device.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace ductile::backend {
namespace {

TEST(CpuDevice, SortPairsIsAStableSortByTheLowKeyBits) {
  CpuDevice device;
  std::mt19937 rng(3);
  for (const int bits : {1, 8, 13, 24, 32}) {
    const std::int64_t n = 5000;
    const std::uint32_t mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
    std::vector<std::uint32_t> keys(n);
    // Keys with many repeats (97 values spread over the bits), and bits above the sorted ones that must not count.
    for (std::uint32_t& k : keys) k = (rng() % 97 * 2654435761u & mask) | (bits == 32 ? 0 : (rng() & ~mask));
    std::vector<std::int32_t> values(n);
    std::iota(values.begin(), values.end(), 0);
    CpuDevice::Buffer<std::uint32_t> k;
    CpuDevice::Buffer<std::int32_t> v;
    k.Upload(keys.data(), n);
    v.Upload(values.data(), n);
    device.SortPairs(k, v, n, bits);
    std::vector<std::int32_t> expected = values;
    std::stable_sort(expected.begin(), expected.end(),
                     [&](int a, int b) { return (keys[a] & mask) < (keys[b] & mask); });
    std::vector<std::int32_t> sorted(n);
    v.Download(sorted.data(), n);
    EXPECT_EQ(sorted, expected) << bits << " bits";
    for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(k.data()[i], keys[sorted[i]]);
  }
}

TEST(CpuDevice, ExclusiveScanAndSum) {
  CpuDevice device;
  const std::vector<std::int32_t> in{3, 0, 1, 4, 0, 0, 2};
  CpuDevice::Buffer<std::int32_t> a, b;
  a.Upload(in.data(), in.size());
  b.Resize(in.size());
  EXPECT_EQ(device.ExclusiveScan(a, b, 7), 10);
  const std::vector<std::int32_t> expected{0, 3, 3, 4, 8, 8, 8};
  EXPECT_EQ(std::vector<std::int32_t>(b.data(), b.data() + 7), expected);
  EXPECT_EQ(device.Sum(a, 7), 10);
  EXPECT_EQ(device.Read(a, 3), 4);
}

// Every block runs once, with scratch of the asked size that it may use freely.
struct FillBlocks {
  std::int32_t* seen;
  int shared;
  void operator()(const BlockLanes& b) const {
    for (int i = 0; i < shared; ++i) b.shared[i] = MakeFloat4(float(b.block), 0, 0, 0);
    float sum = 0;
    for (int i = 0; i < shared; ++i) sum += b.shared[i][0];
    AtomicAdd(&seen[b.block], static_cast<std::int32_t>(sum / static_cast<float>(shared) == float(b.block)));
  }
};

TEST(CpuDevice, ForEachBlockRunsEveryBlockOnceWithItsScratch) {
  CpuDevice device;
  std::vector<std::int32_t> seen(300, 0);
  device.ForEachBlock(300, 128, 1024, FillBlocks{seen.data(), 1024});
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 300);
}

}  // namespace
}  // namespace ductile::backend
