// MainWindow's menus and toolbar: File, Simulation (with the history's submenu), Record, View and Help, the
// remembered choices and the recent scenes.
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QToolBar>

#include "ductile/parameters.h"
#include "inspector.h"
#include "main_window.h"
#include "plots.h"
#include "recording_dialog.h"
#include "teleop_panel.h"

namespace ductile::studio {
namespace {

constexpr int kMaxRecent = 8;
constexpr double kTurntableDegreesPerSecond = 20;  // View > Turntable
constexpr double kMegabyte = 1 << 20;              // [bytes]

// `path` with the suffix ".state" when it has none (what a file dialog's default suffix does).
QString WithStateSuffix(const QString& path) {
  return QFileInfo(path).suffix().isEmpty() ? path + ".state" : path;
}

}  // namespace

void MainWindow::BuildMenus() {
  BuildFileMenu();
  BuildSimulationMenu();
  BuildRecordMenu();
  BuildViewMenu();
  BuildLayoutMenu();
  QMenu* help = menuBar()->addMenu("&Help");
  help->addAction("Viewport controls", this, [this] {
    QMessageBox::information(this, "Viewport controls",
                             "Left drag: orbit. Right or Shift+left drag: pan. Wheel: zoom.\n"
                             "Click a body or an MPM object to select it. Home: reset the camera.\n"
                             "Ctrl + left drag on a body or an MPM object pulls it with a spring.\n"
                             "Space: play/pause. Period: one step. Ctrl+R: reset.\n"
                             "Ctrl+Left / Ctrl+Right: step back / forward through the recent states (History dock).\n"
                             "Ctrl+S / Ctrl+L: save / load the state. Ctrl+Shift+R: start or stop recording a video. "
                             "F12: screenshot.\n\n"
                             "Teleoperation (Teleop dock, Enable teleop; then click the viewport):\n"
                             "W/S, A/D, Q/E or the arrows and PageUp/PageDown: move the target along ±x, ±y, ±z.\n"
                             "Shift + those keys: turn it about the same axes. Ctrl: slow, Alt: fast.\n"
                             "Space: open or close the gripper. Drag an arrow of the gizmo to move along it.\n"
                             "While teleoperating, these keys act on the robot only, never as shortcuts.");
  });
}

void MainWindow::BuildFileMenu() {
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
  QAction* save_state = file->addAction("Sa&ve state…", QKeySequence(Qt::CTRL | Qt::Key_S), this, [this] {
    if (!scene_) return;
    const QFileInfo scene(scene_path_);
    const QString proposal = scene.absoluteDir().filePath(
        QString("%1_t%2.state").arg(scene.completeBaseName()).arg(controller_->status().time, 0, 'f', 3));
    const QString path = QFileDialog::getSaveFileName(this, "Save state", proposal, "States (*.state);;All files (*)");
    if (!path.isEmpty()) SaveState(WithStateSuffix(path));
  });
  save_state->setObjectName("save_state_action");
  QAction* load_state = file->addAction("&Load state…", QKeySequence(Qt::CTRL | Qt::Key_L), this, [this] {
    if (!scene_) return;
    const QString path = QFileDialog::getOpenFileName(this, "Load state", QFileInfo(scene_path_).absolutePath(),
                                                      "States (*.state);;All files (*)");
    if (!path.isEmpty()) LoadState(path);
  });
  load_state->setObjectName("load_state_action");
  file->addSeparator();
  file->addAction("Save &screenshot…", QKeySequence(Qt::Key_F12), this, &MainWindow::SaveScreenshot);
  file->addAction("Export plots as CSV…", this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, "Export plots", "telemetry.csv", "CSV (*.csv)");
    QString error;
    if (!path.isEmpty() && !plots_->ExportCsv(path, &error)) QMessageBox::warning(this, "Export failed", error);
  });
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, qApp, &QApplication::closeAllWindows);
}

