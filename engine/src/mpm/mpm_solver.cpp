#include "mpm/mpm_solver.h"

#include <tbb/parallel_for.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <sstream>
#include <utility>

#include "mpm/cell_batch_kernels.h"
#include "mpm/constitutive/constitutive.h"
#include "mpm/constitutive/corotated_batch.h"
#include "mpm/model_views.h"
#include "mpm/transfer_kernels.h"

namespace ductile::mpm {
namespace {

bool SameCell(const std::array<int, 3>& a, const std::array<int, 3>& b) {
  return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}
// Plastic linear corotated materials: the return map (G2P) reuses the rotation R₀ their stress (P2G) computed in
// the same substep.
bool ReusesRotation(const MaterialParams& m) {
  return m.model == MaterialModel::kLinearCorotated && m.yield_stress > 0.0f;
}
constexpr int NodeInBlock(int i, int j, int k) {
  return (i * kBlockEdge + j) * kBlockEdge + k;
}

// TransferBlock's result flags.
constexpr int kDiverged = 1;  // a particle's state became non-finite or it moved more than a cell
constexpr int kEscaped = 2;   // a particle's stencil base left its block's reach: sort before the next gather

// A lane's constitutive kind in TransferBlock: the fixed corotated and the plastic linear corotated lanes go
// through their SIMD batches, the others one by one; 0 marks a padding lane.
enum LaneKind : int { kFixed = 1, kLinear = 2, kOther = 4 };

// out[e][lane] = records[stride · index[lane] + e] for e < N: N consecutive floats of each lane's particle record (a
// Vec3f or a Mat3f of a per-particle array); AVX2 gathers where available.
static_assert(sizeof(Vec3f) == 3 * sizeof(float) && sizeof(Mat3f) == 9 * sizeof(float));
template <int N>
void LoadLanes(const float* records, int stride, const int (&index)[kStressBatch], float (&out)[N][kStressBatch]) {
#if DUCTILE_CELL_BATCH
  static_assert(kCellBatch == kStressBatch);
  GatherLanes(records, stride, index, out);
#else
  for (int e = 0; e < N; ++e)
    for (int l = 0; l < kStressBatch; ++l) out[e][l] = records[stride * index[l] + e];
#endif
}

// The reverse of LoadLanes: records[stride · index[lane] + e] = in[e][lane] for e < N and lanes below `count`; AVX2
// transposes where available.
template <typename T, int N>
void StoreLanes(const T (&in)[N][kStressBatch], T* records, int stride, const int (&index)[kStressBatch], int count) {
#if DUCTILE_CELL_BATCH
  ScatterLanes(in, records, stride, index, count);
#else
  for (int l = 0; l < count; ++l)
    for (int e = 0; e < N; ++e) records[stride * index[l] + e] = in[e][l];
#endif
}

// index[l] = run[l] for the lanes below `count`, run[0] in the others (reads run[0 .. count − 1] only); one
// vector store, so the lanes' gathers can load it at once.
void LaneIndices(const std::int32_t* run, int count, int (&index)[kStressBatch]) {
#if DUCTILE_CELL_BATCH
  const __m256i used = _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  const __m256i lanes = _mm256_maskload_epi32(run, used);
  _mm256_store_si256(reinterpret_cast<__m256i*>(index), _mm256_blendv_epi8(_mm256_set1_epi32(run[0]), lanes, used));
#else
  for (int l = 0; l < kStressBatch; ++l) index[l] = run[l < count ? l : 0];
#endif
}

// values[i] ← values[order[i]] for every i, through `scratch`.
template <typename T>
void Reorder(const std::vector<std::int32_t>& order, std::vector<T>& values, std::vector<T>& scratch) {
  scratch.resize(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) scratch[i] = values[order[i]];
  values.swap(scratch);
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

}  // namespace

MpmSolver::MpmSolver(const Model& model, MpmState& state) : model_(&model), st_(&state) {
  origin_ = ToVec3f(model.grid_origin);
  h_ = model.h;
  inv_h_ = 1.0f / model.h;
  for (int a = 0; a < 3; ++a) max_base_[a] = model.grid_nodes[a] - 3;
  Reset();
}

void MpmSolver::Bind(MpmState& state) {
  st_ = &state;
  ConfigureForModel();
}

void MpmSolver::ConfigureForModel() {
  grid_params_ = GridUpdateParamsFor(*model_, model_->colliders.data());
  bool plastic_linear_corotated = false;
  for (const MaterialParams& m : model_->materials) plastic_linear_corotated |= ReusesRotation(m);
  st_->cache.rotations.resize(plastic_linear_corotated ? st_->particles.size() : 0);
}

void MpmSolver::Reset() {
  const int n = model_->num_particles;
  Particles& p = st_->particles;
  p.Resize(n);
  for (int i = 0; i < n; ++i) {
    p.x[i] = ToVec3f(model_->x0[i]);
    p.v[i] = ToVec3f(model_->v0[i]);
    p.F[i] = Mat3f::Identity();
    p.C[i] = Mat3f::Zero();
    p.mass[i] = model_->mass[i];
    p.volume[i] = model_->volume[i];
    p.plastic_strain[i] = 0;
    p.material[i] = model_->material[i];
    p.object[i] = model_->object[i];
    p.id[i] = i;
  }
  st_->diverged = false;
  st_->cache = TransferCache{};
  st_->cache.grid.Resize(model_->grid_nodes);
  ConfigureForModel();
}

void MpmSolver::SetModel(const Model& model) {
  model_ = &model;
  st_->cache.Invalidate(Invalidation::kModelChanged);  // masses, stresses and R₀ may change
  ConfigureForModel();
  Particles& p = st_->particles;
  for (std::size_t i = 0; i < p.size(); ++i) p.mass[i] = model.mass[p.id[i]];
}

void MpmSolver::ComputeBases() {
  const std::size_t n = st_->particles.size();
  st_->cache.base.resize(n);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 2048), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t p = r.begin(); p != r.end(); ++p) {
      StoreStencil(static_cast<int>(p));
    }
  });
  st_->cache.stencils_current = true;
}

