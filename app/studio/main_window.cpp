#include "main_window.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QComboBox>
#include <QDateTime>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QSettings>
#include <QSignalBlocker>
#include <QStatusBar>
#include <QTextStream>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QTreeWidget>
#include <QVulkanFunctions>
#include <QVulkanInstance>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "cpu_placement.h"
#include "ductile/render/vulkan_util.h"
#include "inspector.h"
#include "plots.h"
#include "recording_dialog.h"
#include "teleop_panel.h"

namespace ductile::studio {
namespace {

// A message box that does not block (tests find it by `name`) and deletes itself when closed.
void OpenMessageBox(QWidget* parent, const QString& title, const QString& text, const char* name) {
  auto* box = new QMessageBox(QMessageBox::Critical, title, text, QMessageBox::Ok, parent);
  box->setObjectName(name);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

// Nice value of the viewport's drawing threads on a CPU Vulkan device (cpu_placement.h): the lowest priority, so that
// a simulation worker waking on their core takes it at once (bench/results/*-studio.md).
constexpr int kViewportNice = 19;
// The most often the status line and the HUD's text are shown anew [ms] (MainWindow::Poll).
constexpr qint64 kStatusIntervalMs = 100;

// Whether the viewport's device, the most preferred one that draws (render::DeviceTypeRank: a GPU before the CPU
// implementation, as the offscreen renderer and the window's swapchain pick), is a CPU implementation such as
// lavapipe: the viewport then composes its frames on the host (viewport.h). False when there is none or the question
// fails; the viewport then reports what is wrong when it makes its device.
bool PreferredDeviceIsCpu(QVulkanInstance* vulkan) {
  try {
    for (VkPhysicalDevice device : render::DevicesByPreference(vulkan->vkInstance())) {
      if (!render::GraphicsQueueFamily(device)) continue;
      VkPhysicalDeviceProperties properties{};
      vkGetPhysicalDeviceProperties(device, &properties);
      return properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    }
  } catch (const std::exception&) {
  }
  return false;
}

}  // namespace

MeasureStart MeasureNow(MainWindow& window) {
  MeasureStart m;
  m.wall_s = 1e-3 * static_cast<double>(QDateTime::currentMSecsSinceEpoch());
  if (window.viewport()) {
    m.frames = static_cast<double>(window.viewport()->frames());
    m.times = window.viewport()->frame_times();
  }
  window.Poll();
  for (const TelemetrySample& t : window.plots()->samples()) m.step_ms_sum += t.step_ms;
  m.steps = static_cast<std::int64_t>(window.plots()->samples().size());
  m.sim_time = window.controller()->status().time;
  return m;
}

MainWindow::MainWindow(QVulkanInstance* vulkan) : vulkan_(vulkan) {
  setWindowTitle("Ductile");
  resize(1600, 950);
  // The one simulation thread, for the window's life: scenes open on it (OpenScene).
  controller_ = std::make_unique<SimController>();
  if (vulkan_) {
    const bool composed_on_host = PreferredDeviceIsCpu(vulkan_);
    viewport_ = new Viewport(composed_on_host);
    if (!composed_on_host) viewport_->setVulkanInstance(vulkan_);
    viewport_widget_ = QWidget::createWindowContainer(viewport_, this);
    viewport_widget_->setMinimumSize(320, 240);
    viewport_widget_->setFocusPolicy(Qt::StrongFocus);
    ConnectViewport();
    setCentralWidget(viewport_widget_);
  } else {
    auto* label = new QLabel(
        "No Vulkan implementation was found, so the viewport cannot draw.\n"
        "Install a Vulkan driver (on Debian: mesa-vulkan-drivers) and restart; simulation, plots and the "
        "inspector work without it.");
    label->setAlignment(Qt::AlignCenter);
    label->setWordWrap(true);
    setCentralWidget(label);
  }
  BuildDocks();
  BuildMenus();
  opening_label_ = new QLabel;
  opening_label_->setObjectName("opening_status");
  opening_bar_ = new QProgressBar;
  opening_bar_->setRange(0, 0);  // busy: compiling a scene reports no progress
  opening_bar_->setMaximumWidth(120);
  opening_label_->hide();
  opening_bar_->hide();
  // Permanent, so that a message shown meanwhile (an error) does not draw over them.
  statusBar()->addPermanentWidget(opening_label_);
  statusBar()->addPermanentWidget(opening_bar_);
  status_ = new QLabel;
  statusBar()->addPermanentWidget(status_, 1);
  record_status_ = new QLabel;
  record_status_->setObjectName("record_status");
  record_status_->setStyleSheet("QLabel { color: #e02020; font-weight: bold; }");
  record_status_->hide();
  statusBar()->addPermanentWidget(record_status_);
  BuildDockButtons();
  RestoreLayout();
  timer_ = new QTimer(this);
  timer_->setInterval(16);  // the display rate: the viewport never draws faster than this
  connect(timer_, &QTimer::timeout, this, &MainWindow::Poll);
  timer_->start();
}

MainWindow::~MainWindow() {
  timer_->stop();
  if (viewport_) viewport_->SetSnapshot(nullptr);
  controller_.reset();
}

void MainWindow::ConnectViewport() {
  connect(viewport_, &Viewport::vulkanFailed, this,
          [this](const QString& message) { Log("viewport: " + message, Event::Kind::kError); });
  connect(viewport_, &Viewport::deviceReady, this, &MainWindow::SeparateSimulationFromDrawing);
  connect(viewport_, &Viewport::picked, this, [this](const Pick& pick) {
    render::ViewOptions& view = viewport_->view_options();
    view.selected_body = pick.kind == Pick::Kind::kBody ? pick.index : -1;
    if (!scene_) return;
    const Snapshot& s = controller_->snapshot();
    if (pick.kind == Pick::Kind::kBody && pick.index < static_cast<int>(s.bodies.size()))
      Log("selected body '" + QString::fromStdString(s.bodies[pick.index].name) + "'");
    else if (pick.kind == Pick::Kind::kObject && pick.index < static_cast<int>(s.object_names.size()))
      Log("selected MPM object '" + QString::fromStdString(s.object_names[pick.index]) + "'");
    viewport_->requestUpdate();
  });
  connect(viewport_, &Viewport::perturbed, this,
          [this](const Perturbation& p) { controller_->Post(command::Perturb{p}); });
}

void MainWindow::OpenScene(const QString& path, bool quiet) {
  last_error_.clear();
  open_quiet_ = quiet;
  ++opening_;
  controller_->Post(command::OpenScene{path.toStdString()});
}

void MainWindow::ShowScene(const OpenedScene& opened) {
  opening_ = std::max<int>(0, opening_ - static_cast<int>(opened.generation - scene_generation_));
  scene_generation_ = opened.generation;
  overrides_restored_ = controller_->status().overrides_restored;
  last_error_.clear();
  scene_ = opened.scene;
  scene_text_ = opened.text;
  scene_path_ = QString::fromStdString(opened.file.string());
  body_names_ = opened.bodies;
  plots_->Reset(body_names_, opened.run);
  FillSceneTree(*scene_);
  teleop_->SetScene(opened.robots, opened.bodies);
  SetInspectorScene({});
  controller_->AcquireSnapshot();  // the scene's first state (published before the scene), or a later one
  if (viewport_) {
    viewport_->view_options().selected_body = -1;
    viewport_->SetSnapshot(&controller_->snapshot());
    viewport_->ResetCamera();
  }
  FillCameraMenu();
  if (viewport_ && !scene_->cameras.empty()) camera_menu_->actions().front()->trigger();  // the scene's first view
  AddRecent(scene_path_);
  setWindowTitle("Ductile — " + QFileInfo(scene_path_).fileName());
  Log("opened " + scene_path_ + " (" + QString::number(opened.num_particles) + " particles, " +
      QString::number(body_names_.size()) + " moving bodies)");
  emit sceneOpened(scene_path_);
}

void MainWindow::SetInspectorScene(const std::vector<Override>& overrides) {
  SyncChoiceMenus();
  SceneDesc shown = *scene_;
  if (!overrides.empty()) {
    try {
      shown = LoadSceneFromString(scene_text_, scene_path_.toStdString(), overrides);
    } catch (const std::exception& e) {  // they loaded when they were applied
      Log("cannot show the restored parameters: " + QString::fromStdString(e.what()), Event::Kind::kError);
    }
  }
  inspector_->SetScene(shown, [this](const std::string& key, const std::string& value) -> std::string {
    // The scene's own validation with this edit on top of the overrides in force: the same messages as the CLI.
    std::vector<Override> in_force = controller_->overrides();
    try {
      in_force.push_back(ParseOverride(key + "=" + value));
      LoadSceneFromString(scene_text_, scene_path_.toStdString(), in_force);
    } catch (const std::exception& e) {
      return e.what();
    }
    return {};
  });
}

void MainWindow::FillCameraMenu() {
  camera_menu_->clear();
  if (!scene_) return;
  int n = 0;
  for (const CameraDesc& c : scene_->cameras) {
    QAction* a = camera_menu_->addAction(QString::fromStdString(c.name), this, [this, c] {
      if (!viewport_) return;
      viewport_->camera().FromCamera(render::CameraOf(c));
      viewport_->requestUpdate();
    });
    if (++n <= 9) a->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_0 + n)));
  }
  camera_menu_->setEnabled(!scene_->cameras.empty());
}

