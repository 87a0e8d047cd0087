// Meshes, arrows and lines: the vertex layouts, pipelines and draws of the lit meshes (the scene's instances, one
// instanced draw per mesh, and the arrows, a shaft and a head each), and of the unlit lines; the arrows' unit meshes;
// and the writing of their vertices, indices and instances into a frame slot's buffer.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numbers>
#include <vector>

#include "scene_renderer_impl.h"

namespace ductile::render {
namespace {

constexpr int kArrowSegments = 16;  // Facets around the arrow's shaft and head.

// Writes one instance's attributes: its transform, the normal matrix (three columns), its colour and whether it is
// selected.
void WriteInstance(InstanceData& data, const Mat4& world_from_mesh, const Rgba& color, bool selected) {
  data.world_from_mesh = world_from_mesh;
  const Mat4 normal = NormalMatrix(world_from_mesh);
  for (int c = 0; c < 3; ++c) {
    for (int r = 0; r < 4; ++r) data.normal_matrix[4 * c + r] = normal[4 * c + r];
  }
  data.color = color;
  data.flags = {selected ? 1.0f : 0.0f, 0, 0, 0};
}

}  // namespace

ArrowMeshes BuildArrowMeshes() {
  ArrowMeshes arrows;
  auto add_disk = [&arrows](float z) {
    const auto center = static_cast<std::uint32_t>(arrows.vertices.size());
    arrows.vertices.push_back({{0, 0, z}, {0, 0, -1}});
    for (int i = 0; i < kArrowSegments; ++i) {
      const float angle = 2.0f * std::numbers::pi_v<float> * static_cast<float>(i) / kArrowSegments;
      arrows.vertices.push_back({{std::cos(angle), std::sin(angle), z}, {0, 0, -1}});
    }
    for (std::uint32_t i = 0; i < kArrowSegments; ++i) {
      arrows.indices.insert(arrows.indices.end(), {center, center + 1 + (i + 1) % kArrowSegments, center + 1 + i});
    }
  };
  auto begin = [&arrows](MeshDraw& draw) {
    draw.first_index = static_cast<std::uint32_t>(arrows.indices.size());
    draw.vertex_offset = static_cast<std::int32_t>(arrows.vertices.size());
  };
  auto end = [&arrows](MeshDraw& draw) {
    draw.index_count = static_cast<std::uint32_t>(arrows.indices.size()) - draw.first_index;
  };

  // Shaft: smooth side (two rings with radial normals) and the bottom disk. Indices are relative to the mesh.
  begin(arrows.shaft);
  const auto shaft_base = static_cast<std::uint32_t>(arrows.vertices.size());
  for (int i = 0; i < kArrowSegments; ++i) {
    const float angle = 2.0f * std::numbers::pi_v<float> * static_cast<float>(i) / kArrowSegments;
    const Vec3 radial{std::cos(angle), std::sin(angle), 0};
    arrows.vertices.push_back({radial, radial});
    arrows.vertices.push_back({{radial[0], radial[1], 1}, radial});
  }
  for (std::uint32_t i = 0; i < kArrowSegments; ++i) {
    const std::uint32_t a = 2 * i, b = 2 * ((i + 1) % kArrowSegments);
    arrows.indices.insert(arrows.indices.end(), {a, b, b + 1, a, b + 1, a + 1});
  }
  add_disk(0.0f);
  for (std::size_t i = arrows.shaft.first_index + 6 * kArrowSegments; i < arrows.indices.size(); ++i) {
    arrows.indices[i] -= shaft_base;
  }
  end(arrows.shaft);

  // Head: one apex vertex per facet so each carries the normal of its facet's middle, then the base disk. The side
  // normal of a unit cone is (cos, sin, 1) / sqrt(2); the normal matrix corrects it for the head's real proportions.
  begin(arrows.head);
  const auto head_base = static_cast<std::uint32_t>(arrows.vertices.size());
  for (int i = 0; i < kArrowSegments; ++i) {
    const float angle = 2.0f * std::numbers::pi_v<float> * static_cast<float>(i) / kArrowSegments;
    const float middle = 2.0f * std::numbers::pi_v<float> * (static_cast<float>(i) + 0.5f) / kArrowSegments;
    const float root_half = std::numbers::sqrt2_v<float> * 0.5f;
    arrows.vertices.push_back(
        {{std::cos(angle), std::sin(angle), 0}, {std::cos(angle) * root_half, std::sin(angle) * root_half, root_half}});
    arrows.vertices.push_back({{0, 0, 1}, {std::cos(middle) * root_half, std::sin(middle) * root_half, root_half}});
  }
  for (std::uint32_t i = 0; i < kArrowSegments; ++i) {
    const std::uint32_t a = 2 * i, b = 2 * ((i + 1) % kArrowSegments);
    arrows.indices.insert(arrows.indices.end(), {a, b, a + 1});
  }
  add_disk(0.0f);
  for (std::size_t i = arrows.head.first_index + 3 * kArrowSegments; i < arrows.indices.size(); ++i) {
    arrows.indices[i] -= head_base;
  }
  end(arrows.head);
  return arrows;
}

std::vector<VkVertexInputBindingDescription> MeshBindings() {
  return {{0, sizeof(MeshVertex), VK_VERTEX_INPUT_RATE_VERTEX},
          {1, sizeof(InstanceData), VK_VERTEX_INPUT_RATE_INSTANCE}};
}

std::vector<VkVertexInputAttributeDescription> MeshAttributes() {
  std::vector<VkVertexInputAttributeDescription> attributes = {
      {0, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(MeshVertex, position)},
      {1, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(MeshVertex, normal)}};
  // world_from_mesh, normal matrix, colour and flags: nine consecutive vec4s.
  for (std::uint32_t i = 0; i < 9; ++i) {
    attributes.push_back({2 + i, 1, VK_FORMAT_R32G32B32A32_SFLOAT, 16 * i});
  }
  return attributes;
}

void SceneRenderer::Impl::CreateMeshPipeline() {
  mesh_pipeline =
      CreatePipeline(TargetPipeline(ShaderId::kMeshVert, ShaderId::kMeshFrag, MeshBindings(), MeshAttributes()));
}

void SceneRenderer::Impl::CreateLinePipeline() {
  PipelineDesc line =
      TargetPipeline(ShaderId::kLineVert, ShaderId::kLineFrag, {{0, sizeof(LineVertex), VK_VERTEX_INPUT_RATE_VERTEX}},
                     {{0, 0, VK_FORMAT_R32G32B32A32_SFLOAT, offsetof(LineVertex, position)},
                      {1, 0, VK_FORMAT_R32G32B32A32_SFLOAT, offsetof(LineVertex, color)}});
  line.topology = VK_PRIMITIVE_TOPOLOGY_LINE_LIST;
  line.depth_write = false;
  line.blend = true;
  line_pipeline = CreatePipeline(line);
}

std::array<MeshDraw, 2> SceneRenderer::Impl::WriteMeshGeometry(Frame& frame, const RenderScene& scene,
                                                               bool meshes_unchanged) const {
  // Mesh geometry: the scene's meshes, then the arrow meshes. Indices stay relative to their mesh; each draw
  // carries its mesh's first vertex. Meshes the buffer already holds (the same as last frame's) are not rewritten;
  // their ranges and bounds stay as they were.
  MeshVertex* vertices = Section<MeshVertex>(frame, frame.vertex_offset);
  std::uint32_t* indices = Section<std::uint32_t>(frame, frame.index_offset);
  std::vector<MeshDraw>& mesh_ranges = frame.mesh_ranges;
  std::vector<Vec3>& mesh_min = frame.mesh_min;
  std::vector<Vec3>& mesh_max = frame.mesh_max;
  std::size_t next_vertex = 0, next_index = 0;  // Where the arrow meshes go: after the scene's.
  for (const MeshData& mesh : scene.meshes) {
    next_vertex += mesh.positions.size();
    next_index += mesh.indices.size();
  }
  if (!meshes_unchanged) {
    mesh_ranges.assign(scene.meshes.size(), MeshDraw{});
    mesh_min.assign(scene.meshes.size(), Vec3{});
    mesh_max.assign(scene.meshes.size(), Vec3{});
    std::size_t vertex = 0, index = 0;
    for (std::size_t m = 0; m < scene.meshes.size(); ++m) {
      const MeshData& mesh = scene.meshes[m];
      mesh_ranges[m].first_index = static_cast<std::uint32_t>(index);
      mesh_ranges[m].index_count = static_cast<std::uint32_t>(mesh.indices.size());
      mesh_ranges[m].vertex_offset = static_cast<std::int32_t>(vertex);
      Bounds bounds;
      for (std::size_t v = 0; v < mesh.positions.size(); ++v) {
        vertices[vertex + v] = {mesh.positions[v], mesh.normals[v]};
        bounds.Add(mesh.positions[v]);
      }
      mesh_min[m] = bounds.min;
      mesh_max[m] = bounds.max;
      std::memcpy(indices + index, mesh.indices.data(), mesh.indices.size() * sizeof(std::uint32_t));
      vertex += mesh.positions.size();
      index += mesh.indices.size();
    }
    std::memcpy(vertices + next_vertex, arrow_meshes.vertices.data(),
                arrow_meshes.vertices.size() * sizeof(MeshVertex));
    std::memcpy(indices + next_index, arrow_meshes.indices.data(), arrow_meshes.indices.size() * sizeof(std::uint32_t));
    frame.uploaded_meshes = scene.meshes;
  }
  MeshDraw shaft = arrow_meshes.shaft, head = arrow_meshes.head;
  shaft.first_index += static_cast<std::uint32_t>(next_index);
  head.first_index += static_cast<std::uint32_t>(next_index);
  shaft.vertex_offset += static_cast<std::int32_t>(next_vertex);
  head.vertex_offset += static_cast<std::int32_t>(next_vertex);
  return {shaft, head};
}

void SceneRenderer::Impl::WriteMeshInstances(Frame& frame, const RenderScene& scene, Bounds& casters) const {
  InstanceData* instances = Section<InstanceData>(frame, frame.instance_offset);
  const std::vector<MeshDraw>& mesh_ranges = frame.mesh_ranges;
  const std::vector<Vec3>& mesh_min = frame.mesh_min;
  const std::vector<Vec3>& mesh_max = frame.mesh_max;
  // Scene instances in mesh order, one instanced draw per mesh that has any.
  std::vector<std::uint32_t> order(scene.instances.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&scene](std::uint32_t a, std::uint32_t b) {
    return scene.instances[a].mesh < scene.instances[b].mesh;
  });
  frame.mesh_draws.clear();
  for (std::uint32_t slot = 0; slot < order.size(); ++slot) {
    const MeshInstance& instance = scene.instances[order[slot]];
    const auto m = static_cast<std::size_t>(instance.mesh);
    WriteInstance(instances[slot], instance.world_from_mesh, instance.color, instance.selected);
    if (!scene.meshes[m].positions.empty()) {
      for (int corner = 0; corner < 8; ++corner) {
        const Vec3 p{(corner & 1) != 0 ? mesh_max[m][0] : mesh_min[m][0],
                     (corner & 2) != 0 ? mesh_max[m][1] : mesh_min[m][1],
                     (corner & 4) != 0 ? mesh_max[m][2] : mesh_min[m][2]};
        casters.Add(TransformPoint(instance.world_from_mesh, p));
      }
    }
    if (mesh_ranges[m].index_count == 0) continue;
    if (!frame.mesh_draws.empty() && slot > 0 && scene.instances[order[slot - 1]].mesh == instance.mesh) {
      ++frame.mesh_draws.back().instance_count;
    } else {
      MeshDraw draw = mesh_ranges[m];
      draw.instance_count = 1;
      draw.first_instance = slot;
      frame.mesh_draws.push_back(draw);
    }
  }
}

