// ReconstructSurface: the field of Zhu and Bridson (2005) on a grid, its surface extracted with surface nets
// (Gibson 1998) and smoothed with Taubin's λ|μ steps (Taubin 1995); see particle_surface.h for the method and why.
//
// Grid: nodes `cell` apart (the particle spacing, coarser past kMaxSurfaceParticles or kMaxSurfaceGridNodes, the
// particles then binned per cell) over the particles' bounds grown by the kernel's radius and two cells, so the
// surface never reaches the grid's border. Per node the sums
// W = Σ w_i, Σ w_i (x_i − origin) and Σ w_i c_i (colours); φ from them; outside every kernel φ = R (outside).
#include "ductile/render/particle_surface.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "render_math.h"

namespace ductile::render {
namespace {

// Taubin's steps (1995, section 4): λ > 0 toward the neighbours' mean, then μ < −λ back, pass band about 0.1.
constexpr float kTaubinLambda = 0.5f;
constexpr float kTaubinMu = -0.53f;

// k(s) = max(0, 1 − s²)³ of the squared ratio s² = |x − x_i|² / R² (Zhu and Bridson 2005, eq. 4).
float Kernel(float squared_ratio) {
  const float t = 1.0f - squared_ratio;
  return t > 0.0f ? t * t * t : 0.0f;
}

// The radius r of φ = |x − x̄| − r in spacings: |x − x̄| at half a spacing above the outer layer of a half-space of
// particles on a cubic lattice, straight above one of them. The surface of a flat block then lies where its beads'
// tops are, and one particle alone is a sphere of about the bead's radius (0.54 spacings against 0.5).
float EffectiveRadius(float kernel_radius) {
  const int reach = static_cast<int>(std::ceil(kernel_radius));
  double weight = 0, depth = 0;
  for (int layer = 0; layer <= reach; ++layer) {
    const double dz = 0.5 + layer;
    for (int i = -reach; i <= reach; ++i) {
      for (int j = -reach; j <= reach; ++j) {
        const auto squared = static_cast<float>((i * i + j * j + dz * dz) / (kernel_radius * kernel_radius));
        const double w = Kernel(squared);
        weight += w;
        depth += w * dz;
      }
    }
  }
  return static_cast<float>(depth / weight);
}

// A regular grid of n[0] x n[1] x n[2] nodes `cell` apart from `origin`, and the field on it.
struct FieldGrid {
  Vec3 origin{};
  float cell = 0;
  std::array<int, 3> n{};
  float outside = 0;               // φ where no kernel reaches [m].
  std::vector<float> phi;          // φ per node [m]; < 0 inside.
  std::vector<float> weight;       // W per node.
  std::vector<Rgba> weighted_rgb;  // Σ w_i c_i per node.

