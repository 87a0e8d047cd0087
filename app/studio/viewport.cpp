#include "viewport.h"

#include <QDateTime>
#include <QMouseEvent>
#include <QVulkanDeviceFunctions>
#include <QVulkanFunctions>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "ductile/render/renderer.h"

namespace ductile::studio {
namespace {

using Vec3 = std::array<float, 3>;

Vec3 Sub(const Vec3& a, const Vec3& b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
float Dot(const Vec3& a, const Vec3& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
Vec3 Cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
Vec3 Normalized(const Vec3& v) {
  const float n = std::sqrt(Dot(v, v));
  return n > 0 ? Vec3{v[0] / n, v[1] / n, v[2] / n} : Vec3{0, 0, 1};
}

// A camera's orthonormal frame and the tangent of half its vertical field of view: the model behind picking,
// projecting, panning and the mouse spring.
struct CameraFrame {
  Vec3 eye, forward, right, up;
  float tan_half_fov = 0;
};

CameraFrame FrameOf(const render::Camera& c) {
  CameraFrame f;
  f.eye = c.eye;
  f.forward = Normalized(Sub(c.target, c.eye));
  f.right = Normalized(Cross(f.forward, c.up));
  f.up = Cross(f.right, f.forward);
  f.tan_half_fov = std::tan(0.5f * c.fov_y_degrees * std::numbers::pi_v<float> / 180.0f);
  return f;
}

// The unit direction from the eye through the centre of window pixel (x, y) of a width x height window.
Vec3 RayThrough(const CameraFrame& f, float x, float y, int width, int height) {
  const float aspect = static_cast<float>(width) / static_cast<float>(height);
  const float nx = (2.0f * (x + 0.5f) / static_cast<float>(width) - 1.0f) * f.tan_half_fov * aspect;
  const float ny = (1.0f - 2.0f * (y + 0.5f) / static_cast<float>(height)) * f.tan_half_fov;
  return Normalized({f.forward[0] + nx * f.right[0] + ny * f.up[0], f.forward[1] + nx * f.right[1] + ny * f.up[1],
                     f.forward[2] + nx * f.right[2] + ny * f.up[2]});
}

bool IsSrgb(VkFormat format) {
  return format == VK_FORMAT_B8G8R8A8_SRGB || format == VK_FORMAT_R8G8B8A8_SRGB ||
         format == VK_FORMAT_A8B8G8R8_SRGB_PACK32;
}

// Draws the viewport's scene with render::SceneRenderer into the swapchain's default render pass.
class ViewportRenderer : public QVulkanWindowRenderer {
 public:
  explicit ViewportRenderer(Viewport* window) : window_(window) {}

  void initResources() override {
    render::SceneRendererTarget target;
    target.render_pass = window_->defaultRenderPass();
    target.samples = window_->sampleCountFlagBits();
    target.srgb_target = IsSrgb(window_->colorFormat());
    target.frames_in_flight = static_cast<std::uint32_t>(window_->concurrentFrameCount());
    try {
      renderer_ = std::make_unique<render::SceneRenderer>(window_->physicalDevice(), window_->device(), target);
    } catch (const std::exception& e) {
      emit window_->vulkanFailed(QString::fromStdString(e.what()));
    }
  }
  void releaseResources() override { renderer_.reset(); }

  void startNextFrame() override {
    VkCommandBuffer cb = window_->currentCommandBuffer();
    const QSize size = window_->swapChainImageSize();
    const VkExtent2D extent{static_cast<std::uint32_t>(size.width()), static_cast<std::uint32_t>(size.height())};
    const std::uint32_t frame = static_cast<std::uint32_t>(window_->currentFrame());
    bool prepared = false;
    if (renderer_) {
      try {
        renderer_->PrepareFrame(cb, frame, window_->BuildScene(), extent);
        prepared = true;
      } catch (const std::exception& e) {
        emit window_->vulkanFailed(QString::fromStdString(e.what()));
        renderer_.reset();
      }
    }
    VkClearValue clear[3] = {};
    clear[0].color = {{0.16f, 0.17f, 0.19f, 1.0f}};
    clear[1].depthStencil = {1.0f, 0};
    clear[2].color = clear[0].color;
    VkRenderPassBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO;
    begin.renderPass = window_->defaultRenderPass();
    begin.framebuffer = window_->currentFramebuffer();
    begin.renderArea.extent = extent;
    begin.clearValueCount = window_->sampleCountFlagBits() > VK_SAMPLE_COUNT_1_BIT ? 3 : 2;
    begin.pClearValues = clear;
    QVulkanDeviceFunctions* f = window_->vulkanInstance()->deviceFunctions(window_->device());
    f->vkCmdBeginRenderPass(cb, &begin, VK_SUBPASS_CONTENTS_INLINE);
    if (prepared) renderer_->RecordDraws(cb, frame);
    f->vkCmdEndRenderPass(cb);
    window_->frameReady();
    window_->FrameDone();
  }

 private:
  Viewport* window_;
  std::unique_ptr<render::SceneRenderer> renderer_;
};

}  // namespace

render::Camera OrbitCamera::ToCamera() const {
  render::Camera c;
  c.target = target;
  const float cp = std::cos(pitch), sp = std::sin(pitch);
  const Vec3 back{cp * std::cos(yaw + std::numbers::pi_v<float>), cp * std::sin(yaw + std::numbers::pi_v<float>), sp};
  for (int a = 0; a < 3; ++a) c.eye[a] = target[a] + distance * back[a];
  c.fov_y_degrees = fov_y_degrees;
  c.near_plane = std::max(1e-3f, 0.02f * distance);
  c.far_plane = 50 * distance + 10;
  return c;
}

void OrbitCamera::FromCamera(const render::Camera& c) {
  target = c.target;
  const Vec3 back = Sub(c.eye, c.target);
  distance = std::max(1e-3f, std::sqrt(Dot(back, back)));
  pitch = std::asin(std::clamp(back[2] / distance, -1.0f, 1.0f));
  yaw = std::atan2(-back[1], -back[0]);
  fov_y_degrees = c.fov_y_degrees;
}

Viewport::Viewport() {
  // Colour written as sRGB by the hardware where the surface offers it.
  setPreferredColorFormats({VK_FORMAT_B8G8R8A8_SRGB, VK_FORMAT_R8G8B8A8_SRGB});
}

Viewport::~Viewport() = default;

QVulkanWindowRenderer* Viewport::createRenderer() {
  return new ViewportRenderer(this);
}

void Viewport::SetSnapshot(const Snapshot* snapshot) {
  snapshot_ = snapshot;
  if (snapshot_ && !camera_set_) ResetCamera();
}

void Viewport::ResetCamera() {
  if (!snapshot_) return;
  const float aspect = height() > 0 ? static_cast<float>(width()) / static_cast<float>(height()) : 16.0f / 9.0f;
  camera_.FromCamera(render::FrameSnapshot(*snapshot_, aspect));
  camera_set_ = true;
}

render::RenderScene Viewport::BuildScene() const {
  if (!snapshot_) {
    render::RenderScene empty;
    empty.camera = camera_.ToCamera();
    return empty;
  }
  render::RenderScene scene = render::BuildRenderScene(*snapshot_, view_, camera_.ToCamera());
  scene.hud.visible = hud_visible_;
  scene.hud.lines = hud_lines_;
  return scene;
}

void Viewport::FrameDone() {
  ++frames_;
  ++fps_window_frames_;
  const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
  if (fps_window_start_ms_ == 0) fps_window_start_ms_ = now;
  if (now - fps_window_start_ms_ >= 1000) {
    fps_ = 1000.0 * static_cast<double>(fps_window_frames_) / static_cast<double>(now - fps_window_start_ms_);
    fps_window_start_ms_ = now;
    fps_window_frames_ = 0;
  }
}

Pick Viewport::PickAt(int x, int y) const {
  Pick best;
  if (!snapshot_ || width() <= 0 || height() <= 0) return best;
  const CameraFrame c = FrameOf(camera_.ToCamera());
  const Vec3 dir = RayThrough(c, static_cast<float>(x), static_cast<float>(y), width(), height());
  float nearest = std::numeric_limits<float>::infinity();
  // Ray against a sphere: the nearest hit distance along the ray, or infinity.
  const auto hit = [&](const Vec3& centre, float radius) {
    const Vec3 oc = Sub(c.eye, centre);
    const float b = Dot(oc, dir);
    const float disc = b * b - (Dot(oc, oc) - radius * radius);
    if (disc < 0) return std::numeric_limits<float>::infinity();
    const float s = -b - std::sqrt(disc);
    return s > 0 ? s : std::numeric_limits<float>::infinity();
  };
  const SnapshotParticles& p = snapshot_->particles;
  for (std::size_t i = 0; i < p.position.size(); ++i) {
    const float s = hit(p.position[i], 1.5f * p.radius);
    if (s < nearest) {
      nearest = s;
      best.kind = Pick::Kind::kObject;
      best.index = i < p.object.size() ? p.object[i] : 0;
    }
  }
  for (const SnapshotShape& shape : snapshot_->shapes) {
    if (shape.body < 0) continue;  // static geometry is not picked
    // Its bounding sphere: generous for long or flat shapes, which may win a click just beside them.
    const float reach = render::ShapeReach(shape);
    const float s = hit(shape.position, reach);
    if (s < nearest) {
      nearest = s;
      best.kind = Pick::Kind::kBody;
      best.index = shape.body;
    }
  }
  if (best.kind != Pick::Kind::kNone)
    for (int a = 0; a < 3; ++a) best.point[a] = c.eye[a] + nearest * dir[a];
  return best;
}

QImage Viewport::GrabImage() {
  QImage image = grab();
  if (!image.isNull() && colorFormat() == VK_FORMAT_B8G8R8A8_SRGB) image = image.rgbSwapped();
  return image;
}

bool Viewport::ProjectToPixel(const std::array<float, 3>& p, QPointF& pixel) const {
  if (width() <= 0 || height() <= 0) return false;
  const CameraFrame c = FrameOf(camera_.ToCamera());
  const Vec3 v = Sub(p, c.eye);
  const float z = Dot(v, c.forward);
  if (!(z > 0)) return false;
  const float aspect = static_cast<float>(width()) / static_cast<float>(height());
  const float x = Dot(v, c.right) / (z * c.tan_half_fov * aspect);
  const float y = Dot(v, c.up) / (z * c.tan_half_fov);
  pixel = QPointF(0.5 * (x + 1) * width(), 0.5 * (1 - y) * height());
  return true;
}

void Viewport::mousePressEvent(QMouseEvent* event) {
  press_pos_ = last_pos_ = event->position().toPoint();
  drag_button_ = event->button();
  if (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ControlModifier)) {
    const Pick pick = PickAt(press_pos_.x(), press_pos_.y());
    if (pick.kind != Pick::Kind::kNone) {
      perturbation_ = {};
      perturbation_.kind = pick.kind == Pick::Kind::kBody ? Perturbation::Kind::kBody : Perturbation::Kind::kObject;
      perturbation_.index = pick.index;
      for (int a = 0; a < 3; ++a) perturbation_.anchor[a] = perturbation_.target[a] = pick.point[a];
      drag_plane_point_ = pick.point;
      emit perturbed(perturbation_);
      return;
    }
  }
  pan_ = event->button() == Qt::RightButton || event->button() == Qt::MiddleButton ||
         (event->modifiers() & Qt::ShiftModifier);
}

void Viewport::mouseMoveEvent(QMouseEvent* event) {
  if (drag_button_ == Qt::NoButton) return;
  const QPoint pos = event->position().toPoint();
  if (perturbation_.kind != Perturbation::Kind::kNone) {
    // The target: where the cursor's ray meets the plane through the grabbed point that faces the camera.
    if (width() <= 0 || height() <= 0) return;
    const CameraFrame c = FrameOf(camera_.ToCamera());
    const Vec3 dir = RayThrough(c, static_cast<float>(pos.x()), static_cast<float>(pos.y()), width(), height());
    const float along = Dot(Sub(drag_plane_point_, c.eye), c.forward) / Dot(dir, c.forward);
    for (int a = 0; a < 3; ++a) perturbation_.target[a] = c.eye[a] + along * dir[a];
    emit perturbed(perturbation_);
    return;
  }
  const float dx = static_cast<float>(pos.x() - last_pos_.x());
  const float dy = static_cast<float>(pos.y() - last_pos_.y());
  last_pos_ = pos;
  if (pan_) {
    const CameraFrame c = FrameOf(camera_.ToCamera());
    const float scale = 2.0f * camera_.distance * c.tan_half_fov / static_cast<float>(std::max(1, height()));
    for (int a = 0; a < 3; ++a) camera_.target[a] += scale * (-dx * c.right[a] + dy * c.up[a]);
  } else {
    camera_.yaw -= 0.008f * dx;
    camera_.pitch = std::clamp(camera_.pitch + 0.008f * dy, -1.5f, 1.5f);
  }
  camera_set_ = true;
  requestUpdate();
}

void Viewport::mouseReleaseEvent(QMouseEvent* event) {
  const QPoint pos = event->position().toPoint();
  if (perturbation_.kind != Perturbation::Kind::kNone) {
    perturbation_ = {};
    emit perturbed(perturbation_);
    drag_button_ = Qt::NoButton;
    return;
  }
  // A click (no drag) with the left button picks.
  if (drag_button_ == Qt::LeftButton && (pos - press_pos_).manhattanLength() < 4) emit picked(PickAt(pos.x(), pos.y()));
  drag_button_ = Qt::NoButton;
}

void Viewport::wheelEvent(QWheelEvent* event) {
  const float steps = static_cast<float>(event->angleDelta().y()) / 120.0f;
  camera_.distance = std::clamp(camera_.distance * std::pow(0.88f, steps), 1e-3f, 1e3f);
  camera_set_ = true;
  requestUpdate();
}

}  // namespace ductile::studio