void MainWindow::BuildSimulationMenu() {
  QMenu* sim = menuBar()->addMenu("&Simulation");
  QToolBar* bar = addToolBar("Simulation");
  bar->setObjectName("simulation_toolbar");
  play_ = sim->addAction("&Play", QKeySequence(Qt::Key_Space));
  play_->setCheckable(true);
  connect(play_, &QAction::triggered, this, [this](bool on) { SetPlaying(on); });
  QAction* step =
      sim->addAction("&Step", QKeySequence(Qt::Key_Period), this, [this] { controller_->Post(command::Step{}); });
  QAction* reset = sim->addAction("&Reset", QKeySequence(Qt::CTRL | Qt::Key_R), this, [this] {
    if (!scene_) return;
    controller_->Post(command::Reset{});  // the plots start again with the new run (Plots::SetRun)
    teleop_->OnReset();
  });
  bar->addAction(play_);
  bar->addAction(step);
  bar->addAction(reset);
  coupling_menu_ =
      BuildChoiceMenu(sim, "&Coupling", "simulation.coupling", "coupling",
                      {{"weak", "&Weak: MPM substeps against frozen rigid geometry (Yu et al. 2025)"},
                       {"strong", "&Strong: one implicit step and one contact problem per Δt (Zong et al. 2024)"}});
  backend_menu_ = BuildChoiceMenu(sim, "&Backend", "simulation.backend", "backend",
                                  {{"cpu", "&CPU: the reference backend (TBB)"},
                                   {"cuda", "C&UDA: the device backend on the GPU (refused without one)"},
                                   {"auto", "&Automatic: CUDA when a device runs the scene, else the CPU"},
                                   {"emulated", "&Emulated: the CUDA backend's code on the CPU (for testing)"}});
  sim->addSeparator();
  QAction* back =
      sim->addAction("Step &back in history", QKeySequence(Qt::CTRL | Qt::Key_Left), this, [this] { StepHistory(-1); });
  back->setObjectName("history_back_action");
  QAction* forward = sim->addAction("Step &forward in history", QKeySequence(Qt::CTRL | Qt::Key_Right), this,
                                    [this] { StepHistory(1); });
  forward->setObjectName("history_forward_action");
  BuildHistoryMenu(sim);
  speed_ = new QComboBox;
  speed_->setObjectName("speed");
  for (int percent : {100, 50, 25, 10, 5, 2, 1}) speed_->addItem(QString::number(percent) + "%", percent / 100.0);
  speed_->setToolTip("Requested fraction of real time");
  connect(speed_, &QComboBox::currentIndexChanged, this,
          [this] { controller_->Post(command::SetSpeed{speed_->currentData().toDouble()}); });
  sim->addSeparator();
  save_demo_log_ = sim->addAction("Save &demo log…", this, [this] {
    if (!scene_) return;
    const QFileInfo scene(scene_path_);
    const QString path = QFileDialog::getSaveFileName(
        this, "Save demo log", scene.absoluteDir().filePath(scene.completeBaseName() + "_demo.yaml"),
        "Demo logs (*.yaml *.yml);;All files (*)");
    if (!path.isEmpty()) SaveDemoLog(path);
  });
  save_demo_log_->setObjectName("save_demo_log_action");
  QMenu* speed_menu = sim->addMenu("Speed");
  for (int i = 0; i < speed_->count(); ++i)
    speed_menu->addAction(speed_->itemText(i), this, [this, i] { speed_->setCurrentIndex(i); });
  bar->addWidget(new QLabel(" speed "));
  bar->addWidget(speed_);
}

QMenu* MainWindow::BuildChoiceMenu(QMenu* sim, const QString& title, const std::string& key, const QString& prefix,
                                   const std::vector<std::pair<const char*, const char*>>& choices) {
  QMenu* menu = sim->addMenu(title);
  menu->setObjectName(prefix + "_menu");
  menu->setToolTipsVisible(true);
  menu->setProperty("parameter", QString::fromStdString(key));
  auto* group = new QActionGroup(menu);
  for (const auto& [name, label] : choices) {
    QAction* action = menu->addAction(label);
    action->setCheckable(true);
    action->setObjectName(prefix + "_" + name);
    action->setData(QString(name));
    group->addAction(action);
    connect(action, &QAction::triggered, this, [this, key, value = std::string(name)] { SetChoice(key, value); });
  }
  return menu;
}

void MainWindow::SetChoice(const std::string& key, const std::string& name) {
  if (!scene_) return;
  if (QLineEdit* field = inspector_->field(key)) field->setText(QString::fromStdString(name));
  controller_->Post(command::SetOverride{key, name});
}

void MainWindow::SyncChoiceMenus() {
  if (!scene_) return;
  const std::pair<QMenu*, int> menus[] = {{coupling_menu_, static_cast<int>(scene_->simulation.coupling)},
                                          {backend_menu_, static_cast<int>(scene_->simulation.backend)}};
  for (const auto& [menu, scene_value] : menus) {
    if (!menu) continue;
    const std::string key = menu->property("parameter").toString().toStdString();
    std::string value = FindParameter(key)->choices.at(static_cast<std::size_t>(scene_value));
    for (const Override& o : controller_->overrides())
      if (o.path == key) value = o.value;
    for (QAction* action : menu->actions()) action->setChecked(action->data().toString().toStdString() == value);
  }
}