  std::size_t Index(int i, int j, int k) const {
    return (static_cast<std::size_t>(k) * static_cast<std::size_t>(n[1]) + static_cast<std::size_t>(j)) *
               static_cast<std::size_t>(n[0]) +
           static_cast<std::size_t>(i);
  }
  // φ at world point `p`, trilinear; `outside` beyond the grid.
  float PhiAt(const Vec3& p) const {
    std::array<int, 3> c{};
    std::array<float, 3> f{};
    for (int a = 0; a < 3; ++a) {
      const float u = (p[a] - origin[a]) / cell;
      if (!(u >= 0.0f && u < static_cast<float>(n[a] - 1))) return outside;
      c[a] = static_cast<int>(u);
      f[a] = u - static_cast<float>(c[a]);
    }
    float value = 0;
    for (int corner = 0; corner < 8; ++corner) {
      const int dx = corner & 1, dy = (corner >> 1) & 1, dz = (corner >> 2) & 1;
      const float t = (dx != 0 ? f[0] : 1 - f[0]) * (dy != 0 ? f[1] : 1 - f[1]) * (dz != 0 ? f[2] : 1 - f[2]);
      value += t * phi[Index(c[0] + dx, c[1] + dy, c[2] + dz)];
    }
    return value;
  }
};

// The grid around `positions` for particles `spacing` apart and a kernel `kernel_radius` spacings wide, with cells of
// the spacing, or coarser for more than kMaxSurfaceParticles particles or kMaxSurfaceGridNodes nodes; false when no
// position is finite.
bool LayOutGrid(std::span<const Vec3> positions, float spacing, float kernel_radius, FieldGrid& grid) {
  Vec3 low{std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
  Vec3 high{-low[0], -low[1], -low[2]};
  bool any = false;
  for (const Vec3& p : positions) {
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2])) continue;
    any = true;
    for (int a = 0; a < 3; ++a) {
      low[a] = std::min(low[a], p[a]);
      high[a] = std::max(high[a], p[a]);
    }
  }
  if (!any) return false;
  // Past kMaxSurfaceParticles the cell grows with the cube root of the count, so that the binned particles
  // (ComputeField) stay about that many.
  float cell = spacing * std::max(1.0f, static_cast<float>(std::cbrt(static_cast<double>(positions.size()) /
                                                                     static_cast<double>(kMaxSurfaceParticles))));
  for (;;) {
    const float margin = kernel_radius * std::max(spacing, cell) + 2.0f * cell;
    // The node counts in double first: a particle flung far away (a diverging run's last snapshot) would make an
    // int count overflow; the cell grows until the grid fits, and only then are the counts cast.
    double nodes = 1;
    double counts[3];
    for (int a = 0; a < 3; ++a) {
      counts[a] = std::ceil((static_cast<double>(high[a]) - low[a] + 2.0 * margin) / cell) + 1;
      nodes *= counts[a];
    }
    if (!(nodes <= static_cast<double>(kMaxSurfaceGridNodes))) {
      if (!std::isfinite(nodes)) return false;
      cell *= static_cast<float>(std::cbrt(nodes / static_cast<double>(kMaxSurfaceGridNodes))) * 1.01f;
      if (!std::isfinite(cell)) return false;
      continue;
    }
    for (int a = 0; a < 3; ++a) {
      grid.origin[a] = low[a] - margin;
      grid.n[a] = static_cast<int>(counts[a]);
    }
    break;
  }
  grid.cell = cell;
  return true;
}

// The particles binned per cell of the grid: the mean position and colour of each occupied cell's particles and
// their count, in the order of the cells.
struct Bin {
  Vec3 x{0, 0, 0};
  Rgba color{0, 0, 0, 0};
  float count = 0;
};
std::vector<Bin> BinParticles(std::span<const Vec3> positions, std::span<const Rgba> colors, const FieldGrid& grid) {
  std::vector<std::int32_t> bin_of(
      static_cast<std::size_t>(grid.n[0]) * static_cast<std::size_t>(grid.n[1]) * static_cast<std::size_t>(grid.n[2]),
      -1);
  std::vector<Bin> bins;
  for (std::size_t p = 0; p < positions.size(); ++p) {
    const Vec3& x = positions[p];
    if (!std::isfinite(x[0]) || !std::isfinite(x[1]) || !std::isfinite(x[2])) continue;
    std::array<int, 3> c{};
    for (int a = 0; a < 3; ++a)
      c[a] = std::clamp(static_cast<int>((x[a] - grid.origin[a]) / grid.cell), 0, grid.n[a] - 1);
    std::int32_t& bin = bin_of[grid.Index(c[0], c[1], c[2])];
    if (bin < 0) {
      bin = static_cast<std::int32_t>(bins.size());
      bins.emplace_back();
    }
    Bin& b = bins[static_cast<std::size_t>(bin)];
    b.x = Add(b.x, x);
    for (int a = 0; a < 4; ++a) b.color[a] += colors[p][a];
    b.count += 1.0f;
  }
  for (Bin& b : bins) {
    b.x = Scale(b.x, 1.0f / b.count);
    for (float& channel : b.color) channel /= b.count;
  }
  return bins;
}