void MpmSolver::StoreStencil(int p) {
  Stencil s;
  LocateStencil(st_->particles.x[p], origin_, inv_h_, max_base_, s);
  st_->cache.base[p] = {s.base[0], s.base[1], s.base[2]};
}

Stencil MpmSolver::ParticleStencil(int p) const {
  Stencil s;
  ComputeStencil(st_->particles.x[p], origin_, inv_h_, max_base_, s);
  return s;
}

void MpmSolver::SortParticlesByBlock() {
  // Nothing to do while the last reorder still holds: no particle has left its block's reach and the runs of
  // particles sharing a cell (the SIMD batches) have not fragmented by more than an eighth.
  const TransferCache& cache = st_->cache;
  if (cache.sort_valid && cache.memory_sorted && cache.runs <= cache.runs_at_reorder + cache.runs_at_reorder / 8)
    return;
  SortIntoBlocks();
  const std::vector<std::int32_t>& order = st_->cache.grid.order();
  GatherParticles(st_->particles, order, scratch_);
  std::swap(st_->particles, scratch_);
  // The stencil bases follow their particles, and so do the rotations R₀ a prepared P2G computed for the coming
  // return map (scratch arrays keep their capacity: no allocation per step).
  Reorder(order, st_->cache.base, base_scratch_);
  if (!st_->cache.rotations.empty()) Reorder(order, st_->cache.rotations, rotations_scratch_);
  st_->cache.grid.AdoptIdentityOrder();
  st_->cache.memory_sorted = true;
  st_->cache.runs_at_reorder = -1;  // the next pass records it
}

void MpmSolver::SortIntoBlocks(SubstepCounters* counters) {
  if (!st_->cache.stencils_current) ComputeBases();
  st_->cache.grid.SortParticles(st_->cache.base);
  st_->cache.sort_valid = true;
  st_->cache.activation_current = false;
  st_->cache.memory_sorted = false;
  if (counters != nullptr) ++counters->sorts;
}

SubstepCounters MpmSolver::Advance(float dt, int substeps, const std::function<void(float)>& grid_hook) {
  using Clock = std::chrono::steady_clock;
  const auto seconds = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  SubstepCounters counters;
  if (substeps < 1) return counters;
  Clock::time_point t0 = Clock::now();
  // The first P2G, unless the last Advance's last pass did it for this dt. The grid survives sorts in between (a
  // sort leaves the active blocks and their nodes as they are until the next scatter).
  const bool p2g_done = st_->cache.prepared_dt == dt;
  st_->cache.prepared_dt = 0;
  if (!p2g_done) {
    if (!st_->cache.sort_valid) SortIntoBlocks(&counters);
    counters.sort_seconds += seconds(t0, Clock::now());
    TransferPass(dt, false, true, false, counters);  // P2G
    ++counters.p2g_passes;
  }
  for (int k = 0; k < substeps && !st_->diverged; ++k) {
    t0 = Clock::now();
    counters.active_nodes += UpdateGrid(dt);
    if (grid_hook) grid_hook(dt);
    counters.grid_seconds += seconds(t0, Clock::now());
    counters.occupied_blocks = st_->cache.grid.num_occupied_blocks();
    counters.active_blocks = st_->cache.grid.num_active_blocks();
    // The gather needs every particle within reach of its block's window.
    t0 = Clock::now();
    if (!st_->cache.sort_valid) SortIntoBlocks(&counters);
    counters.sort_seconds += seconds(t0, Clock::now());
    // G2P of this substep, fused with P2G of the next (that of the next Advance after the last substep). The
    // particles' v and C are stored after the last one, and after each one when the grid hook reads them.
    const bool last = k + 1 == substeps;
    TransferPass(dt, true, !last || prepare_next_step_, last || static_cast<bool>(grid_hook), counters);
    if (last && prepare_next_step_ && !st_->diverged) st_->cache.prepared_dt = dt;
  }
  return counters;
}

