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
  cloth_stencils_valid_ = false;
  implicit_warm_ = false;
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
  // Each vertex's triangles in triangle order (CSR), for summing their impulses per vertex in parallel.
  vertex_triangle_offsets_.assign(cloth_vertices_.size() + 1, 0);
  for (const std::array<std::int32_t, 3>& corner : cloth_corners_)
    for (int k = 0; k < 3; ++k) ++vertex_triangle_offsets_[corner[k] + 1];
  for (std::size_t c = 0; c < cloth_vertices_.size(); ++c)
    vertex_triangle_offsets_[c + 1] += vertex_triangle_offsets_[c];
  vertex_triangles_.resize(vertex_triangle_offsets_.back());
  std::vector<std::int32_t> fill(vertex_triangle_offsets_.begin(), vertex_triangle_offsets_.end() - 1);
  for (std::size_t e = 0; e < elements.size(); ++e)
    for (int k = 0; k < 3; ++k) vertex_triangles_[fill[cloth_corners_[e][k]]++] = static_cast<std::int32_t>(e << 2) | k;
  cloth_stencils_valid_ = false;
}

void InitialClothNormals(const Model& model, std::vector<Vec3f>& normals) {
  const std::vector<ClothElement>& elements = model.cloth_elements;
  normals.resize(elements.size());
  for (std::size_t e = 0; e < elements.size(); ++e) {
    const Vec3f x0 = ToVec3f(model.x0[elements[e].vertex[0]]);
    const Vec3f n = Cross(ToVec3f(model.x0[elements[e].vertex[1]]) - x0, ToVec3f(model.x0[elements[e].vertex[2]]) - x0);
    normals[e] = n / Norm(n);
  }
}

void MpmSolver::ResetClothNormals() {
  InitialClothNormals(*model_, st_->cloth_normal);
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
  // The grid's velocity gradient at each cloth vertex (APIC's C, Jiang et al. 2015), then per triangle their mean.
  // The vertices have not moved since the last scatter located them, unless an Advance began in between.
  if (!cloth_stencils_valid_) LocateClothVertices();
  vertex_gradient_.resize(cloth_vertices_.size());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, cloth_vertices_.size(), 256),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t c = r.begin(); c != r.end(); ++c) {
                        const std::array<int, 27>& index = cloth_nodes_[c];
                        Vec3f velocity;
                        GatherParticle(
                            cloth_stencils_[c], h_, inv_h_,
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

void MpmSolver::LocateClothVertices() {
  const std::vector<Vec3f>& x = st_->particles.x;
  const SparseGrid& grid = st_->cache.grid;
  cloth_stencils_.resize(cloth_vertices_.size());
  cloth_nodes_.resize(cloth_vertices_.size());
  column_of_vertex_.resize(cloth_vertices_.size());
  const int columns_y = grid.block_dims()[1];
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, cloth_vertices_.size(), 256),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t c = r.begin(); c != r.end(); ++c) {
                        Stencil& s = cloth_stencils_[c];
                        ComputeStencil(x[index_of_id_[cloth_vertices_[c]]], origin_, inv_h_, max_base_, s);
                        int index[27];
                        StencilNodes(grid, s, index);
                        std::copy(index, index + 27, cloth_nodes_[c].begin());
                        column_of_vertex_[c] = (s.base[0] / kBlockEdge) * columns_y + s.base[1] / kBlockEdge;
                      }
                    });
  cloth_stencils_valid_ = true;
}

void MpmSolver::ScatterClothForces(float dt) {
  const std::vector<ClothElement>& elements = model_->cloth_elements;
  const std::vector<Vec3f>& x = st_->particles.x;
  const std::size_t n = elements.size();
  // Per triangle, in parallel: F, the return map (d₃ stored back), P and G = P D⁻ᵀ, as the impulses −Δt V G₁,
  // −Δt V G₂ on vertices 1 and 2 and the transverse affine term −Δt V (4/h²) G₃ d₃ᵀ.
  cloth_impulse_.resize(n);
  cloth_affine_.resize(n);
  if (implicit_cloth_) cloth_rotation_.resize(n);
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
      ClothQr<float> qr = ClothQrDecompose(F);
      const Mat3f P = cloth.ReturnMapAndFirstPiola(F, qr);
      // The implicit in-plane step's rotation, from the same factors (the return map leaves Q and R̂ as they are).
      if (m.cloth_implicit > 0) Cloth<float>::InPlaneRotationOfQr(qr, cloth_rotation_[e][0], cloth_rotation_[e][1]);
      const Vec3f d3 = F.Column(2);
      st_->cloth_normal[e] = d3;
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
  // Per cloth vertex, in parallel, in triangle order: the sum of its triangles' in-plane impulses (f₀ = −f₁ − f₂)
  // and its third of their transverse terms; where its stencil now lies.
  vertex_impulse_.resize(cloth_vertices_.size());
  vertex_affine_.resize(cloth_vertices_.size());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, cloth_vertices_.size(), 256),
                    [&](const tbb::blocked_range<std::size_t>& r) {
                      for (std::size_t c = r.begin(); c != r.end(); ++c) {
                        Vec3f q{};
                        Mat3f affine = Mat3f::Zero();
                        for (std::int32_t t = vertex_triangle_offsets_[c]; t < vertex_triangle_offsets_[c + 1]; ++t) {
                          const std::int32_t e = vertex_triangles_[t] >> 2;
                          const int k = vertex_triangles_[t] & 3;
                          const std::array<Vec3f, 2>& f = cloth_impulse_[e];
                          q += k == 0 ? -(f[0] + f[1]) : f[k - 1];
                          affine += cloth_affine_[e] * (1.0f / 3.0f);
                        }
                        vertex_impulse_[c] = q;
                        vertex_affine_[c] = affine;
                      }
                    });
  ImplicitInPlaneImpulses(dt);
  if (!pin_group_of_id_.empty()) AbsorbPinnedImpulses();
  LocateClothVertices();
  ScatterClothVertices();
}