void MainWindow::SetPlaying(bool playing) {
  if (play_) play_->setChecked(playing);
  controller_->Post(playing ? Command{command::Play{}} : Command{command::Pause{}});
}

void MainWindow::StepHistory(int delta) {
  if (scene_) history_->StepBy(delta);
}

void MainWindow::SaveState(const QString& path) {
  controller_->Post(command::SaveState{path.toStdString()});
}

void MainWindow::LoadState(const QString& path) {
  controller_->Post(command::LoadState{path.toStdString()});
}

void MainWindow::FillSceneTree(const SceneDesc& scene) {
  tree_->clear();
  const auto section = [&](const QString& title) {
    auto* item = new QTreeWidgetItem(tree_, {title});
    item->setExpanded(true);
    return item;
  };
  // Each entry remembers its parameters' key prefix in the inspector (double-click, BuildDocks).
  const auto entry = [](QTreeWidgetItem* parent, const std::string& name, const QString& details,
                        const std::string& prefix) {
    auto* item = new QTreeWidgetItem(parent, {QString::fromStdString(name), details});
    item->setData(0, kInspectorEntryRole, QString::fromStdString(prefix + "." + name));
    if (!details.isEmpty()) item->setToolTip(0, details);  // the column may be out of sight in a narrow panel
    return item;
  };
  QTreeWidgetItem* materials = section("Materials");
  const char* models[] = {"fixed corotated", "linear corotated", "StVK-Hencky", "Drucker-Prager", "fluid"};
  for (const MaterialDesc& m : scene.materials)
    entry(materials, m.name, models[static_cast<int>(m.model)], "materials");
  QTreeWidgetItem* objects = section("MPM objects");
  for (const MpmObjectDesc& o : scene.objects) entry(objects, o.name, QString::fromStdString(o.material), "objects");
  QTreeWidgetItem* bodies = section("Moving bodies");
  for (std::size_t b = 0; b < body_names_.size(); ++b) {
    // A robot's links are named ROBOT/LINK; the inspector lists them under the robot.
    const std::string& name = body_names_[b];
    const std::size_t slash = name.find('/');
    QTreeWidgetItem* item = slash == std::string::npos ? entry(bodies, name, {}, "rigid_bodies")
                                                       : entry(bodies, name.substr(0, slash), {}, "robots");
    item->setText(0, QString::fromStdString(name));
    item->setData(0, Qt::UserRole, static_cast<int>(b));
  }
  QTreeWidgetItem* fixed = section("Static bodies");
  for (const RigidBodyDesc& r : scene.rigid_bodies)
    if (r.type == RigidBodyType::kStatic) entry(fixed, r.name, {}, "rigid_bodies");
  if (!scene.soft_bodies.empty() || !scene.affine_bodies.empty()) {
    QTreeWidgetItem* ipc = section("Soft and affine bodies (IPC)");
    const char* energies[] = {"neo-Hookean", "fixed corotated", "StVK"};
    for (const SoftBodyDesc& b : scene.soft_bodies)
      entry(ipc, b.name, energies[static_cast<int>(b.model)], "soft_bodies");
    for (const AffineBodyDesc& b : scene.affine_bodies) entry(ipc, b.name, "affine", "affine_bodies");
  }
  if (scene.pd_bodies.empty()) return;
  QTreeWidgetItem* pd = section("Soft bodies (projective dynamics)");
  for (const PdSoftBodyDesc& b : scene.pd_bodies)
    entry(pd, b.name, b.muscle_stiffness > 0 ? "corotated, muscles" : "corotated", "pd_bodies");
}

