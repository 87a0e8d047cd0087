// MainWindow's docks and their arrangement: the layout presets (layout_preset.h) and the Layout menu, the status
// bar's History and Log buttons, and the arrangement saved between sessions. The viewport comes first: a preset
// opens only the docks its task needs, as tabs, in side panels a fixed fraction of the window wide; the history and
// the log are tabs under the viewport that stay closed until the user opens them.
#include <QAction>
#include <QActionGroup>
#include <QCloseEvent>
#include <QDockWidget>
#include <QHeaderView>
#include <QLayout>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QSettings>
#include <QShowEvent>
#include <QStatusBar>
#include <QTimer>
#include <QToolButton>
#include <QTreeWidget>
#include <QWindow>
#include <algorithm>
#include <cmath>

#include "inspector.h"
#include "main_window.h"
#include "plots.h"
#include "teleop_panel.h"

namespace ductile::studio {
namespace {

// The version QMainWindow::saveState stamps on the saved arrangement; restoreState refuses another, so a layout
// saved by a studio with other docks is ignored (the preset applies instead).
constexpr int kLayoutStateVersion = 1;
constexpr const char* kPresetKey = "layout/preset";
constexpr const char* kStateKey = "layout/state";

// The preset's name (LayoutPresetName) as a QString.
QString PresetName(LayoutPreset preset) {
  const std::string_view name = LayoutPresetName(preset);
  return QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
}

// A side panel's width: `fraction` of the window's width, within [min_px, max_px].
int PanelWidth(int window_width, double fraction, int min_px, int max_px) {
  return std::clamp(static_cast<int>(std::lround(fraction * window_width)), min_px, max_px);
}

// The panels' widths [px] at a window width of 1600 and 1280. The left panel of Simulate leaves the viewport 74.5%
// of a 1600 x 1000 window and 72% of a 1280 x 720 one (the menu, tool and status bars take 76 px of its height);
// Tune's inspector fits most labels beside their fields; the Teleop dock's rows fit unwrapped.
constexpr double kSimulatePanel = 0.19;  // 304 and 243 px
constexpr int kSimulatePanelMin = 240;
constexpr int kSimulatePanelMax = 320;
constexpr double kTunePanel = 0.26;  // 416 and 333 px
constexpr int kTunePanelMin = 320;
constexpr int kTunePanelMax = 440;
constexpr double kPlotsPanel = 0.28;  // 448 and 420 px
constexpr int kPlotsPanelMin = 420;
constexpr int kPlotsPanelMax = 520;
constexpr int kPlotsLeast = 320;       // the plots' dock is never narrower: their axes and legends stay readable
constexpr double kTeleopPanel = 0.24;  // 384 and 340 px
constexpr int kTeleopPanelMin = 340;
constexpr int kTeleopPanelMax = 420;
// The history and log tabs' height under the viewport when opened [px]: the scrubber's two lines, or eight of the
// log's.
constexpr int kBottomPanelHeight = 170;

}  // namespace

void MainWindow::BuildDocks() {
  // Every dock starts closed; RestoreLayout places and opens them.
  const auto dock = [&](const QString& title, QWidget* widget) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(title);
    d->setWidget(widget);
    d->hide();
    addDockWidget(Qt::LeftDockWidgetArea, d);
    return d;
  };
  tree_ = new QTreeWidget;
  tree_->setHeaderLabels({"Scene", "Details"});
  // The names whole (a robot's links differ at their ends); the details (a material's model, an object's
  // material) in what is left, or further right.
  tree_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  tree_->setToolTip("Click a body to select it; double-click an entry to show its parameters in the Inspector");
  scene_dock_ = dock("Scene", tree_);
  inspector_ = new Inspector;
  inspector_dock_ = dock("Inspector", inspector_);
  plots_ = new Plots;
  plots_dock_ = dock("Plots", plots_);
  plots_dock_->setMinimumWidth(kPlotsLeast);
  teleop_ = new TeleopPanel(viewport_);
  // The dock's content scrolls rather than setting the window's minimum height (a 1280x720 viewport must fit).
  auto* teleop_scroll = new QScrollArea;
  teleop_scroll->setWidget(teleop_);
  teleop_scroll->setWidgetResizable(true);
  teleop_scroll->setFrameShape(QFrame::NoFrame);
  teleop_dock_ = dock("Teleop", teleop_scroll);
  connect(teleop_, &TeleopPanel::command, this, [this](const Command& c) { controller_->Post(c); });
  history_ = new HistoryPanel;
  history_dock_ = dock("History", history_);
  connect(history_, &HistoryPanel::scrub, this, [this](const command::Scrub& c) {
    if (!scene_) return;
    if (play_) play_->setChecked(false);
    controller_->Post(c);
  });
  log_ = new QPlainTextEdit;
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(5000);
  log_dock_ = dock("Log", log_);
  connect(inspector_, &Inspector::edited, this, [this](const QString& key, const QString& value) {
    controller_->Post(command::SetOverride{key.toStdString(), value.toStdString()});
  });
  connect(tree_, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
    if (!viewport_) return;
    const QVariant body = item->data(0, Qt::UserRole);
    viewport_->view_options().selected_body = body.isValid() ? body.toInt() : -1;
    viewport_->requestUpdate();
  });
  connect(tree_, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
    const QString entry = item->data(0, kInspectorEntryRole).toString();
    if (entry.isEmpty()) return;
    inspector_dock_->show();
    inspector_dock_->raise();
    // Once the inspector, perhaps closed until now, is laid out.
    QTimer::singleShot(0, this, [this, entry] { inspector_->ShowEntry(entry.toStdString()); });
  });
  // The first time the history or the log opens under the viewport it takes a strip, not Qt's default share.
  for (QDockWidget* bottom : {history_dock_, log_dock_}) {
    connect(bottom, &QDockWidget::visibilityChanged, this, [this, bottom](bool visible) {
      if (!visible || bottom->isFloating() || dockWidgetArea(bottom) != Qt::BottomDockWidgetArea ||
          bottom->property("sized").toBool())
        return;
      bottom->setProperty("sized", true);
      resizeDocks({bottom}, {kBottomPanelHeight}, Qt::Vertical);
    });
  }
}

