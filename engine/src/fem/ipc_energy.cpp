// The incremental potential of the FEM–IPC system, its gradient and projected Hessian (the method:
// fem/ipc_system.h): inertia, elasticity, orthogonality, barrier and lagged friction terms.
#include <algorithm>
#include <cmath>
#include <limits>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "fem/affine_body.h"
#include "fem/ipc_barrier.h"
#include "fem/ipc_distance.h"
#include "fem/ipc_system.h"

namespace ductile::fem {

using Eigen::Vector3d;

IpcSystem::PointMap IpcSystem::SoftVertexMap(int vertex) const {
  PointMap m;
  if (soft_dof_[vertex] >= 0) m.count = 1, m.dof[0] = soft_dof_[vertex], m.c[0] = 1;
  return m;
}

IpcSystem::PointMap IpcSystem::SurfacePointMap(int point) const {
  const SurfacePoint& p = points_[point];
  switch (p.kind) {
    case PointKind::kSoft:
      return SoftVertexMap(p.index);
    case PointKind::kAffine: {
      PointMap m;
      m.count = 4;
      const int base = affine_dof_[p.index];
      m.dof = {base, base + 3, base + 6, base + 9};
      m.c = {1, p.x_bar[0], p.x_bar[1], p.x_bar[2]};
      return m;
    }
    case PointKind::kKinematic:
      break;
  }
  PointMap m;
  m.kinematic = p.index;
  return m;
}

template <int N>
void IpcSystem::Scatter(const std::array<PointMap, N>& maps, const Eigen::Matrix<double, 3 * N, 1>& g,
                        const Eigen::Matrix<double, 3 * N, 3 * N>* H, const std::vector<Vector3d>& kinematic_step,
                        Derivative& out) const {
  for (int a = 0; a < N; ++a) {
    const PointMap& ma = maps[a];
    if (ma.kinematic >= 0 && !out.kinematic_gradient.empty())
      out.kinematic_gradient[ma.kinematic] += g.template segment<3>(3 * a);
    for (int i = 0; i < ma.count; ++i) out.gradient.segment<3>(ma.dof[i]) += ma.c[i] * g.template segment<3>(3 * a);
  }
  if (!H) return;
  for (int a = 0; a < N; ++a) {
    const PointMap& ma = maps[a];
    for (int b = 0; b < N; ++b) {
      const PointMap& mb = maps[b];
      const Eigen::Matrix3d block = H->template block<3, 3>(3 * a, 3 * b);
      if (mb.kinematic >= 0 && !kinematic_step.empty()) {
        const Vector3d coupling = block * kinematic_step[mb.kinematic];
        for (int i = 0; i < ma.count; ++i) out.prescribed.segment<3>(ma.dof[i]) -= ma.c[i] * coupling;
      }
      for (int i = 0; i < ma.count; ++i)
        for (int j = 0; j < mb.count; ++j)
          for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
              if (ma.dof[i] + r >= mb.dof[j] + c)  // the lower triangle, as CHOLMOD reads it
                out.hessian.emplace_back(ma.dof[i] + r, mb.dof[j] + c, ma.c[i] * mb.c[j] * block(r, c));
    }
  }
}

void IpcSystem::CollectPairs(const std::vector<Vector3d>& x, const Candidates& candidates,
                             std::vector<ActivePair>& pairs, double& min_distance) const {
  pairs.clear();
  const double s_hat = settings_.dhat * settings_.dhat;
  double min_s = min_distance * min_distance;
  for (const PointTriangleCandidate& c : candidates.point_triangle) {
    const auto& f = surface_.faces[c.face];
    const PointTriangleCase type = ClassifyPointTriangle(x[c.vertex], x[f[0]], x[f[1]], x[f[2]]);
    const double s = PointTriangleDistance(x[c.vertex], x[f[0]], x[f[1]], x[f[2]], type);
    min_s = std::min(min_s, s);
    if (s < s_hat) pairs.push_back({{c.vertex, f[0], f[1], f[2]}, -1, false, static_cast<int>(type), 0, s});
  }
  for (const EdgeEdgeCandidate& c : candidates.edge_edge) {
    const auto& ea = surface_.edges[c.edge_a];
    const auto& eb = surface_.edges[c.edge_b];
    const EdgeEdgeCase type = ClassifyEdgeEdge(x[ea[0]], x[ea[1]], x[eb[0]], x[eb[1]]);
    const double s = EdgeEdgeDistance(x[ea[0]], x[ea[1]], x[eb[0]], x[eb[1]], type);
    min_s = std::min(min_s, s);
    if (s < s_hat) {
      const double eps_x = EdgeEdgeMollifierThreshold(surface_rest_[ea[0]], surface_rest_[ea[1]], surface_rest_[eb[0]],
                                                      surface_rest_[eb[1]]);
      pairs.push_back({{ea[0], ea[1], eb[0], eb[1]}, -1, true, static_cast<int>(type), eps_x, s});
    }
  }
  for (std::size_t p = 0; p < points_.size(); ++p) {
    if (SurfacePointMap(static_cast<int>(p)).count == 0) continue;  // held points never meet a fixed plane
    for (std::size_t h = 0; h < half_spaces_.size(); ++h) {
      const double d = half_spaces_[h].normal.dot(x[p]) - half_spaces_[h].offset;
      const double s = d > 0 ? d * d : 0;
      min_s = std::min(min_s, d > 0 ? s : -1.0);
      if (d < settings_.dhat) pairs.push_back({{static_cast<int>(p), -1, -1, -1}, static_cast<int>(h), false, 0, 0, s});
    }
  }
  min_distance = min_s < 0 ? -1.0 : std::sqrt(min_s);
}

namespace {

// The pair's four points' values from a per-surface-point array.
std::array<Vector3d, 4> PairPoints(const std::array<int, 4>& points, const std::vector<Vector3d>& x) {
  std::array<Vector3d, 4> out;
  for (int i = 0; i < 4; ++i) out[i] = points[i] >= 0 ? x[points[i]] : Vector3d::Zero();
  return out;
}

// The pair's four points' displacements since `start`, stacked (12).
Vector12d PairDisplacement(const std::array<int, 4>& points, const std::vector<Vector3d>& x,
                           const std::vector<Vector3d>& start) {
  Vector12d displacement = Vector12d::Zero();
  for (Eigen::Index i = 0; i < 4; ++i)
    if (points[i] >= 0) displacement.segment<3>(3 * i) = x[points[i]] - start[points[i]];
  return displacement;
}

}  // namespace

double IpcSystem::Energy(const Eigen::VectorXd& z, const std::vector<Vector3d>& kinematic, const Candidates& candidates,
                         double h) const {
  const double h2 = h * h;
  double energy = 0;
  const std::vector<Vector3d> x = SoftFrom(z);
  for (std::size_t i = 0; i < x.size(); ++i)
    if (soft_dof_[i] >= 0) energy += 0.5 * vertex_mass_[i] * (x[i] - x_tilde_[i]).squaredNorm();
  for (std::size_t t = 0; t < tets_.size(); ++t) {
    const SoftBody& body = soft_[tet_body_[t]];
    const auto& tet = tets_[t];
    energy += h2 * TetEnergy(body.model, body.lame, tet_rest_[t], x[tet[0]], x[tet[1]], x[tet[2]], x[tet[3]]);
  }
  for (std::size_t b = 0; b < affine_.size(); ++b) {
    const AffineBody& body = affine_[b];
    const Eigen::Matrix<double, 12, 1> dq = AffineFrom(z, static_cast<int>(b)) - body.q_tilde;
    energy += 0.5 * dq.dot(body.mass_matrix * dq);
    energy += h2 * body.stiffness * body.volume *
              Orthogonality(AffineMatrix(AffineFrom(z, static_cast<int>(b))), false).value;
  }
  if (!std::isfinite(energy)) return std::numeric_limits<double>::infinity();
  const std::vector<Vector3d> surface = SurfaceFrom(z, kinematic);
  std::vector<ActivePair> pairs;
  double min_distance = settings_.dhat;
  CollectPairs(surface, candidates, pairs, min_distance);
  if (!(min_distance > 0)) return std::numeric_limits<double>::infinity();
  const double s_hat = settings_.dhat * settings_.dhat;
  for (const ActivePair& p : pairs) {
    double mollifier = 1;
    if (p.edge_edge) {
      const auto v = PairPoints(p.points, surface);
      mollifier = EdgeEdgeMollifier((v[1] - v[0]).cross(v[3] - v[2]).squaredNorm(), p.eps_x).value;
    }
    energy += state_.kappa * mollifier * Barrier(p.s, s_hat).value;
  }
  const double eps = settings_.friction_velocity * h;
  for (std::size_t k = 0; k < friction_pairs_.size(); ++k) {
    const Vector12d displacement = PairDisplacement(friction_pairs_[k].points, surface, friction_start_);
    energy += h2 * FrictionPotential(friction_frames_[k], displacement, settings_.friction, eps).energy;
  }
  return energy;
}

void IpcSystem::Derivatives(const Eigen::VectorXd& z, const std::vector<Vector3d>& kinematic,
                            const std::vector<Vector3d>& kinematic_step, const Candidates& candidates, double h,
                            unsigned terms, bool with_hessian, Derivative& out) const {
  const double h2 = h * h;
  out.gradient = Eigen::VectorXd::Zero(dof_count_);
  out.prescribed = Eigen::VectorXd::Zero(dof_count_);
  out.hessian.clear();
  out.kinematic_gradient.assign(kinematic.size(), Vector3d::Zero());
  out.half_space_force.assign(half_spaces_.size(), 0.0);
  if (terms & kInertiaAndElastic) InertiaAndElasticDerivatives(z, h2, with_hessian, out);
  const std::vector<Vector3d> surface = SurfaceFrom(z, kinematic);
  if (terms & kBarrier) {
    std::vector<ActivePair> pairs;
    double min_distance = settings_.dhat;
    CollectPairs(surface, candidates, pairs, min_distance);
    // Each pair's energy in parallel, added in pair order (the same sums for any thread count).
    pair_energy_.resize(pairs.size());
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pairs.size(), 16),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                        for (std::size_t k = r.begin(); k < r.end(); ++k)
                          pair_energy_[k] = BarrierEnergy(pairs[k], surface, with_hessian);
                      });
    const double s_hat = settings_.dhat * settings_.dhat;
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      const ActivePair& p = pairs[k];
      if (p.plane >= 0) out.half_space_force[p.plane] += BarrierForceMagnitude(p.s, s_hat, state_.kappa / h2);
      ScatterPair(p, pair_energy_[k], kinematic_step, with_hessian, out);
    }
  }
  if (terms & kFriction) {
    const double eps = settings_.friction_velocity * h;
    for (std::size_t k = 0; k < friction_pairs_.size(); ++k) {
      const ActivePair& p = friction_pairs_[k];
      PairEnergy f = FrictionPotential(friction_frames_[k], PairDisplacement(p.points, surface, friction_start_),
                                       settings_.friction, eps);
      f.gradient *= h2;
      f.hessian *= h2;
      ScatterPair(p, f, kinematic_step, with_hessian, out);
    }
  }
}

