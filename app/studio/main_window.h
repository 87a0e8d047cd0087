// The studio's main window (docs/studio.md): the viewport in the centre; docks for the scene tree, the inspector,
// the plots, the teleop controls, the history of recent states and the log, arranged by a layout preset
// (layout_preset.h) or as the user left them; File, Simulation, Record, View and Layout menus and a toolbar. The window
// is a client of one SimController for its whole life: every request (opening a scene, play, a scrub, saving a state)
// is a Command posted to its simulation thread, and a 60 Hz timer moves the controller's newest scene, snapshot,
// telemetry, status and events into the widgets. Nothing here waits for the simulation thread (but Save demo log,
// for the step boundary it is taken at). Record > Start recording hands a Recorder to the SimController, which draws
// the frames on the simulation thread. The Teleop and History docks' commands go to the SimController like the
// others. The menus are built in main_window_menus.cpp, the docks and their layouts in main_window_layout.cpp.
#pragma once

#include <QElapsedTimer>
#include <QMainWindow>
#include <QString>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "ductile/scene.h"
#include "export_sink.h"
#include "history_panel.h"
#include "layout_preset.h"
#include "recorder.h"
#include "sim_controller.h"
#include "viewport.h"

class QAction;
class QActionGroup;
class QCloseEvent;
class QComboBox;
class QDockWidget;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QShowEvent;
class QTimer;
class QToolButton;
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