void MainWindow::BuildDockButtons() {
  // Flat buttons at the status bar's right end, checked while their dock is open: one click opens the tab under
  // the viewport (in front of the other) or closes it.
  for (QDockWidget* d : {history_dock_, log_dock_}) {
    auto* button = new QToolButton;
    button->setObjectName(d->objectName().toLower() + "_button");
    button->setText(d->windowTitle());
    button->setCheckable(true);
    button->setAutoRaise(true);
    button->setToolTip("Open or close the " + d->windowTitle() + " tab under the viewport");
    connect(button, &QToolButton::clicked, this, [d](bool open) {
      d->setVisible(open);
      if (open) d->raise();
    });
    connect(d->toggleViewAction(), &QAction::toggled, button, &QToolButton::setChecked);
    statusBar()->addPermanentWidget(button);
    if (d == log_dock_) log_button_ = button;
  }
  // visibilityChanged also tells when the log's tab comes to the front or goes behind another.
  connect(log_dock_, &QDockWidget::visibilityChanged, this, [this](bool visible) {
    log_shown_ = visible;
    if (!visible) return;
    unseen_problems_ = 0;
    log_button_->setText("Log");
    log_button_->setStyleSheet({});
  });
}

void MainWindow::BuildLayoutMenu() {
  QMenu* layout = menuBar()->addMenu("&Layout");
  layout->setToolTipsVisible(true);
  layout_group_ = new QActionGroup(layout);
  struct Entry {
    LayoutPreset preset;
    const char* label;
    const char* tool_tip;
  };
  const Entry entries[] = {
      {LayoutPreset::kSimulate, "&Simulate", "The viewport, with the scene tree and the inspector as tabs on the left"},
      {LayoutPreset::kTune, "&Tune", "The inspector in a wider panel on the left and the plots on the right"},
      {LayoutPreset::kTeleop, "T&eleop", "The Teleop dock on the right, with the plots as a tab behind it"},
      {LayoutPreset::kRecord, "&Record", "The viewport alone, between the toolbar and the status bar"},
  };
  int key = Qt::Key_1;
  for (const Entry& entry : entries) {
    QAction* action = layout->addAction(entry.label);
    action->setObjectName("layout_" + PresetName(entry.preset));
    action->setCheckable(true);
    action->setToolTip(entry.tool_tip);
    action->setShortcut(QKeySequence(Qt::ALT | static_cast<Qt::Key>(key++)));
    layout_group_->addAction(action);
    connect(action, &QAction::triggered, this, [this, preset = entry.preset] { ApplyLayout(preset); });
  }
  layout->addSeparator();
  QAction* reset = layout->addAction("Reset &layout", this, &MainWindow::ResetLayout);
  reset->setObjectName("reset_layout");
  reset->setToolTip("Put the docks back where the chosen preset has them");
}