void MpmSolver::TransferPass(float dt, bool gather, bool scatter, bool store_state, SubstepCounters& counters) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point t0 = Clock::now();
  const int num_occupied = st_->cache.grid.num_occupied_blocks();
  if (scatter) {
    windows_.resize(static_cast<std::size_t>(num_occupied) * kWindowNodes);
    escaped_.resize(num_occupied);
  }
  st_->cache.block_runs.resize(num_occupied);
  std::atomic<bool> diverged{false};
  std::atomic<bool> escaped{false};
  tbb::parallel_for(tbb::blocked_range<int>(0, num_occupied, 1), [&](const tbb::blocked_range<int>& r) {
    for (int b = r.begin(); b != r.end(); ++b) {
      const int flags = TransferBlock(b, dt, gather, scatter, store_state);
      if (flags & kDiverged) diverged.store(true, std::memory_order_relaxed);
      if (flags & kEscaped) escaped.store(true, std::memory_order_relaxed);
    }
  });
  const Clock::time_point t1 = Clock::now();
  st_->cache.runs = 0;
  for (int b = 0; b < num_occupied; ++b) st_->cache.runs += st_->cache.block_runs[b];
  if (st_->cache.runs_at_reorder < 0) st_->cache.runs_at_reorder = st_->cache.runs;
  double activation_seconds = 0;
  if (scatter) {
    // Sum the windows onto the grid: the active blocks are those of the sort the pass used.
    if (!st_->cache.activation_current) {
      st_->cache.grid.ActivateBlocks();
      st_->cache.activation_current = true;
      activation_seconds = std::chrono::duration<double>(Clock::now() - t1).count();
    }
    tbb::parallel_for(tbb::blocked_range<int>(0, st_->cache.grid.num_active_blocks(), 8),
                      [&](const tbb::blocked_range<int>& r) {
                        for (int slot = r.begin(); slot != r.end(); ++slot) ReduceWindows(slot);
                      });
    // The particles that left their block's reach, one by one in block order (deterministic). They are still
    // within one cell of it, so their nodes lie in active blocks.
    if (escaped.load())
      for (int b = 0; b < num_occupied; ++b)
        for (const Escaped& e : escaped_[b]) ScatterToGrid(e.particle, e.affine);
  }
  const Clock::time_point t2 = Clock::now();
  if (escaped.load()) st_->cache.sort_valid = false;
  if (diverged.load()) st_->diverged = true;
  const double pass = std::chrono::duration<double>(t1 - t0).count();
  const double reduce = std::chrono::duration<double>(t2 - t1).count() - activation_seconds;
  counters.sort_seconds += activation_seconds;
  if (gather && scatter) {
    counters.g2p2g_seconds += pass;
    counters.p2g_seconds += reduce;
  } else if (gather) {
    counters.g2p_seconds += pass;
  } else {
    counters.p2g_seconds += pass + reduce;
  }
}

namespace {

// Adds the part of occupied block B's window that overlaps block A = B − (EX, EY, EZ) to A's nodes and zeroes it
// there, so the window is all zero for the next scatter. B's window starts at its node −1, so A's node n is the
// window's node n + 1 − 4e: with e = −1 the nodes 0-2, with e = 0 all four, with e = +1 node 3 only. The bounds
// are constants, so the loops unroll.
template <int EX, int EY, int EZ>
void AddWindowPart(Float4* window, Float4* nodes) {
  constexpr int lo[3] = {EX == 1 ? kBlockEdge - 1 : 0, EY == 1 ? kBlockEdge - 1 : 0, EZ == 1 ? kBlockEdge - 1 : 0};
  constexpr int hi[3] = {EX == -1 ? kBlockEdge - 1 : kBlockEdge, EY == -1 ? kBlockEdge - 1 : kBlockEdge,
                         EZ == -1 ? kBlockEdge - 1 : kBlockEdge};
  constexpr int shift[3] = {kWindowMargin - kBlockEdge * EX, kWindowMargin - kBlockEdge * EY,
                            kWindowMargin - kBlockEdge * EZ};
  for (int i = lo[0]; i < hi[0]; ++i)
    for (int j = lo[1]; j < hi[1]; ++j)
      for (int k = lo[2]; k < hi[2]; ++k) {
        Float4& from = window[WindowIndex(i + shift[0], j + shift[1], k + shift[2])];
        nodes[NodeInBlock(i, j, k)] += from;
        from = ZeroFloat4();
      }
}

using AddWindowPartFn = void (*)(Float4*, Float4*);
template <std::size_t... I>
constexpr std::array<AddWindowPartFn, 27> MakeAddWindowParts(std::index_sequence<I...>) {
  return {AddWindowPart<static_cast<int>(I / 9) - 1, static_cast<int>(I / 3 % 3) - 1, static_cast<int>(I % 3) - 1>...};
}
// Indexed by (ex + 1)·9 + (ey + 1)·3 + (ez + 1).
constexpr std::array<AddWindowPartFn, 27> kAddWindowPart = MakeAddWindowParts(std::make_index_sequence<27>{});

}  // namespace

void MpmSolver::ReduceWindows(int slot) {
  Float4* nodes = st_->cache.grid.nodes_data.data() + static_cast<std::size_t>(slot) * kBlockNodes;
  for (int n = 0; n < kBlockNodes; ++n) nodes[n] = ZeroFloat4();
  const std::array<int, 3> bc = st_->cache.grid.BlockCoords(st_->cache.grid.active_block(slot));
  // The windows of the occupied blocks bc + e, e ∈ {−1, 0, 1}³, always in this order.
  for (int ex = -1; ex <= 1; ++ex)
    for (int ey = -1; ey <= 1; ++ey)
      for (int ez = -1; ez <= 1; ++ez) {
        const std::int32_t block = st_->cache.grid.LinearBlockOrNone(bc[0] + ex, bc[1] + ey, bc[2] + ez);
        const std::int32_t o = block < 0 ? -1 : st_->cache.grid.OccupiedIndex(block);
        if (o < 0) continue;
        kAddWindowPart[(ex + 1) * 9 + (ey + 1) * 3 + (ez + 1)](
            windows_.data() + static_cast<std::size_t>(o) * kWindowNodes, nodes);
      }
}

