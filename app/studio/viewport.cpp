#include "viewport.h"

#include <QBackingStore>
#include <QDateTime>
#include <QElapsedTimer>
#include <QExposeEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPlatformSurfaceEvent>
#include <QVulkanInstance>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <numbers>

#include "cpu_placement.h"
#include "ductile/render/renderer.h"
#include "window_swapchain.h"

namespace ductile::studio {
namespace {

using Vec3 = std::array<float, 3>;

constexpr double kCpuFrameRateLimit = 36;  // frames/s, automatic on a CPU Vulkan device (Viewport::frame_rate_limit)

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

// Where along the line through `origin` with unit direction `axis` it passes closest to the ray from `eye` in unit
// direction `dir`: origin + s·axis minimises |origin + s·axis − (eye + t·dir)| over s and t. False when the line
// and the ray are (nearly) parallel.
bool ClosestAlongAxis(const Vec3& origin, const Vec3& axis, const Vec3& eye, const Vec3& dir, float& s) {
  const Vec3 w = Sub(origin, eye);
  const float b = Dot(axis, dir);
  const float denominator = 1 - b * b;
  if (denominator < 1e-4f) return false;
  s = (b * Dot(w, dir) - Dot(w, axis)) / denominator;
  return true;
}

// Column `a` of the rotation matrix of unit quaternion q = (w, x, y, z): where it turns the a-th axis.
Vec3 RotationColumn(const std::array<float, 4>& q, int a) {
  const float w = q[0], x = q[1], y = q[2], z = q[3];
  if (a == 0) return {1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)};
  if (a == 1) return {2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)};
  return {2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)};
}

// The distance in pixels from `p` to the segment from `a` to `b`.
double DistanceToSegment(QPointF p, QPointF a, QPointF b) {
  const QPointF ab = b - a;
  const double length2 = QPointF::dotProduct(ab, ab);
  const double t = length2 > 0 ? std::clamp(QPointF::dotProduct(p - a, ab) / length2, 0.0, 1.0) : 0.0;
  const QPointF d = p - (a + t * ab);
  return std::hypot(d.x(), d.y());
}

// Gizmo colours: the arrows along x, y and z, the one being dragged, and the line to the tool.
constexpr render::Rgba kAxisColors[3] = {{0.9f, 0.2f, 0.2f, 1}, {0.2f, 0.8f, 0.25f, 1}, {0.25f, 0.4f, 1.0f, 1}};
constexpr render::Rgba kDraggedColor{1.0f, 0.85f, 0.1f, 1};
constexpr render::Rgba kToolLineColor{0.95f, 0.95f, 0.95f, 1};
// A press this close to an arrow [pixels] grabs it.
constexpr double kGizmoGrabPixels = 8;

bool IsSrgb(VkFormat format) {
  return format == VK_FORMAT_B8G8R8A8_SRGB || format == VK_FORMAT_R8G8B8A8_SRGB ||
         format == VK_FORMAT_A8B8G8R8_SRGB_PACK32;
}

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

Viewport::Viewport(bool composed_on_host) : composed_on_host_(composed_on_host) {
  setSurfaceType(composed_on_host_ ? QSurface::RasterSurface : QSurface::VulkanSurface);
  if (composed_on_host_) backing_store_ = std::make_unique<QBackingStore>(this);
  frame_clock_.start();
  frame_timer_ = new QTimer(this);
  frame_timer_->setSingleShot(true);
  frame_timer_->setTimerType(Qt::PreciseTimer);
  connect(frame_timer_, &QTimer::timeout, this, &Viewport::DrawWhenDue);
}

Viewport::~Viewport() {
  ReleaseVulkan();
}

bool Viewport::event(QEvent* event) {
  if (event->type() == QEvent::UpdateRequest) {
    DrawWhenDue();
    return true;
  }
  if (event->type() == QEvent::PlatformSurface && static_cast<QPlatformSurfaceEvent*>(event)->surfaceEventType() ==
                                                      QPlatformSurfaceEvent::SurfaceAboutToBeDestroyed) {
    ReleaseVulkan();
  }
  return QWindow::event(event);
}