void MainWindow::PlaceTabs(Qt::DockWidgetArea area, const std::vector<QDockWidget*>& tabs,
                           const std::vector<bool>& open) {
  for (QDockWidget* d : tabs) {
    d->setFloating(false);
    removeDockWidget(d);
  }
  addDockWidget(area, tabs.front());
  for (std::size_t i = 1; i < tabs.size(); ++i) tabifyDockWidget(tabs.front(), tabs[i]);
  for (std::size_t i = 0; i < tabs.size(); ++i) tabs[i]->setVisible(open[i]);
  for (std::size_t i = tabs.size(); i-- > 0;)
    if (open[i]) tabs[i]->raise();  // the first open one ends in front
}

void MainWindow::ApplyLayout(LayoutPreset preset) {
  layout_preset_ = preset;
  const bool simulate = preset == LayoutPreset::kSimulate;
  const bool tune = preset == LayoutPreset::kTune;
  const bool teleop = preset == LayoutPreset::kTeleop;
  // The front tab first.
  if (tune)
    PlaceTabs(Qt::LeftDockWidgetArea, {inspector_dock_, scene_dock_}, {true, true});
  else
    PlaceTabs(Qt::LeftDockWidgetArea, {scene_dock_, inspector_dock_}, {simulate, simulate});
  if (teleop)
    PlaceTabs(Qt::RightDockWidgetArea, {teleop_dock_, plots_dock_}, {true, true});
  else
    PlaceTabs(Qt::RightDockWidgetArea, {plots_dock_, teleop_dock_}, {tune, false});
  PlaceTabs(Qt::BottomDockWidgetArea, {history_dock_, log_dock_}, {false, false});
  // Sized anew by the first opening (BuildDocks).
  history_dock_->setProperty("sized", false);
  log_dock_->setProperty("sized", false);
  // Before the window is shown, once it is: its size may not yet be the one it will have (a window manager's, or
  // -geometry's).
  panels_unsized_ = !isVisible();
  if (!panels_unsized_) SizePanels();
  for (QAction* action : layout_group_->actions())
    if (action->objectName() == "layout_" + PresetName(preset)) action->setChecked(true);
  QSettings("Ductile", "studio").setValue(kPresetKey, PresetName(preset));
}

void MainWindow::SizePanels() {
  panels_unsized_ = false;
  // The docks in their places first: resizeDocks sizes the layout as it stands.
  layout()->activate();
  const bool simulate = layout_preset_ == LayoutPreset::kSimulate;
  const bool tune = layout_preset_ == LayoutPreset::kTune;
  const bool teleop = layout_preset_ == LayoutPreset::kTeleop;
  // The window's own width, which the window system may have set (-geometry) before the widget is resized to it.
  const int w = windowHandle() ? windowHandle()->width() : width();
  if (simulate)
    resizeDocks({scene_dock_}, {PanelWidth(w, kSimulatePanel, kSimulatePanelMin, kSimulatePanelMax)}, Qt::Horizontal);
  if (tune) {
    resizeDocks({inspector_dock_, plots_dock_},
                {PanelWidth(w, kTunePanel, kTunePanelMin, kTunePanelMax),
                 PanelWidth(w, kPlotsPanel, kPlotsPanelMin, kPlotsPanelMax)},
                Qt::Horizontal);
  }
  if (teleop)
    resizeDocks({teleop_dock_}, {PanelWidth(w, kTeleopPanel, kTeleopPanelMin, kTeleopPanelMax)}, Qt::Horizontal);
  layout()->activate();
}

void MainWindow::ResetLayout() {
  QSettings("Ductile", "studio").remove(kStateKey);
  ApplyLayout(layout_preset_);
}

void MainWindow::SaveLayout() {
  QSettings settings("Ductile", "studio");
  settings.setValue(kPresetKey, PresetName(layout_preset_));
  settings.setValue(kStateKey, saveState(kLayoutStateVersion));
}

void MainWindow::RestoreLayout() {
  const QSettings settings("Ductile", "studio");
  const std::string name = settings.value(kPresetKey).toString().toStdString();
  // The preset first, so that a saved arrangement restoreState refuses still leaves every dock in a sensible place.
  ApplyLayout(ParseLayoutPreset(name).value_or(LayoutPreset::kSimulate));
  const QByteArray state = settings.value(kStateKey).toByteArray();
  if (state.isEmpty() || !restoreState(state, kLayoutStateVersion)) return;
  // The user's sizes, the history's and the log's included.
  panels_unsized_ = false;
  history_dock_->setProperty("sized", true);
  log_dock_->setProperty("sized", true);
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  // Once the window has the size it is shown at (the geometry the window system gave it arrives after the event).
  if (panels_unsized_)
    QTimer::singleShot(0, this, [this] {
      if (panels_unsized_) SizePanels();
    });
}

void MainWindow::closeEvent(QCloseEvent* event) {
  SaveLayout();
  QMainWindow::closeEvent(event);
}

}  // namespace ductile::studio
