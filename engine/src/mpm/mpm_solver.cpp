#include "mpm/mpm_solver.h"

#include <tbb/parallel_for.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <sstream>
#include <utility>

#include "mpm/model_views.h"
#include "mpm/transfer_block.h"
#include "mpm/transfer_kernels.h"

namespace ductile::mpm {
namespace {

// values[i] ← values[order[i]] for every i, through `scratch`.
template <typename T>
void Reorder(const std::vector<std::int32_t>& order, std::vector<T>& values, std::vector<T>& scratch) {
  scratch.resize(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) scratch[i] = values[order[i]];
  values.swap(scratch);
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
  pin_targets_.clear();  // the pins as they are at the bound state's time (PinHolds), until the next grid update
  ConfigureForModel();
}

void MpmSolver::ConfigureForModel() {
  grid_params_ = GridUpdateParamsFor(*model_, model_->colliders.data());
  bool plastic_linear_corotated = false;
  for (const MaterialParams& m : model_->materials) plastic_linear_corotated |= ReusesRotation(m);
  st_->cache.rotations.resize(plastic_linear_corotated ? st_->particles.size() : 0);
  ConfigureCloth();
  implicit_cloth_ = IndexImplicitCloth();
  pin_group_of_id_.clear();
  if (!model_->pin_groups.empty()) {
    pin_group_of_id_.assign(model_->num_particles, -1);
    for (std::size_t g = 0; g < model_->pin_groups.size(); ++g)
      for (const std::int32_t id : model_->pin_groups[g].particles) pin_group_of_id_[id] = static_cast<std::int32_t>(g);
  }
}

void InitialParticles(const Model& model, Particles& p) {
  const int n = model.num_particles;
  p.Resize(n);
  for (int i = 0; i < n; ++i) {
    p.x[i] = ToVec3f(model.x0[i]);
    p.v[i] = ToVec3f(model.v0[i]);
    p.F[i] = Mat3f::Identity();
    p.C[i] = Mat3f::Zero();
    p.mass[i] = model.mass[i];
    p.volume[i] = model.volume[i];
    p.plastic_strain[i] = 0;
    p.material[i] = model.material[i];
    p.object[i] = model.object[i];
    p.id[i] = i;
  }
}

void MpmSolver::Reset() {
  InitialParticles(*model_, st_->particles);
  st_->diverged = false;
  st_->contact = {};
  time_ = 0;
  pin_targets_.clear();
  ResetClothNormals();
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
  IndexClothVertices();
  // The first P2G, unless the last Advance's last pass did it for this dt. The grid survives sorts in between (a
  // sort leaves the active blocks and their nodes as they are until the next scatter).
  const bool p2g_done = st_->cache.prepared_dt == dt;
  st_->cache.prepared_dt = 0;
  if (!p2g_done) {
    if (!st_->cache.sort_valid) SortIntoBlocks(&counters);
    counters.sort_seconds += seconds(t0, Clock::now());
    TransferPass(dt, TransferKind::kP2G, counters);
    ++counters.p2g_passes;
  }
  for (int k = 0; k < substeps && !st_->diverged; ++k) {
    t0 = Clock::now();
    counters.active_nodes += UpdateGrid(dt);
    if (grid_hook) grid_hook(dt);
    if (!model_->cloth_elements.empty()) AdvectClothNormals(dt);
    if (!model_->pin_groups.empty()) UpdatePinTargets(time_ + (k + 1) * double(dt));
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
    TransferKind kind = TransferKind::kG2P;  // the last substep, with no P2G to prepare
    // The implicit cloth step reads the vertices' velocities after each gather (cloth_implicit.cpp).
    const bool store = last || grid_hook || implicit_cloth_;
    if (!last || prepare_next_step_) kind = store ? TransferKind::kG2P2GStoringState : TransferKind::kG2P2G;
    TransferPass(dt, kind, counters);
    if (last && prepare_next_step_ && !st_->diverged) st_->cache.prepared_dt = dt;
  }
  time_ += substeps * double(dt);
  return counters;
}

void MpmSolver::TransferPass(float dt, TransferKind kind, SubstepCounters& counters) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point t0 = Clock::now();
  const int num_occupied = st_->cache.grid.num_occupied_blocks();
  const bool scatter = Scatters(kind);
  if (scatter) {
    windows_.resize(static_cast<std::size_t>(num_occupied) * kWindowNodes);
    escaped_.resize(num_occupied);
  }
  st_->cache.block_runs.resize(num_occupied);
  if (!pin_group_of_id_.empty() && Gathers(kind)) pin_impulses_.resize(num_occupied);
  std::atomic<bool> diverged{false};
  std::atomic<bool> escaped{false};
  tbb::parallel_for(tbb::blocked_range<int>(0, num_occupied, 1), [&](const tbb::blocked_range<int>& r) {
    for (int b = r.begin(); b != r.end(); ++b) {
      const int flags = TransferBlock(b, dt, kind);
      if (flags & kDiverged) diverged.store(true, std::memory_order_relaxed);
      if (flags & kEscaped) escaped.store(true, std::memory_order_relaxed);
    }
  });
  const Clock::time_point t1 = Clock::now();
  if (!pin_group_of_id_.empty() && Gathers(kind)) {
    pin_impulse_sums_.resize(model_->pin_groups.size(), {0, 0, 0});
    std::vector<std::array<double, 3>>& absorbed = st_->cache.pin_absorbed;
    for (std::size_t g = 0; g < absorbed.size() && g < pin_impulse_sums_.size(); ++g)
      for (int a = 0; a < 3; ++a) pin_impulse_sums_[g][a] += absorbed[g][a];
    absorbed.clear();
    for (int b = 0; b < num_occupied; ++b)
      for (const PinImpulse& p : pin_impulses_[b])
        for (int a = 0; a < 3; ++a) pin_impulse_sums_[p.group][a] += p.impulse[a];
  }
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
        for (const EscapedParticle& e : escaped_[b]) ScatterToGrid(e.particle, e.affine);
    if (!model_->cloth_elements.empty()) ScatterClothForces(dt);
  }
  const Clock::time_point t2 = Clock::now();
  if (escaped.load()) st_->cache.sort_valid = false;
  if (diverged.load()) st_->diverged = true;
  const double pass = std::chrono::duration<double>(t1 - t0).count();
  const double reduce = std::chrono::duration<double>(t2 - t1).count() - activation_seconds;
  counters.sort_seconds += activation_seconds;
  if (Gathers(kind) && scatter) {
    counters.g2p2g_seconds += pass;
    counters.p2g_seconds += reduce;
  } else if (Gathers(kind)) {
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

std::string DescribeDivergedParticle(const Model& model, const Particles& p) {
  // The first particle with a non-finite state, else the fastest one.
  int worst = -1;
  float worst_speed = -1;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const float speed = Norm(p.v[i]);
    if (!std::isfinite(speed) || !std::isfinite(p.F[i].Determinant())) {
      worst = static_cast<int>(i);
      worst_speed = speed;
      break;
    }
    if (speed > worst_speed) {
      worst = static_cast<int>(i);
      worst_speed = speed;
    }
  }
  if (worst < 0) return "no particle";
  std::ostringstream out;
  const Vec3f& x = p.x[worst];
  out << "object '" << model.objects[p.object[worst]].name << "', particle " << p.id[worst] << " at (" << x.x << ", "
      << x.y << ", " << x.z << ") m, speed " << worst_speed << " m/s";
  return out.str();
}

std::string MpmSolver::DescribeDivergence() const {
  if (!st_->diverged) return {};
  return DescribeDivergedParticle(*model_, st_->particles);
}

}  // namespace ductile::mpm
