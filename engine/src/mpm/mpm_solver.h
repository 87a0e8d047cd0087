// The explicit MLS-MPM substep on the CPU (DESIGN.md §4 step 3a and 3d, §5): sort particles into blocks,
// P2G into per-block windows reduced onto the grid, grid update with boundary conditions, G2P with the plasticity
// return map. Parallel with TBB; the result is bitwise identical for any number of threads.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "ductile/model.h"
#include "mpm/grid_kernels.h"
#include "mpm/particles.h"
#include "mpm/sparse_grid.h"

namespace ductile::mpm {

/// Counters of one substep.
struct SubstepCounters {
  int occupied_blocks = 0;        ///< Blocks holding particles.
  int active_blocks = 0;          ///< Blocks allocated (occupied plus their +x/+y/+z neighbours).
  std::int64_t active_nodes = 0;  ///< Grid nodes with mass > 0 (the grid dofs n_v / 3).
  // Wall-clock time of each phase [s].
  double sort_seconds = 0;  ///< Stencils (when stale), sort into blocks, block activation.
  double p2g_seconds = 0;   ///< Stress, scatter into block windows, window reduction.
  double grid_seconds = 0;  ///< Grid velocity update and boundary conditions.
  double g2p_seconds = 0;   ///< Gather, advection, F update, return map.

  /// Adds a later substep's node count and times; the block counts become the later substep's.
  void Accumulate(const SubstepCounters& later) {
    occupied_blocks = later.occupied_blocks;
    active_blocks = later.active_blocks;
    active_nodes += later.active_nodes;
    sort_seconds += later.sort_seconds;
    p2g_seconds += later.p2g_seconds;
    grid_seconds += later.grid_seconds;
    g2p_seconds += later.g2p_seconds;
  }
};

/// Owns the particles and the grid of one scene. Not thread-safe; its methods parallelise internally, so call
/// them inside the task arena that sets the thread count.
class MpmSolver {
 public:
  explicit MpmSolver(const Model& model);

  /// Restores the particles of the model's initial state.
  void Reset();

  /// Continues with `model`'s parameters (materials, colliders, walls, gravity) from the current state. The model
  /// must have the same particles and grid as the current one (Simulator::UpdateModel checks); particle masses
  /// follow the new densities. `model` must outlive the solver or the next SetModel.
  void SetModel(const Model& model);

  /// Physically reorders the particles by grid block (once per outer step, for memory locality).
  void SortParticlesByBlock();

  /// One explicit substep of dt [s]. Returns its counters. Sets diverged() when a particle's state became
  /// non-finite or it moved more than one cell.
  /// `grid_hook(dt)`, when given, runs between the grid update and G2P: the MPM-rigid contact solve, which edits
  /// node velocities through NodeIndex and node.
  SubstepCounters Substep(float dt, const std::function<void(float)>& grid_hook = {});
  /// Storage index of grid node (i, j, k) in node(), or −1 when its block is not active this substep.
  int NodeIndex(int i, int j, int k) const {
    const std::int32_t slot = grid_.Slot(grid_.LinearBlock(i / kBlockEdge, j / kBlockEdge, k / kBlockEdge));
    if (slot < 0) return -1;
    return slot * kBlockNodes + (i % kBlockEdge * kBlockEdge + j % kBlockEdge) * kBlockEdge + k % kBlockEdge;
  }
  /// A grid node: after the grid update, velocity [m/s] in lanes 0-2 and mass [kg] in lane 3.
  Float4& node(int index) { return grid_.nodes_data[index]; }
  /// The stencil of particle p at its current position (valid between P2G and G2P).
  Stencil ParticleStencil(int p) const { return CachedStencil(p); }

  bool diverged() const { return diverged_; }
  /// A description of the first diverged particle (by id): object, position, velocity. Empty if none.
  std::string DescribeDivergence() const;

  const Particles& particles() const { return particles_; }
  /// Particle state for editing between substeps (tests).
  Particles& mutable_particles() {
    stencils_current_ = false;
    order_current_ = false;
    return particles_;
  }
  /// Particle velocities for editing between steps (the mouse spring): positions stay, so the stencils and the
  /// block order stay valid.
  std::vector<Vec3f>& mutable_velocities() { return particles_.v; }
  const SparseGrid& grid() const { return grid_; }

 private:
  /// What follows from the model alone: grid-update parameters, storage for the reused rotations.
  void ConfigureForModel();
  /// Computes every particle's stencil base and offset. G2P keeps them current as it moves the particles, so this
  /// runs only after a reset, an edit or a reorder (positions do not change between P2G and G2P).
  void ComputeBases();
  /// Stores the stencil base and offset of particle p at its position.
  void StoreStencil(int p);
  /// The stencil of particle p from the values ComputeBases stored.
  Stencil CachedStencil(int p) const;
  void ParticleToGrid(float dt);
  /// P2G of one occupied block's particles into its window.
  void ScatterBlock(int occupied_block, float dt);
  /// Kirchhoff stresses of `count` ≤ kStressBatch particles (indices), fixed corotated ones batched.
  void ComputeStresses(const std::int32_t* particles, int count, Mat3f* tau) const;
  /// Sums the windows overlapping active block `slot` into its nodes.
  void ReduceWindows(int slot);
  int UpdateGrid(float dt);
  void GridToParticle(float dt);
  /// G2P of one occupied block; false when one of its particles diverged.
  bool GatherBlock(int occupied_block, float dt);

  const Model* model_;
  Particles particles_;
  Particles scratch_;
  SparseGrid grid_;
  std::vector<std::array<int, 3>> base_;          // per particle: stencil base node
  std::vector<Vec3f> fx_;                         // per particle: x̂ − base, in cells
  std::vector<std::array<int, 3>> base_scratch_;  // for reordering base_ and fx_
  std::vector<Vec3f> fx_scratch_;
  std::vector<Float4> windows_;  // per occupied block: its particles' P2G into a 6x6x6 node window
  // Per particle of a plastic linear corotated material: R₀, the rotation of Fᴱ at the start of the substep. The
  // stress (P2G) computes it and the return map (G2P) of the same substep reuses it: one polar decomposition per
  // particle and substep instead of two, with the same result.
  // Sized when the model has such a material, else empty.
  mutable std::vector<Mat3f> rotations_;
  std::vector<int> node_counts_;  // per active block: nodes with mass > 0
  GridUpdateParams grid_params_;
  Vec3f origin_{};
  float h_ = 0;
  float inv_h_ = 0;
  int max_base_[3] = {0, 0, 0};
  bool diverged_ = false;
  bool stencils_current_ = false;  // base_ and fx_ match the particles' positions and order
  // The grid's order() lists the particles as they lie in memory (SortParticlesByBlock just reordered them and
  // nothing moved since), so the next substep need not sort again: a stable re-sort would give the identity.
  bool order_current_ = false;
};

}  // namespace ductile::mpm