void Viewport::exposeEvent(QExposeEvent*) {
  if (isExposed()) RenderFrame();
}

void Viewport::resizeEvent(QResizeEvent*) {
  // The next frame makes a swapchain of the new size.
  if (isExposed()) requestUpdate();
}

bool Viewport::EnsureVulkan() {
  if (swapchain_ || offscreen_) return true;
  if (vulkan_failed_ || (!composed_on_host_ && vulkanInstance() == nullptr) || !isExposed()) return false;
  try {
    // The threads the driver starts with the device (lavapipe: its rasteriser and queue threads) are told apart by
    // comparing the process's threads before and after.
    const std::vector<int> before = ThreadsNamed("");
    if (composed_on_host_) {
      // The size follows the window at each frame.
      offscreen_ = render::OffscreenRenderer::Create(std::max(1, width()), std::max(1, height()), 1, true, true);
    } else {
      // Colour written as sRGB by the hardware where the surface offers it.
      const std::array<VkFormat, 2> srgb{VK_FORMAT_B8G8R8A8_SRGB, VK_FORMAT_R8G8B8A8_SRGB};
      swapchain_ = std::make_unique<WindowSwapchain>(vulkanInstance(), this, srgb);
    }
    device_threads_.clear();
    std::ranges::set_difference(ThreadsNamed(""), before, std::back_inserter(device_threads_));
    if (swapchain_) CreateSceneRenderer();
  } catch (const std::exception& e) {
    ReleaseVulkan();
    vulkan_failed_ = true;
    emit vulkanFailed(QString::fromStdString(e.what()));
    return false;
  }
  emit deviceReady();
  return renderer_ != nullptr || offscreen_ != nullptr;
}

void Viewport::ReleaseVulkan() {
  if (swapchain_) swapchain_->WaitIdle();
  renderer_.reset();
  swapchain_.reset();
  offscreen_.reset();  // waits for its device itself
}

void Viewport::CreateSceneRenderer() {
  renderer_.reset();
  render::SceneRendererTarget target;
  target.render_pass = swapchain_->clear_pass();
  target.samples = VK_SAMPLE_COUNT_1_BIT;
  target.srgb_target = IsSrgb(swapchain_->color_format());
  target.color_format = swapchain_->color_format();
  target.depth_format = swapchain_->depth_format();
  target.frames_in_flight = WindowSwapchain::kFramesInFlight;
  renderer_ = std::make_unique<render::SceneRenderer>(swapchain_->physical_device(), swapchain_->device(), target);
}

bool Viewport::cpu_device() const {
  return (swapchain_ && swapchain_->cpu_device()) || (offscreen_ && offscreen_->cpu_device());
}

double Viewport::frame_rate_limit() const {
  if (frame_rate_limit_ > 0) return frame_rate_limit_;
  // The device is known once the window has been exposed. On a CPU device a frame costs the CPU about 15 ms, more
  // than a simulation step of the 6k-particle dough scene (bench/studio-cpu), so drawing every snapshot (60 a second
  // and more) would take the simulation's second core. 36 frames a second keep the motion smooth, stay above 30 when
  // the scheduler holds a frame up, and leave the simulation most of that core (docs/studio.md, "Sharing the cores";
  // bench/results/*-studio.md).
  return cpu_device() ? kCpuFrameRateLimit : std::numeric_limits<double>::infinity();
}

void Viewport::SetFrameRateLimit(double frames_per_second) {
  frame_rate_limit_ = frames_per_second > 0 ? frames_per_second : 0.0;
  next_frame_ns_ = 0;
  frame_timer_->stop();
  requestUpdate();
}