void SceneRenderer::Impl::WriteArrows(Frame& frame, const RenderScene& scene, MeshDraw shaft, MeshDraw head,
                                      Bounds& casters) const {
  InstanceData* instances = Section<InstanceData>(frame, frame.instance_offset);
  // Arrows: all shafts, then all heads, so they take two instanced draws. Each is placed in a frame whose z axis is
  // the arrow; the head is 2.5 shaft radii wide and at most 40% of the arrow long. Arrows of zero length or radius
  // are not drawn.
  auto drawable = [](const Arrow& arrow) {
    const float length = Length(arrow.vector);
    return length > 0.0f && std::isfinite(length) && arrow.shaft_radius > 0.0f;
  };
  const auto arrow_count =
      static_cast<std::uint32_t>(std::count_if(scene.arrows.begin(), scene.arrows.end(), drawable));
  const auto first_shaft = static_cast<std::uint32_t>(scene.instances.size());
  std::uint32_t arrow_index = 0;
  for (const Arrow& arrow : scene.arrows) {
    if (!drawable(arrow)) continue;
    const float length = Length(arrow.vector);
    const Vec3 axis = Scale(arrow.vector, 1.0f / length);
    const Vec3 helper = std::fabs(axis[2]) < 0.9f ? Vec3{0, 0, 1} : Vec3{1, 0, 0};
    const Vec3 u = Normalize(Cross(helper, axis), {1, 0, 0});
    const Vec3 v = Cross(axis, u);
    const float head_radius = 2.5f * arrow.shaft_radius;
    const float head_length = std::min(0.4f * length, 3.0f * head_radius);
    const float shaft_length = length - head_length;
    const Vec3 head_base = Add(arrow.origin, Scale(axis, shaft_length));
    auto frame_of = [&](float radius, float height, const Vec3& origin) {
      return Mat4{
          u[0] * radius,    u[1] * radius,    u[2] * radius,    0, v[0] * radius, v[1] * radius, v[2] * radius, 0,
          axis[0] * height, axis[1] * height, axis[2] * height, 0, origin[0],     origin[1],     origin[2],     1};
    };
    WriteInstance(instances[first_shaft + arrow_index], frame_of(arrow.shaft_radius, shaft_length, arrow.origin),
                  arrow.color, false);
    WriteInstance(instances[first_shaft + arrow_count + arrow_index], frame_of(head_radius, head_length, head_base),
                  arrow.color, false);
    casters.Add(arrow.origin, head_radius);
    casters.Add(Add(arrow.origin, arrow.vector), head_radius);
    ++arrow_index;
  }
  frame.arrow_draws.clear();
  if (arrow_count > 0) {
    shaft.instance_count = head.instance_count = arrow_count;
    shaft.first_instance = first_shaft;
    head.first_instance = first_shaft + arrow_count;
    frame.arrow_draws = {shaft, head};
  }
}

