// Linearly implicit in-plane elasticity for stiff cloth (docs/architecture.md, "Cloth"). An explicit substep must
// stay under the time an in-plane wave takes to cross a cell, h / √((λ + 2μ)/ρ): a 3.2 MPa bag cloth at h = 1/64 m
// needs 25 substeps in 5 ms. A cloth material's `implicit_in_plane` θ > 0 takes the in-plane force at
// x + θ Δt v⁺, linearised: one Newton step of the θ-method on the mesh (θ = 1: backward Euler; Baraff, Witkin 1998,
// "Large steps in cloth simulation", Sec. 3), with the Hessian H of the linear corotated energy at the current
// rotation (the lagged-rotation model of Zong, Jiang, Han 2024, Sec. IV):
//
//   (M + θ Δt² H) Δv = Δt f(x) − θ Δt² H v,      J = Δt f(x) − θ Δt² H (v + Δv)  (= M Δv at the solution)
//
// f the exact in-plane force of the 2-D fixed corotated energy (cloth.h), v the vertices' velocities after the
// gather, M their masses, and J the impulse spread onto the grid with the vertices' weights in place of Δt f. Per
// triangle, with F̂ = [d₁ d₂] D̂⁻¹ (3x2), its rotation R̂ = Q̂ U (Q̂ from F̂'s QR, U the rotation of the 2x2 factor's
// polar form) and ε(δF̂) = sym(R̂ᵀ δF̂):
//
//   Ψ_L = μ ‖ε‖² + λ/2 tr(ε)²,   δP̂ = R̂ (2μ ε + λ tr(ε) I),   (H u)_k = V δP̂ β_k
//
// with β₁ = (a, b), β₂ = (0, c), β₀ = −β₁ − β₂ the rows of [[−1, −1], [1, 0], [0, 1]] D̂⁻¹ (D̂⁻¹ = [[a, b], [0, c]]).
// H is positive semidefinite and zero on translations (and on infinitesimal rotations of a triangle stretched
// equally in both directions, at rest included: a stretched triangle that spins is damped a little), so for θ ≥ 1/2
// the linearised in-plane step is stable at any Δt; it conserves linear momentum whatever the solver's accuracy (J
// sums to zero over each triangle), and adds nothing at rest (f = 0, v = 0: Δv = 0). For θ > 1/2 it damps in-plane
// waves that cross more than a cell per substep, as backward Euler does. The transverse (shear and normal) stresses
// stay explicit and can still limit the substep where layers press together (γ and k default to E). Δv by conjugate
// gradients preconditioned with each vertex's diagonal averaged over the three directions, held pins fixed (Δv = 0);
// every sum in a fixed order, so bitwise the same for any thread count.
#include <tbb/parallel_for.h>

#include <cmath>

#include "ductile/model.h"
#include "mpm/cloth_implicit_kernels.h"
#include "mpm/mpm_solver.h"

namespace ductile::mpm {

namespace {

double Dot3(const std::vector<Vec3f>& a, const std::vector<Vec3f>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    sum += double(a[i].x) * b[i].x + double(a[i].y) * b[i].y + double(a[i].z) * b[i].z;
  return sum;
}

}  // namespace

bool MpmSolver::IndexImplicitCloth() {
  const std::vector<ClothElement>& elements = model_->cloth_elements;
  // The implicit triangles and the vertices they touch (numbered 0..n-1 here, in cloth-vertex order).
  implicit_triangles_.clear();
  for (std::size_t e = 0; e < elements.size(); ++e)
    if (model_->materials[elements[e].material].cloth_implicit > 0)
      implicit_triangles_.push_back(static_cast<std::int32_t>(e));
  if (implicit_triangles_.empty()) return false;
  local_of_vertex_.assign(cloth_vertices_.size(), -1);
  for (const std::int32_t e : implicit_triangles_)
    for (int k = 0; k < 3; ++k) local_of_vertex_[cloth_corners_[e][k]] = 0;
  implicit_vertices_.clear();
  for (std::size_t c = 0; c < cloth_vertices_.size(); ++c)
    if (local_of_vertex_[c] == 0) {
      local_of_vertex_[c] = static_cast<std::int32_t>(implicit_vertices_.size());
      implicit_vertices_.push_back(static_cast<std::int32_t>(c));
    }
  const std::size_t nt = implicit_triangles_.size(), n = implicit_vertices_.size();
  // Per vertex its implicit triangles as (place in implicit_triangles_ << 2 | corner), in triangle order (CSR).
  local_of_triangle_.assign(elements.size(), -1);
  for (std::size_t t = 0; t < nt; ++t) local_of_triangle_[implicit_triangles_[t]] = static_cast<std::int32_t>(t);
  implicit_entry_offsets_.assign(n + 1, 0);
  implicit_entries_.clear();
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t c = implicit_vertices_[i];
    for (std::int32_t j = vertex_triangle_offsets_[c]; j < vertex_triangle_offsets_[c + 1]; ++j) {
      const std::int32_t t = local_of_triangle_[vertex_triangles_[j] >> 2];
      if (t >= 0) implicit_entries_.push_back(t << 2 | (vertex_triangles_[j] & 3));
    }
    implicit_entry_offsets_[i + 1] = static_cast<std::int32_t>(implicit_entries_.size());
  }
  implicit_corners_.resize(nt);
  for (std::size_t t = 0; t < nt; ++t)
    for (int k = 0; k < 3; ++k) implicit_corners_[t][k] = local_of_vertex_[cloth_corners_[implicit_triangles_[t]][k]];
  return true;
}

