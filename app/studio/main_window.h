// The studio's main window (docs/studio.md): the viewport in the centre; docks for the scene tree, the inspector,
// the plots and the log; File and Simulation menus and a toolbar. A 60 Hz timer moves the SimController's newest
// snapshot, telemetry and events into the widgets; nothing here waits for a simulation step (but Save demo log, for
// the step boundary it is taken at). Record > Start recording hands a Recorder to the SimController, which draws
// the frames on the simulation thread. The Teleop dock's commands go to the SimController like the others.
#pragma once

#include <QElapsedTimer>
#include <QMainWindow>
#include <QString>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "ductile/scene.h"
#include "recorder.h"
#include "sim_controller.h"
#include "viewport.h"

class QAction;
class QActionGroup;
class QComboBox;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QTimer;
class QTreeWidget;

namespace ductile::studio {

class Inspector;
class Plots;
class TeleopPanel;

/// Counters `ductile --measure` compares over a wall-time interval.
struct MeasureStart {
  double wall_s = 0;
  double frames = 0;
  std::int64_t steps = 0;
  double step_ms_sum = 0;  ///< Wall time of every step so far, summed [ms].
  double sim_time = 0;
  Viewport::FrameTimes times;  ///< The viewport's so far.
};

class MainWindow;
MeasureStart MeasureNow(MainWindow& window);

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  /// `vulkan` is the instance the viewport renders with (null: no Vulkan; the viewport shows a message).
  explicit MainWindow(QVulkanInstance* vulkan);
  ~MainWindow() override;

  /// Opens a scene file. On a bad scene shows the FILE:LINE:COL error in a dialog (unless `quiet`), keeps the
  /// current scene and returns false.
  bool OpenScene(const QString& path, bool quiet = false);
  /// Starts or stops the simulation.
  void SetPlaying(bool playing);
  /// The viewport's render scale (Viewport::SetRenderScale: 0 automatic, else 0.5, 0.75 or 1 as in View > Render
  /// scale, whose entry it checks; other values in (0, 1] are used as given). Not remembered; the menu's choice is.
  void SetRenderScale(float scale);
  /// The viewport's frame rate limit (Viewport::SetFrameRateLimit: 0 automatic, infinity none); the View > Frame rate
  /// limit menu shows it when it is one of its choices.
  void SetFrameRateLimit(double frames_per_second);
  /// Whether, on a CPU Vulkan device, the simulation thread and the viewport's drawing are kept on separate cores
  /// with drawing at a lower priority (cpu_placement.h; default on). Takes effect when the viewport's device is made,
  /// so call it before the window is shown; once placed, threads stay placed for the process's life.
  void SetThreadPlacement(bool on) { thread_placement_ = on; }
  /// The core the simulation thread is pinned to, or −1 (no placement).
  int simulation_core() const { return simulation_core_; }
  /// Turns the camera about its target at `degrees_per_second` (0 stops it), as View > Turntable does at 20°/s;
  /// the menu item shows whether it turns.
  void SetTurntable(double degrees_per_second);
  /// Starts recording the open scene (what Record > Start recording… does once its dialog is accepted). On a
  /// problem (no scene, a recording running, a bad path, size or rate, no Vulkan device) shows it in a dialog and
  /// the log, leaves no file and returns false.
  bool StartRecording(const RecordingSettings& settings);
  /// Ends the recording: the simulation thread finishes the file, then the log says what it holds.
  void StopRecording();
  /// The recording running or finishing; null when none.
  const Recorder* recorder() const { return recorder_.get(); }
  /// Writes the demo log of the open scene since its last reset or opening (SimController::CaptureDemoLog) to
  /// `path` (what Simulation > Save demo log… does once a file is chosen). On a problem (no scene, a path that
  /// cannot be written) shows it in a dialog and the log and returns false.
  bool SaveDemoLog(const QString& path);

  // For tests and scripts.
  SimController* controller() const { return controller_.get(); }
  Viewport* viewport() const { return viewport_; }
  QWidget* viewport_widget() const { return viewport_widget_; }
  Inspector* inspector() const { return inspector_; }
  Plots* plots() const { return plots_; }
  TeleopPanel* teleop() const { return teleop_; }
  QString last_error() const { return last_error_; }
  QString scene_path() const { return scene_path_; }
  /// Runs the UI's periodic update now (snapshot, telemetry, events, status).
  void Poll();
  /// The window as it is shown, the viewport's image included (QWidget::grab leaves the viewport, a native window
  /// of its own, blank): for test artifacts.
  QImage GrabWindow();

 private:
  void BuildMenus();
  void BuildDocks();
  void FillSceneTree(const SceneDesc& scene);
  void Log(const QString& line, Event::Kind kind = Event::Kind::kInfo);
  // On a CPU Vulkan device, once: the simulation thread on one core, the viewport's drawing on another at a lower
  // priority (SetThreadPlacement, cpu_placement.h).
  void SeparateSimulationFromDrawing();
  // One choice of a remembered menu (AddRememberedChoices).
  struct Choice {
    QString label;
    double value = 0;
    QString object_name;
  };
  // A submenu of `parent` whose exclusive choices are saved under `settings_key` (QSettings) and passed to `apply`
  // when chosen; the saved choice (or the first) is checked and applied now.
  QActionGroup* AddRememberedChoices(QMenu* parent, const QString& title, const QString& settings_key,
                                     const QString& tool_tip, const std::vector<Choice>& choices,
                                     const std::function<void(double)>& apply);
  void AddRecent(const QString& path);
  void UpdateRecentMenu();
  void SaveScreenshot();
  void FillCameraMenu();
  /// Passes the viewport's camera to the recorder, or reports its end (log, and a dialog for an error); returns
  /// the "REC mm:ss (N frames)" line, empty when nothing is recorded.
  QString UpdateRecording();

  QVulkanInstance* vulkan_ = nullptr;
  Viewport* viewport_ = nullptr;
  QWidget* viewport_widget_ = nullptr;
  Inspector* inspector_ = nullptr;
  Plots* plots_ = nullptr;
  TeleopPanel* teleop_ = nullptr;
  QTreeWidget* tree_ = nullptr;
  QPlainTextEdit* log_ = nullptr;
  QLabel* status_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QMenu* camera_menu_ = nullptr;
  QAction* play_ = nullptr;
  QAction* hud_ = nullptr;
  QAction* record_ = nullptr;
  QLabel* record_status_ = nullptr;
  QComboBox* speed_ = nullptr;
  QComboBox* color_ = nullptr;
  QActionGroup* render_scale_group_ = nullptr;
  QActionGroup* frame_rate_group_ = nullptr;
  bool thread_placement_ = true;
  int simulation_core_ = -1;  // the simulation thread's core once placed (SeparateSimulationFromDrawing)
  QAction* turntable_action_ = nullptr;
  QTimer* timer_ = nullptr;
  QElapsedTimer status_clock_;  // since the status line and the HUD's text were last shown (Poll)
  QString shown_kind_;          // what they said then, in kind

  std::unique_ptr<SimController> controller_;
  std::optional<SceneDesc> scene_;
  std::string scene_text_;
  QString scene_path_;
  QString last_error_;
  std::vector<TelemetrySample> telemetry_scratch_;
  std::vector<std::string> body_names_;
  std::shared_ptr<Recorder> recorder_;
};

}  // namespace ductile::studio