void MainWindow::Poll() {
  // The scene first: the snapshots after it are the new scene's.
  if (const std::shared_ptr<const OpenedScene> opened = controller_->scene();
      opened && opened->generation != scene_generation_)
    ShowScene(*opened);
  const ControllerStatus st = controller_->status();
  ShowOpening(st.opening);
  PollEvents();
  if (!scene_) return;
  if (controller_->AcquireSnapshot() && viewport_) {
    viewport_->SetSnapshot(&controller_->snapshot());
    viewport_->requestUpdate();
  }
  plots_->SetRun(st.run, st.run_from);
  telemetry_scratch_.clear();
  controller_->DrainTelemetry(telemetry_scratch_);
  plots_->Append(telemetry_scratch_);
  history_->Update(st);
  if (save_demo_log_) {
    save_demo_log_->setEnabled(st.demo_log_available);
    save_demo_log_->setToolTip(st.demo_log_available ? "Write the inputs since the last reset as a replayable log"
                                                     : "A loaded state cannot be replayed from t = 0: reset first");
  }
  if (st.overrides_restored != overrides_restored_) {
    // A scrub went back to a state that ran with other live edits: the inspector shows those.
    overrides_restored_ = st.overrides_restored;
    SetInspectorScene(controller_->overrides());
  }
  if (play_ && play_->isChecked() != st.playing) play_->setChecked(st.playing);
  ShowStatus(st);
}

