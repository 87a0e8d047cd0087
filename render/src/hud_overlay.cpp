// HudOverlay: Dear ImGui (1.86, Debian's libimgui with its Vulkan backend) laying out one translucent window of text
// lines in the top-left corner and recording it into the caller's render pass.
//
// Colours: ImGui's style colours are sRGB values, and its backend's fragment shader writes them unchanged. On a
// UNORM target (where the renderer's own shaders encode sRGB) that is already right. On an _SRGB target the hardware
// would encode them a second time and wash the panel out, so there the style colours are converted to linear once,
// at creation; the hardware's encoding then gives back ImGui's usual colours (blending happens in linear space, so
// the panel's translucency and the text's anti-aliased edges differ slightly from ImGui's usual look).
#include "hud_overlay.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <string>

#include "backends/imgui_impl_vulkan.h"
#include "ductile/render/vulkan_util.h"
#include "imgui.h"

namespace ductile::render {
namespace {

constexpr float kFontSize = 16;          // [pixels]; ImGui's default font (ProggyClean) rasterised at this height.
constexpr float kMargin = 8;             // Distance of the panel from the top-left corner [pixels].
constexpr float kPanelAlpha = 0.7f;      // Opacity of the panel behind the text.
constexpr float kFrameTime = 1 / 60.0f;  // [s]; ImGui wants a positive frame time, the HUD animates nothing.
constexpr ImGuiWindowFlags kPanelFlags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                         ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoInputs |
                                         ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav;

// ImGui's current context is one process-wide variable: every use of a context holds this lock.
std::mutex& ImGuiMutex() {
  static std::mutex mutex;
  return mutex;
}

// Makes `context` ImGui's current context under the lock, and restores the previous one at the end of the scope.
class ContextScope {
 public:
  explicit ContextScope(ImGuiContext* context) : lock_(ImGuiMutex()), previous_(ImGui::GetCurrentContext()) {
    ImGui::SetCurrentContext(context);
  }
  ~ContextScope() { ImGui::SetCurrentContext(previous_); }
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  std::lock_guard<std::mutex> lock_;
  ImGuiContext* previous_;
};

// The backend reports Vulkan results through a callback without user data: the first failure of the calling thread
// is kept here until the call into the backend returns and ThrowOnBackendError turns it into a RenderError.
thread_local VkResult backend_failure = VK_SUCCESS;

void KeepBackendFailure(VkResult result) {
  if (result < 0 && backend_failure == VK_SUCCESS) backend_failure = result;
}

void ThrowOnBackendError(const char* call) {
  const VkResult result = backend_failure;
  backend_failure = VK_SUCCESS;
  Check(result, call);
}

// The linear value of sRGB-encoded `c` in [0, 1].
float SrgbToLinear(float c) {
  return c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f);
}

}  // namespace

HudOverlay::HudOverlay(VkPhysicalDevice physical_device, VkDevice device, const SceneRendererTarget& target,
                       std::uint32_t draws_per_frame)
    : device_(device) {
  // The backend allocates one descriptor set from the pool: the font texture's.
  const VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1};
  VkDescriptorPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = 1;
  pool_info.pPoolSizes = &pool_size;
  Check(vkCreateDescriptorPool(device_, &pool_info, nullptr, &descriptor_pool_), "vkCreateDescriptorPool");

  ContextScope scope(nullptr);
  context_ = ImGui::CreateContext();
  ImGui::SetCurrentContext(context_);
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.LogFilename = nullptr;
  io.ConfigFlags |= ImGuiConfigFlags_NoMouse | ImGuiConfigFlags_NoMouseCursorChange;
  ImFontConfig font;
  font.SizePixels = kFontSize;
  io.Fonts->AddFontDefault(&font);
  ImGuiStyle& style = ImGui::GetStyle();
  style.WindowRounding = 4;
  style.WindowBorderSize = 0;
  if (target.srgb_target) {
    for (ImVec4& color : style.Colors) {
      color = ImVec4(SrgbToLinear(color.x), SrgbToLinear(color.y), SrgbToLinear(color.z), color.w);
    }
  }

  ImGui_ImplVulkan_InitInfo info{};
  // The 1.86 backend asserts that Instance and Queue are set but uses them only in its window and swapchain helpers
  // (ImGui_ImplVulkanH_*), which are not called here; SceneRenderer is given neither, so they get placeholders.
  info.Instance = reinterpret_cast<VkInstance>(std::uintptr_t{1});  // NOLINT(performance-no-int-to-ptr): never used
  info.Queue = reinterpret_cast<VkQueue>(std::uintptr_t{1});        // NOLINT(performance-no-int-to-ptr): never used
  info.PhysicalDevice = physical_device;
  info.Device = device_;
  info.DescriptorPool = descriptor_pool_;
  info.Subpass = 0;
  // The backend keeps ImageCount vertex and index buffers and uses them in turn, one per recorded draw: a buffer is
  // rewritten frames_in_flight frames after its last use, when the caller has waited for that frame.
  info.MinImageCount = 2;
  info.ImageCount = std::max<std::uint32_t>(2, target.frames_in_flight) * std::max<std::uint32_t>(1, draws_per_frame);
  info.MSAASamples = target.samples;
  info.CheckVkResultFn = KeepBackendFailure;
  ImGui_ImplVulkan_Init(&info, target.render_pass);
  try {
    ThrowOnBackendError("ImGui_ImplVulkan_Init");
  } catch (...) {
    ImGui_ImplVulkan_Shutdown();
    ImGui::DestroyContext(context_);
    vkDestroyDescriptorPool(device_, descriptor_pool_, nullptr);
    throw;
  }
}

