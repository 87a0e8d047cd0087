// The cloth triangles' part of an MPM substep (Jiang, Gast, Teran 2017, "Anisotropic elastoplasticity for cloth,
// knit and hair frictional contact", Secs. 4 and 7; docs/architecture.md, "Cloth"). A cloth's vertices are ordinary
// particles of a kCloth material: they carry the mass, go through P2G and G2P with everything else (so cloth meets
// cloth, other material and rigid geometry on the grid) and have no stress of their own. Its triangles are the
// paper's element particles, here without mass; each carries F = [d₁ d₂ d₃] D⁻¹ (mpm/constitutive/cloth.h):
//   - after each grid update, d₃ ← (I + Δt C̄) d₃ with C̄ the mean of the grid's velocity gradients C_v gathered at
//     the triangle's three vertices (Sec. 4.2: the transverse direction is advected like an MPM particle's F);
//   - after each scatter, F from the vertices' new positions and d₃, the return map (Sec. 6), and the elastic forces
//     of Ψ(F)·V onto the grid. With G = ∂Ψ/∂[d₁ d₂ d₃] = P D⁻ᵀ the in-plane part acts on the vertices (f₁ = −V G₁,
//     f₂ = −V G₂, f₀ = −f₁ − f₂), spread to the grid with each vertex's weights (the vertices follow the grid:
//     x_v = Σ w_iv x_i, Sec. 7.1), and the transverse part, the force conjugate to C̄, as an MLS-MPM stress term
//     through the same vertex stencils: (mv)_i −= Δt V (4/h²) ⅓ Σ_v w_iv ((x_i − x_v)·d₃) G₃.
//
// Why the vertices' stencils and not the centroid's, as in the paper: the triangles carry no mass, so a centroid
// stencil reaches grid nodes that its vertices, the only mass, barely touch (a cell apart, where the sheet bends
// or tilts); a transverse force on such a nearly massless node gave it a huge velocity, and a stiff sheet pushed
// together in its plane blew up (E = 3.2e6 Pa diverged at any substep count up to 90;
// test ClothCompression.StiffSheetPushedTogetherBucklesWithoutBlowingUp). Through the vertices' stencils every
// node a force reaches carries mass in the same proportion, and the advection and the force stay each other's
// transpose (the energy is conserved as before).
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <cmath>

#include "ductile/model.h"
#include "mpm/constitutive/cloth.h"
#include "mpm/model_views.h"
#include "mpm/mpm_solver.h"
#include "mpm/transfer_block.h"
#include "mpm/transfer_kernels.h"