// Splats the particles into the grid's sums and sets φ at every node (Zhu and Bridson 2005, eq. 3-5).
void ComputeField(std::span<const Vec3> positions, std::span<const Rgba> colors, float spacing, float kernel_radius,
                  FieldGrid& grid) {
  const float scale = std::max(spacing, grid.cell);  // A coarsened grid draws the particles as if that far apart.
  const float radius = kernel_radius * scale;        // R [m].
  const float r = EffectiveRadius(kernel_radius) * scale;
  const std::size_t count =
      static_cast<std::size_t>(grid.n[0]) * static_cast<std::size_t>(grid.n[1]) * static_cast<std::size_t>(grid.n[2]);
  std::vector<Vec3> weighted_x(count, Vec3{0, 0, 0});  // Σ w_i (x_i − origin).
  grid.weight.assign(count, 0.0f);
  grid.weighted_rgb.assign(count, Rgba{0, 0, 0, 0});
  const float reach = radius / grid.cell;  // [cells].
  const float inverse_squared_radius = 1.0f / (radius * radius);
  // On a coarsened grid the particles are first binned per cell: each bin splats once, at its particles' mean
  // position, with their count as its weight and their mean colour.
  const bool binned = grid.cell > 1.001f * spacing;
  std::vector<Bin> bins = binned ? BinParticles(positions, colors, grid) : std::vector<Bin>{};
  const std::size_t sources = binned ? bins.size() : positions.size();
  for (std::size_t p = 0; p < sources; ++p) {
    const Vec3& x = binned ? bins[p].x : positions[p];
    if (!std::isfinite(x[0]) || !std::isfinite(x[1]) || !std::isfinite(x[2])) continue;
    const float mass = binned ? bins[p].count : 1.0f;
    const Vec3 local = Subtract(x, grid.origin);
    std::array<int, 3> lo{}, hi{};
    for (int a = 0; a < 3; ++a) {
      const float u = local[a] / grid.cell;
      lo[a] = std::max(0, static_cast<int>(std::ceil(u - reach)));
      hi[a] = std::min(grid.n[a] - 1, static_cast<int>(std::floor(u + reach)));
    }
    const Rgba& c = binned ? bins[p].color : colors[p];
    for (int k = lo[2]; k <= hi[2]; ++k) {
      const float dz = static_cast<float>(k) * grid.cell - local[2];
      for (int j = lo[1]; j <= hi[1]; ++j) {
        const float dy = static_cast<float>(j) * grid.cell - local[1];
        const float dyz = dy * dy + dz * dz;
        std::size_t node = grid.Index(lo[0], j, k);
        for (int i = lo[0]; i <= hi[0]; ++i, ++node) {
          const float dx = static_cast<float>(i) * grid.cell - local[0];
          const float w = mass * Kernel((dx * dx + dyz) * inverse_squared_radius);
          if (w <= 0.0f) continue;
          grid.weight[node] += w;
          for (int a = 0; a < 3; ++a) weighted_x[node][a] += w * local[a];
          for (int a = 0; a < 4; ++a) grid.weighted_rgb[node][a] += w * c[a];
        }
      }
    }
  }
  grid.outside = radius;
  grid.phi.assign(count, radius);
  for (int k = 0; k < grid.n[2]; ++k) {
    for (int j = 0; j < grid.n[1]; ++j) {
      for (int i = 0; i < grid.n[0]; ++i) {
        const std::size_t node = grid.Index(i, j, k);
        const float w = grid.weight[node];
        if (!(w > 0.0f)) continue;
        const Vec3 mean = Scale(weighted_x[node], 1.0f / w);  // x̄ − origin
        const Vec3 offset{static_cast<float>(i) * grid.cell - mean[0], static_cast<float>(j) * grid.cell - mean[1],
                          static_cast<float>(k) * grid.cell - mean[2]};
        grid.phi[node] = Length(offset) - r;
      }
    }
  }
}

