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
#include <QScrollArea>
#include <QSettings>
#include <QSignalBlocker>
#include <QStatusBar>
#include <QTextStream>
#include <QTimer>
#include <QToolBar>
#include <QTreeWidget>
#include <QVulkanFunctions>
#include <QVulkanInstance>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>

#include "cpu_placement.h"
#include "ductile/render/vulkan_util.h"
#include "inspector.h"
#include "plots.h"
#include "recording_dialog.h"
#include "teleop_panel.h"

namespace ductile::studio {
namespace {

constexpr int kMaxRecent = 8;

std::string ReadText(const QString& path, std::string* error) {
  std::ifstream in(path.toStdString(), std::ios::binary);
  if (!in) {
    *error = path.toStdString() + ": cannot open the file";
    return {};
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A message box that does not block (tests find it by `name`) and deletes itself when closed.
void OpenMessageBox(QWidget* parent, const QString& title, const QString& text, const char* name) {
  auto* box = new QMessageBox(QMessageBox::Critical, title, text, QMessageBox::Ok, parent);
  box->setObjectName(name);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

constexpr double kTurntableDegreesPerSecond = 20;  // View > Turntable
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
  if (window.controller()) m.sim_time = window.controller()->status().time;
  return m;
}

MainWindow::MainWindow(QVulkanInstance* vulkan) : vulkan_(vulkan) {
  setWindowTitle("Ductile");
  resize(1600, 950);
  if (vulkan_) {
    const bool composed_on_host = PreferredDeviceIsCpu(vulkan_);
    viewport_ = new Viewport(composed_on_host);
    if (!composed_on_host) viewport_->setVulkanInstance(vulkan_);
    viewport_widget_ = QWidget::createWindowContainer(viewport_, this);
    viewport_widget_->setMinimumSize(320, 240);
    viewport_widget_->setFocusPolicy(Qt::StrongFocus);
    connect(viewport_, &Viewport::vulkanFailed, this,
            [this](const QString& message) { Log("viewport: " + message, Event::Kind::kError); });
    connect(viewport_, &Viewport::deviceReady, this, &MainWindow::SeparateSimulationFromDrawing);
    connect(viewport_, &Viewport::picked, this, [this](const Pick& pick) {
      render::ViewOptions& view = viewport_->view_options();
      view.selected_body = pick.kind == Pick::Kind::kBody ? pick.index : -1;
      if (!controller_) return;
      const Snapshot& s = controller_->snapshot();
      if (pick.kind == Pick::Kind::kBody && pick.index < static_cast<int>(s.bodies.size()))
        Log("selected body '" + QString::fromStdString(s.bodies[pick.index].name) + "'");
      else if (pick.kind == Pick::Kind::kObject && pick.index < static_cast<int>(s.object_names.size()))
        Log("selected MPM object '" + QString::fromStdString(s.object_names[pick.index]) + "'");
      viewport_->requestUpdate();
    });
    connect(viewport_, &Viewport::perturbed, this, [this](const Perturbation& p) {
      if (!controller_) return;
      Command c = Command::Of(Command::Type::kPerturb);
      c.perturbation = p;
      controller_->Post(c);
    });
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
  status_ = new QLabel;
  statusBar()->addPermanentWidget(status_, 1);
  record_status_ = new QLabel;
  record_status_->setObjectName("record_status");
  record_status_->setStyleSheet("QLabel { color: #e02020; font-weight: bold; }");
  record_status_->hide();
  statusBar()->addPermanentWidget(record_status_);
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

void MainWindow::BuildDocks() {
  const auto dock = [&](const QString& title, QWidget* widget, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(title);
    d->setWidget(widget);
    addDockWidget(area, d);
    return d;
  };
  tree_ = new QTreeWidget;
  tree_->setHeaderLabels({"Scene", "Details"});
  tree_->setColumnWidth(0, 170);
  dock("Scene", tree_, Qt::LeftDockWidgetArea);
  inspector_ = new Inspector;
  dock("Inspector", inspector_, Qt::LeftDockWidgetArea);
  plots_ = new Plots;
  dock("Plots", plots_, Qt::RightDockWidgetArea)->setMinimumWidth(420);
  teleop_ = new TeleopPanel(viewport_);
  // The dock's content scrolls rather than setting the window's minimum height (a 1280x720 viewport must fit).
  auto* teleop_scroll = new QScrollArea;
  teleop_scroll->setWidget(teleop_);
  teleop_scroll->setWidgetResizable(true);
  teleop_scroll->setFrameShape(QFrame::NoFrame);
  dock("Teleop", teleop_scroll, Qt::RightDockWidgetArea);
  connect(teleop_, &TeleopPanel::command, this, [this](const Command& c) {
    if (controller_) controller_->Post(c);
  });
  log_ = new QPlainTextEdit;
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(5000);
  dock("Log", log_, Qt::BottomDockWidgetArea);
  connect(inspector_, &Inspector::edited, this, [this](const QString& key, const QString& value) {
    if (!controller_) return;
    Command c;
    c.type = Command::Type::kSetOverride;
    c.key = key.toStdString();
    c.text = value.toStdString();
    controller_->Post(c);
  });
  connect(tree_, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
    if (!viewport_) return;
    const QVariant body = item->data(0, Qt::UserRole);
    viewport_->view_options().selected_body = body.isValid() ? body.toInt() : -1;
    viewport_->requestUpdate();
  });
}

void MainWindow::BuildMenus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("&Open scene…", QKeySequence::Open, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, "Open scene", QFileInfo(scene_path_).absolutePath(),
                                                      "Scenes (*.yaml *.yml);;All files (*)");
    if (!path.isEmpty()) OpenScene(path);
  });
  file->addAction("&Reload", QKeySequence(Qt::Key_F5), this, [this] {
    if (!scene_path_.isEmpty()) OpenScene(scene_path_);
  });
  recent_menu_ = file->addMenu("Recent scenes");
  UpdateRecentMenu();
  file->addSeparator();
  file->addAction("Save &screenshot…", QKeySequence(Qt::Key_F12), this, &MainWindow::SaveScreenshot);
  file->addAction("Export plots as CSV…", this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, "Export plots", "telemetry.csv", "CSV (*.csv)");
    QString error;
    if (!path.isEmpty() && !plots_->ExportCsv(path, &error)) QMessageBox::warning(this, "Export failed", error);
  });
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, qApp, &QApplication::closeAllWindows);

  QMenu* sim = menuBar()->addMenu("&Simulation");
  QToolBar* bar = addToolBar("Simulation");
  bar->setObjectName("simulation_toolbar");
  play_ = sim->addAction("&Play", QKeySequence(Qt::Key_Space));
  play_->setCheckable(true);
  connect(play_, &QAction::triggered, this, [this](bool on) { SetPlaying(on); });
  QAction* step = sim->addAction("&Step", QKeySequence(Qt::Key_Period), this, [this] {
    if (controller_) controller_->Post(Command::Of(Command::Type::kStep));
  });
  QAction* reset = sim->addAction("&Reset", QKeySequence(Qt::CTRL | Qt::Key_R), this, [this] {
    if (!controller_) return;
    controller_->Post(Command::Of(Command::Type::kReset));
    plots_->Reset(body_names_);
    teleop_->OnReset();
  });
  bar->addAction(play_);
  bar->addAction(step);
  bar->addAction(reset);
  speed_ = new QComboBox;
  speed_->setObjectName("speed");
  for (int percent : {100, 50, 25, 10, 5, 2, 1}) speed_->addItem(QString::number(percent) + "%", percent / 100.0);
  speed_->setToolTip("Requested fraction of real time");
  connect(speed_, &QComboBox::currentIndexChanged, this, [this] {
    if (!controller_) return;
    Command c = Command::Of(Command::Type::kSetSpeed);
    c.value = speed_->currentData().toDouble();
    controller_->Post(c);
  });
  sim->addSeparator();
  sim->addAction("Save &demo log…", this, [this] {
    if (!controller_) return;
    const QFileInfo scene(scene_path_);
    const QString path = QFileDialog::getSaveFileName(
        this, "Save demo log", scene.absoluteDir().filePath(scene.completeBaseName() + "_demo.yaml"),
        "Demo logs (*.yaml *.yml);;All files (*)");
    if (!path.isEmpty()) SaveDemoLog(path);
  });
  QMenu* speed_menu = sim->addMenu("Speed");
  for (int i = 0; i < speed_->count(); ++i)
    speed_menu->addAction(speed_->itemText(i), this, [this, i] { speed_->setCurrentIndex(i); });
  bar->addWidget(new QLabel(" speed "));
  bar->addWidget(speed_);

  QMenu* record = menuBar()->addMenu("&Record");
  record_ = record->addAction("Start &recording…", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R), this, [this] {
    if (recorder_) return StopRecording();
    if (!controller_) return;
    const QSize view = viewport_ ? viewport_->size() * viewport_->devicePixelRatio() : QSize();
    auto* dialog = new RecordingDialog(RecordingDialog::DefaultPath(scene_path_), view, this);
    dialog->setObjectName("recording_dialog");
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { StartRecording(dialog->settings()); });
    dialog->open();
  });
  record_->setIconText("● Record");
  bar->addAction(record_);

  QMenu* view = menuBar()->addMenu("&View");
  view->addAction("Reset camera", QKeySequence(Qt::Key_Home), this, [this] {
    if (viewport_) viewport_->ResetCamera();
  });
  camera_menu_ = view->addMenu("Camera presets");
  camera_menu_->setEnabled(false);
  color_ = new QComboBox;
  color_->setObjectName("color_mode");
  for (const char* mode : {"material", "speed", "stress", "plastic"}) color_->addItem(mode);
  color_->setToolTip("Particle colours: material, speed, von Mises stress or plastic strain");
  connect(color_, &QComboBox::currentTextChanged, this, [this](const QString& mode) {
    if (viewport_) render::ParseColorMode(mode.toStdString(), viewport_->view_options().color_mode);
    if (controller_) controller_->SetStressWanted(mode == "stress");
  });
  bar->addWidget(new QLabel("  colour "));
  bar->addWidget(color_);
  hud_ = view->addAction("HUD", QKeySequence(Qt::Key_H));
  hud_->setObjectName("hud_action");
  hud_->setCheckable(true);
  hud_->setChecked(true);
  connect(hud_, &QAction::toggled, this, [this](bool on) {
    if (!viewport_) return;
    viewport_->SetHudVisible(on);
    viewport_->requestUpdate();
  });
  // The render scale (Viewport::SetRenderScale) and the frame rate limit (Viewport::SetFrameRateLimit), remembered
  // across sessions; an infinite limit is stored as -1.
  render_scale_group_ = AddRememberedChoices(
      view, "Render scale", "render_scale",
      "Draw the scene at this fraction of the viewport's width and height and scale it up (the HUD stays sharp): "
      "fewer pixels to shade on a CPU renderer such as lavapipe",
      {{"Automatic (50% on a CPU renderer)", 0.0, "render_scale_0"},
       {"100%", 1.0, "render_scale_100"},
       {"75%", 0.75, "render_scale_75"},
       {"50%", 0.5, "render_scale_50"}},
      [this](double scale) { SetRenderScale(static_cast<float>(scale)); });
  frame_rate_group_ = AddRememberedChoices(
      view, "Frame rate limit", "frame_rate_limit",
      "Draw at most this many frames a second: on a CPU renderer such as lavapipe every frame takes CPU time from "
      "the simulation",
      {{"Automatic (30/s on a CPU renderer)", 0.0, "frame_rate_limit_0"},
       {"30 frames/s", 30.0, "frame_rate_limit_30"},
       {"60 frames/s", 60.0, "frame_rate_limit_60"},
       {"None (the display rate)", -1.0, "frame_rate_limit_none"}},
      [this](double rate) { SetFrameRateLimit(rate < 0 ? std::numeric_limits<double>::infinity() : rate); });
  QAction* turntable = view->addAction("Turntable");
  turntable->setObjectName("turntable_action");
  turntable->setCheckable(true);
  turntable->setToolTip("Turn the camera slowly about its target (20°/s), drawing frames back to back");
  connect(turntable, &QAction::toggled, this, [this](bool on) {
    if (viewport_) viewport_->SetTurntable(on ? kTurntableDegreesPerSecond : 0.0);
  });
  turntable_action_ = turntable;
  QAction* forces = view->addAction("Contact forces");
  forces->setCheckable(true);
  forces->setChecked(true);
  connect(forces, &QAction::toggled, this, [this](bool on) {
    if (viewport_) viewport_->view_options().show_contact_forces = on;
  });
  for (QDockWidget* d : findChildren<QDockWidget*>()) view->addAction(d->toggleViewAction());
  QMenu* help = menuBar()->addMenu("&Help");
  help->addAction("Viewport controls", this, [this] {
    QMessageBox::information(this, "Viewport controls",
                             "Left drag: orbit. Right or Shift+left drag: pan. Wheel: zoom.\n"
                             "Click a body or an MPM object to select it. Home: reset the camera.\n"
                             "Ctrl + left drag on a body or an MPM object pulls it with a spring.\n"
                             "Space: play/pause. Period: one step. Ctrl+R: reset.\n"
                             "Ctrl+Shift+R: start or stop recording a video. F12: screenshot.\n\n"
                             "Teleoperation (Teleop dock, Enable teleop; then click the viewport):\n"
                             "W/S, A/D, Q/E or the arrows and PageUp/PageDown: move the target along ±x, ±y, ±z.\n"
                             "Shift + those keys: turn it about the same axes. Ctrl: slow, Alt: fast.\n"
                             "Space: open or close the gripper. Drag an arrow of the gizmo to move along it.\n"
                             "While teleoperating, these keys act on the robot only, never as shortcuts.");
  });
}

