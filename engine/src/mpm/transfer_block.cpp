// The pass on one occupied block (MpmSolver::TransferBlock; docs/architecture.md, "One MPM substep", "Fused G2P2G"
// and "Cell batches"). The block's particles come in runs that share a stencil base, up to eight at a time, one per
// SIMD lane; each run goes through the phases its TransferKind asks for:
//   - G2P (GatherRun): v and C from the block's copy of the grid window, x += Δt v and the new stencil,
//     F ← (I + Δt C) F, the plasticity return maps, the divergence and reach checks, the lanes back into the
//     particles' records;
//   - or, for a P2G on its own, the lanes from the particles' stored state (LoadStoredLanes);
//   - P2G (ScatterRun): the Kirchhoff stresses, the affine momentum, the scatter into the block's window.
// The phases are always inlined into the one loop over the runs, which keeps their lane arrays local to it: called
// out of line, GCC kept them in memory behind a pointer, and the pass ran a quarter slower.
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mpm/cell_batch_kernels.h"
#include "mpm/constitutive/constitutive.h"
#include "mpm/constitutive/corotated_batch.h"
#include "mpm/mpm_solver.h"
#include "mpm/transfer_block.h"
#include "mpm/transfer_kernels.h"

namespace ductile::mpm {
namespace {

constexpr int L = kStressBatch;

bool SameCell(const std::array<int, 3>& a, const std::array<int, 3>& b) {
  return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

// out[e][lane] = records[stride · index[lane] + e] for e < N: N consecutive floats of each lane's particle record (a
// Vec3f or a Mat3f of a per-particle array); AVX2 gathers where available.
static_assert(sizeof(Vec3f) == 3 * sizeof(float) && sizeof(Mat3f) == 9 * sizeof(float));
template <int N>
void LoadLanes(const float* records, int stride, const int (&index)[L], float (&out)[N][L]) {
#if DUCTILE_CELL_BATCH
  static_assert(kCellBatch == L);
  GatherLanes(records, stride, index, out);
#else
  for (int e = 0; e < N; ++e)
    for (int l = 0; l < L; ++l) out[e][l] = records[stride * index[l] + e];
#endif
}

// The reverse of LoadLanes: records[stride · index[lane] + e] = in[e][lane] for e < N and lanes below `count`; AVX2
// transposes where available.
template <typename T, int N>
void StoreLanes(const T (&in)[N][L], T* records, int stride, const int (&index)[L], int count) {
#if DUCTILE_CELL_BATCH
  ScatterLanes(in, records, stride, index, count);
#else
  for (int l = 0; l < count; ++l)
    for (int e = 0; e < N; ++e) records[stride * index[l] + e] = in[e][l];
#endif
}

// index[l] = run[l] for the lanes below `count`, run[0] in the others (reads run[0 .. count − 1] only); one
// vector store, so the lanes' gathers can load it at once.
void LaneIndices(const std::int32_t* run, int count, int (&index)[L]) {
#if DUCTILE_CELL_BATCH
  const __m256i used = _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  const __m256i lanes = _mm256_maskload_epi32(run, used);
  _mm256_store_si256(reinterpret_cast<__m256i*>(index), _mm256_blendv_epi8(_mm256_set1_epi32(run[0]), lanes, used));
#else
  for (int l = 0; l < L; ++l) index[l] = run[l < count ? l : 0];
#endif
}

// N grid nodes from node `node` of the block in storage slot `slot` (zeros when the slot is −1) to `to`; N is a
// constant, so the copy unrolls.
template <int N>
void CopyRun(const std::vector<Float4>& nodes, std::int32_t slot, std::size_t node, Float4* to) {
  if (slot < 0) {
    for (int n = 0; n < N; ++n) to[n] = ZeroFloat4();
  } else {
    const Float4* from = nodes.data() + static_cast<std::size_t>(slot) * kBlockNodes + node;
    for (int n = 0; n < N; ++n) to[n] = from[n];
  }
}

// What every phase of one block's pass reads: the pass, the substep, the grid's geometry, the particles and the
// block's windows.
struct BlockPass {
  TransferKind kind;
  float dt;
  float h;
  float inv_h;
  Vec3f origin;
  float max_base_f[3];  // the largest stencil base per axis, + ½ (the bound of ClampedGridCoordinate)
  float max_speed2;     // one cell per substep
  float stress_scale;   // A = m C + stress_scale V⁰ τ
  int o[3];             // grid node of the windows' node 0
  const MaterialParams* materials;
  Particles& particles;
  TransferCache& cache;
  // Cloth pins (null when the model has none): per particle by its index at t = 0 its pin group or −1, per group
  // where its vertices are at the end of this gather, and the particles' initial positions.
  const std::int32_t* pin_group_of_id = nullptr;
  const PinTarget* pin_targets = nullptr;
  const std::array<float, 3>* x0 = nullptr;
  std::vector<PinImpulse>* pin_impulses = nullptr;  // this block's pinned vertices' impulses m (v_pin − v)
  const Float4* in = nullptr;                       // gather: the block's copy of the grid window
  Float4* out = nullptr;                            // scatter: the block's window, all zero before the pass
  std::vector<EscapedParticle>* escaped = nullptr;  // scatter: its particles that left its reach

  // Whether a stencil base (grid node) fits the window: 0 ≤ base − o ≤ kWindowEdge − 3 on every axis.
  bool InReach(int x, int y, int z) const {
    constexpr unsigned kReach = kWindowEdge - 3;
    return static_cast<unsigned>(x - o[0]) <= kReach && static_cast<unsigned>(y - o[1]) <= kReach &&
           static_cast<unsigned>(z - o[2]) <= kReach;
  }
#if !DUCTILE_CELL_BATCH
  float GridCoordinate(float x, int a) const {
    return ClampedGridCoordinate(x, origin[a], inv_h, max_base_f[a]);
  }
#endif
  // x̂ − cell per axis of lanes whose stencil base is `cell` (the stencil offsets LocateStencil gives), from their
  // positions x.
  void CellOffsets(const float (&x)[3][L], const std::array<int, 3>& cell, float (&fx)[3][L]) const {
    for (int a = 0; a < 3; ++a) {
#if DUCTILE_CELL_BATCH
      CellOffsetBatch(x[a], origin[a], inv_h, max_base_f[a], cell[a], fx[a]);
#else
      for (int l = 0; l < L; ++l) fx[a][l] = GridCoordinate(x[a][l], a) - static_cast<float>(cell[a]);
#endif
    }
  }
};

// One run: up to L particles of the block with the same stencil base `cell` (a run of the sort by cell), one per
// lane. The padding lanes (from `count` on) repeat lane 0's particle, then rest (RestPaddingLanes). Lane arrays are
// written and read whole-lane (SIMD) where the compiler can: a vector load of lanes just written one by one waits
// for the stores to reach the cache (a store-forwarding stall), a dozen cycles each.
struct RunLanes {
  std::array<int, 3> cell;
  int count;
  std::int32_t material0;  // lane 0's material
  bool one_material;       // every lane's material is material0 (nearly always: one object fills the cell)
  alignas(32) int particle[L];
  alignas(32) float v[3][L];
  alignas(32) float c[3][3][L];
  alignas(32) float f[9][L];
  alignas(32) int base[3][L];  // the stencil base of the scatter (after a gather, that of the new position)
  alignas(32) float fx[3][L];  // x̂ − base
};

// The grid nodes the gather reads: a copy of the 8x8x8 window of the block at block coordinates bc from the (up to)
// 27 blocks it covers. Blocks that are not active (or outside the table) read as zero: no particle's stencil
// touches them.
[[gnu::always_inline]] inline void CopyGatherWindow(const SparseGrid& grid, const std::array<int, 3>& bc, Float4* in) {
  std::int32_t slots[3][3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) {
        const std::int32_t block = grid.LinearBlockOrNone(bc[0] + i - 1, bc[1] + j - 1, bc[2] + k - 1);
        slots[i][j][k] = block < 0 ? -1 : grid.Slot(block);
      }
  // Window node w along an axis is block-local node w − 1: block offset (w + 3) / 4 − 1 ∈ {−1, 0, 1}. Along k a
  // row of the window is three runs of consecutive nodes, one from each block: node 3 of block −1, nodes 0-3
  // of block 0, nodes 0-2 of block +1.
  static_assert(kWindowMargin == 1 && kWindowEdge == kBlockEdge + 4);
  constexpr int kRunBegin[3] = {0, kWindowMargin, kWindowMargin + kBlockEdge};
  constexpr int kRunLength[3] = {kWindowMargin, kBlockEdge, kWindowEdge - kWindowMargin - kBlockEdge};
  constexpr int kRunLocal[3] = {kBlockEdge - kWindowMargin, 0, 0};
  for (int i = 0; i < kWindowEdge; ++i) {
    const int bi = (i + kBlockEdge - kWindowMargin) / kBlockEdge, li = (i + kBlockEdge - kWindowMargin) % kBlockEdge;
    for (int j = 0; j < kWindowEdge; ++j) {
      const int bj = (j + kBlockEdge - kWindowMargin) / kBlockEdge, lj = (j + kBlockEdge - kWindowMargin) % kBlockEdge;
      Float4* row = in + WindowIndex(i, j, 0);
      const std::size_t first = static_cast<std::size_t>(NodeInBlock(li, lj, 0));
      CopyRun<kRunLength[0]>(grid.nodes_data, slots[bi][bj][0], first + kRunLocal[0], row + kRunBegin[0]);
      CopyRun<kRunLength[1]>(grid.nodes_data, slots[bi][bj][1], first + kRunLocal[1], row + kRunBegin[1]);
      CopyRun<kRunLength[2]>(grid.nodes_data, slots[bi][bj][2], first + kRunLocal[2], row + kRunBegin[2]);
    }
  }
}

// The run that starts at sorted position q0 (of a block whose particles end at `end`): its cell and length.
[[gnu::always_inline]] inline void FindRun(const BlockPass& pass, const std::int32_t* order, int q0, int end,
                                           RunLanes& lanes) {
  const std::vector<std::array<int, 3>>& base = pass.cache.base;
  lanes.cell = base[order[q0]];
  int count = 1;
  while (count < L && q0 + count < end && SameCell(base[order[q0 + count]], lanes.cell)) ++count;
  lanes.count = count;
}

// The records of the particle at sorted position `ahead` and the next ones, towards the cache (the sort keeps a
// block's particles together in memory, and the pass reads them in that order).
[[gnu::always_inline]] inline void PrefetchRecords(const BlockPass& pass, const std::int32_t* order, int ahead) {
  if (ahead >= static_cast<int>(pass.particles.size())) return;
  const int p = order[ahead];
  const auto fetch = [](const void* address, std::size_t bytes) {
    for (std::size_t offset = 0; offset < bytes; offset += 64)
      __builtin_prefetch(static_cast<const char*>(address) + offset);
  };
  fetch(&pass.particles.F[p], L * sizeof(Mat3f));
  fetch(&pass.particles.x[p], L * sizeof(Vec3f));
  fetch(&pass.cache.base[p], L * sizeof(pass.cache.base[0]));
  fetch(&pass.particles.mass[p], L * sizeof(float));
  fetch(&pass.particles.volume[p], L * sizeof(float));
  fetch(&pass.particles.material[p], L * sizeof(std::int32_t));
}

// The run's particle per lane (`run`: its sorted indices), and whether they share one material: then one lookup
// serves all.
[[gnu::always_inline]] inline void IndexLanes(const BlockPass& pass, const std::int32_t* run, RunLanes& lanes) {
  LaneIndices(run, lanes.count, lanes.particle);
  lanes.material0 = pass.particles.material[lanes.particle[0]];
  const std::int32_t* particle_material = pass.particles.material.data();
  int other_materials = 0;  // the padding lanes repeat lane 0's particle
#pragma omp simd reduction(| : other_materials)
  for (int l = 0; l < L; ++l) other_materials |= particle_material[lanes.particle[l]] != lanes.material0 ? 1 : 0;
  lanes.one_material = other_materials == 0;
}

// Padding lanes (from `count` on) rest: zero velocity and C, F the identity.
[[gnu::always_inline]] inline void RestPaddingLanes(RunLanes& lanes) {
  const int count = lanes.count;
  if (count == L) return;
  for (int r = 0; r < 3; ++r) {
#pragma omp simd
    for (int l = 0; l < L; ++l) lanes.v[r][l] = l < count ? lanes.v[r][l] : 0.0f;
    for (int k = 0; k < 3; ++k)
#pragma omp simd
      for (int l = 0; l < L; ++l) lanes.c[r][k][l] = l < count ? lanes.c[r][k][l] : 0.0f;
  }
  for (int e = 0; e < 9; ++e)
#pragma omp simd
    for (int l = 0; l < L; ++l) lanes.f[e][l] = l < count ? lanes.f[e][l] : (e % 4 == 0 ? 1.0f : 0.0f);
}

// G2P of the lanes' v and C from the window around the run's cell, for lanes at positions x: as one SIMD batch
// where AVX2 is available, else one by one. The padding lanes repeat lane 0's particle, so every lane has a valid
// stencil (results ignored).
[[gnu::always_inline]] inline void GatherVelocities(const BlockPass& pass, const float (&x)[3][L], RunLanes& lanes) {
  const std::array<int, 3>& cell = lanes.cell;
  const Float4* corner = pass.in + WindowIndex(cell[0] - pass.o[0], cell[1] - pass.o[1], cell[2] - pass.o[2]);
  alignas(32) float fx[3][L];
  pass.CellOffsets(x, cell, fx);
#if DUCTILE_CELL_BATCH
  static_assert(kCellBatch == L);
  CellBatchStencil batch;
  CellBatchWeights(fx, pass.h, batch);
  GatherCellBatch(batch, corner, pass.inv_h, lanes.v, lanes.c);
#else
  for (int l = 0; l < L; ++l) {
    Vec3f vp;
    Mat3f Cp;
    Stencil s;
    for (int a = 0; a < 3; ++a) s.base[a] = cell[a];
    s.fx = Vec3f{fx[0][l], fx[1][l], fx[2][l]};
    StencilWeights(s);
    GatherParticle(
        s, pass.h, pass.inv_h, [corner](int di, int dj, int dk) { return corner[WindowIndex(di, dj, dk)]; }, vp, Cp);
    for (int r = 0; r < 3; ++r) {
      lanes.v[r][l] = vp[r];
      for (int k = 0; k < 3; ++k) lanes.c[r][k][l] = Cp.m[r][k];
    }
  }
#endif
}

// x += Δt v, and the stencil of the new position (LocateStencil: base and offsets, for the scatter, the next sort
// and the next transfers).
[[gnu::always_inline]] inline void Advect(const BlockPass& pass, float (&x)[3][L], RunLanes& lanes) {
  for (int a = 0; a < 3; ++a) {
#pragma omp simd
    for (int l = 0; l < L; ++l) x[a][l] += lanes.v[a][l] * pass.dt;
#if DUCTILE_CELL_BATCH
    LocateCellBatch(x[a], pass.origin[a], pass.inv_h, pass.max_base_f[a], lanes.base[a], lanes.fx[a]);
#else
    for (int l = 0; l < L; ++l) {
      const float xg = pass.GridCoordinate(x[a][l], a);
      lanes.base[a][l] = static_cast<int>(std::floor(xg - 0.5f));
      lanes.fx[a][l] = xg - static_cast<float>(lanes.base[a][l]);
    }
#endif
  }
}

// Pinned cloth vertices (Model::pin_groups) that their group still holds: at their initial position plus the group's
// offset, moving with it (C = 0), whatever the grid said; their stencil follows. Nothing to do for runs of other
// materials.
[[gnu::always_inline]] inline void ApplyPins(const BlockPass& pass, float (&x)[3][L], RunLanes& lanes) {
  if (pass.pin_group_of_id == nullptr) return;
  if (lanes.one_material && pass.materials[lanes.material0].model != MaterialModel::kCloth) return;
  for (int l = 0; l < lanes.count; ++l) {
    const std::int32_t id = pass.particles.id[lanes.particle[l]];
    const std::int32_t group = pass.pin_group_of_id[id];
    if (group < 0 || !pass.pin_targets[group].holds) continue;
    const PinTarget& target = pass.pin_targets[group];
    const float m = pass.particles.mass[lanes.particle[l]];
    pass.pin_impulses->push_back(
        {group, Vec3f{m * (target.velocity.x - lanes.v[0][l]), m * (target.velocity.y - lanes.v[1][l]),
                      m * (target.velocity.z - lanes.v[2][l])}});
    for (int a = 0; a < 3; ++a) {
      x[a][l] = pass.x0[id][a] + target.offset[a];
      lanes.v[a][l] = target.velocity[a];
      for (int k = 0; k < 3; ++k) lanes.c[a][k][l] = 0.0f;
      const float xg = ClampedGridCoordinate(x[a][l], pass.origin[a], pass.inv_h, pass.max_base_f[a]);
      lanes.base[a][l] = static_cast<int>(std::floor(xg - 0.5f));
      lanes.fx[a][l] = xg - static_cast<float>(lanes.base[a][l]);
    }
  }
}

// F ← (I + Δt C) F (UpdateDeformationGradient): G = I + Δt C, F ← G F, lane by lane in SIMD (whole-lane loops,
// which the compiler vectorises), one column of F at a time in place. Then each lane's speed² and det F, for the
// checks.
[[gnu::always_inline]] inline void UpdateDeformation(const BlockPass& pass, RunLanes& lanes, float (&speed2)[L],
                                                     float (&det)[L]) {
  const float dt = pass.dt;
  float(&f)[9][L] = lanes.f;
  const float(&v)[3][L] = lanes.v;
  alignas(32) float g[9][L];
  for (int e = 0; e < 9; ++e)
#pragma omp simd
    for (int l = 0; l < L; ++l) g[e][l] = lanes.c[e / 3][e % 3][l] * dt + (e % 4 == 0 ? 1.0f : 0.0f);
  for (int j = 0; j < 3; ++j)
#pragma omp simd
    for (int l = 0; l < L; ++l) {
      const float f0 = f[j][l], f1 = f[3 + j][l], f2 = f[6 + j][l];
      for (int i = 0; i < 3; ++i) f[3 * i + j][l] = g[3 * i][l] * f0 + g[3 * i + 1][l] * f1 + g[3 * i + 2][l] * f2;
    }
#pragma omp simd
  for (int l = 0; l < L; ++l) {
    speed2[l] = v[0][l] * v[0][l] + v[1][l] * v[1][l] + v[2][l] * v[2][l];
    det[l] = f[0][l] * (f[4][l] * f[8][l] - f[5][l] * f[7][l]) - f[1][l] * (f[3][l] * f[8][l] - f[5][l] * f[6][l]) +
             f[2][l] * (f[3][l] * f[7][l] - f[4][l] * f[6][l]);
  }
}

// The plasticity return maps, lane by lane, of the lanes whose material has one. They read the F before this
// substep's update, still stored, and leave the returned F in the lanes: stored next, and the stress sees it.
[[gnu::always_inline]] inline void ReturnMaps(const BlockPass& pass, RunLanes& lanes) {
  if (lanes.one_material && pass.materials[lanes.material0].model == MaterialModel::kFixedCorotated) return;
  Particles& particles = pass.particles;
  for (int l = 0; l < lanes.count; ++l) {
    const int p = lanes.particle[l];
    const MaterialParams& material = pass.materials[particles.material[p]];
    if (material.model == MaterialModel::kFixedCorotated) continue;
    Mat3f F;
    for (int e = 0; e < 9; ++e) F.m[e / 3][e % 3] = lanes.f[e][l];
    if (ReusesRotation(material)) {
      particles.plastic_strain[p] +=
          LinearCorotated<float>{material.mu, material.lambda, material.yield_stress}.ReturnMap(pass.cache.rotations[p],
                                                                                                F);
    } else {
      particles.plastic_strain[p] += ReturnMap(material, particles.F[p], F);
    }
    for (int e = 0; e < 9; ++e) lanes.f[e][l] = F.m[e / 3][e % 3];
  }
}

// The checks over the used lanes: kDiverged when one moved more than a cell or its F is not finite (the negated
// comparison is also true for NaN), kEscaped when one's new stencil base left the block's reach.
[[gnu::always_inline]] inline int CheckLanes(const BlockPass& pass, const RunLanes& lanes, const float (&speed2)[L],
                                             const float (&det)[L]) {
  const int count = lanes.count;
  int diverged_lanes = 0, escaped_lanes = 0;
#pragma omp simd reduction(| : diverged_lanes, escaped_lanes)
  for (int l = 0; l < L; ++l) {
    const int used = l < count ? 1 : 0;
    diverged_lanes |= used & ((!(speed2[l] <= pass.max_speed2) || !std::isfinite(det[l])) ? 1 : 0);
    escaped_lanes |= used & (pass.InReach(lanes.base[0][l], lanes.base[1][l], lanes.base[2][l]) ? 0 : 1);
  }
  return (diverged_lanes ? kDiverged : 0) | (escaped_lanes ? kEscaped : 0);
}

// The gathered lanes (positions x) back into the particles' records. A fused pass uses v and C from the lanes (the
// next gather overwrites them), so only a pass whose state is read before the next gather stores them
// (StoresState); v also where a particle left its block's reach (the one-by-one scatter reads it) or diverged (the
// message reads it): the run's `flags`.
[[gnu::always_inline]] inline void StoreGathered(const BlockPass& pass, const float (&x)[3][L], const RunLanes& lanes,
                                                 int flags) {
  Particles& particles = pass.particles;
  const int count = lanes.count;
  StoreLanes(x, &particles.x[0].x, 3, lanes.particle, count);
  StoreLanes(lanes.f, &particles.F[0].m[0][0], 9, lanes.particle, count);
  StoreLanes(lanes.base, pass.cache.base[0].data(), 3, lanes.particle, count);
  const bool store_state = StoresState(pass.kind);
  if (store_state || flags != 0) StoreLanes(lanes.v, &particles.v[0].x, 3, lanes.particle, count);
  if (store_state)
    StoreLanes(reinterpret_cast<const float(&)[9][L]>(lanes.c), &particles.C[0].m[0][0], 9, lanes.particle, count);
}

// G2P of one run: the gather, the position, stencil and F updates, the return maps, the checks and the stores.
// Returns the run's flags (kDiverged, kEscaped).
[[gnu::always_inline]] inline int GatherRun(const BlockPass& pass, RunLanes& lanes) {
  alignas(32) float x[3][L];
  LoadLanes(&pass.particles.x[0].x, 3, lanes.particle, x);
  GatherVelocities(pass, x, lanes);
  LoadLanes(&pass.particles.F[0].m[0][0], 9, lanes.particle, lanes.f);
  RestPaddingLanes(lanes);
  Advect(pass, x, lanes);
  ApplyPins(pass, x, lanes);
  alignas(32) float speed2[L];
  alignas(32) float det[L];
  UpdateDeformation(pass, lanes, speed2, det);
  ReturnMaps(pass, lanes);
  const int flags = CheckLanes(pass, lanes, speed2, det);
  StoreGathered(pass, x, lanes, flags);
  return flags;
}

// The lanes of a P2G on its own, from the particles' stored state; every lane's stencil base is the run's cell.
[[gnu::always_inline]] inline void LoadStoredLanes(const BlockPass& pass, RunLanes& lanes) {
  const Particles& particles = pass.particles;
  alignas(32) float x[3][L];
  LoadLanes(&particles.x[0].x, 3, lanes.particle, x);
  LoadLanes(&particles.v[0].x, 3, lanes.particle, lanes.v);
  LoadLanes(&particles.C[0].m[0][0], 9, lanes.particle, reinterpret_cast<float(&)[9][L]>(lanes.c));
  LoadLanes(&particles.F[0].m[0][0], 9, lanes.particle, lanes.f);
  pass.CellOffsets(x, lanes.cell, lanes.fx);
  for (int l = 0; l < L; ++l)
    for (int a = 0; a < 3; ++a) lanes.base[a][l] = lanes.cell[a];
  RestPaddingLanes(lanes);
}

// A lane's constitutive kind in the stress: the fixed corotated and the plastic linear corotated lanes go through
// their SIMD batches, the others one by one; 0 marks a padding lane.
enum LaneKind : int { kFixed = 1, kLinear = 2, kOther = 4 };

int KindOf(const MaterialParams& m) {
  return m.model == MaterialModel::kFixedCorotated ? kFixed : ReusesRotation(m) ? kLinear : kOther;
}

// The lanes' materials, as the stress reads them.
struct MaterialLanes {
  alignas(32) int kind[L];  // LaneKind; 0 in padding lanes
  int kinds;                // the kinds of the used lanes, or-ed
  alignas(32) float two_mu[L];
  alignas(32) float lambda[L];
  const MaterialParams* material[L];
};

[[gnu::always_inline]] inline void LaneMaterials(const BlockPass& pass, const RunLanes& lanes, MaterialLanes& out) {
  const int count = lanes.count;
  if (lanes.one_material) {
    const MaterialParams& m = pass.materials[lanes.material0];
    const int k = KindOf(m);
    const float two_mu0 = 2.0f * m.mu, lambda0 = m.lambda;
    out.kinds = k;
#pragma omp simd
    for (int l = 0; l < L; ++l) {
      out.kind[l] = l < count ? k : 0;
      out.two_mu[l] = two_mu0;
      out.lambda[l] = lambda0;
    }
    for (int l = 0; l < L; ++l) out.material[l] = &m;
    return;
  }
  out.kinds = 0;
  for (int l = 0; l < L; ++l) {
    const MaterialParams& m = pass.materials[pass.particles.material[lanes.particle[l]]];
    out.material[l] = &m;
    out.kind[l] = l < count ? KindOf(m) : 0;
    out.kinds |= out.kind[l];
    out.two_mu[l] = 2.0f * m.mu;
    out.lambda[l] = m.lambda;
  }
}

// The Kirchhoff stresses of the lanes of kind `batch` (kFixed or kLinear) through its SIMD batch, the other lanes
// set to the identity (a fixed point of the rotation's iteration) and ignored. The linear corotated lanes keep
// their rotation R₀ for the return map of the coming G2P.
[[gnu::always_inline]] inline void BatchStress(const BlockPass& pass, const RunLanes& lanes, const MaterialLanes& m,
                                               int batch, float (&tau)[9][L]) {
  const int count = lanes.count;
  alignas(32) float two_mu[L], lam[L], fb[9][L];
  const bool all = m.kinds == batch;  // every used lane is of this kind: f as it is
#pragma omp simd
  for (int l = 0; l < L; ++l) {
    const bool mine = all ? l < count : m.kind[l] == batch;
    two_mu[l] = mine ? m.two_mu[l] : 0.0f;
    lam[l] = mine ? m.lambda[l] : 0.0f;
  }
  if (!all)
    for (int e = 0; e < 9; ++e)
#pragma omp simd
      for (int l = 0; l < L; ++l) fb[e][l] = m.kind[l] == batch ? lanes.f[e][l] : (e % 4 == 0 ? 1.0f : 0.0f);
  const float(&fl)[9][L] = all ? lanes.f : fb;
  if (batch == kFixed && all) {
    FixedCorotatedKirchhoffLanes(fl, two_mu, lam, count, tau);
    return;
  }
  alignas(32) float tb[9][L], r0[9][L];
  if (batch == kFixed) {
    FixedCorotatedKirchhoffLanes(fl, two_mu, lam, count, tb);
  } else {
    LinearCorotatedKirchhoffLanes(fl, two_mu, lam, count, r0, tb);
  }
  for (int l = 0; l < count; ++l) {
    if (m.kind[l] != batch) continue;
    for (int e = 0; e < 9; ++e) tau[e][l] = tb[e][l];
    if (batch == kLinear)
      for (int e = 0; e < 9; ++e) pass.cache.rotations[lanes.particle[l]].m[e / 3][e % 3] = r0[e][l];
  }
}

// The Kirchhoff stresses τ of the run's lanes: the fixed corotated and the plastic linear corotated lanes each
// through their SIMD batch, the lanes of other materials one by one (KirchhoffStress). Zero in the padding lanes,
// which have zero mass and volume: 0·τ must not meet stale stack contents (a NaN). A batch of fixed corotated lanes
// alone writes every lane itself.
[[gnu::always_inline]] inline void KirchhoffStresses(const BlockPass& pass, const RunLanes& lanes,
                                                     const MaterialLanes& m, float (&tau)[9][L]) {
  if (m.kinds != kFixed)
    for (auto& row : tau)
      for (float& t : row) t = 0.0f;
  for (const int batch : {kFixed, kLinear})
    if (m.kinds & batch) BatchStress(pass, lanes, m, batch, tau);
  if (!(m.kinds & kOther)) return;
  for (int l = 0; l < lanes.count; ++l) {
    if (m.kind[l] != kOther) continue;
    const int p = lanes.particle[l];
    Mat3f C;
    for (int r = 0; r < 3; ++r)
      for (int k = 0; k < 3; ++k) C.m[r][k] = lanes.c[r][k][l];
    const Mat3f t = KirchhoffStress(*m.material[l], pass.particles.F[p], C);
    for (int e = 0; e < 9; ++e) tau[e][l] = t.m[e / 3][e % 3];
  }
}

// What the scatter takes per lane; zero in padding lanes.
struct MomentumLanes {
  alignas(32) float mass[1][L];
  alignas(32) float mv[3][L];    // m v: feeds the SIMD batch only (the particle-at-a-time scatter takes m and v)
  alignas(32) float A[3][3][L];  // the affine momentum
};

// The lanes' masses, m v and A = m C − Δt V⁰ (4/h²) τ (AffineMomentum).
[[gnu::always_inline]] inline void AffineMomenta(const BlockPass& pass, const RunLanes& lanes, const float (&tau)[9][L],
                                                 MomentumLanes& out) {
  const int count = lanes.count;
  float(&mass)[1][L] = out.mass;
  alignas(32) float volume[1][L];
  LoadLanes(pass.particles.mass.data(), 1, lanes.particle, mass);
  LoadLanes(pass.particles.volume.data(), 1, lanes.particle, volume);
#pragma omp simd
  for (int l = 0; l < L; ++l) {
    mass[0][l] = l < count ? mass[0][l] : 0.0f;
    volume[0][l] = l < count ? volume[0][l] : 0.0f;
  }
#pragma omp simd
  for (int l = 0; l < L; ++l) {
    const float s = pass.stress_scale * volume[0][l];
    for (int r = 0; r < 3; ++r) {
      out.mv[r][l] = mass[0][l] * lanes.v[r][l];
      for (int k = 0; k < 3; ++k) out.A[r][k][l] = mass[0][l] * lanes.c[r][k][l] + s * tau[3 * r + k][l];
    }
  }
}

#if DUCTILE_CELL_BATCH
// The run's scatter as one SIMD batch, when its particles (almost always) still share a base within the block's
// reach; a run of one or two costs less one particle at a time. Returns whether it scattered.
[[gnu::always_inline]] inline bool ScatterBatch(const BlockPass& pass, RunLanes& lanes, const MomentumLanes& m) {
  const int count = lanes.count;
  const int base0[3] = {lanes.base[0][0], lanes.base[1][0], lanes.base[2][0]};
  int other_bases = 0;
#pragma omp simd reduction(| : other_bases)
  for (int l = 0; l < L; ++l)
    other_bases |=
        l < count && (lanes.base[0][l] != base0[0] || lanes.base[1][l] != base0[1] || lanes.base[2][l] != base0[2]) ? 1
                                                                                                                    : 0;
  constexpr int kMinBatch = 3;
  if (other_bases != 0 || count < kMinBatch || !pass.InReach(base0[0], base0[1], base0[2])) return false;
  // The padding lanes take lane 0's offsets (whole-lane, so the weights' vector loads do not wait on scalar
  // stores).
  for (int a = 0; a < 3; ++a)
#pragma omp simd
    for (int l = 0; l < L; ++l) lanes.fx[a][l] = l < count ? lanes.fx[a][l] : lanes.fx[a][0];
  CellBatchStencil s;
  CellBatchWeights(lanes.fx, pass.h, s);
  ScatterCellBatch(s, m.mass[0], m.mv, m.A,
                   pass.out + WindowIndex(base0[0] - pass.o[0], base0[1] - pass.o[1], base0[2] - pass.o[2]));
  return true;
}
#endif

// The run's scatter one particle at a time (ScatterParticle). A particle that left the block's reach waits, with
// its A, for the scatter straight onto the grid after the windows are summed; then it returns kEscaped.
[[gnu::always_inline]] inline int ScatterParticles(const BlockPass& pass, const RunLanes& lanes,
                                                   const MomentumLanes& m) {
  int flags = 0;
  for (int l = 0; l < lanes.count; ++l) {
    Mat3f Al;
    for (int r = 0; r < 3; ++r)
      for (int k = 0; k < 3; ++k) Al.m[r][k] = m.A[r][k][l];
    if (!pass.InReach(lanes.base[0][l], lanes.base[1][l], lanes.base[2][l])) {
      pass.escaped->push_back({lanes.particle[l], Al});
      flags |= kEscaped;
      continue;
    }
    Stencil s;
    for (int a = 0; a < 3; ++a) {
      s.base[a] = lanes.base[a][l];
      s.fx[a] = lanes.fx[a][l];
    }
    StencilWeights(s);
    Float4* corner = pass.out + WindowIndex(s.base[0] - pass.o[0], s.base[1] - pass.o[1], s.base[2] - pass.o[2]);
    ScatterParticle(s, pass.h, m.mass[0][l], Vec3f{lanes.v[0][l], lanes.v[1][l], lanes.v[2][l]}, Al,
                    [corner](int di, int dj, int dk, const Float4& q4) { corner[WindowIndex(di, dj, dk)] += q4; });
  }
  return flags;
}

// P2G of one run: the stresses, the affine momenta and the scatter into the block's window. Returns kEscaped when
// a particle left the block's reach.
[[gnu::always_inline]] inline int ScatterRun(const BlockPass& pass, RunLanes& lanes) {
  MaterialLanes materials;
  LaneMaterials(pass, lanes, materials);
  alignas(32) float tau[9][L];
  KirchhoffStresses(pass, lanes, materials, tau);
  MomentumLanes momentum;
  AffineMomenta(pass, lanes, tau, momentum);
#if DUCTILE_CELL_BATCH
  if (ScatterBatch(pass, lanes, momentum)) return 0;
#endif
  return ScatterParticles(pass, lanes, momentum);
}

}  // namespace

int MpmSolver::TransferBlock(int b, float dt, TransferKind kind) {
  TransferCache& cache = st_->cache;
  const std::array<int, 3> bc = cache.grid.BlockCoords(cache.grid.occupied_block(b));
  alignas(32) Float4 in[kWindowNodes];
  if (Gathers(kind)) CopyGatherWindow(cache.grid, bc, in);
  // The scatter's window is all zero: new windows are value-initialised, and the last reduction zeroed the nodes it
  // summed, which are all a particle can reach (a window node no active block covers lies below the domain's
  // node 0).
  if (Scatters(kind)) escaped_[b].clear();
  BlockPass pass{
      .kind = kind,
      .dt = dt,
      .h = h_,
      .inv_h = inv_h_,
      .origin = origin_,
      .max_base_f = {static_cast<float>(max_base_[0]) + 0.5f, static_cast<float>(max_base_[1]) + 0.5f,
                     static_cast<float>(max_base_[2]) + 0.5f},
      .max_speed2 = (h_ / dt) * (h_ / dt),
      .stress_scale = -dt * 4.0f * inv_h_ * inv_h_,
      .o = {bc[0] * kBlockEdge - kWindowMargin, bc[1] * kBlockEdge - kWindowMargin, bc[2] * kBlockEdge - kWindowMargin},
      .materials = model_->materials.data(),
      .particles = st_->particles,
      .cache = cache,
      .in = in,
      .out = Scatters(kind) ? windows_.data() + static_cast<std::size_t>(b) * kWindowNodes : nullptr,
      .escaped = Scatters(kind) ? &escaped_[b] : nullptr,
  };
  if (!pin_group_of_id_.empty() && Gathers(kind)) {
    pass.pin_group_of_id = pin_group_of_id_.data();
    pass.pin_targets = pin_targets_.data();
    pass.x0 = model_->x0.data();
    pass.pin_impulses = &pin_impulses_[b];
    pin_impulses_[b].clear();
  }
  // Up to eight particles at a time, all with the same stencil base (a run of the sort by cell), one per lane:
  // the gather as one SIMD batch where AVX2 is available (else one by one), then the position, stencil and F
  // updates and the checks in lane loops that the compiler vectorises; the stress and the scatter from the same
  // lanes. Padding lanes hold a resting identity of zero mass.
  const std::int32_t* order = cache.grid.order().data();
  const int end = cache.grid.occupied_begin(b + 1);
  constexpr int kPrefetchAhead = 32;  // particles: about four runs
  int flags = 0;
  int runs = 0;
  for (int q0 = cache.grid.occupied_begin(b); q0 < end;) {
    RunLanes lanes;
    FindRun(pass, order, q0, end, lanes);
    ++runs;
    PrefetchRecords(pass, order, q0 + kPrefetchAhead);
    IndexLanes(pass, order + q0, lanes);
    if (Gathers(kind)) {
      flags |= GatherRun(pass, lanes);
    } else {
      LoadStoredLanes(pass, lanes);
    }
    if (Scatters(kind)) flags |= ScatterRun(pass, lanes);
    q0 += lanes.count;
  }
  cache.block_runs[b] = runs;
  return flags;
}

}  // namespace ductile::mpm