// A hash of a cell's integer coordinates to [−1, 1] (sand's grain).
float CellNoise(int i, int j, int k) {
  std::uint32_t h = static_cast<std::uint32_t>(i) * 73856093u ^ static_cast<std::uint32_t>(j) * 19349663u ^
                    static_cast<std::uint32_t>(k) * 83492791u;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return static_cast<float>(h & 0xffffu) / 32767.5f - 1.0f;
}

// The vertex of cell (i, j, k) of surface nets (Gibson 1998, section 3) when the cell's corners' φ differ in sign:
// at the mean of the zero crossings on its edges, coloured by the kernel-weighted mean colour there (trilinear in
// the cell's sums) and brightened or darkened by up to `grain` (a hash of the cell). False when φ has one sign.
bool CellVertex(const FieldGrid& grid, int i, int j, int k, float grain, Vec3& position, Rgba& color) {
  std::array<float, 8> phi{};
  int inside = 0;
  for (int corner = 0; corner < 8; ++corner) {
    phi[corner] = grid.phi[grid.Index(i + (corner & 1), j + ((corner >> 1) & 1), k + ((corner >> 2) & 1))];
    if (phi[corner] < 0.0f) ++inside;
  }
  if (inside == 0 || inside == 8) return false;
  Vec3 sum{0, 0, 0};
  int crossings = 0;
  for (int corner = 0; corner < 8; ++corner) {
    for (int bit : {1, 2, 4}) {
      const int other = corner | bit;
      if ((corner & bit) != 0 || (phi[corner] < 0.0f) == (phi[other] < 0.0f)) continue;
      const float t = phi[corner] / (phi[corner] - phi[other]);
      for (int a = 0; a < 3; ++a) {
        const float from = static_cast<float>((corner >> a) & 1);
        sum[a] += from + t * (static_cast<float>((other >> a) & 1) - from);
      }
      ++crossings;
    }
  }
  const Vec3 f = Scale(sum, 1.0f / static_cast<float>(crossings));  // In the cell, [0, 1]³.
  color = {0, 0, 0, 0};
  float weight = 0;
  for (int corner = 0; corner < 8; ++corner) {
    const int dx = corner & 1, dy = (corner >> 1) & 1, dz = (corner >> 2) & 1;
    const float t = (dx != 0 ? f[0] : 1 - f[0]) * (dy != 0 ? f[1] : 1 - f[1]) * (dz != 0 ? f[2] : 1 - f[2]);
    const std::size_t node = grid.Index(i + dx, j + dy, k + dz);
    weight += t * grid.weight[node];
    for (int a = 0; a < 4; ++a) color[a] += t * grid.weighted_rgb[node][a];
  }
  const float brightness = 1.0f + grain * CellNoise(i, j, k);
  for (int a = 0; a < 3; ++a) color[a] = std::clamp(weight > 0.0f ? color[a] / weight * brightness : 0.0f, 0.0f, 1.0f);
  color[3] = 1.0f;
  const std::array<int, 3> cell{i, j, k};
  for (int a = 0; a < 3; ++a) position[a] = grid.origin[a] + grid.cell * (static_cast<float>(cell[a]) + f[a]);
  return true;
}

