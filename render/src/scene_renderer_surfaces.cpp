// The continua's reconstructed surfaces (RenderScene::surfaces, particle_surface.h): their vertex layout (world
// position, normal, colour), pipelines and draws. Opaque surfaces are drawn with the meshes, before the particles and
// the ground; translucent ones (water) after everything opaque, the background included, blended and without writing
// depth, so that what lies behind them is there to blend with. Both cull back faces: a closed surface seen from
// outside shows only its front, and a translucent one must not be blended twice. All cast shadows
// (surface_shadow.vert).
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "scene_renderer_impl.h"

namespace ductile::render {
namespace {

std::vector<VkVertexInputBindingDescription> SurfaceBindings() {
  return {{0, sizeof(SurfaceVertex), VK_VERTEX_INPUT_RATE_VERTEX}};
}

std::vector<VkVertexInputAttributeDescription> SurfaceAttributes() {
  return {{0, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(SurfaceVertex, position)},
          {1, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(SurfaceVertex, normal)},
          {2, 0, VK_FORMAT_R32G32B32A32_SFLOAT, offsetof(SurfaceVertex, color)}};
}

}  // namespace

void SceneRenderer::Impl::CreateSurfacePipelines() {
  PipelineDesc opaque =
      TargetPipeline(ShaderId::kSurfaceVert, ShaderId::kSurfaceFrag, SurfaceBindings(), SurfaceAttributes());
  opaque.cull_back = true;
  surface_pipeline = CreatePipeline(opaque);

  // Water keeps the target's alpha (the blend's alpha is coverage of what lies behind, not the pixel's).
  PipelineDesc water =
      TargetPipeline(ShaderId::kSurfaceVert, ShaderId::kSurfaceWaterFrag, SurfaceBindings(), SurfaceAttributes());
  water.cull_back = true;
  water.blend = true;
  water.depth_write = false;
  water.write_mask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT;
  water_surface_pipeline = CreatePipeline(water);

  PipelineDesc shadow_surface{ShaderId::kSurfaceShadowVert, std::nullopt, SurfaceBindings(), {SurfaceAttributes()[0]}};
  shadow_surface.depth_bias = true;
  shadow_surface.has_color = false;
  shadow_surface.render_pass = shadow.render_pass;
  shadow.surface_pipeline = CreatePipeline(shadow_surface);
}

void SceneRenderer::Impl::WriteSurfaces(Frame& frame, const RenderScene& scene, Bounds& casters) const {
  auto* vertices = Section<SurfaceVertex>(frame, frame.surface_vertex_offset);
  auto* indices = Section<std::uint32_t>(frame, frame.surface_index_offset);
  frame.surface_draws.clear();
  frame.translucent_surface_draws.clear();
  std::size_t vertex = 0, index = 0;
  for (const SurfaceMesh& surface : scene.surfaces) {
    for (std::size_t v = 0; v < surface.positions.size(); ++v) {
      vertices[vertex + v] = {surface.positions[v], surface.normals[v], surface.colors[v]};
      casters.Add(surface.positions[v]);
    }
    std::memcpy(indices + index, surface.indices.data(), surface.indices.size() * sizeof(std::uint32_t));
    MeshDraw draw;
    draw.index_count = static_cast<std::uint32_t>(surface.indices.size());
    draw.first_index = static_cast<std::uint32_t>(index);
    draw.vertex_offset = static_cast<std::int32_t>(vertex);
    draw.instance_count = 1;
    if (draw.index_count > 0)
      (surface.translucent ? frame.translucent_surface_draws : frame.surface_draws).push_back(draw);
    vertex += surface.positions.size();
    index += surface.indices.size();
  }
}

void SceneRenderer::Impl::DrawSurfaces(VkCommandBuffer command_buffer, const Frame& frame,
                                       const std::vector<MeshDraw>& draws) const {
  if (draws.empty()) return;
  const VkBuffer buffer = frame.data.buffer();
  vkCmdBindVertexBuffers(command_buffer, 0, 1, &buffer, &frame.surface_vertex_offset);
  vkCmdBindIndexBuffer(command_buffer, buffer, frame.surface_index_offset, VK_INDEX_TYPE_UINT32);
  for (const MeshDraw& draw : draws) {
    vkCmdDrawIndexed(command_buffer, draw.index_count, 1, draw.first_index, draw.vertex_offset, 0);
  }
}

void SceneRenderer::Impl::RecordSurfaces(VkCommandBuffer command_buffer, const Frame& frame, bool translucent) const {
  const std::vector<MeshDraw>& draws = translucent ? frame.translucent_surface_draws : frame.surface_draws;
  if (draws.empty()) return;
  vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS,
                    translucent ? water_surface_pipeline : surface_pipeline);
  DrawSurfaces(command_buffer, frame, draws);
}

}  // namespace ductile::render