void MainWindow::PollEvents() {
  for (const Event& e : controller_->DrainEvents()) ShowEvent(e);
}

void MainWindow::ShowEvent(const Event& e) {
  const QString message = QString::fromStdString(e.message);
  if (e.key == kSceneKey) {
    opening_ = std::max(0, opening_ - 1);
    last_error_ = message;
    Log(last_error_, Event::Kind::kError);
    if (!open_quiet_) OpenMessageBox(this, "Cannot open scene", last_error_, "scene_error");
    emit sceneFailed(last_error_);
    return;
  }
  Log(QString("t = %1 s: ").arg(e.time, 0, 'f', 4) + message, e.kind);
  if (e.key == kTeleopKey || e.key == kGripperKey) {
    teleop_->ShowRefused(e);
  } else if (e.key == kSaveStateKey || e.key == kLoadStateKey) {
    const bool save = e.key == kSaveStateKey;
    if (e.kind == Event::Kind::kError)
      OpenMessageBox(this, save ? "Cannot save the state" : "Cannot load the state", message, "state_error");
    else if (!save)
      teleop_->OnReset();  // the loaded state has its own targets: teleoperation starts again from the tool
  } else if (!e.key.empty()) {
    inspector_->ShowResult(message, e.kind == Event::Kind::kInfo);
    // Checked as applied, or back where it was if refused.
    if (e.key == "simulation.coupling" || e.key == "simulation.backend") SyncChoiceMenus();
  }
  if (e.kind == Event::Kind::kError && message.contains("diverged")) {
    auto* box = new QMessageBox(QMessageBox::Warning, "Simulation paused", message, QMessageBox::Ok, this);
    box->setObjectName("diverged");
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
  }
}

void MainWindow::ShowOpening(const std::filesystem::path& opening) {
  const bool shown = !opening.empty();
  if (shown) opening_label_->setText("opening " + QString::fromStdString(opening.filename().string()) + "…");
  opening_label_->setVisible(shown);
  opening_bar_->setVisible(shown);
}

