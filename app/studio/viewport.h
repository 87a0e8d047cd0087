// The 3D viewport: a window that draws the SimController's newest Snapshot with render::SceneRenderer, with an orbit
// camera (left drag: orbit, right or shift-left drag: pan,
// wheel: zoom), click picking of rigid bodies and MPM objects, and the mouse spring (Ctrl + left drag pulls what is
// under the cursor in the plane facing the camera, like MuJoCo's perturbation). While teleoperating it draws the target
// as a gizmo: three arrows along the world axes from the target, of a constant size on screen; a left drag that starts
// on an arrow moves the target along that axis.
//
// Two ways to a picture. On a GPU the window has a Vulkan surface and the renderer draws into its swapchain
// (WindowSwapchain). On a CPU Vulkan device such as lavapipe (composed on the host) the renderer composes each frame in
// host memory (render::OffscreenRenderer's CPU viewport mode: the scene at the render scale, scaled up and the HUD
// blended on the CPU), straight into the window's backing store, which the window system shows without a copy through
// its socket (MIT-SHM on X11): lavapipe's own presentation sends each 1280x720 frame through the X socket, about as
// much CPU time as drawing it (docs/studio.md, "Sharing the cores").
#pragma once

#include <QElapsedTimer>
#include <QImage>
#include <QTimer>
#include <QWindow>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ductile/render/render_scene.h"
#include "ductile/render/snapshot_scene.h"
#include "ductile/simulator.h"
#include "ductile/snapshot.h"

class QBackingStore;

namespace ductile::render {
class OffscreenRenderer;
class SceneRenderer;
}  // namespace ductile::render

namespace ductile::studio {

class WindowSwapchain;

/// What a click picked.
struct Pick {
  enum class Kind { kNone, kBody, kObject };
  Kind kind = Kind::kNone;
  int index = -1;                ///< Snapshot::bodies or Snapshot::object_names index.
  std::array<float, 3> point{};  ///< Picked point [m], world.
};

/// An orbit camera around a target: yaw about world z, pitch above the horizon, distance.
struct OrbitCamera {
  std::array<float, 3> target{0, 0, 0};
  float yaw = -1.15f;  ///< [rad]; 0 looks along +x.
  float pitch = 0.5f;  ///< [rad].
  float distance = 1;  ///< [m].
  float fov_y_degrees = 40;
  render::Camera ToCamera() const;
  /// Sets target, direction and distance from a render camera.
  void FromCamera(const render::Camera& camera);
};

/// The teleoperation target as the viewport draws it.
struct TeleopGizmo {
  bool visible = false;
  std::array<float, 3> position{};              ///< The target [m], world.
  std::array<float, 4> quaternion{1, 0, 0, 0};  ///< The target orientation (w, x, y, z), drawn as thin axes.
  bool tool_known = false;
  std::array<float, 3> tool{};  ///< The tool link's origin now [m]: a line joins it to the target.
  bool operator==(const TeleopGizmo&) const = default;
};

class Viewport : public QWindow {
  Q_OBJECT

 public:
  /// `composed_on_host`: draw with a device of the viewport's own and compose frames in the window's backing store
  /// (for a CPU Vulkan device; see the file comment). Otherwise set the Vulkan instance (QWindow::setVulkanInstance)
  /// before the window is shown; the device and swapchain are made when it is first exposed.
  explicit Viewport(bool composed_on_host = false);
  ~Viewport() override;