// The Hessian's fixed part (inertia, elements, affine bodies) has a pattern known at Finalize: its lower triangle is
// assembled straight into the values of `base_pattern_` through per-element slot maps (no triplets, no sort).
void IpcSystem::BuildBasePattern() {
  std::vector<Eigen::Triplet<double>> entries;
  auto each_tet_entry = [&](std::size_t t, auto f) {
    const auto& tet = tets_[t];
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) {
        const int da = soft_dof_[tet[a]], db = soft_dof_[tet[b]];
        if (da < 0 || db < 0) continue;
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c)
            if (da + r >= db + c) f(12 * (3 * a + r) + 3 * b + c, da + r, db + c);
      }
  };
  for (std::size_t i = 0; i < soft_dof_.size(); ++i)
    if (soft_dof_[i] >= 0)
      for (int r = 0; r < 3; ++r) entries.emplace_back(soft_dof_[i] + r, soft_dof_[i] + r, 1.0);
  for (std::size_t t = 0; t < tets_.size(); ++t)
    each_tet_entry(t, [&](int, int row, int col) { entries.emplace_back(row, col, 1.0); });
  for (int base : affine_dof_)
    for (int r = 0; r < 12; ++r)
      for (int c = 0; c <= r; ++c) entries.emplace_back(base + r, base + c, 1.0);
  base_pattern_.resize(dof_count_, dof_count_);
  base_pattern_.setFromTriplets(entries.begin(), entries.end());
  base_pattern_.makeCompressed();
  auto slot = [&](int row, int col) {
    const int* first = base_pattern_.innerIndexPtr() + base_pattern_.outerIndexPtr()[col];
    const int* last = base_pattern_.innerIndexPtr() + base_pattern_.outerIndexPtr()[col + 1];
    return static_cast<int>(std::lower_bound(first, last, row) - base_pattern_.innerIndexPtr());
  };
  tet_slots_.assign(tets_.size(), {});
  for (std::size_t t = 0; t < tets_.size(); ++t) {
    tet_slots_[t].fill(-1);
    each_tet_entry(t, [&](int k, int row, int col) { tet_slots_[t][k] = slot(row, col); });
  }
  mass_slots_.assign(3 * soft_dof_.size(), -1);
  for (std::size_t i = 0; i < soft_dof_.size(); ++i)
    for (int r = 0; r < 3 && soft_dof_[i] >= 0; ++r) mass_slots_[3 * i + r] = slot(soft_dof_[i] + r, soft_dof_[i] + r);
  affine_slots_.assign(affine_dof_.size(), {});
  for (std::size_t b = 0; b < affine_dof_.size(); ++b)
    for (int r = 0; r < 12; ++r)
      for (int c = 0; c < 12; ++c)
        affine_slots_[b][12 * r + c] = r >= c ? slot(affine_dof_[b] + r, affine_dof_[b] + c) : -1;
}