void MainWindow::ShowStatus(const ControllerStatus& st) {
  // The same numbers in the viewport's HUD (a line each) and in the status bar (one line).
  const Snapshot& s = controller_->snapshot();
  teleop_->Update(s, st);
  if (viewport_) viewport_->SetGizmo(teleop_->gizmo());
  const bool past = !st.playing && st.history.shown != 0 && st.history.shown < st.history.last;
  QStringList lines = {
      QString("t = %1 s   %2")
          .arg(st.time, 0, 'f', 3)
          .arg(st.playing ? "running"
               : past     ? "paused in the past"
                          : "paused"),
      QString("speed %1% requested, %2% measured")
          .arg(100 * st.speed, 0, 'f', 0)
          .arg(100 * st.realtime_factor, 0, 'f', 0),
      QString("%1 ms/step   dt %2 ms, N = %3")
          .arg(s.telemetry.wall_ms, 0, 'f', 1)
          .arg(1e3 * s.dt, 0, 'g', 3)
          .arg(s.substeps),
      QString("%1 particles   %2 contacts   %3 solver it")
          .arg(s.particles.position.size())
          .arg(s.telemetry.mpm_contacts + s.telemetry.rigid_contacts)
          .arg(s.telemetry.mpm_contact_iterations + s.telemetry.sap_iterations),
  };
  if (viewport_) {
    // Say so when the scene is drawn at fewer pixels than the viewport has (the render scale).
    QString line = QString("viewport %1 fps").arg(viewport_->fps(), 0, 'f', 0);
    const QSize drawn = viewport_->scene_size();
    if (drawn.isValid() && drawn.width() < viewport_->swapChainImageSize().width()) {
      line += QString(", scene at %1x%2 (%3%)")
                  .arg(drawn.width())
                  .arg(drawn.height())
                  .arg(100.0 * drawn.width() / viewport_->swapChainImageSize().width(), 0, 'f', 0);
    }
    lines.append(line);
  }
  if (const QString teleop = teleop_->StatusLine(); !teleop.isEmpty()) lines.append(teleop);
  // The robot warnings of this run (each is in the Log once): how many, and the latest.
  if (!st.robot_warnings.empty()) {
    lines.append(QString("ROBOT WARNING (%1 this run, see the Log) ").arg(st.robot_warnings.size()) +
                 QString::fromStdString(st.robot_warnings.back()));
  }
  lines.append("drag: orbit  right drag: pan  wheel: zoom  click: select  Ctrl+drag: pull");
  const QString recording = UpdateRecording();
  // The status line and the HUD's text are shown anew at most ten times a second: their numbers change with every
  // step, and each change redraws the status bar and, on a CPU device, the HUD's panel, in CPU time the simulation
  // could use. A change of kind (running or paused, recording or not, a line more or less) shows at once.
  const QString kind = QString("%1 %2 %3 %4").arg(st.playing).arg(past).arg(recording.isEmpty()).arg(lines.size());
  if (status_clock_.isValid() && status_clock_.elapsed() < kStatusIntervalMs && kind == shown_kind_) return;
  status_clock_.start();
  shown_kind_ = kind;
  status_->setText(lines.join("   |   "));
  if (viewport_) {
    std::vector<std::string> hud;
    if (!recording.isEmpty()) hud.push_back(recording.toStdString());
    for (const QString& line : lines) hud.push_back(line.toStdString());
    viewport_->SetHud(std::move(hud));
  }
}

void MainWindow::SetRenderScale(float scale) {
  if (viewport_) {
    viewport_->SetRenderScale(scale);
    viewport_->requestUpdate();
  }
  if (!render_scale_group_) return;
  for (QAction* action : render_scale_group_->actions()) {
    if (action->data().toFloat() == scale) action->setChecked(true);
  }
}

void MainWindow::SetFrameRateLimit(double frames_per_second) {
  if (viewport_) viewport_->SetFrameRateLimit(frames_per_second);
  if (!frame_rate_group_) return;
  const double stored = std::isinf(frames_per_second) ? -1.0 : frames_per_second;
  for (QAction* action : frame_rate_group_->actions()) {
    if (action->data().toDouble() == stored) action->setChecked(true);
  }
}