namespace ductile::mpm {

void MpmSolver::IndexClothVertices() {
  if (!model_->cloth_elements.empty()) index_of_id_ = IndexById(st_->particles);
}

void MpmSolver::ConfigureCloth() {
  // The cloth vertices (ids, ascending) and each triangle's corners as positions in that list.
  const std::vector<ClothElement>& elements = model_->cloth_elements;
  cloth_vertices_.clear();
  for (const ClothElement& e : elements) cloth_vertices_.insert(cloth_vertices_.end(), e.vertex, e.vertex + 3);
  std::sort(cloth_vertices_.begin(), cloth_vertices_.end());
  cloth_vertices_.erase(std::unique(cloth_vertices_.begin(), cloth_vertices_.end()), cloth_vertices_.end());
  cloth_corners_.resize(elements.size());
  for (std::size_t e = 0; e < elements.size(); ++e)
    for (int k = 0; k < 3; ++k)
      cloth_corners_[e][k] = static_cast<std::int32_t>(
          std::lower_bound(cloth_vertices_.begin(), cloth_vertices_.end(), elements[e].vertex[k]) -
          cloth_vertices_.begin());
}

void MpmSolver::ResetClothNormals() {
  const std::vector<ClothElement>& elements = model_->cloth_elements;
  st_->cloth_normal.resize(elements.size());
  for (std::size_t e = 0; e < elements.size(); ++e) {
    const Vec3f x0 = ToVec3f(model_->x0[elements[e].vertex[0]]);
    const Vec3f n =
        Cross(ToVec3f(model_->x0[elements[e].vertex[1]]) - x0, ToVec3f(model_->x0[elements[e].vertex[2]]) - x0);
    st_->cloth_normal[e] = n / Norm(n);
  }
}

void MpmSolver::UpdatePinTargets(double t) {
  const std::vector<PinGroup>& groups = model_->pin_groups;
  const auto to_float = [](const std::array<double, 3>& a) {
    return Vec3f{static_cast<float>(a[0]), static_cast<float>(a[1]), static_cast<float>(a[2])};
  };
  pin_targets_.resize(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::array<double, 3> offset{}, velocity{};
    groups[g].Offset(t, offset, velocity);
    pin_targets_[g] = {to_float(offset), to_float(velocity), groups[g].Holds(t)};
  }
}

namespace {

// The storage indices of a stencil's 27 nodes (−1 where the block is not active), with one table lookup per block
// the stencil touches (one or two per axis) instead of one per node.
void StencilNodes(const SparseGrid& grid, const Stencil& s, int (&index)[27]) {
  int block[3][3], local[3][3], blocks[3];  // per axis and offset d: the node's block (0 or 1 past the first), local
  int first[3];
  for (int a = 0; a < 3; ++a) {
    first[a] = s.base[a] / kBlockEdge;
    const int l0 = s.base[a] - first[a] * kBlockEdge;
    for (int d = 0; d < 3; ++d) {
      block[a][d] = (l0 + d) / kBlockEdge;
      local[a][d] = (l0 + d) - block[a][d] * kBlockEdge;
    }
    blocks[a] = block[a][2] + 1;
  }
  std::int32_t slot[2][2][2];
  for (int i = 0; i < blocks[0]; ++i)
    for (int j = 0; j < blocks[1]; ++j)
      for (int k = 0; k < blocks[2]; ++k) {
        const std::int32_t b = grid.LinearBlockOrNone(first[0] + i, first[1] + j, first[2] + k);
        slot[i][j][k] = b < 0 ? -1 : grid.Slot(b);
      }
  int n = 0;
  for (int di = 0; di < 3; ++di)
    for (int dj = 0; dj < 3; ++dj)
      for (int dk = 0; dk < 3; ++dk, ++n) {
        const std::int32_t b = slot[block[0][di]][block[1][dj]][block[2][dk]];
        index[n] = b < 0 ? -1 : b * kBlockNodes + NodeInBlock(local[0][di], local[1][dj], local[2][dk]);
      }
}

}  // namespace

std::vector<std::array<double, 3>> MpmSolver::TakePinImpulses() {
  std::vector<std::array<double, 3>> sums(model_->pin_groups.size(), {0, 0, 0});
  if (pin_impulse_sums_.size() == sums.size()) sums.swap(pin_impulse_sums_);
  pin_impulse_sums_.assign(sums.size(), {0, 0, 0});
  return sums;
}

void MpmSolver::AdvectClothNormals(float dt) {
  const std::vector<ClothElement>& elements = model_->cloth_elements;
  const std::vector<Vec3f>& x = st_->particles.x;
  // The grid's velocity gradient at each cloth vertex (APIC's C, Jiang et al. 2015), then per triangle their mean.
  vertex_gradient_.resize(cloth_vertices_.size());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, cloth_vertices_.size(), 256),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t c = r.begin(); c != r.end(); ++c) {
                        Stencil s;
                        ComputeStencil(x[index_of_id_[cloth_vertices_[c]]], origin_, inv_h_, max_base_, s);
                        int index[27];
                        StencilNodes(st_->cache.grid, s, index);
                        Vec3f velocity;
                        GatherParticle(
                            s, h_, inv_h_,
                            [&](int di, int dj, int dk) {
                              const int node = index[(di * 3 + dj) * 3 + dk];
                              return node >= 0 ? st_->cache.grid.nodes_data[node] : ZeroFloat4();
                            },
                            velocity, vertex_gradient_[c]);
                      }
                    });
  tbb::parallel_for(
      tbb::blocked_range<std::size_t>(0, elements.size(), 256), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t e = r.begin(); e != r.end(); ++e) {
          const std::array<std::int32_t, 3>& corner = cloth_corners_[e];
          const Mat3f C =
              (vertex_gradient_[corner[0]] + vertex_gradient_[corner[1]] + vertex_gradient_[corner[2]]) * (1.0f / 3.0f);
          Vec3f& d3 = st_->cloth_normal[e];
          d3 += (C * d3) * dt;
        }
      });
}