void IpcSystem::InertiaAndElasticDerivatives(const Eigen::VectorXd& z, double h2, bool with_hessian,
                                             Derivative& out) const {
  const std::vector<Vector3d> x = SoftFrom(z);
  if (with_hessian) out.base_values.assign(static_cast<std::size_t>(base_pattern_.nonZeros()), 0.0);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const int dof = soft_dof_[i];
    if (dof < 0) continue;
    out.gradient.segment<3>(dof) += vertex_mass_[i] * (x[i] - x_tilde_[i]);
    if (with_hessian)
      for (int r = 0; r < 3; ++r) out.base_values[mass_slots_[3 * i + r]] += vertex_mass_[i];
  }
  ElementDerivatives(x, h2, with_hessian, out);
  for (std::size_t b = 0; b < affine_.size(); ++b) {
    const AffineBody& body = affine_[b];
    const int base = affine_dof_[b];
    const Eigen::Matrix<double, 12, 1> q = AffineFrom(z, static_cast<int>(b));
    out.gradient.segment<12>(base) += body.mass_matrix * (q - body.q_tilde);
    const double scale = h2 * body.stiffness * body.volume;
    const OrthogonalityTerms o = Orthogonality(AffineMatrix(q), with_hessian);
    out.gradient.segment<9>(base + 3) += scale * o.gradient;
    if (!with_hessian) continue;
    Eigen::Matrix<double, 12, 12> H = body.mass_matrix;
    H.block<9, 9>(3, 3) += scale * o.hessian;
    for (int k = 0; k < 144; ++k)
      if (affine_slots_[b][k] >= 0) out.base_values[affine_slots_[b][k]] += H(k / 12, k % 12);
  }
}

