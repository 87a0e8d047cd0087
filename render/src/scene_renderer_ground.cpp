// The ground: a square grid around the camera's target at the ground's height, opaque (it mixes in the background
// where it fades out), split on the CPU into the part the shadow map reaches, which looks the shadow up, and the rest,
// which does not (a CPU device evaluates both sides of every branch). While the view holds still its unshadowed
// colours come from the ground cache, an image per frame slot drawn again only when what it depends on changes
// (GroundCacheKey); the frame then copies them and shades only the shadows (ground_cache.frag, ground_shadow.frag).
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "scene_renderer_impl.h"

namespace ductile::render {
namespace {

// The part of convex polygon `polygon` on the left of the directed line from `a` to `b` (Sutherland-Hodgman), or
// on its right when `left` is false.
std::vector<Point2> ClipPolygon(const std::vector<Point2>& polygon, const Point2& a, const Point2& b, bool left) {
  const float sign = left ? 1.0f : -1.0f;
  auto side = [&](const Point2& p) { return sign * ((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])); };
  std::vector<Point2> clipped;
  for (std::size_t i = 0; i < polygon.size(); ++i) {
    const Point2& current = polygon[i];
    const Point2& next = polygon[(i + 1) % polygon.size()];
    const float d_current = side(current), d_next = side(next);
    if (d_current >= 0.0f) clipped.push_back(current);
    if ((d_current > 0.0f && d_next < 0.0f) || (d_current < 0.0f && d_next > 0.0f)) {
      const float t = d_current / (d_current - d_next);
      clipped.push_back({current[0] + t * (next[0] - current[0]), current[1] + t * (next[1] - current[1])});
    }
  }
  return clipped;
}

// Appends the triangles of a fan over convex `polygon` to `triangles`.
void AppendFan(const std::vector<Point2>& polygon, std::vector<Point2>& triangles) {
  for (std::size_t i = 1; i + 1 < polygon.size(); ++i) {
    triangles.insert(triangles.end(), {polygon[0], polygon[i], polygon[i + 1]});
  }
}

// Splits the ground `square` (counter-clockwise) into the part inside convex `footprint` (the ground the shadow
// map reaches, counter-clockwise), as triangles in `shadowed`, and the rest, in `plain`: the rest is cut off the
// square one footprint edge at a time, each cut a convex piece.
void SplitGround(const std::vector<Point2>& square, const std::vector<Point2>& footprint, std::vector<Point2>& shadowed,
                 std::vector<Point2>& plain) {
  std::vector<Point2> remaining = square;
  for (std::size_t i = 0; i < footprint.size() && remaining.size() >= 3; ++i) {
    const Point2& a = footprint[i];
    const Point2& b = footprint[(i + 1) % footprint.size()];
    AppendFan(ClipPolygon(remaining, a, b, false), plain);
    remaining = ClipPolygon(remaining, a, b, true);
  }
  AppendFan(remaining, shadowed);
}

}  // namespace

PipelineDesc SceneRenderer::Impl::GroundPipeline(ShaderId fragment) const {
  return TargetPipeline(ShaderId::kGridVert, fragment, {{0, sizeof(Point2), VK_VERTEX_INPUT_RATE_VERTEX}},
                        {{0, 0, VK_FORMAT_R32G32_SFLOAT, 0}});
}

void SceneRenderer::Impl::CreateGroundPipelines() {
  // The ground writes opaque colours (grid.frag mixes in the background itself); where the shadow map does not reach
  // it is drawn without the shadow lookup (grid_unshadowed.frag).
  PipelineDesc grid = GroundPipeline(ShaderId::kGridFrag);
  ground.shadowed_pipeline = CreatePipeline(grid);
  grid.fragment = ShaderId::kGridUnshadowedFrag;
  ground.plain_pipeline = CreatePipeline(grid);
}

