// Sparse blocked MPM grid: 4x4x4-node blocks allocated around the particles, looked up through a dense block
// table over the bounded domain (docs/architecture.md, "One MPM substep"). Only the active blocks are stored, cleared
// and updated.
//
// A particle belongs to the block that held its stencil's base node when the particles were last sorted; until
// the next sort it may move a cell per substep, and the solver re-sorts before any base leaves the block's range
// [−1, 4] (block-local), so a block's particles touch nodes of the block and of its 26 neighbours: an 8x8x8 window.
// P2G accumulates each occupied block's particles into its own window (in parallel, no sharing), then every
// active block sums the windows that overlap it in a fixed order: every node receives its contributions in the
// same order for any number of threads, so results are bitwise identical.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/float4.h"
#include "core/small_math.h"
#include "mpm/transfer_kernels.h"

namespace ductile::mpm {

class SparseGrid {
 public:
  /// A grid of `nodes` nodes per axis.
  void Resize(const std::array<int, 3>& nodes);

  /// Sorts particles by block and, within a block, by the local cell of their stencil base: on return, order()
  /// lists particle indices block by block, and in a block cell by cell (stable: particles of one cell keep their
  /// relative order), and the occupied blocks with their particle ranges are known.
  /// `base` holds each particle's stencil base node (3 ints per particle).
  void SortParticles(const std::vector<std::array<int, 3>>& base);

  /// After the caller reordered its particles by order() (out[i] = in[order()[i]]): order() becomes the identity,
  /// the blocks and their ranges stay. What SortParticles would return for the reordered particles.
  void AdoptIdentityOrder();

  /// Activates the occupied blocks and their 26 neighbours and assigns their storage (not zeroed).
  void ActivateBlocks();

  int num_active_blocks() const { return static_cast<int>(active_blocks_.size()); }
  int num_occupied_blocks() const { return static_cast<int>(occupied_blocks_.size()); }
  const std::vector<std::int32_t>& order() const { return order_; }
  /// Particles of occupied block b are order()[occupied_begin(b) .. occupied_begin(b + 1)).
  int occupied_begin(int b) const { return occupied_offsets_[b]; }
  /// Linear block id (in the dense table) of occupied block b.
  std::int32_t occupied_block(int b) const { return occupied_blocks_[b]; }
  /// Index of a linear block id among the occupied blocks, or −1 when it holds no particle.
  std::int32_t OccupiedIndex(std::int32_t block) const { return occupied_index_[block]; }
  /// Linear id of active block a.
  std::int32_t active_block(int a) const { return active_blocks_[a]; }

  /// Block coordinates of a linear block id.
  std::array<int, 3> BlockCoords(std::int32_t block) const {
    return {block / (block_dims_[1] * block_dims_[2]), (block / block_dims_[2]) % block_dims_[1],
            block % block_dims_[2]};
  }
  std::int32_t LinearBlock(int bx, int by, int bz) const { return (bx * block_dims_[1] + by) * block_dims_[2] + bz; }
  /// LinearBlock, or −1 when (bx, by, bz) is outside the table (a neighbour of a block at the domain's edge).
  std::int32_t LinearBlockOrNone(int bx, int by, int bz) const {
    const bool inside =
        bx >= 0 && by >= 0 && bz >= 0 && bx < block_dims_[0] && by < block_dims_[1] && bz < block_dims_[2];
    return inside ? LinearBlock(bx, by, bz) : -1;
  }
  /// Storage slot of a linear block id, or −1 when inactive.
  std::int32_t Slot(std::int32_t block) const { return table_[block]; }
  const std::array<int, 3>& nodes() const { return nodes_; }
  const std::array<int, 3>& block_dims() const { return block_dims_; }

  /// Node storage: slot·64 + (i·16 + j·4 + k) for local node (i, j, k) of a block.
  /// After P2G: momentum [kg·m/s] in lanes 0-2, mass [kg] in lane 3. The grid update replaces the momentum with
  /// the velocity [m/s] and keeps the mass.
  std::vector<Float4> nodes_data;

  /// Bytes of the block tables and sort arrays (nodes_data not counted).
  std::size_t MemoryBytesOfTables() const {
    return sizeof(std::int32_t) *
               (table_.capacity() + counts_.capacity() + particle_block_.capacity() + order_.capacity() +
                block_sorted_.capacity() + occupied_blocks_.capacity() + occupied_offsets_.capacity() +
                active_blocks_.capacity() + occupied_index_.capacity()) +
           particle_cell_.capacity();
  }

  /// Every member, scratch included (a restored grid continues bitwise).
  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(nodes_data, nodes_, block_dims_, table_, counts_, particle_block_, particle_cell_, order_, block_sorted_,
       occupied_blocks_, occupied_offsets_, active_blocks_, occupied_index_);
  }

 private:
  std::array<int, 3> nodes_{};
  std::array<int, 3> block_dims_{};
  std::vector<std::int32_t> table_;   // linear block id -> storage slot or -1
  std::vector<std::int32_t> counts_;  // per linear block id, scratch for the counting sort
  std::vector<std::int32_t> particle_block_;
  std::vector<std::uint8_t> particle_cell_;  // local cell of the base node in its block, 0..63
  std::vector<std::int32_t> order_;
  std::vector<std::int32_t> block_sorted_;  // particle indices sorted by block only
  std::vector<std::int32_t> occupied_blocks_;
  std::vector<std::int32_t> occupied_offsets_;
  std::vector<std::int32_t> active_blocks_;
  std::vector<std::int32_t> occupied_index_;  // linear block id -> occupied index or -1
};

}  // namespace ductile::mpm
