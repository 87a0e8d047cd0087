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

// With emulated lanes, each block's lanes run together: every lane writes its slot, meets the others at the barrier,
// then reads theirs; and they all add into one scratch node at once. A missing barrier would let a lane read a slot
// another has not written yet (or an earlier block's), a plain add would lose sums; with whole numbers both sums are
// exact, so any such slip shows.
struct LanesMeet {
  std::int32_t* ok;
  SIM_HD void operator()(const BlockLanes& b) const {
    b.shared[b.lane] = MakeFloat4(static_cast<float>(1000 * b.block + b.lane), 0, 0, 0);
    if (b.lane == 0) b.shared[b.lanes] = MakeFloat4(0, 0, 0, 0);
    b.Sync();
    for (int k = 0; k < 100; ++k) LaneAdd(b, &b.shared[b.lanes], MakeFloat4(1, 2, 0, 0));
    b.Sync();
    float seen = 0;
    for (int l = 0; l < b.lanes; ++l) seen += b.shared[l][0];
    const float expected = static_cast<float>(b.lanes * 1000 * b.block + b.lanes * (b.lanes - 1) / 2);
    const bool sums = b.shared[b.lanes][0] == 100.0f * b.lanes && b.shared[b.lanes][1] == 200.0f * b.lanes;
    AtomicAdd(&ok[b.block], static_cast<std::int32_t>(seen == expected && sums));
  }
};

TEST(CpuDevice, EmulatedLanesMeetAtTheBarrierAndAddAtomically) {
  CpuDevice device;
  device.set_lanes(8);
  std::vector<std::int32_t> ok(50, 0);
  device.ForEachBlock(50, 128, 16, LanesMeet{ok.data()});
  EXPECT_EQ(std::count(ok.begin(), ok.end(), 8), 50);  // every lane of every block saw every other lane's writes
  device.set_lanes(1);                                 // one lane: the blocks in parallel, as before
  std::fill(ok.begin(), ok.end(), 0);
  device.ForEachBlock(50, 128, 16, LanesMeet{ok.data()});
  EXPECT_EQ(std::count(ok.begin(), ok.end(), 1), 50);
}

}  // namespace
}  // namespace ductile::backend