// Surface nets' faces: two triangles across each grid edge whose ends' φ differ in sign, joining the vertices
// (`vertex_of`, per cell) of the four cells around it. From node N along axis a those cells have lowest nodes
// N − {0, 1}·e_u − {0, 1}·e_v (u, v the next axes in cyclic order), counter-clockwise seen from +a in the order
// (−,−), (+,−), (+,+), (−,+); the surface faces +a when N is inside.
void AddQuads(const FieldGrid& grid, const std::vector<std::int32_t>& vertex_of, SurfaceMesh& mesh) {
  const std::array<int, 3>& n = grid.n;
  for (int k = 1; k + 1 < n[2]; ++k) {
    for (int j = 1; j + 1 < n[1]; ++j) {
      for (int i = 1; i + 1 < n[0]; ++i) {
        const std::array<int, 3> node{i, j, k};
        const bool inside = grid.phi[grid.Index(i, j, k)] < 0.0f;
        for (int a = 0; a < 3; ++a) {
          std::array<int, 3> next = node;
          ++next[a];
          if ((grid.phi[grid.Index(next[0], next[1], next[2])] < 0.0f) == inside) continue;
          const int u = (a + 1) % 3, v = (a + 2) % 3;
          std::array<std::int32_t, 4> quad{};
          for (int q = 0; q < 4; ++q) {
            std::array<int, 3> c = node;
            c[u] -= (q == 0 || q == 3) ? 1 : 0;
            c[v] -= (q == 0 || q == 1) ? 1 : 0;
            quad[q] = vertex_of[grid.Index(c[0], c[1], c[2])];
          }
          if (std::any_of(quad.begin(), quad.end(), [](std::int32_t q) { return q < 0; })) continue;
          const std::array<int, 6> order =
              inside ? std::array<int, 6>{0, 1, 2, 0, 2, 3} : std::array<int, 6>{0, 2, 1, 0, 3, 2};
          for (int o : order) mesh.indices.push_back(static_cast<std::uint32_t>(quad[o]));
        }
      }
    }
  }
}

// Surface nets (Gibson 1998, section 3): a vertex in each cell the surface crosses (CellVertex), then the faces
// between them (AddQuads).
void ExtractSurfaceNets(const FieldGrid& grid, float grain, SurfaceMesh& mesh) {
  const std::array<int, 3>& n = grid.n;
  const std::size_t cells = static_cast<std::size_t>(n[0]) * static_cast<std::size_t>(n[1]) * n[2];
  std::vector<std::int32_t> vertex_of(cells, -1);  // Per cell, indexed like its lowest node.
  Vec3 position{};
  Rgba color{};
  for (int k = 0; k + 1 < n[2]; ++k) {
    for (int j = 0; j + 1 < n[1]; ++j) {
      for (int i = 0; i + 1 < n[0]; ++i) {
        if (!CellVertex(grid, i, j, k, grain, position, color)) continue;
        vertex_of[grid.Index(i, j, k)] = static_cast<std::int32_t>(mesh.positions.size());
        mesh.positions.push_back(position);
        mesh.colors.push_back(color);
      }
    }
  }
  AddQuads(grid, vertex_of, mesh);
}

// Taubin smoothing (1995, section 4): `passes` times a step λ, then a step μ, toward the mean of each vertex's
// neighbours along the triangles' edges.
void Smooth(int passes, SurfaceMesh& mesh) {
  const std::size_t count = mesh.positions.size();
  std::vector<Vec3> sum(count);
  std::vector<float> neighbours(count);
  for (int pass = 0; pass < 2 * passes; ++pass) {
    const float factor = pass % 2 == 0 ? kTaubinLambda : kTaubinMu;
    std::fill(sum.begin(), sum.end(), Vec3{0, 0, 0});
    std::fill(neighbours.begin(), neighbours.end(), 0.0f);
    for (std::size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
      for (int e = 0; e < 3; ++e) {
        const std::uint32_t a = mesh.indices[t + e], b = mesh.indices[t + (e + 1) % 3];
        sum[a] = Add(sum[a], mesh.positions[b]);
        sum[b] = Add(sum[b], mesh.positions[a]);
        neighbours[a] += 1.0f;
        neighbours[b] += 1.0f;
      }
    }
    for (std::size_t p = 0; p < count; ++p) {
      if (neighbours[p] == 0.0f) continue;
      const Vec3 mean = Scale(sum[p], 1.0f / neighbours[p]);
      mesh.positions[p] = Add(mesh.positions[p], Scale(Subtract(mean, mesh.positions[p]), factor));
    }
  }
}