// Each element's gradient and projected Hessian in parallel (independent), then added in element order, so the sums
// are the same for any thread count.
void IpcSystem::ElementDerivatives(const std::vector<Vector3d>& x, double h2, bool with_hessian,
                                   Derivative& out) const {
  element_gradient_.resize(tets_.size());
  if (with_hessian) element_hessian_.resize(tets_.size());
  tbb::parallel_for(
      tbb::blocked_range<std::size_t>(0, tets_.size(), 64), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t t = r.begin(); t < r.end(); ++t) {
          const SoftBody& body = soft_[tet_body_[t]];
          const auto& tet = tets_[t];
          element_gradient_[t] =
              h2 * TetGradient(body.model, body.lame, tet_rest_[t], x[tet[0]], x[tet[1]], x[tet[2]], x[tet[3]]);
          if (with_hessian)
            element_hessian_[t] =
                h2 * TetHessian(body.model, body.lame, tet_rest_[t], x[tet[0]], x[tet[1]], x[tet[2]], x[tet[3]], true);
        }
      });
  for (std::size_t t = 0; t < tets_.size(); ++t) {
    const auto& tet = tets_[t];
    for (Eigen::Index a = 0; a < 4; ++a)
      if (soft_dof_[tet[a]] >= 0) out.gradient.segment<3>(soft_dof_[tet[a]]) += element_gradient_[t].segment<3>(3 * a);
    if (!with_hessian) continue;
    const double* H = element_hessian_[t].data();  // column-major: entry (row, col) at 12 col + row; symmetric
    for (int k = 0; k < 144; ++k)
      if (tet_slots_[t][k] >= 0) out.base_values[tet_slots_[t][k]] += H[k];
  }
}