void MpmSolver::PrepareImplicitCloth(float dt) {
  const std::vector<ClothElement>& elements = model_->cloth_elements;
  const std::size_t n = implicit_vertices_.size();
  const float dt2 = dt * dt;
  // Per vertex its mass, velocity, whether a pin holds it, and the preconditioner: M + θ Δt² H's diagonal averaged
  // over the three directions, θ V (3μ + λ)/3 ‖β_k‖² per triangle. (Each triangle's rotation R̂ came with its
  // stress, ScatterClothForces.)
  implicit_mass_.resize(n);
  implicit_diagonal_.resize(n);
  implicit_velocity_.resize(n);
  implicit_held_.resize(n);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, kGrain), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t i = r.begin(); i != r.end(); ++i) {
      const std::int32_t c = implicit_vertices_[i];
      const std::int32_t id = cloth_vertices_[c];
      const std::int32_t p = index_of_id_[id];
      implicit_mass_[i] = st_->particles.mass[p];
      implicit_velocity_[i] = st_->particles.v[p];
      implicit_held_[i] = PinHolds(id) ? 1 : 0;
      float diagonal = implicit_mass_[i];
      for (std::int32_t j = implicit_entry_offsets_[i]; j < implicit_entry_offsets_[i + 1]; ++j) {
        const ClothElement& element = elements[implicit_triangles_[implicit_entries_[j] >> 2]];
        diagonal += ImplicitDiagonalTerm(element, model_->materials[element.material], implicit_entries_[j] & 3, dt2);
      }
      implicit_diagonal_[i] = diagonal;
    }
  });
}

void MpmSolver::ApplyImplicitStiffness(const std::vector<Vec3f>& u, std::vector<Vec3f>& y) {
  const std::vector<ClothElement>& elements = model_->cloth_elements;
  const std::size_t nt = implicit_triangles_.size(), n = implicit_vertices_.size();
  implicit_triangle_force_.resize(nt);
  // y = H u: per triangle its forces on corners 1 and 2 (on corner 0 minus their sum), then per vertex in
  // triangle order.
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, nt, kGrain), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t t = r.begin(); t != r.end(); ++t) {
      const ClothElement& element = elements[implicit_triangles_[t]];
      const std::array<std::int32_t, 3>& corner = implicit_corners_[t];
      const std::array<Vec3f, 2>& rotation = cloth_rotation_[implicit_triangles_[t]];
      ImplicitTriangleForce(element, model_->materials[element.material], rotation[0], rotation[1], u[corner[0]],
                            u[corner[1]], u[corner[2]], implicit_triangle_force_[t][0], implicit_triangle_force_[t][1]);
    }
  });
  y.resize(n);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, kGrain), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t i = r.begin(); i != r.end(); ++i) {
      Vec3f sum{};
      for (std::int32_t j = implicit_entry_offsets_[i]; j < implicit_entry_offsets_[i + 1]; ++j) {
        const int k = implicit_entries_[j] & 3;
        const std::array<Vec3f, 2>& f = implicit_triangle_force_[implicit_entries_[j] >> 2];
        sum += k == 0 ? -(f[0] + f[1]) : f[k - 1];
      }
      y[i] = sum;
    }
  });
}

