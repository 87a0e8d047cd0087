// The surface of a particle continuum (issue 22, "Materials drawn as what they are"): a triangle mesh around a cloud
// of MPM particles, which BuildRenderScene draws in place of the beads (ViewOptions::particle_style).
//
// Method: an implicit surface on a grid, extracted as a mesh on the CPU.
// 1. The field of Zhu and Bridson (2005, "Animating sand as a fluid", section 3, eq. 3-5): with the kernel
//    k(s) = max(0, 1 − s²)³ and weights w_i = k(|x − x_i| / R), the weighted mean position x̄ = Σ w_i x_i / Σ w_i
//    and φ(x) = |x − x̄| − r. One particle alone gives a sphere of radius r; a flat layer gives a flat surface. r is
//    chosen so that a flat layer's surface lies where its beads' tops are: half a spacing above the outer layer
//    (EffectiveRadius in particle_surface.cpp).
// 2. Surface nets (Gibson 1998, "Constrained elastic surface nets", section 3), the dual of marching cubes: one
//    vertex in every grid cell that the surface crosses, at the mean of the crossings on the cell's edges, and one
//    quad (two triangles) across every grid edge that the surface crosses, joining the four cells around it.
// 3. Optionally Taubin's smoothing (Taubin 1995, "A signal processing approach to fair surface design", section 4:
//    a step λ toward the neighbours' mean, then a step μ < −λ away, which smooths without shrinking).
//
// Why a mesh from a grid and not screen-space fluid rendering (van der Laan, Green and Sainz 2009, "Screen space
// fluid rendering with curvature flow"; Green 2010, "Screen Space Fluid Rendering for Games"): on a CPU device
// (lavapipe, the studio's common case) every full-screen pass costs 5 to 10 ns a pixel whatever it does, and screen
// space needs at least five (depth splat, two filter passes, thickness, composition) on top of the beads' own cost;
// a mesh costs one lit draw of the pixels it covers, goes through the existing shadow map and render scale, and is
// the same picture on a GPU and a CPU. Surface nets rather than the marching cubes table: no 256-case table, one
// vertex per cell shared by its quads (smooth normals, about half the triangles).
#pragma once

#include <cstdint>
#include <span>

#include "ductile/render/render_scene.h"

namespace ductile::render {

/// How one continuum's surface is built and coloured.
struct SurfaceParams {
  /// Particle spacing at rest [m] (twice the beads' radius), > 0: the grid's cell size and the kernel's scale.
  float spacing = 0.01f;
  /// The kernel's radius R in spacings, in [1, 8]: wider joins particles further apart and fills small voids, at a cost
  /// that grows with its cube.
  float kernel_radius = 2.0f;
  /// Taubin smoothing passes (each a λ and a μ step), ≥ 0: 0 keeps the grid's bumps (sand), 2 for dough and water.
  int smoothing_passes = 2;
  /// Relative amplitude of a per-vertex brightness noise in [0, 1) (sand's grains; 0 none).
  float grain = 0;
  /// Absorption coefficient σ [1/m] ≥ 0. Above 0 the surface is translucent: each vertex's alpha is the opacity
  /// 1 − exp(−σ d) of the thickness d of the continuum behind it along the line of sight from `eye`
  /// (Beer-Lambert), at least kMinOpacity. 0: opaque (alpha 1).
  float absorption = 0;
  Vec3 eye{0, 0, 0};  ///< The camera's position [m], for the thickness of translucent surfaces.
};

/// The smallest opacity of a translucent surface's vertex (a film of water stays visible).
inline constexpr float kMinOpacity = 0.12f;

/// Particles beyond which a continuum is reconstructed on cells coarser than its spacing (about this many cells'
/// worth of particles, binned per cell), so that its cost stops growing with the count: on one core of a 2-core AMD
/// EPYC VM a 5,400-particle slab takes 4 to 9 ms as a solid and 12 to 14 as water (bench/results/*-render.md).
inline constexpr std::int64_t kMaxSurfaceParticles = 16384;

/// Upper bound on the grid's nodes: a continuum spread wider is reconstructed on coarser cells.
inline constexpr std::int64_t kMaxSurfaceGridNodes = std::int64_t{1} << 21;

/// The surface around `positions` [m] (non-finite ones are skipped) with per-vertex colours averaged from `colors`
/// (same size, linear RGBA) with the field's weights; translucent per `params.absorption`. The mesh's triangles
/// wind counter-clockwise seen from outside and its normals point out. Empty when there are no particles. Throws
/// std::invalid_argument for mismatched sizes or a spacing that is not a positive length. Thread-safe (no state).
SurfaceMesh ReconstructSurface(std::span<const Vec3> positions, std::span<const Rgba> colors,
                               const SurfaceParams& params);

}  // namespace ductile::render
