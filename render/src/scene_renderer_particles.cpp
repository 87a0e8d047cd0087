// Particles: sphere impostors, one triangle each on the plane that touches the sphere's nearest point, read by the
// vertex shader from a storage buffer (no instancing: lavapipe runs the vertex stage of every instance on its own).
// They are drawn front to back from the camera, sorted on the CPU each frame, so that the depth test rejects hidden
// ones before they are shaded; on a CPU device at the depth of their triangle, which the rasteriser can test before
// shading (particle.glsl).
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "scene_renderer_impl.h"

namespace ductile::render {
namespace {

// Sorts `keys` by their upper 32 bits, ascending: a least-significant-digit radix sort, four passes of eight bits
// through `scratch` (linear time; 50k particles take a fraction of a millisecond).
void SortKeys(std::vector<std::uint64_t>& keys, std::vector<std::uint64_t>& scratch) {
  scratch.resize(keys.size());
  for (int shift = 32; shift < 64; shift += 8) {
    std::array<std::size_t, 257> starts{};
    for (const std::uint64_t key : keys) ++starts[((key >> shift) & 0xff) + 1];
    for (std::size_t digit = 1; digit < starts.size(); ++digit) starts[digit] += starts[digit - 1];
    for (const std::uint64_t key : keys) scratch[starts[(key >> shift) & 0xff]++] = key;
    keys.swap(scratch);
  }
}

}  // namespace

void SceneRenderer::Impl::CreateParticlePipeline() {
  // Particles keep the target's alpha: their alpha output is coverage for alpha-to-coverage, not opacity. A CPU
  // device gets the impostor at its triangle's depth, which it can test before shading (particle.glsl), unless the
  // target asks for the exact depth (SceneRendererTarget::exact_particle_depth).
  const bool flat_depth = cpu_device && !target.exact_particle_depth;
  PipelineDesc particle =
      TargetPipeline(ShaderId::kParticleVert, flat_depth ? ShaderId::kParticleFlatDepthFrag : ShaderId::kParticleFrag);
  particle.alpha_to_coverage = target.samples != VK_SAMPLE_COUNT_1_BIT;
  particle.write_mask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT;
  particle_pipeline = CreatePipeline(particle);
}

void SceneRenderer::Impl::WriteParticles(Frame& frame, const RenderScene& scene, Bounds& casters) {
  ParticleData* particles = Section<ParticleData>(frame, frame.particle_offset);
  // Particles front to back from the camera, so that the depth test rejects hidden impostors before shading them.
  // The key of each is its squared distance to the eye (a non-negative float, whose bits order like the value) above
  // its index.
  std::vector<std::uint64_t>& order_keys = frame.particle_order;
  order_keys.clear();
  std::uint32_t next_key = 0;
  for (const ParticleSet& set : scene.particles) {
    for (const Vec3& x : set.positions) {
      const Vec3 to_eye = Subtract(scene.camera.eye, x);
      const float squared = Dot(to_eye, to_eye);
      std::uint32_t bits = 0;
      std::memcpy(&bits, &squared, sizeof(bits));
      order_keys.push_back(static_cast<std::uint64_t>(bits) << 32 | next_key++);
      casters.Add(x, set.radius);
    }
  }
  SortKeys(order_keys, frame.sort_scratch);
  std::vector<std::uint32_t> set_starts;
  for (std::size_t p = 0, start = 0; p < scene.particles.size(); start += scene.particles[p++].positions.size()) {
    set_starts.push_back(static_cast<std::uint32_t>(start));
  }
  for (std::size_t slot = 0; slot < order_keys.size(); ++slot) {
    const auto index = static_cast<std::uint32_t>(order_keys[slot]);
    const auto set_index =
        static_cast<std::size_t>(std::upper_bound(set_starts.begin(), set_starts.end(), index) - set_starts.begin()) -
        1;
    const ParticleSet& set = scene.particles[set_index];
    const std::size_t p = index - set_starts[set_index];
    const Vec3& x = set.positions[p];
    particles[slot] = {{x[0], x[1], x[2], set.radius}, set.colors[p]};
  }
}

void SceneRenderer::Impl::PrepareParticleDraws(Frame& frame) {
  // At least one particle's range: a frame without particles still rebinds binding 2 to this frame's buffer, which
  // may have been reallocated since; a descriptor left pointing at a freed buffer crashes lavapipe when the set is
  // bound. (The ground and line sections after the particles keep the range inside the buffer.)
  const VkDescriptorBufferInfo particles{frame.data.buffer(), frame.particle_offset,
                                         std::max<VkDeviceSize>(frame.particle_count, 1) * sizeof(ParticleData)};
  WriteBufferDescriptor(device, frame.descriptor_set, 2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, particles);
}

void SceneRenderer::Impl::RecordParticles(VkCommandBuffer command_buffer, const Frame& frame) const {
  if (frame.particle_count == 0) return;
  vkCmdBindPipeline(command_buffer, VK_PIPELINE_BIND_POINT_GRAPHICS, particle_pipeline);
  vkCmdDraw(command_buffer, kParticleVertices * frame.particle_count, 1, 0, 0);
}

}  // namespace ductile::render