void Viewport::DrawWhenDue() {
  const double limit = frame_rate_limit();
  if (std::isfinite(limit)) {
    const std::int64_t now = frame_clock_.nsecsElapsed();
    if (now < next_frame_ns_) {
      // Not yet: one timer draws the frame when its turn comes, with whatever is newest then.
      if (!frame_timer_->isActive())
        frame_timer_->start(static_cast<int>((next_frame_ns_ - now + 999'999) / 1'000'000));
      return;
    }
    // Frame times on a fixed grid, so that a frame drawn late (the rasteriser shares the cores with the simulation,
    // and a frame is sometimes held up) is followed by one drawn sooner and the mean rate is the limit. A frame more
    // than two periods late (nothing to draw for a while, or a frame far slower than the limit) starts the grid again
    // from now instead of drawing a burst of frames.
    const auto period = static_cast<std::int64_t>(1e9 / limit);
    next_frame_ns_ = now - next_frame_ns_ < 2 * period ? next_frame_ns_ + period : now + period;
  }
  frame_timer_->stop();
  RenderFrame();
}

void Viewport::RenderFrame(QImage* grab) {
  if (grab != nullptr) *grab = QImage();
  if (!EnsureVulkan()) return;
  try {
    if (composed_on_host_)
      RenderHostFrame(grab);
    else
      RenderSwapchainFrame(grab);
  } catch (const std::exception& e) {
    ReleaseVulkan();
    vulkan_failed_ = true;
    emit vulkanFailed(QString::fromStdString(e.what()));
  }
}

void Viewport::RenderSwapchainFrame(QImage* grab) {
  WindowSwapchain::Frame frame;
  if (!swapchain_->BeginFrame(frame)) {
    if (swapchain_->image_size().isEmpty()) return;  // no area: the next expose or resize draws
    requestUpdate();                                 // out of date: the next frame makes a new swapchain
    return;
  }
  if (std::exchange(scene_closed_, false)) {
    // A new scene gets a new SceneRenderer once the frames in flight are done with the old one. Besides starting
    // its caches afresh, this keeps the old renderer's particle descriptor from pointing at a freed buffer when a
    // scene without particles follows one with them (which crashed lavapipe; reported with issue 6).
    swapchain_->WaitIdle();
    CreateSceneRenderer();
  }
  FrameTimes times;
  QElapsedTimer timer;
  timer.start();
  const render::RenderScene scene = BuildScene();
  times.build_ms = 1e-6 * static_cast<double>(timer.nsecsElapsed());
  renderer_->PrepareFrame(frame.prepare, frame.slot, scene, frame.extent, render_scale());
  swapchain_->BeginPass(frame);
  renderer_->RecordDraws(frame.draw, frame.slot);
  swapchain_->EndPass(frame);
  times.record_ms = 1e-6 * static_cast<double>(timer.nsecsElapsed());
  swapchain_->EndFrame(frame, grab);
  times.total_ms = 1e-6 * static_cast<double>(timer.nsecsElapsed());
  const VkExtent2D drawn = renderer_->SceneExtent(frame.slot);
  FrameDone(QSize(static_cast<int>(drawn.width), static_cast<int>(drawn.height)), times);
}

void Viewport::RenderHostFrame(QImage* grab) {
  const QSize logical = size();
  const QSize pixels = logical * devicePixelRatio();
  if (pixels.isEmpty()) return;  // no area: the next expose or resize draws
  // (A new scene keeps the renderer: it rebinds every buffer each frame and compares meshes by content.)
  scene_closed_ = false;
  FrameTimes times;
  QElapsedTimer timer;
  timer.start();
  const render::RenderScene scene = BuildScene();
  times.build_ms = 1e-6 * static_cast<double>(timer.nsecsElapsed());
  offscreen_->Resize(pixels.width(), pixels.height());
  if (backing_store_->size() != logical) backing_store_->resize(logical);
  const QRect area(QPoint(0, 0), logical);
  backing_store_->beginPaint(area);
  // The frame goes straight into the backing store's image where that holds 4-byte pixels in the renderer's byte
  // order, without padding (on X11 with a 24- or 32-bit visual: B, G, R, X); elsewhere it is composed into an image
  // of the viewport's and painted there.
  QPaintDevice* device = backing_store_->paintDevice();
  QImage* image = device != nullptr && device->devType() == QInternal::Image ? static_cast<QImage*>(device) : nullptr;
  const bool bgra = offscreen_->bgra();
  const auto same_order = [bgra](QImage::Format f) {
    if (QSysInfo::ByteOrder != QSysInfo::LittleEndian) return false;
    return bgra ? (f == QImage::Format_RGB32 || f == QImage::Format_ARGB32 || f == QImage::Format_ARGB32_Premultiplied)
                : (f == QImage::Format_RGBX8888 || f == QImage::Format_RGBA8888 ||
                   f == QImage::Format_RGBA8888_Premultiplied);
  };
  const bool direct = image != nullptr && image->size() == pixels && image->bytesPerLine() == 4LL * pixels.width() &&
                      same_order(image->format());
  QImage& frame = direct ? *image : host_frame_;
  if (!direct && host_frame_.size() != pixels)
    host_frame_ = QImage(pixels, bgra ? QImage::Format_RGB32 : QImage::Format_RGBX8888);
  const std::size_t bytes = 4 * static_cast<std::size_t>(pixels.width()) * static_cast<std::size_t>(pixels.height());
  try {
    offscreen_->RenderInto(scene, render_scale(), {frame.bits(), bytes});
  } catch (...) {
    backing_store_->endPaint();
    throw;
  }
  times.record_ms = 1e-6 * static_cast<double>(timer.nsecsElapsed());
  if (!direct) {
    QPainter painter(device);
    painter.setCompositionMode(QPainter::CompositionMode_Source);
    painter.drawImage(area, host_frame_);
  }
  if (grab != nullptr) *grab = frame.convertToFormat(QImage::Format_RGB888);
  backing_store_->endPaint();
  backing_store_->flush(area);
  host_frame_size_ = pixels;
  times.total_ms = 1e-6 * static_cast<double>(timer.nsecsElapsed());
  const int scene_width = std::max(1, static_cast<int>(std::lround(render_scale() * pixels.width())));
  const int scene_height = std::max(1, static_cast<int>(std::lround(render_scale() * pixels.height())));
  FrameDone(QSize(scene_width, scene_height), times);
}

QSize Viewport::swapChainImageSize() const {
  if (composed_on_host_) return offscreen_ ? host_frame_size_ : QSize();
  return swapchain_ ? swapchain_->image_size() : QSize();
}

void Viewport::SetSnapshot(const Snapshot* snapshot) {
  if (!snapshot && snapshot_) scene_closed_ = true;
  // After a failure (logged through vulkanFailed) the viewport stays empty; the next scene tries Vulkan again.
  if (!snapshot) vulkan_failed_ = false;
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
  if (gizmo_.visible) {
    // Arrows along the world axes (what a drag moves along), the target orientation's axes as thin lines in
    // lighter colours, and a line from the tool to the target (the tracking error, when it shows).
    const float length = GizmoLength();
    for (int a = 0; a < 3; ++a) {
      render::Arrow arrow;
      arrow.origin = gizmo_.position;
      arrow.vector = {0, 0, 0};
      arrow.vector[a] = length;
      arrow.color = a == gizmo_axis_ ? kDraggedColor : kAxisColors[a];
      arrow.shaft_radius = 0.02f * length;
      scene.arrows.push_back(arrow);
      render::Line line;
      line.from = gizmo_.position;
      for (int i = 0; i < 3; ++i)
        line.to[i] = gizmo_.position[i] + 0.6f * length * RotationColumn(gizmo_.quaternion, a)[i];
      for (int i = 0; i < 3; ++i) line.color[i] = 0.5f + 0.5f * kAxisColors[a][i];
      scene.lines.push_back(line);
    }
    if (gizmo_.tool_known) scene.lines.push_back({gizmo_.tool, gizmo_.position, kToolLineColor});
  }
  return scene;
}

void Viewport::SetGizmo(const TeleopGizmo& gizmo) {
  if (gizmo == gizmo_) return;
  gizmo_ = gizmo;
  if (!gizmo_.visible) gizmo_axis_ = -1;
  requestUpdate();
}

float Viewport::GizmoLength() const {
  const CameraFrame c = FrameOf(camera_.ToCamera());
  const Vec3 v = Sub(gizmo_.position, c.eye);
  const float distance = std::max(1e-3f, std::sqrt(Dot(v, v)));
  return 0.12f * 2 * distance * c.tan_half_fov;  // 12% of the view's height there
}

int Viewport::GizmoAxisAt(QPointF pixel) const {
  if (!gizmo_.visible) return -1;
  QPointF origin;
  if (!ProjectToPixel(gizmo_.position, origin)) return -1;
  const float length = GizmoLength();
  int best = -1;
  double nearest = kGizmoGrabPixels;
  for (int a = 0; a < 3; ++a) {
    Vec3 tip = gizmo_.position;
    tip[a] += length;
    QPointF end;
    if (!ProjectToPixel(tip, end)) continue;
    const double d = DistanceToSegment(pixel, origin, end);
    if (d < nearest) {
      nearest = d;
      best = a;
    }
  }
  return best;
}

void Viewport::CameraAxes(std::array<float, 3>& right, std::array<float, 3>& up, std::array<float, 3>& back) const {
  const CameraFrame c = FrameOf(camera_.ToCamera());
  right = c.right;
  up = c.up;
  back = {-c.forward[0], -c.forward[1], -c.forward[2]};
}

float Viewport::render_scale() const {
  if (render_scale_ > 0) return render_scale_;
  // The device is known once the window has been exposed; a CPU device gets half the pixels each way.
  return cpu_device() ? 0.5f : 1.0f;
}

void Viewport::SetTurntable(double degrees_per_second) {
  turntable_ = std::isfinite(degrees_per_second) ? degrees_per_second : 0.0;
  turntable_ms_ = 0;
  if (turntable_ != 0) requestUpdate();
}

void Viewport::FrameDone(QSize scene_size, const FrameTimes& times) {
  const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
  if (turntable_ != 0) {
    // The angle follows wall time (at most a tenth of a second per frame, so a stall does not jump), and the next
    // frame is asked for at once.
    const double dt = turntable_ms_ == 0 ? 0.0 : std::min(0.1, 1e-3 * static_cast<double>(now - turntable_ms_));
    turntable_ms_ = now;
    camera_.yaw = static_cast<float>(
        std::remainder(camera_.yaw + turntable_ * dt * std::numbers::pi / 180.0, 2 * std::numbers::pi));
    requestUpdate();
  }
  scene_size_ = scene_size;
  frame_times_.build_ms += times.build_ms;
  frame_times_.record_ms += times.record_ms;
  frame_times_.total_ms += times.total_ms;
  ++frames_;
  ++fps_window_frames_;
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
  QImage image;
  RenderFrame(&image);
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
  if (event->button() == Qt::LeftButton && gizmo_.visible && width() > 0 && height() > 0) {
    const int axis = GizmoAxisAt(event->position());
    const CameraFrame c = FrameOf(camera_.ToCamera());
    Vec3 u{0, 0, 0};
    if (axis >= 0) u[axis] = 1;
    const Vec3 dir =
        RayThrough(c, static_cast<float>(press_pos_.x()), static_cast<float>(press_pos_.y()), width(), height());
    if (axis >= 0 && ClosestAlongAxis(gizmo_.position, u, c.eye, dir, gizmo_start_)) {
      gizmo_axis_ = axis;
      gizmo_origin_ = gizmo_.position;
      requestUpdate();
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
  if (gizmo_axis_ >= 0) {
    if (width() <= 0 || height() <= 0) return;
    const CameraFrame c = FrameOf(camera_.ToCamera());
    const Vec3 dir = RayThrough(c, static_cast<float>(pos.x()), static_cast<float>(pos.y()), width(), height());
    Vec3 u{0, 0, 0};
    u[gizmo_axis_] = 1;
    float s = 0;
    if (!ClosestAlongAxis(gizmo_origin_, u, c.eye, dir, s)) return;
    std::array<double, 3> target{gizmo_origin_[0], gizmo_origin_[1], gizmo_origin_[2]};
    target[gizmo_axis_] += s - gizmo_start_;
    emit gizmoDragged(target);
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
  if (gizmo_axis_ >= 0) {
    gizmo_axis_ = -1;
    drag_button_ = Qt::NoButton;
    requestUpdate();
    return;
  }
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