void SceneRenderer::Impl::WriteLines(const Frame& frame, const RenderScene& scene) const {
  LineVertex* line_vertices = Section<LineVertex>(frame, frame.line_offset);
  for (std::size_t l = 0; l < scene.lines.size(); ++l) {
    const Line& line = scene.lines[l];
    line_vertices[2 * l] = {Vec4(line.from, 1.0f), line.color};
    line_vertices[2 * l + 1] = {Vec4(line.to, 1.0f), line.color};
  }
}

void SceneRenderer::Impl::DrawMeshes(VkCommandBuffer command_buffer, const Frame& frame,
                                     const std::vector<MeshDraw>& draws) const {
  if (draws.empty()) return;
  const std::array<VkBuffer, 2> buffers{frame.data.buffer(), frame.data.buffer()};
  const std::array<VkDeviceSize, 2> offsets{frame.vertex_offset, frame.instance_offset};
  vkCmdBindVertexBuffers(command_buffer, 0, 2, buffers.data(), offsets.data());
  vkCmdBindIndexBuffer(command_buffer, frame.data.buffer(), frame.index_offset, VK_INDEX_TYPE_UINT32);
  for (const MeshDraw& draw : draws) {
    vkCmdDrawIndexed(command_buffer, draw.index_count, draw.instance_count, draw.first_index, draw.vertex_offset,
                     draw.first_instance);
  }
}

void SceneRenderer::Impl::RecordMeshes(VkCommandBuffer command_buffer, const Frame& frame,
                                       const std::vector<MeshDraw>& draws) const {
  if (draws.empty()) return;
  vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, mesh_pipeline);
  DrawMeshes(command_buffer, frame, draws);
}

void SceneRenderer::Impl::RecordLines(VkCommandBuffer command_buffer, const Frame& frame) const {
  if (frame.line_vertex_count == 0) return;
  const VkBuffer buffer = frame.data.buffer();
  vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, line_pipeline);
  vkCmdBindVertexBuffers(command_buffer, 0, 1, &buffer, &frame.line_offset);
  vkCmdDraw(command_buffer, frame.line_vertex_count, 1, 0, 0);
}

}  // namespace ductile::render
