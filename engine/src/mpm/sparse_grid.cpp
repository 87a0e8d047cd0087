#include "mpm/sparse_grid.h"

#include <algorithm>

namespace ductile::mpm {

void SparseGrid::Resize(const std::array<int, 3>& nodes) {
  nodes_ = nodes;
  // One spare block per axis: a block's +1 neighbour always exists in the table.
  for (int a = 0; a < 3; ++a) block_dims_[a] = nodes[a] / kBlockEdge + 2;
  const std::size_t num_blocks = static_cast<std::size_t>(block_dims_[0]) * block_dims_[1] * block_dims_[2];
  table_.assign(num_blocks, -1);
  counts_.assign(num_blocks, 0);
  occupied_index_.assign(num_blocks, -1);
  occupied_blocks_.clear();
  active_blocks_.clear();
}

void SparseGrid::SortParticles(const std::vector<std::array<int, 3>>& base) {
  const int n = static_cast<int>(base.size());
  particle_block_.resize(n);
  particle_cell_.resize(n);
  order_.resize(n);

  // Counting sort by linear block id. counts_ is all zero between calls.
  for (std::int32_t b : occupied_blocks_) occupied_index_[b] = -1;
  occupied_blocks_.clear();
  for (int p = 0; p < n; ++p) {
    const std::int32_t b = LinearBlock(base[p][0] / kBlockEdge, base[p][1] / kBlockEdge, base[p][2] / kBlockEdge);
    particle_block_[p] = b;
    particle_cell_[p] = static_cast<std::uint8_t>(
        ((base[p][0] % kBlockEdge) * kBlockEdge + base[p][1] % kBlockEdge) * kBlockEdge + base[p][2] % kBlockEdge);
    if (counts_[b]++ == 0) occupied_blocks_.push_back(b);
  }
  std::sort(occupied_blocks_.begin(), occupied_blocks_.end());

  occupied_offsets_.resize(occupied_blocks_.size() + 1);
  int offset = 0;
  for (std::size_t i = 0; i < occupied_blocks_.size(); ++i) {
    const std::int32_t b = occupied_blocks_[i];
    occupied_offsets_[i] = offset;
    offset += counts_[b];
    counts_[b] = occupied_offsets_[i];  // now the write cursor of block b
  }
  occupied_offsets_.back() = offset;
  for (int p = 0; p < n; ++p) order_[counts_[particle_block_[p]]++] = p;
  for (std::int32_t b : occupied_blocks_) counts_[b] = 0;

  // Within each block, a second counting sort by the base node's local cell (stable), so particles that share a
  // stencil come one after another: the transfers treat such a run as one SIMD batch.
  cell_scratch_.resize(n);
  for (std::size_t i = 0; i < occupied_blocks_.size(); ++i) {
    const int begin = occupied_offsets_[i];
    const int end = occupied_offsets_[i + 1];
    if (end - begin < 2) continue;
    int cursor[kBlockNodes + 1] = {};
    for (int q = begin; q < end; ++q) ++cursor[particle_cell_[order_[q]] + 1];
    for (int c = 0; c < kBlockNodes; ++c) cursor[c + 1] += cursor[c];
    for (int q = begin; q < end; ++q) cell_scratch_[begin + cursor[particle_cell_[order_[q]]]++] = order_[q];
    std::copy(cell_scratch_.begin() + begin, cell_scratch_.begin() + end, order_.begin() + begin);
  }

  for (std::size_t i = 0; i < occupied_blocks_.size(); ++i)
    occupied_index_[occupied_blocks_[i]] = static_cast<std::int32_t>(i);
}

void SparseGrid::ActivateBlocks() {
  for (std::int32_t b : active_blocks_) table_[b] = -1;
  active_blocks_.clear();
  active_blocks_.reserve(occupied_blocks_.size() * 8);
  for (std::int32_t b : occupied_blocks_) {
    const std::array<int, 3> bc = BlockCoords(b);
    for (int dx = 0; dx < 2; ++dx)
      for (int dy = 0; dy < 2; ++dy)
        for (int dz = 0; dz < 2; ++dz) active_blocks_.push_back(LinearBlock(bc[0] + dx, bc[1] + dy, bc[2] + dz));
  }
  std::sort(active_blocks_.begin(), active_blocks_.end());
  active_blocks_.erase(std::unique(active_blocks_.begin(), active_blocks_.end()), active_blocks_.end());
  for (std::size_t slot = 0; slot < active_blocks_.size(); ++slot)
    table_[active_blocks_[slot]] = static_cast<std::int32_t>(slot);
  nodes_data.resize(active_blocks_.size() * kBlockNodes);
}

}  // namespace ductile::mpm