void SceneRenderer::Impl::CreateGroundCache() {
  // The ground cache, where the device can draw into and sample its format.
  const VkFormatFeatureFlags cache_features =
      VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
  if (!target.ground_cache || !SupportsOptimal(physical_device, kGroundCacheFormat, cache_features)) return;
  // Only the ground's pixels are written, and only they are read (ground.copy_pipeline and
  // ground.shadow_pipeline draw parts of the same square): the old contents are dropped.
  // Written after the previous frame's reads of the same image; this frame's reads after the writes.
  ground.cache_pass = CreateColorRenderPass(
      device, kGroundCacheFormat, VK_ATTACHMENT_LOAD_OP_DONT_CARE, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
      VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT, "vkCreateRenderPass (ground)");

  ground.cache_sampler = CreateClampToEdgeSampler(device, VK_FILTER_NEAREST, "vkCreateSampler (ground)");

  PipelineDesc cache_ground = GroundPipeline(ShaderId::kGridCacheFrag);
  cache_ground.depth_test = false;
  cache_ground.render_pass = ground.cache_pass;
  cache_ground.samples = VK_SAMPLE_COUNT_1_BIT;
  cache_ground.encode_srgb = false;
  ground.cache_pipeline = CreatePipeline(cache_ground);
  PipelineDesc copy_ground = GroundPipeline(ShaderId::kGroundCacheFrag);
  ground.copy_pipeline = CreatePipeline(copy_ground);
  copy_ground.fragment = ShaderId::kGroundShadowFrag;
  ground.shadow_pipeline = CreatePipeline(copy_ground);
}