void MpmSolver::SolveImplicitVelocity(float dt, const std::vector<Vec3f>& rhs) {
  const std::size_t n = implicit_vertices_.size();
  const float dt2 = dt * dt;
  // Preconditioned conjugate gradients from Δv = 0 on the free vertices; the held ones' rows are zero.
  std::vector<Vec3f>& dv = implicit_dv_;
  std::vector<Vec3f>& res = implicit_residual_;
  std::vector<Vec3f>& z = implicit_z_;
  std::vector<Vec3f>& dir = implicit_direction_;
  std::vector<Vec3f>& q = implicit_q_;
  z.resize(n);
  for (std::size_t i = 0; i < n; ++i) z[i] = rhs[i] / implicit_diagonal_[i];
  const double stop = Dot3(rhs, z) * kImplicitClothTolerance * kImplicitClothTolerance;
  if (!(stop > 0)) {  // nothing to solve for (at rest, or every vertex held): Δv = 0
    dv.assign(n, Vec3f{});
    return;
  }
  // From the last substep's Δv when this Advance solved for the same vertices before (cleared at each Advance's
  // start, so a step depends on the State alone), else from 0.
  if (implicit_warm_ && dv.size() == n) {
    for (std::size_t i = 0; i < n; ++i)
      if (implicit_held_[i]) dv[i] = Vec3f{};
    ApplyImplicitStiffness(dv, q);
    res.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      res[i] = implicit_held_[i] ? Vec3f{} : rhs[i] - dv[i] * implicit_mass_[i] - q[i] * dt2;
  } else {
    dv.assign(n, Vec3f{});
    res = rhs;
  }
  for (std::size_t i = 0; i < n; ++i) z[i] = res[i] / implicit_diagonal_[i];
  dir = z;
  double rz = Dot3(res, z);
  int iterations = 0;
  while (rz > stop && rz > 0 && iterations < kImplicitClothMaxIterations) {
    ApplyImplicitStiffness(dir, q);
    for (std::size_t i = 0; i < n; ++i) q[i] = implicit_held_[i] ? Vec3f{} : dir[i] * implicit_mass_[i] + q[i] * dt2;
    const double dq = Dot3(dir, q);
    if (!(dq > 0)) break;
    const float alpha = static_cast<float>(rz / dq);
    for (std::size_t i = 0; i < n; ++i) {
      dv[i] += dir[i] * alpha;
      res[i] -= q[i] * alpha;
      z[i] = res[i] / implicit_diagonal_[i];
    }
    const double rz_next = Dot3(res, z);
    const float beta = static_cast<float>(rz_next / rz);
    rz = rz_next;
    for (std::size_t i = 0; i < n; ++i) dir[i] = z[i] + dir[i] * beta;
    ++iterations;
  }
  implicit_warm_ = true;
}

void MpmSolver::ImplicitInPlaneImpulses(float dt) {
  if (!implicit_cloth_) return;
  PrepareImplicitCloth(dt);
  const std::size_t n = implicit_vertices_.size();
  const float dt2 = dt * dt;
  // The right-hand side Δt f − θ Δt² H v (Δt f: the explicit impulse already summed per vertex, vertex_impulse_).
  std::vector<Vec3f>& rhs = implicit_rhs_;
  ApplyImplicitStiffness(implicit_velocity_, rhs);
  for (std::size_t i = 0; i < n; ++i)
    rhs[i] = implicit_held_[i] ? Vec3f{} : vertex_impulse_[implicit_vertices_[i]] - rhs[i] * dt2;
  SolveImplicitVelocity(dt, rhs);
  // J = Δt f − θ Δt² H (v + Δv) in place of each vertex's explicit in-plane impulse.
  std::vector<Vec3f>& w = implicit_z_;
  std::vector<Vec3f>& q = implicit_q_;
  const std::vector<Vec3f>& dv = implicit_dv_;
  for (std::size_t i = 0; i < n; ++i) w[i] = implicit_velocity_[i] + dv[i];
  ApplyImplicitStiffness(w, q);
  for (std::size_t i = 0; i < n; ++i) vertex_impulse_[implicit_vertices_[i]] -= q[i] * dt2;
}

}  // namespace ductile::mpm