bool MpmSolver::PinHolds(std::int32_t id) const {
  if (pin_group_of_id_.empty() || pin_group_of_id_[id] < 0) return false;
  // The pins as the last gather applied them (before a run's first substep: as they are at its start).
  const std::size_t g = static_cast<std::size_t>(pin_group_of_id_[id]);
  return g < pin_targets_.size() ? pin_targets_[g].holds : model_->pin_groups[g].Holds(time_);
}

void MpmSolver::AbsorbPinnedImpulses() {
  // A held vertex does not move whatever pulls it, so its triangles' impulse on it goes into the pin, not onto the
  // grid: spread there, the pull towards the cloth landed on the nodes its neighbours share and cancelled theirs
  // towards the pin, so the grid let the cloth next to a pin fall away from it (one reset vertex cannot hold a
  // sheet: the bag cloth diverged next to its corners at 15 substeps). The pin's reaction is minus that impulse
  // plus what the gather's reset adds (transfer_block.cpp, ApplyPins); it is counted with the gather that takes this
  // scatter's momenta (TransferPass), so that the reactions balance the momentum the particles have.
  std::vector<std::array<double, 3>>& absorbed = st_->cache.pin_absorbed;
  absorbed.assign(model_->pin_groups.size(), {0, 0, 0});
  for (std::size_t c = 0; c < cloth_vertices_.size(); ++c) {
    if (!PinHolds(cloth_vertices_[c])) continue;
    std::array<double, 3>& sum = absorbed[pin_group_of_id_[cloth_vertices_[c]]];
    for (int a = 0; a < 3; ++a) sum[a] -= vertex_impulse_[c][a];
    vertex_impulse_[c] = Vec3f{};
  }
}

void MpmSolver::ScatterClothVertices() {
  // Onto the grid, each vertex's in-plane impulse with its weights (the vertices follow the grid) and its share of
  // the transverse terms through the same stencil. A stencil spans at most two blocks per axis, so columns of
  // blocks whose (bx, by) differ by two or more touch disjoint nodes: per colour (bx mod 2, by mod 2) the columns
  // run in parallel, each one's vertices in vertex order; every node sums its terms in one fixed order.
  const int num_columns = st_->cache.grid.block_dims()[0] * st_->cache.grid.block_dims()[1];
  column_offsets_.assign(static_cast<std::size_t>(num_columns) + 1, 0);
  for (const std::int32_t column : column_of_vertex_) ++column_offsets_[column + 1];
  for (int k = 0; k < 4; ++k) occupied_columns_[k].clear();
  const int columns_y = st_->cache.grid.block_dims()[1];
  for (int column = 0; column < num_columns; ++column) {
    if (column_offsets_[column + 1] > 0)
      occupied_columns_[(column / columns_y) % 2 * 2 + column % columns_y % 2].push_back(column);
    column_offsets_[column + 1] += column_offsets_[column];
  }
  column_vertices_.resize(cloth_vertices_.size());
  {
    std::vector<std::int32_t>& fill = vertex_scratch_;
    fill.assign(column_offsets_.begin(), column_offsets_.end() - 1);
    for (std::size_t c = 0; c < cloth_vertices_.size(); ++c)
      column_vertices_[fill[column_of_vertex_[c]]++] = static_cast<std::int32_t>(c);
  }
  std::vector<Float4>& nodes = st_->cache.grid.nodes_data;
  for (const std::vector<std::int32_t>& columns : occupied_columns_) {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, columns.size(), 1),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                        for (std::size_t i = r.begin(); i != r.end(); ++i)
                          for (std::int32_t v = column_offsets_[columns[i]]; v < column_offsets_[columns[i] + 1]; ++v) {
                            const std::int32_t c = column_vertices_[v];
                            const Vec3f& q = vertex_impulse_[c];
                            const std::array<int, 27>& index = cloth_nodes_[c];
                            ScatterMomentum(cloth_stencils_[c], h_, MakeFloat4(q.x, q.y, q.z, 0.0f), vertex_affine_[c],
                                            [&](int di, int dj, int dk, const Float4& dq) {
                                              const int at = index[(di * 3 + dj) * 3 + dk];
                                              if (at >= 0) nodes[at] += dq;
                                            });
                          }
                      });
  }
}

}  // namespace ductile::mpm