void MainWindow::BuildHistoryMenu(QMenu* parent) {
  QMenu* history = parent->addMenu("&History");
  const auto post = [this] { controller_->Post(command::SetHistoryLimit{history_bytes_, history_interval_}); };
  // Remembered in MB (0: the default bound, 512 MB or a quarter of the memory when less).
  AddRememberedChoices(history, "Memory limit", "history_limit_mb",
                       "The most memory the kept states may take: the oldest make room for new ones",
                       {{QString("Automatic (%1)").arg(FormatBytes(DefaultHistoryBytes())), 0.0, "history_limit_0"},
                        {"128 MB", 128.0, "history_limit_128"},
                        {"256 MB", 256.0, "history_limit_256"},
                        {"512 MB", 512.0, "history_limit_512"},
                        {"1 GB", 1024.0, "history_limit_1024"},
                        {"2 GB", 2048.0, "history_limit_2048"},
                        {"4 GB", 4096.0, "history_limit_4096"}},
                       [this, post](double mb) {
                         history_bytes_ = mb > 0 ? static_cast<std::size_t>(mb * kMegabyte) : DefaultHistoryBytes();
                         post();
                       });
  AddRememberedChoices(
      history, "Keep a state", "history_interval",
      "How many steps apart the states are kept while playing (a single step and a pause always keep theirs)",
      {{QString("Automatic (to span %1 s where the limit allows)").arg(kAutomaticHistorySpan), 0.0,
        "history_interval_0"},
       {"Every step", 1.0, "history_interval_1"},
       {"Every 2 steps", 2.0, "history_interval_2"},
       {"Every 5 steps", 5.0, "history_interval_5"},
       {"Every 10 steps", 10.0, "history_interval_10"}},
      [this, post](double steps) {
        history_interval_ = static_cast<int>(steps);
        post();
      });
}

void MainWindow::BuildRecordMenu() {
  QMenu* record = menuBar()->addMenu("&Record");
  record_ = record->addAction("Start &recording…", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R), this, [this] {
    if (recorder_) return StopRecording();
    if (!scene_) return;
    const QSize view = viewport_ ? viewport_->size() * viewport_->devicePixelRatio() : QSize();
    auto* dialog = new RecordingDialog(RecordingDialog::DefaultPath(scene_path_), view, this);
    dialog->setObjectName("recording_dialog");
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { StartRecording(dialog->settings()); });
    dialog->open();
  });
  record_->setIconText("● Record");
  findChild<QToolBar*>("simulation_toolbar")->addAction(record_);
  export_action_ = record->addAction("Export &frames (HDF5)…", this, [this] {
    if (export_) return StopExport();
    if (!scene_) return;
    const QString dir =
        QFileDialog::getExistingDirectory(this, "Export frames into a folder", QFileInfo(scene_path_).absolutePath());
    if (!dir.isEmpty()) StartExport(dir);
  });
  export_action_->setObjectName("export_frames");
}

void MainWindow::BuildViewMenu() {
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
    controller_->SetStressWanted(mode == "stress");
  });
  QToolBar* bar = findChild<QToolBar*>("simulation_toolbar");
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
  AddParticleStyleActions(view);
  // Every dock, open or closed, whatever the layout (Layout menu).
  view->addSeparator();
  for (QDockWidget* d : {scene_dock_, inspector_dock_, plots_dock_, teleop_dock_, history_dock_, log_dock_}) {
    QAction* toggle = d->toggleViewAction();
    toggle->setObjectName(d->objectName().toLower() + "_dock_action");
    toggle->setToolTip("Open or close the " + d->windowTitle() + " dock");
    view->addAction(toggle);
  }
}

// View > Particles as beads and Cloth as particles: how the continua and the cloths' vertices are drawn.
void MainWindow::AddParticleStyleActions(QMenu* view) {
  QAction* beads = view->addAction("Particles as beads");
  beads->setObjectName("particles_as_beads_action");
  beads->setCheckable(true);
  beads->setToolTip(
      "Draw dough, sand and water as one sphere per particle instead of each object's reconstructed surface");
  connect(beads, &QAction::toggled, this, [this](bool on) {
    if (viewport_)
      viewport_->view_options().particle_style = on ? render::ParticleStyle::kBeads : render::ParticleStyle::kSurface;
  });
  particles_as_beads_action_ = beads;
  QAction* cloth_beads = view->addAction("Cloth as particles");
  cloth_beads->setObjectName("cloth_as_particles_action");
  cloth_beads->setCheckable(true);
  cloth_beads->setToolTip("Draw each cloth's vertex particles as well as its mesh");
  connect(cloth_beads, &QAction::toggled, this, [this](bool on) {
    if (viewport_) viewport_->view_options().cloth_as_particles = on;
  });
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

}  // namespace ductile::studio
