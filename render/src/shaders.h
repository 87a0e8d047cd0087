// The renderer's shaders as SPIR-V words, compiled from render/shaders/ at build time and embedded in the library.
#pragma once

#include <cstdint>
#include <span>

namespace ductile::render {

enum class ShaderId {
  kBackgroundVert,
  kBackgroundFrag,
  kGridVert,
  kGridFrag,
  kGridUnshadowedFrag,
  kGridCacheFrag,
  kGroundCacheFrag,
  kGroundShadowFrag,
  kLineVert,
  kLineFrag,
  kMeshVert,
  kMeshFrag,
  kParticleVert,
  kParticleFrag,
  kParticleFlatDepthFrag,
  kParticleShadowVert,
  kParticleShadowFrag,
  kShadowVert,
  kSurfaceVert,
  kSurfaceFrag,
  kSurfaceWaterFrag,
  kSurfaceShadowVert,
  kUpscaleVert,
  kUpscaleFrag,
};

/// The SPIR-V code of `id`.
std::span<const std::uint32_t> ShaderCode(ShaderId id);

}  // namespace ductile::render