bool MainWindow::OpenScene(const QString& path, bool quiet) {
  std::string error;
  std::string text = ReadText(path, &error);
  std::shared_ptr<const Model> model;
  std::optional<SceneDesc> scene;
  if (error.empty()) {
    try {
      scene = LoadSceneFromString(text, path.toStdString());
      model = std::make_shared<const Model>(CompileModel(*scene));
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  if (!error.empty()) {
    last_error_ = QString::fromStdString(error);
    Log(last_error_, Event::Kind::kError);
    if (!quiet) {
      auto* box = new QMessageBox(QMessageBox::Critical, "Cannot open scene", last_error_, QMessageBox::Ok, this);
      box->setObjectName("scene_error");
      box->setAttribute(Qt::WA_DeleteOnClose);
      box->open();
    }
    return false;
  }
  last_error_.clear();
  if (viewport_) viewport_->SetSnapshot(nullptr);
  controller_.reset();  // finishes a recording running
  UpdateRecording();
  scene_ = std::move(scene);
  scene_text_ = text;
  scene_path_ = path;
  controller_ = std::make_unique<SimController>(model, scene_text_, path.toStdString());
  if (simulation_core_ >= 0) controller_->SetSimulationCore(simulation_core_);
  controller_->SetStressWanted(color_ && color_->currentText() == "stress");
  if (speed_) {
    Command c = Command::Of(Command::Type::kSetSpeed);
    c.value = speed_->currentData().toDouble();
    controller_->Post(c);
  }
  // The controller published the initial state; its bodies name the plots' choices and the scene tree's entries.
  controller_->AcquireSnapshot();
  body_names_.clear();
  for (const SnapshotBody& b : controller_->snapshot().bodies) body_names_.push_back(b.name);
  plots_->Reset(body_names_);
  FillSceneTree(*scene_);
  teleop_->SetScene(controller_->robots(), controller_->snapshot());
  inspector_->SetScene(*scene_, [this](const std::string& key, const std::string& value) -> std::string {
    // The scene's own validation with this edit on top of the overrides in force: the same messages as the CLI.
    std::vector<Override> overrides = controller_ ? controller_->overrides() : std::vector<Override>{};
    try {
      overrides.push_back(ParseOverride(key + "=" + value));
      LoadSceneFromString(scene_text_, scene_path_.toStdString(), overrides);
    } catch (const std::exception& e) {
      return e.what();
    }
    return {};
  });
  if (viewport_) {
    viewport_->view_options().selected_body = -1;
    viewport_->SetSnapshot(&controller_->snapshot());
    viewport_->ResetCamera();
  }
  FillCameraMenu();
  if (viewport_ && !scene_->cameras.empty()) camera_menu_->actions().front()->trigger();  // the scene's first view
  AddRecent(path);
  setWindowTitle("Ductile — " + QFileInfo(path).fileName());
  Log("opened " + path + " (" + QString::number(model->num_particles) + " particles, " +
      QString::number(body_names_.size()) + " moving bodies)");
  return true;
}

void MainWindow::FillCameraMenu() {
  camera_menu_->clear();
  if (!scene_) return;
  int n = 0;
  for (const CameraDesc& c : scene_->cameras) {
    QAction* a = camera_menu_->addAction(QString::fromStdString(c.name), this, [this, c] {
      if (!viewport_) return;
      render::Camera camera;
      for (int i = 0; i < 3; ++i) {
        camera.eye[i] = static_cast<float>(c.eye[i]);
        camera.target[i] = static_cast<float>(c.target[i]);
      }
      camera.fov_y_degrees = static_cast<float>(c.fov_deg);
      viewport_->camera().FromCamera(camera);
      viewport_->requestUpdate();
    });
    if (++n <= 9) a->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_0 + n)));
  }
  camera_menu_->setEnabled(!scene_->cameras.empty());
}

