#include "mpm/sparse_grid.h"

#include <tbb/parallel_for.h>

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
  block_sorted_.resize(n);
  // Block and local cell of every particle (bases are never negative: LocateStencil clamps them).
  tbb::parallel_for(tbb::blocked_range<int>(0, n, 4096), [&](const tbb::blocked_range<int>& r) {
    for (int p = r.begin(); p != r.end(); ++p) {
      const auto i = static_cast<unsigned>(base[p][0]), j = static_cast<unsigned>(base[p][1]),
                 k = static_cast<unsigned>(base[p][2]);
      particle_block_[p] = LinearBlock(static_cast<int>(i / kBlockEdge), static_cast<int>(j / kBlockEdge),
                                       static_cast<int>(k / kBlockEdge));
      particle_cell_[p] =
          static_cast<std::uint8_t>(((i % kBlockEdge) * kBlockEdge + j % kBlockEdge) * kBlockEdge + k % kBlockEdge);
    }
  });

  // Counting sort by linear block id. counts_ is all zero between calls. Particles come mostly in runs of one
  // block (they were sorted last step and move less than a cell per substep), so the counts and cursors are
  // updated once per run rather than once per particle.
  for (std::int32_t b : occupied_blocks_) occupied_index_[b] = -1;
  occupied_blocks_.clear();
  for (int p = 0; p < n;) {
    const std::int32_t b = particle_block_[p];
    int q = p + 1;
    while (q < n && particle_block_[q] == b) ++q;
    if (counts_[b] == 0) occupied_blocks_.push_back(b);
    counts_[b] += q - p;
    p = q;
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
  for (int p = 0; p < n;) {
    const std::int32_t b = particle_block_[p];
    int cursor = counts_[b];
    int q = p;
    for (; q < n && particle_block_[q] == b; ++q) block_sorted_[cursor++] = q;
    counts_[b] = cursor;
    p = q;
  }
  for (std::int32_t b : occupied_blocks_) counts_[b] = 0;

  // Within each block (in parallel), a second counting sort by the base node's local cell (stable), so particles
  // that share a stencil come one after another: the transfers treat such a run as one SIMD batch.
  tbb::parallel_for(tbb::blocked_range<int>(0, num_occupied_blocks(), 16), [&](const tbb::blocked_range<int>& r) {
    for (int i = r.begin(); i != r.end(); ++i) {
      const int begin = occupied_offsets_[i];
      const int end = occupied_offsets_[i + 1];
      int cursor[kBlockNodes + 1] = {};
      for (int q = begin; q < end;) {
        const int c = particle_cell_[block_sorted_[q]];
        int e = q + 1;
        while (e < end && particle_cell_[block_sorted_[e]] == c) ++e;
        cursor[c + 1] += e - q;
        q = e;
      }
      for (int c = 0; c < kBlockNodes; ++c) cursor[c + 1] += cursor[c];
      for (int q = begin; q < end;) {
        const int c = particle_cell_[block_sorted_[q]];
        int at = begin + cursor[c];
        for (; q < end && particle_cell_[block_sorted_[q]] == c; ++q) order_[at++] = block_sorted_[q];
        cursor[c] = at - begin;
      }
    }
  });

  for (std::size_t i = 0; i < occupied_blocks_.size(); ++i)
    occupied_index_[occupied_blocks_[i]] = static_cast<std::int32_t>(i);
}

void SparseGrid::AdoptIdentityOrder() {
  for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<std::int32_t>(i);
}

void SparseGrid::ActivateBlocks() {
  for (std::int32_t b : active_blocks_) table_[b] = -1;
  active_blocks_.clear();
  active_blocks_.reserve(occupied_blocks_.size() * 27);
  for (std::int32_t b : occupied_blocks_) {
    const std::array<int, 3> bc = BlockCoords(b);
    // Block −1 along an axis holds no node a particle can touch (stencil bases are clamped to ≥ 0).
    for (int dx = bc[0] > 0 ? -1 : 0; dx < 2; ++dx)
      for (int dy = bc[1] > 0 ? -1 : 0; dy < 2; ++dy)
        for (int dz = bc[2] > 0 ? -1 : 0; dz < 2; ++dz)
          active_blocks_.push_back(LinearBlock(bc[0] + dx, bc[1] + dy, bc[2] + dz));
  }
  std::sort(active_blocks_.begin(), active_blocks_.end());
  active_blocks_.erase(std::unique(active_blocks_.begin(), active_blocks_.end()), active_blocks_.end());
  for (std::size_t slot = 0; slot < active_blocks_.size(); ++slot)
    table_[active_blocks_[slot]] = static_cast<std::int32_t>(slot);
  nodes_data.resize(active_blocks_.size() * kBlockNodes);
}

}  // namespace ductile::mpm
