// The vocabulary of MpmSolver's passes over the particles (MpmSolver::TransferPass in mpm_solver.cpp) and of the
// pass on one occupied block (MpmSolver::TransferBlock in transfer_block.cpp); docs/architecture.md, "One MPM
// substep" and "Fused G2P2G".
#pragma once

#include <cstdint>

#include "core/small_math.h"
#include "ductile/mpm_params.h"
#include "mpm/transfer_kernels.h"

namespace ductile::mpm {

/// What one pass over the particles does: P2G, G2P, or both fused (G2P2G), and whether its gather stores each
/// particle's v and C (a fused pass between two grid updates keeps them in its lanes).
enum class TransferKind {
  kP2G,    ///< P2G on its own, from the particles' stored state: the first P2G of an Advance that has none ready.
  kG2P,    ///< G2P on its own, storing v and C: the last substep of an Advance that prepares no P2G.
  kG2P2G,  ///< G2P fused with the next P2G, v and C kept in the lanes.
  /// G2P fused with the next P2G, storing v and C: they are read before the next gather (after the last substep of
  /// an Advance, and after every substep when a grid hook reads the particles).
  kG2P2GStoringState,
};
constexpr bool Gathers(TransferKind kind) {
  return kind != TransferKind::kP2G;
}
constexpr bool Scatters(TransferKind kind) {
  return kind != TransferKind::kG2P;
}
constexpr bool StoresState(TransferKind kind) {
  return kind == TransferKind::kG2P || kind == TransferKind::kG2P2GStoringState;
}

/// A particle whose new stencil base left its block's window during a scatter, with the affine momentum the pass
/// computed for it: the solver scatters it on its own, straight onto the grid, after the windows are summed.
struct EscapedParticle {
  std::int32_t particle;
  Mat3f affine;
};

// TransferBlock's result flags.
inline constexpr int kDiverged = 1;  // a particle's state became non-finite or it moved more than a cell
inline constexpr int kEscaped = 2;   // a particle's stencil base left its block's reach: sort before the next gather

/// Plastic linear corotated materials: the return map (G2P) reuses the rotation R₀ their stress (P2G) computed in
/// the same substep.
inline bool ReusesRotation(const MaterialParams& m) {
  return m.model == MaterialModel::kLinearCorotated && m.yield_stress > 0.0f;
}

/// Index of block-local node (i, j, k) in its block's storage (SparseGrid::nodes_data).
constexpr int NodeInBlock(int i, int j, int k) {
  return (i * kBlockEdge + j) * kBlockEdge + k;
}

}  // namespace ductile::mpm