void MpmSolver::ScatterClothForces(float dt) {
  const std::vector<ClothElement>& elements = model_->cloth_elements;
  const std::vector<Vec3f>& x = st_->particles.x;
  const std::size_t n = elements.size();
  // Per triangle, in parallel: F, the return map (d₃ stored back), P and G = P D⁻ᵀ, as the impulses −Δt V G₁,
  // −Δt V G₂ on vertices 1 and 2 and the transverse affine term −Δt V (4/h²) G₃ d₃ᵀ.
  cloth_impulse_.resize(n);
  cloth_affine_.resize(n);
  std::atomic<bool> finite{true};
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 256), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t e = r.begin(); e != r.end(); ++e) {
      const ClothElement& element = elements[e];
      const MaterialParams& m = model_->materials[element.material];
      const Vec3f& x0 = x[index_of_id_[element.vertex[0]]];
      const Vec3f d1 = x[index_of_id_[element.vertex[1]]] - x0;
      const Vec3f d2 = x[index_of_id_[element.vertex[2]]] - x0;
      // F = [d₁ d₂ d₃] D⁻¹ with D⁻¹ = [[a, b, 0], [0, c, 0], [0, 0, 1]].
      const float a = element.rest_inverse[0], b = element.rest_inverse[1], c = element.rest_inverse[2];
      Mat3f F = Mat3f::FromColumns(d1 * a, d1 * b + d2 * c, st_->cloth_normal[e]);
      const Cloth<float> cloth{m.mu, m.lambda, m.cloth_shear, m.cloth_normal, m.cloth_friction};
      cloth.ReturnMap(F);
      const Vec3f d3 = F.Column(2);
      st_->cloth_normal[e] = d3;
      const Mat3f P = cloth.FirstPiola(F);
      // G = P D⁻ᵀ, D⁻ᵀ = [[a, 0, 0], [b, c, 0], [0, 0, 1]].
      const Vec3f g1 = P.Column(0) * a + P.Column(1) * b;
      const Vec3f g2 = P.Column(1) * c;
      const Vec3f g3 = P.Column(2);
      if (!std::isfinite(g1.x + g1.y + g1.z + g2.x + g2.y + g2.z + g3.x + g3.y + g3.z))
        finite.store(false, std::memory_order_relaxed);
      const float impulse = dt * element.volume;  // Δt V
      cloth_impulse_[e] = {g1 * -impulse, g2 * -impulse};
      cloth_affine_[e] = Mat3f::Outer(g3, d3) * (-impulse * 4.0f * inv_h_ * inv_h_);
    }
  });
  if (!finite.load()) st_->diverged = true;
  // Per cloth vertex, in triangle order: the sum of its triangles' in-plane impulses (f₀ = −f₁ − f₂).
  vertex_impulse_.assign(cloth_vertices_.size(), Vec3f{});
  vertex_affine_.assign(cloth_vertices_.size(), Mat3f::Zero());
  for (std::size_t e = 0; e < n; ++e) {
    const std::array<std::int32_t, 3>& corner = cloth_corners_[e];
    const std::array<Vec3f, 2>& f = cloth_impulse_[e];
    vertex_impulse_[corner[1]] += f[0];
    vertex_impulse_[corner[2]] += f[1];
    vertex_impulse_[corner[0]] -= f[0] + f[1];
    const Mat3f third = cloth_affine_[e] * (1.0f / 3.0f);
    for (int k = 0; k < 3; ++k) vertex_affine_[corner[k]] += third;
  }
  // Onto the grid, serially in a fixed order: each cloth vertex's in-plane impulse with its weights (the vertices
  // follow the grid) and its share of its triangles' transverse terms through the same stencil.
  std::vector<Float4>& nodes = st_->cache.grid.nodes_data;
  const SparseGrid& grid = st_->cache.grid;
  int index[27];
  for (std::size_t c = 0; c < cloth_vertices_.size(); ++c) {
    const Vec3f& q = vertex_impulse_[c];
    Stencil s;
    ComputeStencil(x[index_of_id_[cloth_vertices_[c]]], origin_, inv_h_, max_base_, s);
    StencilNodes(grid, s, index);
    int node = 0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k, ++node) {
          if (index[node] < 0) continue;
          const float w = s.w[0][i] * s.w[1][j] * s.w[2][k];
          nodes[index[node]] += MakeFloat4(q.x * w, q.y * w, q.z * w, 0.0f);
        }
    ScatterParticle(s, h_, 0.0f, Vec3f{}, vertex_affine_[c], [&](int di, int dj, int dk, const Float4& dq) {
      const int at = index[(di * 3 + dj) * 3 + dk];
      if (at >= 0) nodes[at] += dq;
    });
  }
}

}  // namespace ductile::mpm