void MainWindow::SetPlaying(bool playing) {
  if (play_) play_->setChecked(playing);
  if (controller_) controller_->Post(Command::Of(playing ? Command::Type::kPlay : Command::Type::kPause));
}

void MainWindow::FillSceneTree(const SceneDesc& scene) {
  tree_->clear();
  const auto section = [&](const QString& title) {
    auto* item = new QTreeWidgetItem(tree_, {title});
    item->setExpanded(true);
    return item;
  };
  QTreeWidgetItem* materials = section("Materials");
  const char* models[] = {"fixed corotated", "linear corotated", "StVK-Hencky", "Drucker-Prager", "fluid"};
  for (const MaterialDesc& m : scene.materials)
    new QTreeWidgetItem(materials, {QString::fromStdString(m.name), models[static_cast<int>(m.model)]});
  QTreeWidgetItem* objects = section("MPM objects");
  for (const MpmObjectDesc& o : scene.objects)
    new QTreeWidgetItem(objects, {QString::fromStdString(o.name), QString::fromStdString(o.material)});
  QTreeWidgetItem* bodies = section("Moving bodies");
  for (std::size_t b = 0; b < body_names_.size(); ++b) {
    auto* item = new QTreeWidgetItem(bodies, {QString::fromStdString(body_names_[b])});
    item->setData(0, Qt::UserRole, static_cast<int>(b));
  }
  QTreeWidgetItem* fixed = section("Static bodies");
  for (const RigidBodyDesc& r : scene.rigid_bodies)
    if (r.type == RigidBodyType::kStatic) new QTreeWidgetItem(fixed, {QString::fromStdString(r.name)});
}