void MainWindow::SeparateSimulationFromDrawing() {
  // Once per process: the UI thread's lowered priority cannot be raised again.
  if (!thread_placement_ || simulation_core_ >= 0 || !viewport_ || !viewport_->cpu_device()) return;
  const CorePlan plan = PlanCores(AllowedCores());
  if (plan.simulation_core < 0) return;  // one core: nothing to separate
  std::vector<int> drawing = viewport_->device_threads();
  for (int tid : ThreadsNamed("llvmpipe-")) {
    if (std::find(drawing.begin(), drawing.end(), tid) == drawing.end()) drawing.push_back(tid);
  }
  const int placed = PlaceThreads(drawing, plan.viewport_cores, kViewportNice);
  const bool ui = PinCallingThread(plan.viewport_cores) && LowerCallingThreadPriority(kViewportNice);
  simulation_core_ = plan.simulation_core;
  if (controller_) controller_->SetSimulationCore(simulation_core_);
  Log(QString("CPU renderer: the simulation thread runs on core %1; the viewport's drawing (the UI thread%2 and %3 of "
              "the driver's %4 threads) on core %5 at nice %6")
          .arg(simulation_core_)
          .arg(ui ? "" : " not placed")
          .arg(placed)
          .arg(drawing.size())
          .arg(plan.viewport_cores.back())
          .arg(kViewportNice));
}

void MainWindow::SetTurntable(double degrees_per_second) {
  if (viewport_) viewport_->SetTurntable(degrees_per_second);
  if (turntable_action_) {
    // The menu item shows the state; its own handler would set its fixed speed instead of this one.
    const QSignalBlocker quiet(turntable_action_);
    turntable_action_->setChecked(degrees_per_second != 0);
  }
}

void MainWindow::SetParticlesAsBeads(bool on) {
  if (particles_as_beads_action_) particles_as_beads_action_->setChecked(on);  // its handler sets the view
}

