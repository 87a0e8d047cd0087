#include "shaders.h"

namespace ductile::render {
namespace {

// Each .spv.inc is a braced list of SPIR-V words written by glslc -mfmt=c (render/CMakeLists.txt).
constexpr std::uint32_t kBackgroundVert[] =
#include "background.vert.spv.inc"
    ;
constexpr std::uint32_t kBackgroundFrag[] =
#include "background.frag.spv.inc"
    ;
constexpr std::uint32_t kGridVert[] =
#include "grid.vert.spv.inc"
    ;
constexpr std::uint32_t kGridFrag[] =
#include "grid.frag.spv.inc"
    ;
constexpr std::uint32_t kGridUnshadowedFrag[] =
#include "grid_unshadowed.frag.spv.inc"
    ;
constexpr std::uint32_t kGridCacheFrag[] =
#include "grid_cache.frag.spv.inc"
    ;
constexpr std::uint32_t kGroundCacheFrag[] =
#include "ground_cache.frag.spv.inc"
    ;
constexpr std::uint32_t kGroundShadowFrag[] =
#include "ground_shadow.frag.spv.inc"
    ;
constexpr std::uint32_t kLineVert[] =
#include "line.vert.spv.inc"
    ;
constexpr std::uint32_t kLineFrag[] =
#include "line.frag.spv.inc"
    ;
constexpr std::uint32_t kMeshVert[] =
#include "mesh.vert.spv.inc"
    ;
constexpr std::uint32_t kMeshFrag[] =
#include "mesh.frag.spv.inc"
    ;
constexpr std::uint32_t kParticleVert[] =
#include "particle.vert.spv.inc"
    ;
constexpr std::uint32_t kParticleFrag[] =
#include "particle.frag.spv.inc"
    ;
constexpr std::uint32_t kParticleFlatDepthFrag[] =
#include "particle_flat_depth.frag.spv.inc"
    ;
constexpr std::uint32_t kParticleShadowVert[] =
#include "particle_shadow.vert.spv.inc"
    ;
constexpr std::uint32_t kParticleShadowFrag[] =
#include "particle_shadow.frag.spv.inc"
    ;
constexpr std::uint32_t kShadowVert[] =
#include "shadow.vert.spv.inc"
    ;
constexpr std::uint32_t kSurfaceVert[] =
#include "surface.vert.spv.inc"
    ;
constexpr std::uint32_t kSurfaceFrag[] =
#include "surface.frag.spv.inc"
    ;
constexpr std::uint32_t kSurfaceWaterFrag[] =
#include "surface_water.frag.spv.inc"
    ;
constexpr std::uint32_t kSurfaceShadowVert[] =
#include "surface_shadow.vert.spv.inc"
    ;
constexpr std::uint32_t kUpscaleVert[] =
#include "upscale.vert.spv.inc"
    ;
constexpr std::uint32_t kUpscaleFrag[] =
#include "upscale.frag.spv.inc"
    ;

}  // namespace

std::span<const std::uint32_t> ShaderCode(ShaderId id) {
  switch (id) {
    case ShaderId::kBackgroundVert:
      return kBackgroundVert;
    case ShaderId::kBackgroundFrag:
      return kBackgroundFrag;
    case ShaderId::kGridVert:
      return kGridVert;
    case ShaderId::kGridFrag:
      return kGridFrag;
    case ShaderId::kGridUnshadowedFrag:
      return kGridUnshadowedFrag;
    case ShaderId::kGridCacheFrag:
      return kGridCacheFrag;
    case ShaderId::kGroundCacheFrag:
      return kGroundCacheFrag;
    case ShaderId::kGroundShadowFrag:
      return kGroundShadowFrag;
    case ShaderId::kLineVert:
      return kLineVert;
    case ShaderId::kLineFrag:
      return kLineFrag;
    case ShaderId::kMeshVert:
      return kMeshVert;
    case ShaderId::kMeshFrag:
      return kMeshFrag;
    case ShaderId::kParticleVert:
      return kParticleVert;
    case ShaderId::kParticleFrag:
      return kParticleFrag;
    case ShaderId::kParticleFlatDepthFrag:
      return kParticleFlatDepthFrag;
    case ShaderId::kParticleShadowVert:
      return kParticleShadowVert;
    case ShaderId::kParticleShadowFrag:
      return kParticleShadowFrag;
    case ShaderId::kShadowVert:
      return kShadowVert;
    case ShaderId::kSurfaceVert:
      return kSurfaceVert;
    case ShaderId::kSurfaceFrag:
      return kSurfaceFrag;
    case ShaderId::kSurfaceWaterFrag:
      return kSurfaceWaterFrag;
    case ShaderId::kSurfaceShadowVert:
      return kSurfaceShadowVert;
    case ShaderId::kUpscaleVert:
      return kUpscaleVert;
    case ShaderId::kUpscaleFrag:
      return kUpscaleFrag;
  }
  return {};
}

}  // namespace ductile::render