void IpcSystem::ScatterPair(const ActivePair& p, const PairEnergy& e, const std::vector<Vector3d>& kinematic_step,
                            bool with_hessian, Derivative& out) const {
  std::array<PointMap, 4> maps;
  for (int i = 0; i < 4; ++i)
    if (p.points[i] >= 0) maps[i] = SurfacePointMap(p.points[i]);
  Scatter<4>(maps, e.gradient, with_hessian ? &e.hessian : nullptr, kinematic_step, out);
}

// κ b of one pair with its gradient and PSD-projected Hessian.
PairEnergy IpcSystem::BarrierEnergy(const ActivePair& p, const std::vector<Vector3d>& surface,
                                    bool with_hessian) const {
  const double s_hat = settings_.dhat * settings_.dhat;
  PairEnergy e;
  if (p.plane >= 0) {
    // s = d², d = n·x − o: ∇s = 2d n, ∇²s = 2nnᵀ.
    const Vector3d& n = half_spaces_[p.plane].normal;
    const double d = std::sqrt(p.s);
    const ScalarDerivatives b = Barrier(p.s, s_hat);
    e.gradient.segment<3>(0) = state_.kappa * b.first * 2 * d * n;
    e.hessian.block<3, 3>(0, 0) = std::max(0.0, state_.kappa * (b.second * 4 * p.s + 2 * b.first)) * n * n.transpose();
    return e;
  }
  const auto v = PairPoints(p.points, surface);
  const auto ee = static_cast<EdgeEdgeCase>(p.kind);
  const auto pt = static_cast<PointTriangleCase>(p.kind);
  if (with_hessian) {
    e = p.edge_edge ? ProjectedEdgeEdgeBarrier(v[0], v[1], v[2], v[3], ee, s_hat, p.eps_x)
                    : ProjectedPointTriangleBarrier(v[0], v[1], v[2], v[3], pt, s_hat);
    e.hessian *= state_.kappa;
  } else {
    e = p.edge_edge ? EdgeEdgeBarrier(v[0], v[1], v[2], v[3], ee, s_hat, p.eps_x)
                    : PointTriangleBarrier(v[0], v[1], v[2], v[3], pt, s_hat);
  }
  e.gradient *= state_.kappa;
  return e;
}

void IpcSystem::LagFriction(const std::vector<Vector3d>& surface, const Candidates& candidates, double h) {
  friction_pairs_.clear();
  friction_frames_.clear();
  friction_start_ = surface;
  if (settings_.friction <= 0) return;
  std::vector<ActivePair> pairs;
  double min_distance = settings_.dhat;
  CollectPairs(surface, candidates, pairs, min_distance);
  const double s_hat = settings_.dhat * settings_.dhat;
  for (const ActivePair& p : pairs) {
    const double force = BarrierForceMagnitude(p.s, s_hat, state_.kappa / (h * h));
    if (force <= 0) continue;
    const auto v = PairPoints(p.points, surface);
    FrictionFrame frame;
    if (p.plane >= 0) {
      frame.weights = {1, 0, 0, 0};
      frame.basis = TangentBasis(half_spaces_[p.plane].normal);
      frame.normal_force = force;
    } else {
      const Eigen::Vector4d w =
          p.edge_edge ? EdgeEdgeClosestWeights(v[0], v[1], v[2], v[3], static_cast<EdgeEdgeCase>(p.kind))
                      : PointTriangleClosestWeights(v[0], v[1], v[2], v[3], static_cast<PointTriangleCase>(p.kind));
      frame = MakeFrictionFrame(w, v[0], v[1], v[2], v[3], force);
    }
    friction_pairs_.push_back(p);
    friction_frames_.push_back(frame);
  }
}

}  // namespace ductile::fem