void MainWindow::Poll() {
  if (!controller_) return;
  if (controller_->AcquireSnapshot() && viewport_) {
    viewport_->SetSnapshot(&controller_->snapshot());
    viewport_->requestUpdate();
  }
  telemetry_scratch_.clear();
  controller_->DrainTelemetry(telemetry_scratch_);
  plots_->Append(telemetry_scratch_);
  for (const Event& e : controller_->DrainEvents()) {
    const QString message = QString::fromStdString(e.message);
    Log(QString("t = %1 s: ").arg(e.time, 0, 'f', 4) + message, e.kind);
    if (e.key == kTeleopKey || e.key == kGripperKey)
      teleop_->ShowRefused(e);
    else if (!e.key.empty())
      inspector_->ShowResult(message, e.kind == Event::Kind::kInfo);
    if (e.kind == Event::Kind::kError && message.contains("diverged")) {
      auto* box = new QMessageBox(QMessageBox::Warning, "Simulation paused", message, QMessageBox::Ok, this);
      box->setObjectName("diverged");
      box->setAttribute(Qt::WA_DeleteOnClose);
      box->open();
    }
  }
  const ControllerStatus st = controller_->status();
  if (play_ && play_->isChecked() != st.playing) play_->setChecked(st.playing);
  // The same numbers in the viewport's HUD (a line each) and in the status bar (one line).
  const Snapshot& s = controller_->snapshot();
  teleop_->Update(s, st);
  if (viewport_) viewport_->SetGizmo(teleop_->gizmo());
  QStringList lines = {
      QString("t = %1 s   %2").arg(st.time, 0, 'f', 3).arg(st.playing ? "running" : "paused"),
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
  lines.append("drag: orbit  right drag: pan  wheel: zoom  click: select  Ctrl+drag: pull");
  const QString recording = UpdateRecording();
  // The status line and the HUD's text are shown anew at most ten times a second: their numbers change with every
  // step, and each change redraws the status bar and, on a CPU device, the HUD's panel, in CPU time the simulation
  // could use. A change of kind (running or paused, recording or not, a line more or less) shows at once.
  const QString kind = QString("%1 %2 %3").arg(st.playing).arg(recording.isEmpty()).arg(lines.size());
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

QActionGroup* MainWindow::AddRememberedChoices(QMenu* parent, const QString& title, const QString& settings_key,
                                               const QString& tool_tip, const std::vector<Choice>& choices,
                                               const std::function<void(double)>& apply) {
  QMenu* menu = parent->addMenu(title);
  menu->setToolTipsVisible(true);
  auto* group = new QActionGroup(menu);
  const double saved = QSettings("Ductile", "studio").value(settings_key, choices.front().value).toDouble();
  for (const Choice& choice : choices) {
    QAction* action = menu->addAction(choice.label);
    action->setCheckable(true);
    action->setData(choice.value);
    action->setObjectName(choice.object_name);
    action->setToolTip(tool_tip);
    group->addAction(action);
    if (choice.value == saved) action->setChecked(true);
    connect(action, &QAction::triggered, this, [apply, settings_key, value = choice.value] {
      apply(value);
      QSettings("Ductile", "studio").setValue(settings_key, value);
    });
  }
  if (!group->checkedAction()) group->actions().front()->setChecked(true);
  apply(group->checkedAction()->data().toDouble());
  return group;
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

bool MainWindow::SaveDemoLog(const QString& path) {
  std::string error = controller_ ? "" : "open a scene first";
  DemoLog log;
  if (error.empty()) {
    log = controller_->CaptureDemoLog();
    try {
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

bool MainWindow::StartRecording(const RecordingSettings& settings) {
  std::string error = !controller_ ? "open a scene first" : recorder_ ? "a recording is running; stop it first" : "";
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
  Command c = Command::Of(Command::Type::kStartRecording);
  c.sink = recorder_;
  controller_->Post(std::move(c));
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
  if (recorder_ && controller_) controller_->Post(Command::Of(Command::Type::kStopRecording));
}

QString MainWindow::UpdateRecording() {
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
  const QString line = QString("REC %1:%2 (%3 frames)")
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
  if (kind != Event::Kind::kInfo) statusBar()->showMessage(line, 8000);
}

void MainWindow::AddRecent(const QString& path) {
  QSettings settings("Ductile", "studio");
  QStringList recent = settings.value("recent").toStringList();
  const QString absolute = QFileInfo(path).absoluteFilePath();
  recent.removeAll(absolute);
  recent.prepend(absolute);
  while (recent.size() > kMaxRecent) recent.removeLast();
  settings.setValue("recent", recent);
  UpdateRecentMenu();
}

void MainWindow::UpdateRecentMenu() {
  recent_menu_->clear();
  const QStringList recent = QSettings("Ductile", "studio").value("recent").toStringList();
  for (const QString& path : recent) recent_menu_->addAction(path, this, [this, path] { OpenScene(path); });
  recent_menu_->setEnabled(!recent.isEmpty());
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