void MpmSolver::ScatterToGrid(int p, const Mat3f& affine) {
  const Stencil s = ParticleStencil(p);
  ScatterParticle(s, h_, st_->particles.mass[p], st_->particles.v[p], affine,
                  [&](int di, int dj, int dk, const Float4& q) {
                    const int index = NodeIndex(s.base[0] + di, s.base[1] + dj, s.base[2] + dk);
                    if (index >= 0) st_->cache.grid.nodes_data[index] += q;  // always, unless the particle diverged
                  });
}

int MpmSolver::UpdateGrid(float dt) {
  const int num_active = st_->cache.grid.num_active_blocks();
  node_counts_.assign(num_active, 0);
  GridUpdateParams params = grid_params_;
  params.dt = dt;
  tbb::parallel_for(tbb::blocked_range<int>(0, num_active, 16), [&](const tbb::blocked_range<int>& r) {
    for (int slot = r.begin(); slot != r.end(); ++slot) {
      const std::array<int, 3> bc = st_->cache.grid.BlockCoords(st_->cache.grid.active_block(slot));
      int count = 0;
      for (int i = 0; i < kBlockEdge; ++i)
        for (int j = 0; j < kBlockEdge; ++j)
          for (int k = 0; k < kBlockEdge; ++k) {
            Float4& node = st_->cache.grid.nodes_data[slot * kBlockNodes + NodeInBlock(i, j, k)];
            const float m = node[3];
            if (m > 0) {
              const Vec3f v = UpdateNodeVelocity(params, bc[0] * kBlockEdge + i, bc[1] * kBlockEdge + j,
                                                 bc[2] * kBlockEdge + k, m, Xyz(node));
              node = MakeFloat4(v.x, v.y, v.z, m);
              ++count;
            }
          }
      node_counts_[slot] = count;
    }
  });
  int total = 0;
  for (int c : node_counts_) total += c;
  return total;
}

