// SparseGrid: the counting sort by block and the activation of blocks around the particles.
#include "mpm/sparse_grid.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <set>
#include <vector>

namespace ductile::mpm {
namespace {

TEST(SparseGrid, SortsParticlesByBlockThenCell) {
  SparseGrid grid;
  grid.Resize({40, 40, 40});
  // Bases in three blocks, interleaved; block ids ascend with (bx, by, bz).
  const std::vector<std::array<int, 3>> base = {{9, 0, 0}, {0, 0, 0}, {9, 1, 2}, {4, 4, 4}, {1, 2, 3}, {8, 3, 1}};
  grid.SortParticles(base);
  ASSERT_EQ(grid.num_occupied_blocks(), 3);
  // Block (0,0,0): particles 1 (local cell 0), 4 (cell 27); block (1,1,1): particle 3; block (2,0,0): particles
  // 5 (local cell (0,3,1) = 13), 0 (cell 16), 2 (cell 22), in order of local cell.
  const std::vector<std::int32_t> expected = {1, 4, 3, 5, 0, 2};
  EXPECT_EQ(grid.order(), expected);
  EXPECT_EQ(grid.occupied_begin(0), 0);
  EXPECT_EQ(grid.occupied_begin(1), 2);
  EXPECT_EQ(grid.occupied_begin(2), 3);
  EXPECT_EQ(grid.occupied_begin(3), 6);
  EXPECT_EQ(grid.BlockCoords(grid.occupied_block(2)), (std::array<int, 3>{2, 0, 0}));
  EXPECT_EQ(grid.OccupiedIndex(grid.LinearBlock(1, 1, 1)), 1);
  EXPECT_EQ(grid.OccupiedIndex(grid.LinearBlock(3, 3, 3)), -1);
}

TEST(SparseGrid, ActivatesOccupiedBlocksAndTheirNeighbours) {
  SparseGrid grid;
  grid.Resize({40, 40, 40});
  // Blocks (0,0,0) and (1,1,1): the first's neighbours (none below index 0) are {0,1}³, inside the second's
  // {0,1,2}³.
  grid.SortParticles({{0, 0, 0}, {4, 4, 4}});
  grid.ActivateBlocks();
  EXPECT_EQ(grid.num_active_blocks(), 27);
  std::set<std::int32_t> active;
  for (int a = 0; a < grid.num_active_blocks(); ++a) {
    active.insert(grid.active_block(a));
    EXPECT_EQ(grid.Slot(grid.active_block(a)), a);
  }
  EXPECT_TRUE(active.count(grid.LinearBlock(2, 2, 2)));
  EXPECT_TRUE(active.count(grid.LinearBlock(2, 0, 0)));
  EXPECT_FALSE(active.count(grid.LinearBlock(3, 0, 0)));
  EXPECT_EQ(grid.nodes_data.size(), 27u * kBlockNodes);
  // A new sort forgets the old blocks; an interior block activates its 26 neighbours.
  grid.SortParticles({{20, 20, 20}});
  grid.ActivateBlocks();
  EXPECT_EQ(grid.num_active_blocks(), 27);
  EXPECT_NE(grid.Slot(grid.LinearBlock(4, 4, 4)), -1);
  EXPECT_NE(grid.Slot(grid.LinearBlock(6, 6, 6)), -1);
  EXPECT_EQ(grid.Slot(grid.LinearBlock(7, 5, 5)), -1);
  EXPECT_EQ(grid.Slot(grid.LinearBlock(0, 0, 0)), -1);
  EXPECT_EQ(grid.OccupiedIndex(grid.LinearBlock(0, 0, 0)), -1);
}

}  // namespace
}  // namespace ductile::mpm