/// The data role under which a scene tree item keeps the inspector entry of its parameters ("materials.dough").
inline constexpr int kInspectorEntryRole = Qt::UserRole + 1;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  /// `vulkan` is the instance the viewport renders with (null: no Vulkan; the viewport shows a message).
  explicit MainWindow(QVulkanInstance* vulkan);
  ~MainWindow() override;

  /// Opens a scene file: the simulation thread reads and compiles it (command::OpenScene) while the status bar says
  /// "opening…", and the window shows it once it is open (sceneOpened). On a bad scene it shows the FILE:LINE:COL
  /// error in the log and, unless `quiet`, a dialog; the open scene stays (sceneFailed). Returns at once.
  void OpenScene(const QString& path, bool quiet = false);
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
  /// Draws the MPM continua as beads (one sphere per particle) or as their reconstructed surfaces (the default), as
  /// View > Particles as beads does, whose check mark it sets.
  void SetParticlesAsBeads(bool on);
  /// Starts recording the open scene (what Record > Start recording… does once its dialog is accepted). On a
  /// problem (no scene, a recording running, a bad path, size or rate, no Vulkan device) shows it in a dialog and
  /// the log, leaves no file and returns false.
  bool StartRecording(const RecordingSettings& settings);
  /// Ends the recording: the simulation thread finishes the file, then the log says what it holds.
  void StopRecording();
  /// The recording running or finishing; null when none.
  const Recorder* recorder() const { return recorder_.get(); }
  /// Starts exporting frames to `dir` at the scene's output rate (Record > Export frames); false with a message
  /// when a recording or export runs or the folder cannot be written.
  bool StartExport(const QString& dir);
  void StopExport();
  void UpdateExport();
  std::string BusyReason() const;
  const ExportSink* exporter() const { return export_.get(); }
  /// Writes the demo log of the open scene since its last reset or opening (SimController::CaptureDemoLog) to
  /// `path` (what Simulation > Save demo log… does once a file is chosen). On a problem (no scene, a path that
  /// cannot be written) shows it in a dialog and the log and returns false.
  bool SaveDemoLog(const QString& path);
  /// Writes the state shown to `path` (what File > Save state… does once a file is chosen): posted to the simulation
  /// thread, which reports the outcome in the log, and a problem (no scene, a path that cannot be written) also in a
  /// dialog. Returns at once.
  void SaveState(const QString& path);
  /// Continues from the state saved in `path` (File > Load state…), paused there: posted likewise. A file that cannot
  /// be used (missing, corrupt, another format version or another scene's) leaves the running state as it was.
  void LoadState(const QString& path);
  /// Moves the history's scrubber `delta` kept states (Simulation > Step back / Step forward, Ctrl+Left / Ctrl+Right).
  void StepHistory(int delta);
  /// Arranges the docks as `preset` says (Layout menu), the side panels sized for the window's size (once it is
  /// shown, when called before), and remembers the choice for the next session (QSettings `layout/preset`). Docks the
  /// user moves afterwards stay where they are put and are saved when the window closes (SaveLayout).
  void ApplyLayout(LayoutPreset preset);
  /// The preset applied last: the one remembered from the last session, else LayoutPreset::kSimulate.
  LayoutPreset layout_preset() const { return layout_preset_; }
  /// Layout > Reset layout: forgets the saved arrangement and applies the chosen preset again.
  void ResetLayout();
  /// Saves the preset and the docks' arrangement (QMainWindow::saveState) for the next session, as closing the
  /// window does; the next window restores them.
  void SaveLayout();

  // For tests and scripts.
  SimController* controller() const { return controller_.get(); }
  Viewport* viewport() const { return viewport_; }
  QWidget* viewport_widget() const { return viewport_widget_; }
  Inspector* inspector() const { return inspector_; }
  Plots* plots() const { return plots_; }
  TeleopPanel* teleop() const { return teleop_; }
  HistoryPanel* history() const { return history_; }
  QString last_error() const { return last_error_; }
  QString scene_path() const { return scene_path_; }
  /// OpenedScene::generation of the scene shown (0 before the first): it changes once a scene opened.
  std::uint64_t scene_generation() const { return scene_generation_; }
  /// A scene is being opened (posted and not yet open or refused).
  bool opening() const { return opening_ > 0; }
  /// Runs the UI's periodic update now (snapshot, telemetry, events, status).
  void Poll();
  /// The window as it is shown, the viewport's image included (QWidget::grab leaves the viewport, a native window
  /// of its own, blank): for test artifacts.
  QImage GrabWindow();

 signals:
  /// A scene opened (OpenScene): the window shows it.
  void sceneOpened(const QString& path);
  /// A scene could not be opened: `error` names the file, line and column.
  void sceneFailed(const QString& error);

 protected:
  /// Saves the layout (SaveLayout) before the window closes.
  void closeEvent(QCloseEvent* event) override;
  /// Sizes the side panels for the size the window is first shown at, unless a saved arrangement sized them.
  void showEvent(QShowEvent* event) override;

 private:
  void BuildMenus();
  void BuildFileMenu();
  void BuildSimulationMenu();
  // A menu of `choices` (name, label) under `sim` whose items post a live edit of the choice parameter `key`;
  // objects named PREFIX_menu and PREFIX_NAME.
  QMenu* BuildChoiceMenu(QMenu* sim, const QString& title, const std::string& key, const QString& prefix,
                         const std::vector<std::pair<const char*, const char*>>& choices);
  // Posts `key` = `name` and shows it in the inspector's field.
  void SetChoice(const std::string& key, const std::string& name);
  // Checks, in each choice menu, the value the running simulation uses: the last override of its key in force, or
  // the scene's.
  void SyncChoiceMenus();
  void BuildHistoryMenu(QMenu* parent);
  void BuildRecordMenu();
  void BuildViewMenu();
  void AddParticleStyleActions(QMenu* view);
  void BuildLayoutMenu();
  void BuildDocks();
  // The status bar's buttons that open and close the History and Log docks.
  void BuildDockButtons();
  // In the constructor: the remembered preset, then the arrangement saved from it, if any (SaveLayout).
  void RestoreLayout();
  // Puts `tabs` in `area` as tabs, the first in front, each open or closed as `open` says.
  void PlaceTabs(Qt::DockWidgetArea area, const std::vector<QDockWidget*>& tabs, const std::vector<bool>& open);
  // The preset's side panels a fraction of the window's width (main_window_layout.cpp).
  void SizePanels();
  void ConnectViewport();
  /// Shows a scene the simulation thread opened: the scene tree, inspector, plots, teleop dock, cameras.
  void ShowScene(const OpenedScene& opened);
  void SetInspectorScene(const std::vector<Override>& overrides);
  void PollEvents();
  void ShowEvent(const Event& e);
  void ShowOpening(const std::filesystem::path& opening);
  /// The status line and the HUD's text.
  void ShowStatus(const ControllerStatus& st);
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
  QDockWidget* scene_dock_ = nullptr;
  QDockWidget* inspector_dock_ = nullptr;
  QDockWidget* plots_dock_ = nullptr;
  QDockWidget* teleop_dock_ = nullptr;
  QDockWidget* history_dock_ = nullptr;
  QDockWidget* log_dock_ = nullptr;
  QToolButton* log_button_ = nullptr;     // the status bar's Log button: counts the problems logged while it is closed
  int unseen_problems_ = 0;               // warnings and errors logged since the Log dock was last shown
  bool log_shown_ = false;                // the Log dock is open and its tab in front
  QActionGroup* layout_group_ = nullptr;  // Layout > the presets
  LayoutPreset layout_preset_ = LayoutPreset::kSimulate;
  bool panels_unsized_ = false;  // a preset applied before the window was shown: SizePanels once it is
  QLabel* status_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QMenu* camera_menu_ = nullptr;
  QAction* play_ = nullptr;
  QAction* save_demo_log_ = nullptr;
  QAction* hud_ = nullptr;
  QAction* record_ = nullptr;
  QLabel* record_status_ = nullptr;
  QLabel* opening_label_ = nullptr;
  QProgressBar* opening_bar_ = nullptr;
  HistoryPanel* history_ = nullptr;
  QComboBox* speed_ = nullptr;
  QMenu* coupling_menu_ = nullptr;  // Simulation > Coupling: simulation.coupling
  QMenu* backend_menu_ = nullptr;   // Simulation > Backend: simulation.backend
  QComboBox* color_ = nullptr;
  QActionGroup* render_scale_group_ = nullptr;
  QActionGroup* frame_rate_group_ = nullptr;
  bool thread_placement_ = true;
  int simulation_core_ = -1;  // the simulation thread's core once placed (SeparateSimulationFromDrawing)
  QAction* turntable_action_ = nullptr;
  QAction* particles_as_beads_action_ = nullptr;
  QTimer* timer_ = nullptr;
  QElapsedTimer status_clock_;  // since the status line and the HUD's text were last shown (Poll)
  QString shown_kind_;          // what they said then, in kind

  std::unique_ptr<SimController> controller_;  // for the window's life
  std::uint64_t scene_generation_ = 0;         // OpenedScene::generation of scene_
  std::uint64_t overrides_restored_ = 0;       // ControllerStatus::overrides_restored the inspector shows
  int opening_ = 0;                            // scenes posted and not yet open or refused
  bool open_quiet_ = false;                    // the newest OpenScene's `quiet`
  std::size_t history_bytes_ = 0;              // the history's bound [bytes] (Simulation > History)
  int history_interval_ = 0;                   // steps between kept states, 0 automatic
  std::optional<SceneDesc> scene_;
  std::string scene_text_;
  QString scene_path_;
  QString last_error_;
  std::vector<TelemetrySample> telemetry_scratch_;
  std::vector<std::string> body_names_;
  std::shared_ptr<Recorder> recorder_;
  std::shared_ptr<ExportSink> export_;
  QAction* export_action_ = nullptr;
};

}  // namespace ductile::studio