HudOverlay::~HudOverlay() {
  {
    ContextScope scope(context_);
    ImGui_ImplVulkan_Shutdown();
    ImGui::DestroyContext(context_);
  }
  vkDestroyDescriptorPool(device_, descriptor_pool_, nullptr);
}

void HudOverlay::Prepare(VkCommandBuffer command_buffer, std::uint32_t frame, const Hud& hud, VkExtent2D extent) {
  ContextScope scope(context_);
  // The font upload's staging buffer goes once the frame that copied from it has finished.
  if (font_upload_frame_ == frame) {
    ImGui_ImplVulkan_DestroyFontUploadObjects();
    font_upload_frame_.reset();
  }
  laid_out_frame_.reset();
  panel_extent_ = {};
  if (!hud.visible || hud.lines.empty()) return;
  if (!font_uploaded_) {
    ImGui_ImplVulkan_CreateFontsTexture(command_buffer);
    ThrowOnBackendError("ImGui_ImplVulkan_CreateFontsTexture");
    font_uploaded_ = true;
    font_upload_frame_ = frame;
  }

  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(static_cast<float>(extent.width), static_cast<float>(extent.height));
  io.DeltaTime = kFrameTime;
  ImGui_ImplVulkan_NewFrame();
  ImGui::NewFrame();
  // The panel's size is set from the text, so it is right in the first frame a window appears in (an auto-resized
  // ImGui window is hidden in that frame while it measures its contents) and follows the lines every frame.
  const ImGuiStyle& style = ImGui::GetStyle();
  float text_width = 0;
  for (const std::string& line : hud.lines) {
    text_width = std::max(text_width, ImGui::CalcTextSize(line.data(), line.data() + line.size()).x);
  }
  const float text_height =
      static_cast<float>(hud.lines.size()) * ImGui::GetTextLineHeightWithSpacing() - style.ItemSpacing.y;
  const ImVec2 panel(text_width + 2 * style.WindowPadding.x, text_height + 2 * style.WindowPadding.y);
  ImGui::SetNextWindowPos(ImVec2(kMargin, kMargin));
  ImGui::SetNextWindowSize(panel);
  ImGui::SetNextWindowBgAlpha(kPanelAlpha);
  ImGui::Begin("HUD", nullptr, kPanelFlags);
  for (const std::string& line : hud.lines) ImGui::TextUnformatted(line.data(), line.data() + line.size());
  ImGui::End();
  ImGui::Render();
  laid_out_frame_ = frame;
  // One pixel more for the anti-aliased fringe of the panel's rounded corners.
  const auto reach = [](float size, std::uint32_t limit) {
    return std::min(limit, static_cast<std::uint32_t>(std::ceil(kMargin + size)) + 1);
  };
  panel_extent_ = {reach(panel.x, extent.width), reach(panel.y, extent.height)};
}

VkExtent2D HudOverlay::PanelExtent(std::uint32_t frame) const {
  return laid_out_frame_ == frame ? panel_extent_ : VkExtent2D{};
}

void HudOverlay::Record(VkCommandBuffer command_buffer, std::uint32_t frame, VkExtent2D extent) {
  if (laid_out_frame_ != frame) return;
  {
    ContextScope scope(context_);
    ImGui_ImplVulkan_RenderDrawData(ImGui::GetDrawData(), command_buffer);
    ThrowOnBackendError("ImGui_ImplVulkan_RenderDrawData");
  }
  // The backend leaves the scissor at the last clip rectangle; what the caller draws next gets the whole target.
  SetViewportAndScissor(command_buffer, extent);
}

}  // namespace ductile::render