  /// The snapshot to draw (owned by the caller, alive until the next call or destruction). Null: the scene closes;
  /// the next scene is drawn by a new SceneRenderer, whose per-frame buffers, descriptors and caches start empty.
  void SetSnapshot(const Snapshot* snapshot);
  /// The snapshot it draws (null: none).
  const Snapshot* snapshot() const { return snapshot_; }
  render::ViewOptions& view_options() { return view_; }
  OrbitCamera& camera() { return camera_; }
  /// Frames the current snapshot.
  void ResetCamera();
  /// The HUD's text (top-left overlay) and whether it is shown.
  void SetHud(std::vector<std::string> lines) { hud_lines_ = std::move(lines); }
  const std::vector<std::string>& hud_lines() const { return hud_lines_; }
  void SetHudVisible(bool visible) { hud_visible_ = visible; }
  bool hud_visible() const { return hud_visible_; }
  /// The RenderScene of the current snapshot as the viewport draws it.
  render::RenderScene BuildScene() const;
  /// Frames drawn since creation.
  std::uint64_t frames() const { return frames_; }
  /// Frames per second over the last second.
  double fps() const { return fps_; }
  /// The render scale asked for: the fraction of the viewport's width and height the scene is drawn at before it is
  /// scaled up (the HUD is always drawn at full size), in (0, 1]; 0 means automatic: 0.5 on a CPU Vulkan device
  /// (lavapipe), where every pixel is shaded on the cores the simulation runs on, and 1 on a GPU.
  void SetRenderScale(float scale) { render_scale_ = scale; }
  /// Turns the camera about the vertical axis through its target at `degrees_per_second` (0: off), drawing a frame
  /// as soon as the last one is done, as a turntable for demos (and a steady stream of frames, as while the user
  /// orbits, for measuring the viewport's frame rate).
  void SetTurntable(double degrees_per_second);
  double turntable() const { return turntable_; }
  /// The most frames per second the viewport draws; frames asked for sooner (a new snapshot, the turntable, a mouse
  /// move) wait for their turn, and the newest state is drawn then. 0 means automatic: 36 on a CPU Vulkan device
  /// (lavapipe), where every frame takes CPU time from the simulation on the same cores, and no limit but the display
  /// rate on a GPU. Infinity: no limit. Drawing for a grab or an expose is not limited.
  void SetFrameRateLimit(double frames_per_second);
  /// The limit in effect (automatic resolved; infinity when there is none).
  double frame_rate_limit() const;
  /// Whether the viewport draws on a CPU Vulkan device such as lavapipe (false until the device is known).
  bool cpu_device() const;
  /// Whether frames are composed on the host and painted into the window's backing store (the constructor's choice).
  bool composed_on_host() const { return composed_on_host_; }
  /// The threads the Vulkan driver started with the viewport's device (thread ids, sorted; on lavapipe its rasteriser
  /// and queue threads), found by comparing the process's threads before and after making it.
  const std::vector<int>& device_threads() const { return device_threads_; }
  /// The render scale in effect (automatic resolved; 1 until the Vulkan device is known).
  float render_scale() const;
  /// The size the last frame's scene was drawn at [pixels] (the viewport's size at scale 1).
  QSize scene_size() const { return scene_size_; }
  /// What a click at (x, y) in window pixels would pick.
  Pick PickAt(int x, int y) const;
  /// The window pixel where world point `p` appears; false when it lies behind the camera.
  bool ProjectToPixel(const std::array<float, 3>& p, QPointF& pixel) const;
  /// The camera's unit right, up and backwards (towards the viewer) directions, world.
  void CameraAxes(std::array<float, 3>& right, std::array<float, 3>& up, std::array<float, 3>& back) const;
  /// The teleoperation gizmo to draw (hidden by default); a change is drawn at once, also while paused.
  void SetGizmo(const TeleopGizmo& gizmo);
  /// The length of the gizmo's arrows [m]: a fixed fraction of the view's height at the target's distance.
  float GizmoLength() const;
  /// The gizmo arrow (0 x, 1 y, 2 z) within a few pixels of window pixel `pixel`, or −1.
  int GizmoAxisAt(QPointF pixel) const;
  /// Draws a frame now and returns it as an opaque RGB image (null when the viewport cannot draw).
  QImage GrabImage();
  /// The size of the frames drawn [pixels] (the window's in device pixels); empty before the first frame.
  QSize swapChainImageSize() const;
  /// Wall time the UI thread spent in the frames drawn so far [ms], summed: building the RenderScene, then also
  /// recording the frame (on a CPU device also drawing the scene and scaling it up), then also submitting and
  /// presenting it (which on lavapipe waits for the rasteriser).
  struct FrameTimes {
    double build_ms = 0, record_ms = 0, total_ms = 0;
  };
  const FrameTimes& frame_times() const { return frame_times_; }