void SceneRenderer::Impl::WriteGround(Frame& frame, const GroundGrid& grid, const Vec3& center, const LightFit* light,
                                      const Vec3& light_direction) {
  const float x0 = center[0] - grid.extent, x1 = center[0] + grid.extent;
  const float y0 = center[1] - grid.extent, y1 = center[1] + grid.extent;
  const std::vector<Point2> square{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
  std::vector<Point2> shadowed, plain;
  if (light == nullptr) {
    AppendFan(square, plain);
  } else if (light_direction[2] > -0.05f) {
    // A light grazing the ground (or from below) casts shadows without bound along it: all of it may be shadowed.
    AppendFan(square, shadowed);
  } else {
    // The shadow map's rectangle slid along the light onto the ground, counter-clockwise.
    std::array<Point2, 4> corners{};
    for (std::size_t c = 0; c < corners.size(); ++c) {
      const Vec3& corner = light->corners[c];
      const Vec3 p = Add(corner, Scale(light_direction, (grid.height - corner[2]) / light_direction[2]));
      corners[c] = {p[0], p[1]};
    }
    const float twice_area = (corners[1][0] - corners[0][0]) * (corners[2][1] - corners[0][1]) -
                             (corners[1][1] - corners[0][1]) * (corners[2][0] - corners[0][0]);
    if (twice_area < 0.0f) std::reverse(corners.begin(), corners.end());
    const std::vector<Point2> footprint(corners.begin(), corners.end());
    SplitGround(square, footprint, shadowed, plain);
    if (shadowed.size() + plain.size() > kMaxGridVertices) {
      // Rounding made a piece non-convex (it cannot otherwise): the whole square, shadowed, is always right.
      shadowed.clear();
      plain.clear();
      AppendFan(square, shadowed);
    }
  }
  auto* vertices = reinterpret_cast<Point2*>(frame.data.data() + frame.grid_offset);
  std::copy(shadowed.begin(), shadowed.end(), vertices);
  std::copy(plain.begin(), plain.end(), vertices + shadowed.size());
  frame.grid_shadowed_vertices = static_cast<std::uint32_t>(shadowed.size());
  frame.grid_plain_vertices = static_cast<std::uint32_t>(plain.size());
}

void SceneRenderer::Impl::ResizeGroundCache(Frame& frame, VkExtent2D extent) {
  if (frame.ground_cache_framebuffer != VK_NULL_HANDLE) {
    vkDestroyFramebuffer(device, frame.ground_cache_framebuffer, nullptr);
    frame.ground_cache_framebuffer = VK_NULL_HANDLE;
  }
  frame.ground_cache_key.reset();
  frame.ground_cache_extent = {};
  frame.ground_cache =
      GpuImage(physical_device, device, extent, kGroundCacheFormat, VK_SAMPLE_COUNT_1_BIT,
               VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT, VK_IMAGE_ASPECT_COLOR_BIT);
  const VkImageView view = frame.ground_cache.view();
  frame.ground_cache_framebuffer =
      CreateFramebuffer(device, ground.cache_pass, {&view, 1}, extent, "vkCreateFramebuffer (ground)");
  WriteImageDescriptor(device, frame.descriptor_set, 3, ground.cache_sampler, view,
                       VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
  frame.ground_cache_extent = extent;
}

void SceneRenderer::Impl::PrepareGroundCache(VkCommandBuffer command_buffer, Frame& frame,
                                             const FrameUniforms& uniforms, VkExtent2D extent) {
  // The unshadowed ground, drawn again only when what it depends on has changed. While it changes from frame to
  // frame (the camera moving) the ground is drawn directly instead: the cache would cost a pass over all of the
  // ground and then a copy of its visible part, where drawing it directly shades only the visible part once. The
  // cache is drawn once the view holds still for a frame.
  frame.direct_ground = false;
  if (use_ground_cache()) {
    if (frame.ground_cache_extent.width != extent.width || frame.ground_cache_extent.height != extent.height) {
      ResizeGroundCache(frame, extent);
    }
    const GroundCacheKey key(uniforms, frame.grid_visible);
    const bool changing = !last_ground_key || !(*last_ground_key == key);
    last_ground_key = key;
    if (!frame.ground_cache_key || !(*frame.ground_cache_key == key)) {
      if (changing) {
        frame.direct_ground = true;
      } else {
        RecordGroundCache(command_buffer, frame);
        frame.ground_cache_key = key;
      }
    }
  }
}

void SceneRenderer::Impl::RecordGroundCache(VkCommandBuffer command_buffer, Frame& frame) const {
  BeginRenderPass(command_buffer, ground.cache_pass, frame.ground_cache_framebuffer, frame.ground_cache_extent, {});
  BindFrame(command_buffer, frame, frame.ground_cache_extent);
  const std::uint32_t ground_vertices = frame.grid_shadowed_vertices + frame.grid_plain_vertices;
  if (frame.grid_visible && ground_vertices > 0) {
    const VkBuffer buffer = frame.data.buffer();
    vkCmdBindVertexBuffers(command_buffer, 0, 1, &buffer, &frame.grid_offset);
    vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, ground.cache_pipeline);
    vkCmdDraw(command_buffer, ground_vertices, 1, 0, 0);
  }
  vkCmdEndRenderPass(command_buffer);
}

void SceneRenderer::Impl::RecordGround(VkCommandBuffer command_buffer, const Frame& frame) const {
  const VkBuffer buffer = frame.data.buffer();
  const bool cached = use_ground_cache() && !frame.direct_ground;
  if (frame.grid_visible) {
    vkCmdBindVertexBuffers(command_buffer, 0, 1, &buffer, &frame.grid_offset);
    if (frame.grid_shadowed_vertices > 0) {
      vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS,
                        cached ? ground.shadow_pipeline : ground.shadowed_pipeline);
      vkCmdDraw(command_buffer, frame.grid_shadowed_vertices, 1, 0, 0);
    }
    if (frame.grid_plain_vertices > 0) {
      vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS,
                        cached ? ground.copy_pipeline : ground.plain_pipeline);
      vkCmdDraw(command_buffer, frame.grid_plain_vertices, 1, frame.grid_shadowed_vertices, 0);
    }
  }
}

}  // namespace ductile::render