// Vertex normals: the area-weighted means of the adjacent triangles' normals.
void ComputeNormals(SurfaceMesh& mesh) {
  mesh.normals.assign(mesh.positions.size(), Vec3{0, 0, 0});
  for (std::size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
    const std::uint32_t a = mesh.indices[t], b = mesh.indices[t + 1], c = mesh.indices[t + 2];
    const Vec3 face = Cross(Subtract(mesh.positions[b], mesh.positions[a]),
                            Subtract(mesh.positions[c], mesh.positions[a]));  // Twice the area along the normal.
    for (std::uint32_t v : {a, b, c}) mesh.normals[v] = Add(mesh.normals[v], face);
  }
  for (Vec3& normal : mesh.normals) normal = Normalize(normal, Vec3{0, 0, 1});
}

// Each vertex's opacity 1 − exp(−σ d) (Beer-Lambert), d the length inside the continuum (φ < 0) along the line of
// sight from `eye` through the vertex, marched a cell at a time from the vertex on; at least kMinOpacity. The march
// stops where the opacity would pass 0.99, where the line leaves the grid, or after 128 cells. Vertices facing away
// from the eye (culled when drawn) keep kMinOpacity.
void SetOpacity(const FieldGrid& grid, const Vec3& eye, float absorption, SurfaceMesh& mesh) {
  constexpr int kMaxSteps = 128;
  const float enough = -std::log(0.01f) / absorption;  // [m]
  for (std::size_t p = 0; p < mesh.positions.size(); ++p) {
    const Vec3 direction = Normalize(Subtract(mesh.positions[p], eye), Vec3{0, 0, -1});
    float thickness = 0;
    if (Dot(direction, mesh.normals[p]) < 0.0f) {
      // Where the line of sight leaves the grid (nothing but outside beyond): the nearest exit through its faces.
      float exit = std::numeric_limits<float>::max();
      for (int a = 0; a < 3; ++a) {
        if (direction[a] == 0.0f) continue;
        const float face =
            direction[a] > 0.0f ? grid.origin[a] + grid.cell * static_cast<float>(grid.n[a] - 1) : grid.origin[a];
        exit = std::min(exit, (face - mesh.positions[p][a]) / direction[a]);
      }
      const int steps = std::min(kMaxSteps, static_cast<int>(exit / grid.cell));
      for (int step = 0; step < steps && thickness < enough; ++step) {
        const Vec3 x = Add(mesh.positions[p], Scale(direction, (static_cast<float>(step) + 0.5f) * grid.cell));
        if (grid.PhiAt(x) < 0.0f) thickness += grid.cell;
      }
    }
    mesh.colors[p][3] = std::max(kMinOpacity, 1.0f - std::exp(-absorption * thickness));
  }
}

}  // namespace

SurfaceMesh ReconstructSurface(std::span<const Vec3> positions, std::span<const Rgba> colors,
                               const SurfaceParams& params) {
  if (colors.size() != positions.size()) {
    throw std::invalid_argument("ReconstructSurface: " + std::to_string(colors.size()) + " colours for " +
                                std::to_string(positions.size()) + " particles");
  }
  if (!(params.spacing > 0.0f) || !std::isfinite(params.spacing)) {
    throw std::invalid_argument("ReconstructSurface: spacing " + std::to_string(params.spacing) +
                                " is not a positive length");
  }
  if (!(params.kernel_radius >= 1.0f && params.kernel_radius <= 8.0f)) {
    throw std::invalid_argument("ReconstructSurface: kernel radius " + std::to_string(params.kernel_radius) +
                                " spacings is outside [1, 8]");
  }
  SurfaceMesh mesh;
  mesh.translucent = params.absorption > 0.0f;
  FieldGrid grid;
  if (!LayOutGrid(positions, params.spacing, params.kernel_radius, grid)) return mesh;
  ComputeField(positions, colors, params.spacing, params.kernel_radius, grid);
  ExtractSurfaceNets(grid, params.grain, mesh);
  Smooth(params.smoothing_passes, mesh);
  ComputeNormals(mesh);
  if (mesh.translucent) SetOpacity(grid, params.eye, params.absorption, mesh);
  return mesh;
}

}  // namespace ductile::render