int MpmSolver::TransferBlock(int b, float dt, bool gather, bool scatter, bool store_state) {
  constexpr int L = kStressBatch;
  const std::int32_t* order = st_->cache.grid.order().data();
  const MaterialParams* materials = model_->materials.data();
  const float max_speed2 = (h_ / dt) * (h_ / dt);  // one cell per substep
  const float max_base_f[3] = {static_cast<float>(max_base_[0]) + 0.5f, static_cast<float>(max_base_[1]) + 0.5f,
                               static_cast<float>(max_base_[2]) + 0.5f};
  const float stress_scale = -dt * 4.0f * inv_h_ * inv_h_;  // A = m C + stress_scale V⁰ τ
  const std::array<int, 3> bc = st_->cache.grid.BlockCoords(st_->cache.grid.occupied_block(b));
  // Grid node of the windows' node 0, and the reach: a stencil base b (grid node) fits the window when
  // 0 ≤ b − o ≤ kWindowEdge − 3 on every axis.
  const int o[3] = {bc[0] * kBlockEdge - kWindowMargin, bc[1] * kBlockEdge - kWindowMargin,
                    bc[2] * kBlockEdge - kWindowMargin};
  constexpr unsigned kReach = kWindowEdge - 3;
  const auto in_reach = [&](int x, int y, int z) {
    return static_cast<unsigned>(x - o[0]) <= kReach && static_cast<unsigned>(y - o[1]) <= kReach &&
           static_cast<unsigned>(z - o[2]) <= kReach;
  };
#if !DUCTILE_CELL_BATCH
  const auto grid_coordinate = [&](float x, int a) {
    return ClampedGridCoordinate(x, origin_[a], inv_h_, max_base_f[a]);
  };
#endif
  // x̂ − cell per axis of lanes whose stencil base is `cell` (the stencil offsets LocateStencil gives), from
  // their positions x.
  const auto cell_offsets = [&](const float(&x)[3][L], const std::array<int, 3>& cell, float(&fx)[3][L]) {
    for (int a = 0; a < 3; ++a) {
#if DUCTILE_CELL_BATCH
      CellOffsetBatch(x[a], origin_[a], inv_h_, max_base_f[a], cell[a], fx[a]);
#else
      for (int l = 0; l < L; ++l) fx[a][l] = grid_coordinate(x[a][l], a) - static_cast<float>(cell[a]);
#endif
    }
  };
  int flags = 0;

  // The grid nodes the gather reads: a copy of the 8x8x8 window from the (up to) 27 blocks it covers. Blocks
  // that are not active (or outside the table) read as zero: no particle's stencil touches them.
  alignas(32) Float4 in[kWindowNodes];
  if (gather) {
    std::int32_t slots[3][3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k) {
          const std::int32_t block = st_->cache.grid.LinearBlockOrNone(bc[0] + i - 1, bc[1] + j - 1, bc[2] + k - 1);
          slots[i][j][k] = block < 0 ? -1 : st_->cache.grid.Slot(block);
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
        const int bj = (j + kBlockEdge - kWindowMargin) / kBlockEdge,
                  lj = (j + kBlockEdge - kWindowMargin) % kBlockEdge;
        Float4* row = in + WindowIndex(i, j, 0);
        const std::size_t first = static_cast<std::size_t>(NodeInBlock(li, lj, 0));
        CopyRun<kRunLength[0]>(st_->cache.grid.nodes_data, slots[bi][bj][0], first + kRunLocal[0], row + kRunBegin[0]);
        CopyRun<kRunLength[1]>(st_->cache.grid.nodes_data, slots[bi][bj][1], first + kRunLocal[1], row + kRunBegin[1]);
        CopyRun<kRunLength[2]>(st_->cache.grid.nodes_data, slots[bi][bj][2], first + kRunLocal[2], row + kRunBegin[2]);
      }
    }
  }
  Float4* out = nullptr;
  if (scatter) {
    // All zero: new windows are value-initialised, and the last reduction zeroed the nodes it summed, which are all
    // a particle can reach (a window node no active block covers lies below the domain's node 0).
    out = windows_.data() + static_cast<std::size_t>(b) * kWindowNodes;
    escaped_[b].clear();
  }

  // Up to eight particles at a time, all with the same stencil base (a run of the sort by cell), one per lane:
  // the gather as one SIMD batch where AVX2 is available (else one by one), then the position, stencil and F
  // updates and the checks in lane loops that the compiler vectorises; the stress and the scatter from the same
  // lanes. Padding lanes hold a resting identity of zero mass.
  const int end = st_->cache.grid.occupied_begin(b + 1);
  const int num_particles = static_cast<int>(st_->particles.size());
  constexpr int kPrefetchAhead = 32;  // particles: about four runs
  int runs = 0;
  for (int q0 = st_->cache.grid.occupied_begin(b); q0 < end;) {
    const std::array<int, 3> cell = st_->cache.base[order[q0]];
    int count = 1;
    while (count < L && q0 + count < end && SameCell(st_->cache.base[order[q0 + count]], cell)) ++count;
    ++runs;
    // The records of the particles a few runs ahead, towards the cache (the sort keeps a block's particles
    // together in memory, and the pass reads them in that order).
    if (const int ahead = q0 + kPrefetchAhead; ahead < num_particles) {
      const int p = order[ahead];
      const auto fetch = [](const void* address, std::size_t bytes) {
        for (std::size_t offset = 0; offset < bytes; offset += 64)
          __builtin_prefetch(static_cast<const char*>(address) + offset);
      };
      fetch(&st_->particles.F[p], L * sizeof(Mat3f));
      fetch(&st_->particles.x[p], L * sizeof(Vec3f));
      fetch(&st_->cache.base[p], L * sizeof(st_->cache.base[0]));
      fetch(&st_->particles.mass[p], L * sizeof(float));
      fetch(&st_->particles.volume[p], L * sizeof(float));
      fetch(&st_->particles.material[p], L * sizeof(std::int32_t));
    }
    // Lane arrays are written and read whole-lane (SIMD) where the compiler can: a vector load of lanes just
    // written one by one waits for the stores to reach the cache (a store-forwarding stall), a dozen cycles each.
    alignas(32) int lane_particle[L];
    LaneIndices(order + q0, count, lane_particle);
    // A run's particles nearly always share one material (one object fills the cell): then one lookup for all.
    const std::int32_t material0 = st_->particles.material[lane_particle[0]];
    const std::int32_t* particle_material = st_->particles.material.data();
    int other_materials = 0;  // the padding lanes repeat lane 0's particle
#pragma omp simd reduction(| : other_materials)
    for (int l = 0; l < L; ++l) other_materials |= particle_material[lane_particle[l]] != material0 ? 1 : 0;
    const bool one_material = other_materials == 0;
    alignas(32) float v[3][L], c[3][3][L], f[9][L];
    alignas(32) int base_lanes[3][L];
    alignas(32) float fx_lanes[3][L];
    // Padding lanes (from `count` on) rest: zero velocity and C, F the identity.
    const auto rest_padding_lanes = [&] {
      if (count == L) return;
      for (int r = 0; r < 3; ++r) {
#pragma omp simd
        for (int l = 0; l < L; ++l) v[r][l] = l < count ? v[r][l] : 0.0f;
        for (int k = 0; k < 3; ++k)
#pragma omp simd
          for (int l = 0; l < L; ++l) c[r][k][l] = l < count ? c[r][k][l] : 0.0f;
      }
      for (int e = 0; e < 9; ++e)
#pragma omp simd
        for (int l = 0; l < L; ++l) f[e][l] = l < count ? f[e][l] : (e % 4 == 0 ? 1.0f : 0.0f);
    };
    if (gather) {
      const Float4* corner = in + WindowIndex(cell[0] - o[0], cell[1] - o[1], cell[2] - o[2]);
      alignas(32) float x[3][L];
      LoadLanes(&st_->particles.x[0].x, 3, lane_particle, x);
      // The padding lanes repeat lane 0's particle, so every lane has a valid stencil (results ignored).
      alignas(32) float fx[3][L];
      cell_offsets(x, cell, fx);
#if DUCTILE_CELL_BATCH
      static_assert(kCellBatch == L);
      {
        CellBatchStencil batch;
        CellBatchWeights(fx, h_, batch);
        GatherCellBatch(batch, corner, inv_h_, v, c);
      }
#else
      for (int l = 0; l < L; ++l) {
        Vec3f vp;
        Mat3f Cp;
        Stencil s;
        for (int a = 0; a < 3; ++a) s.base[a] = cell[a];
        s.fx = Vec3f{fx[0][l], fx[1][l], fx[2][l]};
        StencilWeights(s);
        GatherParticle(
            s, h_, inv_h_, [corner](int di, int dj, int dk) { return corner[WindowIndex(di, dj, dk)]; }, vp, Cp);
        for (int r = 0; r < 3; ++r) {
          v[r][l] = vp[r];
          for (int k = 0; k < 3; ++k) c[r][k][l] = Cp.m[r][k];
        }
      }
#endif
      LoadLanes(&st_->particles.F[0].m[0][0], 9, lane_particle, f);
      rest_padding_lanes();
      // x += Δt v; the stencil of the new position (LocateStencil, for the scatter, the next sort and transfers);
      // F ← (I + Δt C) F (UpdateDeformationGradient) with the speed and finiteness checks.
      for (int a = 0; a < 3; ++a) {
#pragma omp simd
        for (int l = 0; l < L; ++l) x[a][l] += v[a][l] * dt;
#if DUCTILE_CELL_BATCH
        LocateCellBatch(x[a], origin_[a], inv_h_, max_base_f[a], base_lanes[a], fx_lanes[a]);
#else
        for (int l = 0; l < L; ++l) {
          const float xg = grid_coordinate(x[a][l], a);
          base_lanes[a][l] = static_cast<int>(std::floor(xg - 0.5f));
          fx_lanes[a][l] = xg - static_cast<float>(base_lanes[a][l]);
        }
#endif
      }
      // G = I + Δt C, F ← G F, lane by lane in SIMD (whole-lane loops, which the compiler vectorises), one column
      // of F at a time in place.
      alignas(32) float g[9][L];
      for (int e = 0; e < 9; ++e)
#pragma omp simd
        for (int l = 0; l < L; ++l) g[e][l] = c[e / 3][e % 3][l] * dt + (e % 4 == 0 ? 1.0f : 0.0f);
      for (int j = 0; j < 3; ++j)
#pragma omp simd
        for (int l = 0; l < L; ++l) {
          const float f0 = f[j][l], f1 = f[3 + j][l], f2 = f[6 + j][l];
          for (int i = 0; i < 3; ++i) f[3 * i + j][l] = g[3 * i][l] * f0 + g[3 * i + 1][l] * f1 + g[3 * i + 2][l] * f2;
        }
      alignas(32) float det[L];
      alignas(32) float speed2[L];
#pragma omp simd
      for (int l = 0; l < L; ++l) {
        speed2[l] = v[0][l] * v[0][l] + v[1][l] * v[1][l] + v[2][l] * v[2][l];
        det[l] = f[0][l] * (f[4][l] * f[8][l] - f[5][l] * f[7][l]) - f[1][l] * (f[3][l] * f[8][l] - f[5][l] * f[6][l]) +
                 f[2][l] * (f[3][l] * f[7][l] - f[4][l] * f[6][l]);
      }
      // The plasticity return maps, lane by lane, of the lanes whose material has one (they read the F before this
      // substep's update, still stored).
      if (!(one_material && materials[material0].model == MaterialModel::kFixedCorotated)) {
        for (int l = 0; l < count; ++l) {
          const int p = lane_particle[l];
          const MaterialParams& material = materials[st_->particles.material[p]];
          if (material.model == MaterialModel::kFixedCorotated) continue;
          Mat3f F;
          for (int e = 0; e < 9; ++e) F.m[e / 3][e % 3] = f[e][l];
          if (ReusesRotation(material)) {
            st_->particles.plastic_strain[p] +=
                LinearCorotated<float>{material.mu, material.lambda, material.yield_stress}.ReturnMap(
                    st_->cache.rotations[p], F);
          } else {
            st_->particles.plastic_strain[p] += ReturnMap(material, st_->particles.F[p], F);
          }
          for (int e = 0; e < 9; ++e) f[e][l] = F.m[e / 3][e % 3];  // stored below; the stress sees the returned F
        }
      }
      // The checks, over the used lanes. The negated comparison is also true for NaN.
      int diverged_lanes = 0, escaped_lanes = 0;
#pragma omp simd reduction(| : diverged_lanes, escaped_lanes)
      for (int l = 0; l < L; ++l) {
        const int used = l < count ? 1 : 0;
        diverged_lanes |= used & ((!(speed2[l] <= max_speed2) || !std::isfinite(det[l])) ? 1 : 0);
        escaped_lanes |= used & (in_reach(base_lanes[0][l], base_lanes[1][l], base_lanes[2][l]) ? 0 : 1);
      }
      if (diverged_lanes) flags |= kDiverged;
      if (escaped_lanes) flags |= kEscaped;
      // The lanes back into the particles' records. A fused pass uses v and C from the lanes (the next gather
      // overwrites them), so only a pass whose state is read before the next gather stores them (`store_state`);
      // v also where a particle left its block's reach (the one-by-one scatter reads it) or diverged (the
      // message reads it).
      StoreLanes(x, &st_->particles.x[0].x, 3, lane_particle, count);
      StoreLanes(f, &st_->particles.F[0].m[0][0], 9, lane_particle, count);
      StoreLanes(base_lanes, st_->cache.base[0].data(), 3, lane_particle, count);
      if (store_state || escaped_lanes || diverged_lanes)
        StoreLanes(v, &st_->particles.v[0].x, 3, lane_particle, count);
      if (store_state)
        StoreLanes(reinterpret_cast<const float(&)[9][L]>(c), &st_->particles.C[0].m[0][0], 9, lane_particle, count);
    } else {
      // P2G on its own: the lanes from the particles' state; every lane's stencil base is the run's cell.
      alignas(32) float x[3][L];
      LoadLanes(&st_->particles.x[0].x, 3, lane_particle, x);
      LoadLanes(&st_->particles.v[0].x, 3, lane_particle, v);
      LoadLanes(&st_->particles.C[0].m[0][0], 9, lane_particle, reinterpret_cast<float(&)[9][L]>(c));
      LoadLanes(&st_->particles.F[0].m[0][0], 9, lane_particle, f);
      cell_offsets(x, cell, fx_lanes);
      for (int l = 0; l < L; ++l)
        for (int a = 0; a < 3; ++a) base_lanes[a][l] = cell[a];
      rest_padding_lanes();
    }
    if (!scatter) {
      q0 += count;
      continue;
    }

    // Kirchhoff stresses: the fixed corotated lanes and the plastic linear corotated lanes each through their
    // SIMD batch (the other lanes set to the identity, a fixed point of the rotation's iteration, and ignored),
    // the lanes of other materials one by one.
    alignas(32) int kind[L];
    int kinds = 0;
    alignas(32) float mass[1][L], volume[1][L], lane_two_mu[L], lane_lambda[L];
    const MaterialParams* lane_material[L];
    const auto kind_of = [](const MaterialParams& m) {
      return m.model == MaterialModel::kFixedCorotated ? kFixed : ReusesRotation(m) ? kLinear : kOther;
    };
    if (one_material) {
      const MaterialParams& m = materials[material0];
      const int k = kind_of(m);
      const float two_mu0 = 2.0f * m.mu, lambda0 = m.lambda;
      kinds = k;
#pragma omp simd
      for (int l = 0; l < L; ++l) {
        kind[l] = l < count ? k : 0;
        lane_two_mu[l] = two_mu0;
        lane_lambda[l] = lambda0;
      }
      for (int l = 0; l < L; ++l) lane_material[l] = &m;
    } else {
      for (int l = 0; l < L; ++l) {
        const MaterialParams& m = materials[st_->particles.material[lane_particle[l]]];
        lane_material[l] = &m;
        kind[l] = l < count ? kind_of(m) : 0;
        kinds |= kind[l];
        lane_two_mu[l] = 2.0f * m.mu;
        lane_lambda[l] = m.lambda;
      }
    }
    LoadLanes(st_->particles.mass.data(), 1, lane_particle, mass);
    LoadLanes(st_->particles.volume.data(), 1, lane_particle, volume);
#pragma omp simd
    for (int l = 0; l < L; ++l) {
      mass[0][l] = l < count ? mass[0][l] : 0.0f;
      volume[0][l] = l < count ? volume[0][l] : 0.0f;
    }
    // Zero in the padding lanes, which have zero mass and volume: 0·τ must not meet stale stack contents (a NaN).
    // A batch of fixed corotated lanes alone writes every lane itself.
    alignas(32) float tau[9][L];
    if (kinds != kFixed)
      for (auto& row : tau)
        for (float& t : row) t = 0.0f;
    for (const int batch : {kFixed, kLinear}) {
      if (!(kinds & batch)) continue;
      alignas(32) float two_mu[L], lam[L], fb[9][L];
      const bool all = kinds == batch;  // every used lane is of this kind: f as it is
#pragma omp simd
      for (int l = 0; l < L; ++l) {
        const bool mine = all ? l < count : kind[l] == batch;
        two_mu[l] = mine ? lane_two_mu[l] : 0.0f;
        lam[l] = mine ? lane_lambda[l] : 0.0f;
      }
      if (!all)
        for (int e = 0; e < 9; ++e)
#pragma omp simd
          for (int l = 0; l < L; ++l) fb[e][l] = kind[l] == batch ? f[e][l] : (e % 4 == 0 ? 1.0f : 0.0f);
      const float(&fl)[9][L] = all ? f : fb;
      if (batch == kFixed && all) {
        FixedCorotatedKirchhoffLanes(fl, two_mu, lam, count, tau);
        continue;
      }
      alignas(32) float tb[9][L], r0[9][L];
      if (batch == kFixed) {
        FixedCorotatedKirchhoffLanes(fl, two_mu, lam, count, tb);
      } else {
        LinearCorotatedKirchhoffLanes(fl, two_mu, lam, count, r0, tb);
      }
      for (int l = 0; l < count; ++l) {
        if (kind[l] != batch) continue;
        for (int e = 0; e < 9; ++e) tau[e][l] = tb[e][l];
        // The return map of the coming G2P reuses R₀.
        if (batch == kLinear)
          for (int e = 0; e < 9; ++e) st_->cache.rotations[lane_particle[l]].m[e / 3][e % 3] = r0[e][l];
      }
    }
    if (kinds & kOther) {
      for (int l = 0; l < count; ++l) {
        if (kind[l] != kOther) continue;
        const int p = lane_particle[l];
        Mat3f C;
        for (int r = 0; r < 3; ++r)
          for (int k = 0; k < 3; ++k) C.m[r][k] = c[r][k][l];
        const Mat3f t = KirchhoffStress(*lane_material[l], st_->particles.F[p], C);
        for (int e = 0; e < 9; ++e) tau[e][l] = t.m[e / 3][e % 3];
      }
    }
    // A = m C − Δt V⁰ (4/h²) τ and m v per lane (AffineMomentum); zero in padding lanes. (m v feeds the SIMD
    // batch only: the particle-at-a-time scatter takes m and v.)
    alignas(32) float A[3][3][L];
    [[maybe_unused]] alignas(32) float mv[3][L];
#pragma omp simd
    for (int l = 0; l < L; ++l) {
      const float s = stress_scale * volume[0][l];
      for (int r = 0; r < 3; ++r) {
        mv[r][l] = mass[0][l] * v[r][l];
        for (int k = 0; k < 3; ++k) A[r][k][l] = mass[0][l] * c[r][k][l] + s * tau[3 * r + k][l];
      }
    }
#if DUCTILE_CELL_BATCH
    const int base0[3] = {base_lanes[0][0], base_lanes[1][0], base_lanes[2][0]};
    int other_bases = 0;
#pragma omp simd reduction(| : other_bases)
    for (int l = 0; l < L; ++l)
      other_bases |=
          l < count && (base_lanes[0][l] != base0[0] || base_lanes[1][l] != base0[1] || base_lanes[2][l] != base0[2])
              ? 1
              : 0;
    const bool same_base = other_bases == 0;
    // The run's particles (almost always) still share a base: one SIMD batch; a run of one or two costs less one
    // particle at a time.
    constexpr int kMinBatch = 3;
    if (same_base && count >= kMinBatch && in_reach(base_lanes[0][0], base_lanes[1][0], base_lanes[2][0])) {
      // The padding lanes take lane 0's offsets (whole-lane, so the weights' vector loads do not wait on scalar
      // stores).
      for (int a = 0; a < 3; ++a)
#pragma omp simd
        for (int l = 0; l < L; ++l) fx_lanes[a][l] = l < count ? fx_lanes[a][l] : fx_lanes[a][0];
      CellBatchStencil s;
      CellBatchWeights(fx_lanes, h_, s);
      ScatterCellBatch(s, mass[0], mv, A,
                       out + WindowIndex(base_lanes[0][0] - o[0], base_lanes[1][0] - o[1], base_lanes[2][0] - o[2]));
      q0 += count;
      continue;
    }
#endif
    for (int l = 0; l < count; ++l) {
      Mat3f Al;
      for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k) Al.m[r][k] = A[r][k][l];
      if (!in_reach(base_lanes[0][l], base_lanes[1][l], base_lanes[2][l])) {
        escaped_[b].push_back({lane_particle[l], Al});
        flags |= kEscaped;
        continue;
      }
      Stencil s;
      for (int a = 0; a < 3; ++a) {
        s.base[a] = base_lanes[a][l];
        s.fx[a] = fx_lanes[a][l];
      }
      StencilWeights(s);
      Float4* corner = out + WindowIndex(s.base[0] - o[0], s.base[1] - o[1], s.base[2] - o[2]);
      ScatterParticle(s, h_, mass[0][l], Vec3f{v[0][l], v[1][l], v[2][l]}, Al,
                      [corner](int di, int dj, int dk, const Float4& q4) { corner[WindowIndex(di, dj, dk)] += q4; });
    }
    q0 += count;
  }
  st_->cache.block_runs[b] = runs;
  return flags;
}

std::string MpmSolver::DescribeDivergence() const {
  if (!st_->diverged) return {};
  // The first particle with a non-finite state, else the fastest one.
  int worst = -1;
  float worst_speed = -1;
  for (std::size_t p = 0; p < st_->particles.size(); ++p) {
    const float speed = Norm(st_->particles.v[p]);
    if (!std::isfinite(speed) || !std::isfinite(st_->particles.F[p].Determinant())) {
      worst = static_cast<int>(p);
      worst_speed = speed;
      break;
    }
    if (speed > worst_speed) {
      worst = static_cast<int>(p);
      worst_speed = speed;
    }
  }
  std::ostringstream out;
  const Vec3f& x = st_->particles.x[worst];
  out << "object '" << model_->objects[st_->particles.object[worst]].name << "', particle " << st_->particles.id[worst]
      << " at (" << x.x << ", " << x.y << ", " << x.z << ") m, speed " << worst_speed << " m/s";
  return out.str();
}

}  // namespace ductile::mpm