bool MainWindow::SaveDemoLog(const QString& path) {
  std::string error = scene_ ? "" : "open a scene first";
  DemoLog log;
  if (error.empty()) {
    try {
      log = controller_->CaptureDemoLog();
      WriteDemoLog(path.toStdString(), log);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  if (!error.empty()) {
    Log("cannot save the demo log: " + QString::fromStdString(error), Event::Kind::kError);
    OpenMessageBox(this, "Cannot save the demo log", QString::fromStdString(error), "demo_log_error");
    return false;
  }
  Log(QString("saved demo log %1: %2 inputs over %3 steps, final state hash %4")
          .arg(path)
          .arg(log.events.size())
          .arg(log.steps)
          .arg(log.final_state_hash.value_or(0), 16, 16, QChar('0')));
  return true;
}

// Why no recording or export can start now (no scene, or one runs: the controller has one recording channel);
// empty when one can.
std::string MainWindow::BusyReason() const {
  if (!scene_) return "open a scene first";
  if (recorder_) return "a recording is running; stop it first";
  if (export_) return "an export is running; stop it first";
  return {};
}

bool MainWindow::StartExport(const QString& dir) {
  std::string error = BusyReason();
  std::shared_ptr<ExportSink> sink;
  if (error.empty()) sink = ExportSink::Start(dir.toStdString(), scene_->simulation.output_rate, error);
  if (!sink) {
    Log("cannot export: " + QString::fromStdString(error), Event::Kind::kError);
    OpenMessageBox(this, "Cannot export", QString::fromStdString(error), "export_error");
    return false;
  }
  export_ = std::move(sink);
  controller_->Post(command::StartRecording{export_});
  Log(QString("exporting frames to %1/frames.h5 (%2 frames per simulated second)").arg(dir).arg(export_->fps()));
  export_action_->setText("Stop &export");
  return true;
}

void MainWindow::StopExport() {
  if (export_) controller_->Post(command::StopRecording{});
}

// The export's end (stopped, or finished by a reset, a load or a failure): its summary or error, and the menu.
void MainWindow::UpdateExport() {
  if (!export_ || !export_->finished()) return;
  if (!export_->error().empty()) {
    Log(QString::fromStdString(export_->error()), Event::Kind::kError);
    OpenMessageBox(this, "Export stopped", QString::fromStdString(export_->error()), "export_error");
  }
  Log(QString::fromStdString(export_->summary()));
  export_.reset();
  export_action_->setText("Export &frames (HDF5)…");
}

bool MainWindow::StartRecording(const RecordingSettings& settings) {
  std::string error = BusyReason();
  std::shared_ptr<Recorder> recorder;
  if (error.empty()) {
    QApplication::setOverrideCursor(Qt::WaitCursor);  // the renderer's set-up takes a moment
    recorder = Recorder::Start(settings, QFileInfo(scene_path_).fileName().toStdString(), error);
    QApplication::restoreOverrideCursor();
  }
  if (!recorder) {
    Log("cannot record: " + QString::fromStdString(error), Event::Kind::kError);
    OpenMessageBox(this, "Cannot record", QString::fromStdString(error), "recording_error");
    return false;
  }
  recorder_ = std::move(recorder);
  if (viewport_) recorder_->SetView(viewport_->camera().ToCamera(), viewport_->view_options());
  controller_->Post(command::StartRecording{recorder_});
  Log(QString("recording to %1 (%2x%3, %4 frames per simulated second%5)")
          .arg(QString::fromStdString(settings.path.string()))
          .arg(settings.width)
          .arg(settings.height)
          .arg(settings.fps)
          .arg(settings.overlay ? ", with the HUD" : ""));
  record_->setText("Stop &recording");
  record_->setIconText("■ Stop recording");
  return true;
}

void MainWindow::StopRecording() {
  if (recorder_) controller_->Post(command::StopRecording{});
}

QString MainWindow::UpdateRecording() {
  UpdateExport();
  if (!recorder_) return {};
  if (recorder_->finished()) {
    if (!recorder_->error().empty()) {
      Log(QString::fromStdString(recorder_->error()), Event::Kind::kError);
      OpenMessageBox(this, "Recording stopped", QString::fromStdString(recorder_->error()), "recording_error");
    }
    Log(QString::fromStdString(recorder_->summary()));
    recorder_.reset();
    record_status_->hide();
    record_->setText("Start &recording…");
    record_->setIconText("● Record");
    return {};
  }
  // The camera of the next frames: the viewport's, so that orbiting while recording moves the video's camera too.
  if (viewport_) recorder_->SetView(viewport_->camera().ToCamera(), viewport_->view_options());
  const std::int64_t frames = recorder_->frames();
  const std::int64_t seconds = frames / recorder_->settings().fps;
  QString line = QString("REC %1:%2 (%3 frames)")
                     .arg(seconds / 60, 2, 10, QChar('0'))
                     .arg(seconds % 60, 2, 10, QChar('0'))
                     .arg(frames);
  record_status_->setText("● " + line);
  record_status_->show();
  return line;
}

void MainWindow::Log(const QString& line, Event::Kind kind) {
  const char* prefix = kind == Event::Kind::kError ? "error: " : kind == Event::Kind::kWarning ? "warning: " : "";
  log_->appendPlainText(prefix + line);
  if (kind == Event::Kind::kInfo) return;
  statusBar()->showMessage(line, 8000);
  if (log_shown_ || log_button_ == nullptr) return;
  // The Log button says how many problems wait in the closed log, or behind the History tab.
  ++unseen_problems_;
  log_button_->setText(QString("Log (%1)").arg(unseen_problems_));
  log_button_->setStyleSheet("QToolButton { color: #e02020; font-weight: bold; }");
}

QImage MainWindow::GrabWindow() {
  QImage window = grab().toImage();
  if (viewport_ == nullptr || viewport_widget_ == nullptr || !viewport_widget_->isVisible()) return window;
  const QImage view = viewport_->GrabImage();
  if (view.isNull()) return window;
  // In the window's logical coordinates (the grab carries its device pixel ratio); the image is scaled to fit.
  const QRect target(viewport_widget_->mapTo(this, QPoint(0, 0)), viewport_widget_->size());
  QPainter painter(&window);
  painter.setRenderHint(QPainter::SmoothPixmapTransform);
  painter.drawImage(QRectF(target), view);
  return window;
}

void MainWindow::SaveScreenshot() {
  if (!viewport_) return;
  const QImage image = viewport_->GrabImage();
  if (image.isNull()) {
    Log("screenshot: the viewport cannot be read back", Event::Kind::kError);
    return;
  }
  const QString path = QFileDialog::getSaveFileName(this, "Save screenshot", "ductile.png", "PNG (*.png)");
  if (path.isEmpty()) return;
  if (!image.save(path, "PNG"))
    QMessageBox::warning(this, "Screenshot", "Cannot write '" + path + "'.");
  else
    Log("screenshot saved to " + path);
}

}  // namespace ductile::studio