 signals:
  void picked(const Pick& pick);
  /// The mouse spring started, moved or ended (kind kNone).
  void perturbed(const Perturbation& perturbation);
  void vulkanFailed(const QString& message);
  /// The device and swapchain were made (at the first expose, and again after they were given up).
  void deviceReady();
  /// A gizmo arrow is being dragged: the target's new position [m], world.
  void gizmoDragged(const std::array<double, 3>& position);

 protected:
  bool event(QEvent* event) override;
  void exposeEvent(QExposeEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;

 private:
  // Draws a frame now, or once the frame rate limit allows one (a timer then draws it).
  void DrawWhenDue();
  // Draws one frame (and copies it into `grab` when non-null). A failure drops the device and is reported through
  // vulkanFailed; the viewport then stays empty until the scene closes (SetSnapshot(nullptr)).
  void RenderFrame(QImage* grab = nullptr);
  // RenderFrame's two ways: into the swapchain, and composed into the backing store.
  void RenderSwapchainFrame(QImage* grab);
  void RenderHostFrame(QImage* grab);
  // Makes the device, swapchain and renderer when the window has its surface; false when it cannot (yet).
  bool EnsureVulkan();
  void ReleaseVulkan();
  void CreateSceneRenderer();
  // After each frame: the size its scene was drawn at and the frame's UI thread times (for this frame alone).
  void FrameDone(QSize scene_size, const FrameTimes& times);

  bool composed_on_host_ = false;
  std::unique_ptr<WindowSwapchain> swapchain_;
  std::vector<int> device_threads_;
  std::unique_ptr<render::SceneRenderer> renderer_;
  // Composed on the host: the device and renderer, the window's backing store, and the frame when the backing
  // store's image cannot take it as it is (another byte order or row length), painted into it then.
  std::unique_ptr<render::OffscreenRenderer> offscreen_;
  std::unique_ptr<QBackingStore> backing_store_;
  QImage host_frame_;
  QSize host_frame_size_;  // [pixels] of the last frame composed on the host
  bool vulkan_failed_ = false;
  const Snapshot* snapshot_ = nullptr;
  render::ViewOptions view_;
  OrbitCamera camera_;
  bool camera_set_ = false;
  bool scene_closed_ = false;
  std::vector<std::string> hud_lines_;
  bool hud_visible_ = true;
  QPoint press_pos_;
  QPoint last_pos_;
  Qt::MouseButton drag_button_ = Qt::NoButton;
  bool pan_ = false;
  Perturbation perturbation_;  // while Ctrl-dragging
  std::array<float, 3> drag_plane_point_{};
  TeleopGizmo gizmo_;
  int gizmo_axis_ = -1;                  // the arrow being dragged, or −1
  std::array<float, 3> gizmo_origin_{};  // the target when the drag started [m]
  float gizmo_start_ = 0;                // the cursor's place along the axis then [m]
  std::uint64_t frames_ = 0;
  float render_scale_ = 0;          // 0: automatic
  double turntable_ = 0;            // [degrees/s]
  double frame_rate_limit_ = 0;     // 0: automatic
  QElapsedTimer frame_clock_;       // started with the viewport
  std::int64_t next_frame_ns_ = 0;  // the limit's next frame time on frame_clock_
  QTimer* frame_timer_ = nullptr;   // draws a frame that waited for its turn
  std::int64_t turntable_ms_ = 0;   // when the last frame turned the camera
  FrameTimes frame_times_;
  QSize scene_size_;
  double fps_ = 0;
  std::int64_t fps_window_start_ms_ = 0;
  std::uint64_t fps_window_frames_ = 0;
};

}  // namespace ductile::studio
