// What the MPM domain carries from one step to the next: the particles, the transfer cache of the fused
// G2P2G pipeline (docs/architecture.md, "Fused G2P2G") and what its contact solve keeps for the next step. The solver
// (MpmSolver) works on an MpmState it is given and owns only scratch memory, so a State can be copied, saved and
// restored without the solver.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/small_math.h"
#include "mpm/mpm_contact_state.h"
#include "mpm/particles.h"
#include "mpm/sparse_grid.h"

namespace ductile::mpm {

/// Why the transfer cache stops holding (TransferCache::Invalidate).
enum class Invalidation {
  kVelocitiesEdited,  ///< Particle velocities changed between steps (the mouse spring): the prepared P2G is void.
  kParticlesEdited,   ///< Positions (or anything) changed: the stencils, the sort and the prepared P2G are void.
  kModelChanged,      ///< Masses, materials or Δt changed (a live edit): the prepared P2G is void.
  kReset,             ///< The particles are the model's initial ones again: nothing holds.
};

/// The transfer cache: what one step's passes leave for the next so that, in steady state, every substep is one
/// pass over the particles. It is part of the state: a run restored without it continues correctly but differs
/// from the uninterrupted run at round-off level (a P2G on its own batches particles by their new cell, the
/// prepared one by the cell before the gather), so a saved state keeps it for bitwise continuation.
struct TransferCache {
  /// The block sort the passes use, the active blocks and, when `prepared_dt` > 0, the grid holding the P2G of
  /// the current particles.
  SparseGrid grid;
  std::vector<std::array<int, 3>> base;  ///< Per particle: its stencil base node (valid with stencils_current).
  /// Per particle of a plastic linear corotated material: the rotation R₀ of Fᴱ the prepared P2G computed for the
  /// next return map (Zong, Jiang, Han 2024, Sec. VI); empty when the model has no such material.
  std::vector<Mat3f> rotations;
  std::vector<int> block_runs;        ///< Per occupied block: runs of particles sharing a stencil base, last pass.
  std::int64_t runs = 0;              ///< Their total in the last pass.
  std::int64_t runs_at_reorder = -1;  ///< The total in the first pass after the last reorder; −1 until then.
  /// When > 0: the grid holds the P2G of the particles' current state for a substep of this Δt [s].
  float prepared_dt = 0;
  /// Per cloth pin group: the impulse [N·s] its held vertices' in-plane impulses put into it in the last scatter,
  /// counted into its reaction by the gather that takes that scatter's momenta (mpm/cloth_transfer.cpp,
  /// AbsorbPinnedImpulses); part of the prepared P2G.
  std::vector<std::array<double, 3>> pin_absorbed;
  bool stencils_current = false;    ///< `base` matches the particles' positions and order.
  bool sort_valid = false;          ///< Every particle's stencil base is within its sorted block's reach.
  bool activation_current = false;  ///< The grid's active blocks are those of the current sort.
  bool memory_sorted = false;       ///< The particles lie in memory in the order of the current sort.

  void Invalidate(Invalidation why) {
    prepared_dt = 0;
    if (why == Invalidation::kParticlesEdited || why == Invalidation::kReset) {
      stencils_current = false;
      sort_valid = false;
      memory_sorted = false;
    }
    if (why == Invalidation::kReset) {
      activation_current = false;
      runs_at_reorder = -1;
    }
  }

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(grid, base, rotations, block_runs, runs, runs_at_reorder, prepared_dt, pin_absorbed, stencils_current,
       sort_valid, activation_current, memory_sorted);
  }
};

/// The MPM domain's state.
struct MpmState {
  Particles particles;  ///< In storage order (sorted by grid block); Particles::id gives each one's index at t = 0.
  TransferCache cache;
  /// Per cloth triangle (Model::cloth_elements, same order): its transverse direction d₃ [-], F's third column,
  /// advected by the grid's velocity gradient and projected by the return map (Jiang, Gast, Teran 2017, Sec. 4.2).
  std::vector<Vec3f> cloth_normal;
  bool diverged = false;    ///< A particle's state became non-finite, or it moved more than a cell in a substep.
  MpmContactState contact;  ///< The contact solve's statistics and warm starts of the last step.

  template <typename Archive>
  void Serialize(Archive& ar) {
    ar(particles, cache, cloth_normal, diverged, contact);
  }
};

}  // namespace ductile::mpm
