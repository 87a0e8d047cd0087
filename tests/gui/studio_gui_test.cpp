// The studio under a display (Xvfb with Mesa's lavapipe in CI): open a scene, run two simulated seconds and check
// the viewport's pixels against where the Snapshot says the particles and the rigid body are; edit a parameter in
// the inspector and find it in the next Snapshot; pause, step and reset; a malformed scene shows its error in a
// dialog; recording: SimController's frame times with a stand-in sink, a video recorded from the window decoded
// back, the dialog and its shortcut, what ends a recording, and refused paths; teleoperation of the iiwa in
// scenes/arm_and_boxes.yaml through the Teleop dock, the keyboard in the viewport (teleop keys never trigger studio
// shortcuts) and the gizmo, and a saved demo log that replays to the studio's final state; the layout presets, the
// viewport's share of the window in each, and the layout remembered between sessions. Screenshots (and a recorded
// frame) are written to DUCTILE_GUI_OUTPUT_DIR for a person to look at.
#include <QAction>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QToolButton>
#include <QTreeWidget>
#include <QVulkanInstance>
#include <QtTest>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <numbers>

#include "../physics/arm_scene.h"
#include "backend/device_mpm.h"
#include "cpu_placement.h"
#include "decoded_video.h"
#include "ductile/demo_log.h"
#include "ductile/render/image.h"
#include "inspector.h"
#include "main_window.h"
#include "plots.h"
#include "studio_test_helpers.h"
#include "teleop_panel.h"

namespace ductile::studio {

namespace {

using gui_test::kCubeAndBoxScene;
using gui_test::LogHas;
using gui_test::OpenAndWait;
using gui_test::StudioFixture;
using gui_test::VisibleBox;

// Line 4 has a misspelt key.
constexpr const char* kBadScene = R"(
simulation: {dt: 2.0e-3, substeps: 8}
materials:
  rubber: {model: fixed_corotated, densty: 500, youngs_modulus: 3.0e4, poisson_ratio: 0.3}
)";

// Whether some pixel within `radius` of `at` satisfies `test`.
template <typename Test>
bool AnyPixelNear(const QImage& image, QPointF at, int radius, Test test) {
  for (int dy = -radius; dy <= radius; ++dy)
    for (int dx = -radius; dx <= radius; ++dx) {
      const int x = static_cast<int>(at.x()) + dx, y = static_cast<int>(at.y()) + dy;
      if (x < 0 || y < 0 || x >= image.width() || y >= image.height()) continue;
      if (test(QColor(image.pixel(x, y)))) return true;
    }
  return false;
}

// A FrameSink that keeps what SimController hands it: the simulated time and frame count of every call.
class ListSink : public FrameSink {
 public:
  explicit ListSink(double fps) : fps_(fps) {}
  double fps() const override { return fps_; }
  bool WriteFrames(const Snapshot& snapshot, std::int64_t count) override {
    const std::lock_guard lock(mutex_);
    calls_.emplace_back(snapshot.time, count);
    return true;
  }
  void Finish(double end_time) override {
    const std::lock_guard lock(mutex_);
    ++finishes_;
    end_time_ = end_time;
  }
  std::vector<std::pair<double, std::int64_t>> calls() const {
    const std::lock_guard lock(mutex_);
    return calls_;
  }
  int finishes() const {
    const std::lock_guard lock(mutex_);
    return finishes_;
  }
  double end_time() const {
    const std::lock_guard lock(mutex_);
    return end_time_;
  }

 private:
  const double fps_;
  mutable std::mutex mutex_;
  std::vector<std::pair<double, std::int64_t>> calls_;
  int finishes_ = 0;
  double end_time_ = -1;
};

// The repository's scene of the iiwa 7 with its parallel gripper beside a table with boxes.
QString ArmScene() {
  return QString::fromStdString((std::filesystem::path(DUCTILE_SOURCE_DIR) / "scenes/arm_and_boxes.yaml").string());
}

// The repository's scene of two iiwa arms holding a rolling pin over dough.
QString RollingPinScene() {
  return QString::fromStdString(
      (std::filesystem::path(DUCTILE_SOURCE_DIR) / "scenes/two_arm_rolling_pin.yaml").string());
}

// A teleop key held for `held` seconds of wall time moved the target for `acted` seconds of the panel's ticks
// (TeleopPanel::moved_seconds). At most a tick more (see keyboardDrivesTheToolAlongY): the first tick after the press
// counts the time since the tick before it, at most 0.5 s as in the studio, and a loaded UI thread takes that long
// (a full ctest run's hold acted 1.976 s of 1.516 s held); less by what stalls lose, which has no bound under a busy
// machine (one hold acted 1.04 s of 1.76 s), so below only that the key acted at all: the motion's rate over `acted`
// is what the tests check exactly.
constexpr double kTickSlack = 0.5;
bool ActedFor(double acted, double held) {
  return acted < held + kTickSlack && acted > 0.1;
}

// `count` telemetry samples 10 ms of simulated time apart from `from`, the i-th taking step_ms(i) ms.
template <class StepMs>
std::vector<TelemetrySample> SamplesEvery10Ms(std::size_t count, StepMs step_ms, std::size_t from = 0) {
  std::vector<TelemetrySample> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    out[i].time = 0.01 * static_cast<double>(from + i);
    out[i].step_ms = step_ms(i);
  }
  return out;
}

// The pose of the snapshot body called `name`; false when there is none.
bool BodyPosition(const Snapshot& s, const std::string& name, std::array<double, 3>& p) {
  for (const SnapshotBody& b : s.bodies) {
    if (b.name != name) continue;
    for (int a = 0; a < 3; ++a) p[a] = b.position[a];
    return true;
  }
  return false;
}

// The distance between the gripper's fingers' frames [m] in the snapshot.
double FingerGap(const Snapshot& s) {
  std::array<double, 3> left{}, right{};
  if (!BodyPosition(s, "arm/gripper_finger_left", left) || !BodyPosition(s, "arm/gripper_finger_right", right))
    return -1;
  return std::hypot(left[0] - right[0], left[1] - right[1], left[2] - right[2]);
}

// The docks by name, in the View menu's order.
const QStringList kDocks = {"Scene", "Inspector", "Plots", "Teleop", "History", "Log"};

// Whether the dock called `name` is open: shown, in front of its tab group or behind another tab (Qt moves a tab
// behind another out of sight without hiding it).
bool DockOpen(const QMainWindow& window, const QString& name) {
  const auto* dock = window.findChild<QDockWidget*>(name);
  return dock && !dock->isHidden();
}

// Whether the dock called `name` is open and in sight: in front of its tab group, inside the window.
bool DockInSight(const QMainWindow& window, const QString& name) {
  const auto* dock = window.findChild<QDockWidget*>(name);
  return dock && dock->isVisible() && window.rect().contains(dock->geometry());
}

// The docks open in `window`, by name.
QStringList OpenDocks(const QMainWindow& window) {
  QStringList open;
  for (const QString& name : kDocks)
    if (DockOpen(window, name)) open.append(name);
  return open;
}

// The viewport's share of the window's area: its central widget's rectangle over the window's.
double ViewportShare(const MainWindow& window) {
  const QRect view = window.centralWidget()->geometry();
  return static_cast<double>(view.width()) * view.height() / (static_cast<double>(window.width()) * window.height());
}

// Double-clicking the dough's material in the scene tree brings the inspector to the front with the material's
// parameters at the top of its view, all of them in sight. Empty when it does, else what is wrong.
QString MaterialNotShownFromTheSceneTree(MainWindow& window) {
  auto* tree = window.findChild<QTreeWidget*>();
  const QList<QTreeWidgetItem*> dough = tree->findItems("dough", Qt::MatchExactly | Qt::MatchRecursive);
  if (dough.isEmpty() || dough.front()->data(0, kInspectorEntryRole).toString() != "materials.dough")
    return "no tree entry for the material";
  emit tree->itemDoubleClicked(dough.front(), 0);
  QGroupBox* group = nullptr;
  for (QGroupBox* box : window.inspector()->findChildren<QGroupBox*>())
    if (box->title() == "Material dough") group = box;
  if (group == nullptr) return "no group for the material";
  const QWidget* view = window.inspector()->findChild<QScrollArea*>()->viewport();
  const QList<QLineEdit*> fields = group->findChildren<QLineEdit*>();
  if (fields.size() < 5) return QString("%1 fields").arg(fields.size());
  // The tooltips carry the rows' documentation as plain, wrapped text (their Markdown is docs/scene-format.md's).
  for (const QWidget* widget : window.inspector()->findChildren<QWidget*>())
    for (const QString& line : widget->toolTip().split('\n'))
      if (line.contains('`') || line.contains("](#") || line.size() > 100)
        return "a tooltip line of " + widget->objectName() + " reads as Markdown or unwrapped: " + line;
  // The group at the top of the view and every field of it, at its full height, in sight.
  QString problem;
  const auto in_sight = [&] {
    problem.clear();
    if (!DockInSight(window, "Inspector")) problem = "the inspector is out of sight";
    const int top = group->mapTo(view, QPoint(0, 0)).y();
    if (std::abs(top) > 20) problem = QString("the group's top at %1 px").arg(top);
    for (const QLineEdit* field : fields) {
      const QRect r(field->mapTo(view, QPoint(0, 0)), field->size());
      if (field->height() < field->sizeHint().height() || !view->rect().contains(r))
        problem = QString("%1 at (%2, %3) %4 x %5 in a view of %6 x %7")
                      .arg(field->objectName())
                      .arg(r.x())
                      .arg(r.y())
                      .arg(r.width())
                      .arg(r.height())
                      .arg(view->width())
                      .arg(view->height());
    }
    return problem.isEmpty();
  };
  if (!QTest::qWaitFor(in_sight, 5000)) return problem;
  qInfo("the material's %lld parameters take %d px of the inspector's %d", static_cast<long long>(fields.size()),
        group->height(), view->height());
  return {};
}

// With teleoperation on (the target and the IK's readouts shown), the Teleop dock needs no horizontal scrolling and
// shows every label's text whole: each is as wide as its text, or wraps it, and as tall as its lines.
bool TeleopDockReadable(MainWindow& window) {
  TeleopPanel* panel = window.teleop();
  if (!panel->SetTeleopEnabled(true)) return false;
  const auto readable = [&] {
    window.Poll();
    if (window.teleop()->target().robot.empty()) return false;
    for (const QLabel* label : panel->findChildren<QLabel*>()) {
      const QSize need =
          label->wordWrap() ? QSize(0, label->heightForWidth(label->width())) : label->sizeHint();  // all its lines
      if (label->isVisible() && (label->width() < need.width() || label->height() < need.height())) return false;
    }
    return true;
  };
  const auto* scroll = qobject_cast<QScrollArea*>(window.findChild<QDockWidget*>("Teleop")->widget());
  return scroll && QTest::qWaitFor(readable, 5000) && !scroll->horizontalScrollBar()->isVisible();
}

// The value the studio remembers under `key` (QSettings, in the fixture's folder).
QVariant Remembered(const QString& key) {
  return QSettings("Ductile", "studio").value(key);
}

}  // namespace

class StudioGuiTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    const StudioFixture::Started started = fixture_.Start("ductile_gui_test");
    if (started == StudioFixture::Started::kNoVulkan)
      QSKIP("no Vulkan implementation: the viewport cannot be tested here");
    QVERIFY(started == StudioFixture::Started::kOk);
    window_ = fixture_.window();
    dir_ = fixture_.dir();
    scene_ = fixture_.scene();
    QDir().mkpath(DUCTILE_GUI_OUTPUT_DIR);
  }

  void cleanupTestCase() { fixture_.Stop(); }

  // With nothing remembered the studio starts in the Simulate layout: the scene tree in front of the inspector on
  // the left, every other dock closed.
  void startsInTheSimulateLayout() {
    QCOMPARE(window_->layout_preset(), LayoutPreset::kSimulate);
    auto* simulate = window_->findChild<QAction*>("layout_simulate");
    QVERIFY(simulate && simulate->isChecked());
    QCOMPARE(OpenDocks(*window_), QStringList({"Scene", "Inspector"}));
    QVERIFY(DockInSight(*window_, "Scene"));
    QVERIFY(!DockInSight(*window_, "Inspector"));
    QCOMPARE(window_->dockWidgetArea(window_->findChild<QDockWidget*>("Inspector")), Qt::LeftDockWidgetArea);
  }

  // The plots redraw at most ten times a second: samples appended within 100 ms of a redraw show at the next one,
  // which comes by itself; paused plots keep recording without drawing.
  void plotsRedrawAtMostTenTimesASecond() {
    Plots plots;
    plots.Reset({"box"});
    const auto samples = [](std::size_t from, std::size_t count) {
      return SamplesEvery10Ms(
          count, [](std::size_t i) { return 1.0 + static_cast<double>(i); }, from);
    };
    QTest::qWait(150);  // past the Reset's redraw
    QElapsedTimer since_first;
    since_first.start();
    plots.Append(samples(0, 10));
    QCOMPARE(plots.drawn_points(), 10);  // the first redraw in 100 ms is immediate
    plots.Append(samples(10, 5));
    // Postponed, when the second Append came within the 100 ms (a loaded machine may take longer between the two).
    if (since_first.elapsed() < 100) QCOMPARE(plots.drawn_points(), 10);
    QTRY_COMPARE_WITH_TIMEOUT(plots.drawn_points(), 15, 2000);
    auto* pause = plots.findChild<QPushButton*>("pause_plots");
    QVERIFY(pause);
    pause->click();
    QTest::qWait(150);
    plots.Append(samples(15, 5));
    QTest::qWait(250);
    QCOMPARE(plots.drawn_points(), 15);
    QCOMPARE(plots.samples().size(), std::size_t{20});
    pause->click();  // resuming draws everything recorded
    QTRY_COMPARE_WITH_TIMEOUT(plots.drawn_points(), 20, 2000);
  }

  // A long history is drawn as the lowest and highest sample of each of 400 runs: at most 800 points, in time
  // order, and a one-step spike still shows (a thinning to every n-th sample would drop it).
  void plotsKeepSpikesOfALongHistory() {
    Plots plots;
    plots.Reset({"box"});
    QTest::qWait(150);  // past the Reset's redraw
    std::vector<TelemetrySample> samples =
        SamplesEvery10Ms(10000, [](std::size_t i) { return 20.0 + 0.001 * static_cast<double>(i % 97); });
    samples[7777].step_ms = 500;
    plots.Append(samples);
    const QList<QPointF> points = plots.drawn_step_ms();
    QVERIFY(points.size() <= 800);
    QVERIFY(points.size() >= 400);
    bool spike = false;
    for (qsizetype i = 0; i < points.size(); ++i) {
      if (i > 0) QVERIFY(points[i].x() > points[i - 1].x());
      spike = spike || (std::abs(points[i].x() - 77.77) < 1e-9 && points[i].y() == 500.0);
    }
    QVERIFY(spike);
    QCOMPARE(points.front().x(), 0.0);
  }

  // The exported CSV has a column per telemetry channel (ductile/telemetry.h), in the table's order, empty where a
  // step lacks the channel; the IPC chart shows while the samples carry the IPC channels.
  void plotsExportEveryTelemetryChannel() {
    QVERIFY(TelemetryChannels().size() <= static_cast<std::size_t>(kMaxSampleChannels));
    Plots plots;
    plots.Reset({"box"});
    QTest::qWait(150);  // past the Reset's redraw
    const int sap = FindTelemetryChannel("sap_iterations"), ipc = FindTelemetryChannel("ipc_newton_iterations");
    std::vector<TelemetrySample> samples = SamplesEvery10Ms(3, [](std::size_t) { return 2.0; });
    for (std::size_t i = 0; i < samples.size(); ++i) {
      samples[i].present = (std::uint64_t{1} << sap) | (i == 2 ? std::uint64_t{1} << ipc : 0);
      samples[i].channels[static_cast<std::size_t>(sap)] = static_cast<float>(10 + i);
      samples[i].channels[static_cast<std::size_t>(ipc)] = 7;
    }
    plots.Append(samples);
    // The IPC chart's view (the fourth) is hidden until a sample has its channels: the last one here does; the
    // projective-dynamics chart's (the fifth) stays hidden, no sample having its channels.
    QTRY_VERIFY(plots.findChildren<QChartView*>().size() == 5 && !plots.findChildren<QChartView*>()[3]->isHidden() &&
                plots.findChildren<QChartView*>()[4]->isHidden());
    const QString path = QDir::temp().filePath("ductile_plots_channels.csv");
    QString error;
    QVERIFY2(plots.ExportCsv(path, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly | QIODevice::Text));
    const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
    file.remove();
    QCOMPARE(lines.size(), 4);
    const QStringList header = lines[0].split(',');
    QCOMPARE(header.mid(0, 3), QStringList({"time", "step_ms", "realtime_factor"}));
    for (std::size_t c = 0; c < TelemetryChannels().size(); ++c)
      QCOMPARE(header[static_cast<qsizetype>(3 + c)], QString(TelemetryChannels()[c].key));
    const QStringList first = lines[1].split(','), last = lines[3].split(',');
    QCOMPARE(first[3 + sap], QString("10"));
    QCOMPARE(first[3 + ipc], QString());  // the first step has no IPC channel
    QCOMPARE(last[3 + sap], QString("12"));
    QCOMPARE(last[3 + ipc], QString("7"));
  }

  // The force plot marks each robot warning's start (TelemetrySample::robot_warning) at the top of its range,
  // whichever body it shows; a reset of the plots forgets the marks with the samples.
  void plotsMarkTheRobotWarnings() {
    Plots plots;
    plots.Reset({"arm/iiwa_link_5"});
    QTest::qWait(150);  // past the Reset's redraw
    std::vector<TelemetrySample> samples = SamplesEvery10Ms(100, [](std::size_t) { return 1.0; });
    for (TelemetrySample& sample : samples) sample.num_bodies = 1;
    samples[30].robot_warning = true;
    samples[72].robot_warning = true;
    samples[30].force[0] = {0, 0, 600};
    plots.Append(samples);
    QTRY_COMPARE_WITH_TIMEOUT(plots.drawn_warning_times(), (QList<double>{samples[30].time, samples[72].time}), 2000);
    QCOMPARE(plots.vertical_range(0).second, 600.0 + 0.05 * 600.0);
    plots.Reset({"arm/iiwa_link_5"});
    QTRY_VERIFY_WITH_TIMEOUT(plots.drawn_warning_times().isEmpty(), 2000);
  }

  // A constant series gets a readable range around its value instead of a spread of zero divided into ticks (the
  // solver chart of a scene without MPM contact showed 0.000000001 as its labels); series that are never negative
  // get no negative range (ms per step showed an axis from -8.6); a varying one gets 5% margins.
  void plotsShowReadableRanges() {
    using Range = std::pair<double, double>;
    QCOMPARE(PlotRange(0, 0), (Range{0.0, 1.0}));
    QCOMPARE(PlotRange(5, 5), (Range{4.5, 5.5}));
    const auto near = [](Range a, Range b) {
      return std::abs(a.first - b.first) + std::abs(a.second - b.second) < 1e-12;
    };
    QVERIFY(near(PlotRange(-2, -2), Range{-2.2, -1.8}));
    QCOMPARE(PlotRange(-2, 8), (Range{-2.5, 8.5}));
    QCOMPARE(PlotRange(0.5, 100.5), (Range{0.0, 105.5}));
    QVERIFY(near(PlotRange(1e-12, 3e-12), Range{0.9e-12, 3.1e-12}));  // a small spread is data, not a constant
    QCOMPARE(PlotRange(std::nan(""), 1), (Range{0.0, 1.0}));
    // Labels: decimals enough to tell the ticks apart (a resting body's 98.1 ± 0.05 N read "98.1" on every tick
    // with "%.3g"), none for a range in the hundreds, and "%.3g" for the very small and the very large.
    QCOMPARE(PlotLabelFormat(0, 1, 5), QString("%.2f"));
    QCOMPARE(PlotLabelFormat(0, 230, 5), QString("%.0f"));
    QCOMPARE(PlotLabelFormat(98.045, 98.155, 5), QString("%.3f"));
    QCOMPARE(PlotLabelFormat(0.9e-12, 3.1e-12, 5), QString("%.3g"));
    QCOMPARE(PlotLabelFormat(0, 5e6, 5), QString("%.3g"));
    for (const auto& [lo, hi] : {Range{98.045, 98.155}, Range{0.0, 1.0}, Range{-2.5, 8.5}, Range{1000, 1001}}) {
      const QByteArray format = PlotLabelFormat(lo, hi, 5).toLatin1();
      QStringList labels;
      for (int i = 0; i < 5; ++i) labels << QString::asprintf(format.constData(), lo + i * (hi - lo) / 4);
      labels.removeDuplicates();
      QVERIFY2(labels.size() == 5, qPrintable(labels.join(", ")));
    }
    Plots plots;
    plots.Reset({"box"});
    QTest::qWait(150);  // past the Reset's redraw
    // The first step pays for the start-up.
    std::vector<TelemetrySample> samples = SamplesEvery10Ms(50, [](std::size_t i) { return i == 0 ? 190.0 : 0.7; });
    for (TelemetrySample& sample : samples) sample.realtime_factor = 1.0;
    plots.Append(samples);
    const Range solver = plots.vertical_range(1), speed = plots.vertical_range(2);
    QCOMPARE(solver.first, 0.0);
    QCOMPARE(solver.second, 1.0);
    QCOMPARE(speed.first, 0.0);
    QCOMPARE(speed.second, 190.0 + 0.05 * (190.0 - 0.7));
  }

  // View > Turntable turns the camera and draws frames back to back, also while the simulation is paused (when
  // nothing else asks for frames); switched off, the frames stop.
  void turntableTurnsTheCameraAndDrawsContinuously() {
    window_->SetPlaying(false);
    QTRY_VERIFY_WITH_TIMEOUT(!window_->controller()->status().playing, 5000);
    Viewport* viewport = window_->viewport();
    QTest::qWait(300);
    const std::uint64_t before = viewport->frames();
    const float yaw = viewport->camera().yaw;
    auto* action = window_->findChild<QAction*>("turntable_action");
    QVERIFY(action);
    QElapsedTimer turning;
    action->setChecked(true);
    turning.start();
    QTest::qWait(1500);
    action->setChecked(false);
    const double seconds = 1e-3 * static_cast<double>(turning.elapsed());
    // Lavapipe draws this small scene at well over 3 frames a second even with the tests' other load.
    const std::uint64_t frames = viewport->frames() - before;
    QVERIFY2(frames >= 4, qPrintable(QString::number(frames) + " frames"));
    // 20°/s for about 1.5 s is about 0.5 rad. The angle follows wall time, each frame counting at most 0.1 s (a
    // stalled UI thread does not make the camera jump): it turns (0.05 rad, about a tenth of the full angle, allows
    // for frames bunched by a loaded machine) and never by more than the wall time's worth plus a frame's 0.1 s.
    // (The yaw is kept in [−π, π].)
    const double angle = std::abs(std::remainder(viewport->camera().yaw - yaw, 2 * std::numbers::pi));
    const double rate = 20 * std::numbers::pi / 180;
    QVERIFY2(angle > 0.05 && angle < rate * (seconds + 0.1),
             qPrintable(QString("turned %1 rad in %2 s, %3 frames").arg(angle).arg(seconds).arg(frames)));
    QTest::qWait(300);
    const std::uint64_t off = viewport->frames();
    QTest::qWait(700);
    QVERIFY(viewport->frames() - off <= 1);
    // `ductile --turntable 45` goes through MainWindow::SetTurntable: its speed, and the menu item checked; the
    // menu item then switches it off.
    window_->SetTurntable(45);
    QCOMPARE(viewport->turntable(), 45.0);
    QVERIFY(action->isChecked());
    action->setChecked(false);
    QCOMPARE(viewport->turntable(), 0.0);
    viewport->camera().yaw = yaw;  // the view the later tests expect
    viewport->requestUpdate();
  }

  // The frame rate limit (View > Frame rate limit, MainWindow::SetFrameRateLimit): automatic is 36 frames/s on a CPU
  // device and none on a GPU; the menu's choices set it; and with a limit the turntable's back-to-back frames come
  // at most at that rate. The limit is a third of the rate measured without one, so that a limiter that let frames
  // through would fail the bound whatever this machine's speed.
  void frameRateLimitHoldsTheViewportsRate() {
    window_->SetPlaying(false);
    QTRY_VERIFY_WITH_TIMEOUT(!window_->controller()->status().playing, 5000);
    Viewport* viewport = window_->viewport();
    auto* automatic = window_->findChild<QAction*>("frame_rate_limit_0");
    QVERIFY(automatic && automatic->isChecked());
    QCOMPARE(viewport->frame_rate_limit(), viewport->cpu_device() ? 36.0 : std::numeric_limits<double>::infinity());
    auto* sixty = window_->findChild<QAction*>("frame_rate_limit_60");
    QVERIFY(sixty);
    sixty->trigger();
    QCOMPARE(viewport->frame_rate_limit(), 60.0);
    auto* none = window_->findChild<QAction*>("frame_rate_limit_none");
    QVERIFY(none);
    none->trigger();
    QVERIFY(std::isinf(viewport->frame_rate_limit()));

    // Frames drawn while the turntable turns, over about `ms` of wall time, per second.
    const auto rate = [viewport](int ms) {
      QTest::qWait(200);
      const std::uint64_t before = viewport->frames();
      QElapsedTimer timer;
      timer.start();
      QTest::qWait(ms);
      const double seconds = 1e-3 * static_cast<double>(timer.elapsed());
      return std::pair{static_cast<double>(viewport->frames() - before), seconds};
    };
    viewport->SetTurntable(20);
    const auto [free_frames, free_seconds] = rate(1000);
    const double limit = std::max(2.0, std::floor(free_frames / free_seconds / 3));
    window_->SetFrameRateLimit(limit);
    const auto [frames, seconds] = rate(2000);
    viewport->SetTurntable(0);
    const QString counts = QString("%1 frames in %2 s at a limit of %3/s (%4 in %5 s without)")
                               .arg(frames)
                               .arg(seconds)
                               .arg(limit)
                               .arg(free_frames)
                               .arg(free_seconds);
    // At most the limit's frames, plus one for each end of the span; at least half of them (the machine drew three
    // times as many without the limit a moment ago).
    QVERIFY2(frames <= limit * seconds + 2, qPrintable(counts));
    QVERIFY2(frames >= 0.5 * limit * seconds, qPrintable(counts));
    automatic->trigger();
    QCOMPARE(viewport->frame_rate_limit(), viewport->cpu_device() ? 36.0 : std::numeric_limits<double>::infinity());
    QVERIFY(automatic->isChecked());
  }

  // On a CPU device with two or more cores the viewport's drawing and the simulation thread are kept apart
  // (cpu_placement.h): the simulation thread on the first core at the normal priority, the UI thread and the
  // driver's threads on the last at nice 19; the log says so. A GPU, or a single core, leaves every thread alone.
  void cpuDeviceKeepsDrawingOffTheSimulationsCore() {
    Viewport* viewport = window_->viewport();
    const std::vector<int> allowed = AllowedCores();
    if (!viewport->cpu_device() || allowed.size() < 2) {
      QCOMPARE(window_->simulation_core(), -1);
      return;
    }
    QCOMPARE(window_->simulation_core(), allowed.front());
    QTRY_VERIFY_WITH_TIMEOUT(window_->controller()->thread_id() != 0, 5000);
    const int simulation = window_->controller()->thread_id();
    QTRY_VERIFY_WITH_TIMEOUT(CoresOfThread(simulation) == std::vector<int>{allowed.front()}, 5000);
    QCOMPARE(NiceOfThread(simulation), 0);
    QCOMPARE(CoresOfThread(CurrentThreadId()), std::vector<int>{allowed.back()});
    QCOMPARE(NiceOfThread(CurrentThreadId()), 19);
    QVERIFY(!viewport->device_threads().empty());
    for (int tid : ThreadsNamed("llvmpipe-")) {
      QCOMPARE(NiceOfThread(tid), 19);
      QCOMPARE(CoresOfThread(tid), std::vector<int>{allowed.back()});
    }
    auto* log = window_->findChild<QPlainTextEdit*>();
    QVERIFY(log && log->toPlainText().contains("CPU renderer: the simulation thread runs on core"));
  }

  void runsTwoSecondsAndDrawsWhatTheSnapshotSays() {
    window_->SetPlaying(true);
    QTRY_VERIFY_WITH_TIMEOUT(window_->controller()->status().time >= 2.0, 120000);
    window_->SetPlaying(false);
    QTRY_VERIFY_WITH_TIMEOUT(!window_->controller()->status().playing, 5000);
    QTest::qWait(500);  // the last snapshot drawn
    window_->Poll();
    window_->viewport()->requestUpdate();
    QTest::qWait(500);
    const QImage image = window_->viewport()->GrabImage();
    QVERIFY(!image.isNull());
    QVERIFY(image.save(QString(DUCTILE_GUI_OUTPUT_DIR) + "/run_two_seconds.png"));
    const QImage whole = window_->GrabWindow();
    QVERIFY(whole.save(QString(DUCTILE_GUI_OUTPUT_DIR) + "/main_window.png"));
    {
      // The window's image holds the viewport's where the viewport is (QWidget::grab alone leaves it blank): the
      // two agree at a few points to 3 levels (the window image's scaling at an equal size moves nothing).
      const QWidget* container = window_->viewport_widget();
      QVERIFY(container);
      const QPoint origin = container->mapTo(window_, QPoint(0, 0));
      const qreal dpr = whole.devicePixelRatio();
      QCOMPARE(image.size(), container->size() * dpr);
      for (const QPointF f : {QPointF(0.5, 0.5), QPointF(0.25, 0.6), QPointF(0.8, 0.3)}) {
        const QPoint in_view(static_cast<int>(f.x() * image.width()), static_cast<int>(f.y() * image.height()));
        const QColor a = image.pixelColor(in_view);
        const QColor b = whole.pixelColor(origin * dpr + in_view);
        QVERIFY2(std::abs(a.red() - b.red()) <= 3 && std::abs(a.green() - b.green()) <= 3 &&
                     std::abs(a.blue() - b.blue()) <= 3,
                 qPrintable(a.name() + " vs " + b.name()));
      }
    }

    const Snapshot& s = window_->controller()->snapshot();
    QVERIFY(s.time >= 2.0);
    // The cube's particles: their centroid projects onto red pixels (the fixed-corotated material colour).
    std::array<float, 3> centroid{};
    for (const auto& p : s.particles.position)
      for (int a = 0; a < 3; ++a) centroid[a] += p[a] / static_cast<float>(s.particles.position.size());
    QVERIFY2(centroid[2] < 0.08f, "the cube has fallen onto the ground");
    QPointF pixel;
    QVERIFY(window_->viewport()->ProjectToPixel(centroid, pixel));
    const double scale = image.width() / static_cast<double>(window_->viewport()->width());
    pixel *= scale;
    QVERIFY2(
        AnyPixelNear(image, pixel, 4, [](QColor c) { return c.red() > c.green() + 40 && c.red() > c.blue() + 40; }),
        qPrintable(QString("no red particle at (%1, %2)").arg(pixel.x()).arg(pixel.y())));
    // The rigid box: its centre projects onto its blue.
    QCOMPARE(s.bodies.size(), std::size_t{1});
    QVERIFY(window_->viewport()->ProjectToPixel(s.bodies[0].position, pixel));
    pixel *= scale;
    QVERIFY2(AnyPixelNear(image, pixel, 4, [](QColor c) { return c.blue() > c.red() + 40; }),
             qPrintable(QString("no blue box at (%1, %2)").arg(pixel.x()).arg(pixel.y())));
    // And an empty part of the picture (the top corner) is neither.
    const QColor corner(image.pixel(5, 5));
    QVERIFY(!(corner.red() > corner.green() + 40) && !(corner.blue() > corner.red() + 40));
  }

  void inspectorEditReachesTheNextSnapshot() {
    QLineEdit* e = window_->inspector()->field("materials.rubber.youngs_modulus");
    QVERIFY(e);
    e->setText("5e4");
    e->setModified(true);
    emit e->editingFinished();
    QTRY_VERIFY_WITH_TIMEOUT(std::abs(window_->controller()->snapshot().materials.at(0).youngs_modulus - 5e4) < 5.0,
                             10000);
    // A value out of range is refused in the inspector with the reason and never reaches the simulation.
    e->setText("-3");
    e->setModified(true);
    emit e->editingFinished();
    QLabel* status = window_->inspector()->findChild<QLabel*>("inspector_status");
    QVERIFY(status);
    QVERIFY2(status->text().contains("youngs_modulus") && status->text().contains("> 0"), qPrintable(status->text()));
    QTest::qWait(300);
    window_->Poll();
    QVERIFY(std::abs(window_->controller()->snapshot().materials.at(0).youngs_modulus - 5e4) < 5.0);
    // Opening a scene clears the refusal: it named a field of the scene before (it stayed over the next scene's).
    QVERIFY(OpenAndWait(*window_, scene_));
    QVERIFY2(status->text().startsWith("Edit a value"), qPrintable(status->text()));
  }

  // Robot warnings (issue 45): the iiwa's wrist folded into itself by its joint target, its link_force_limit at 5 N.
  // The Log shows the self-contact once, with its time, however many steps it lasts; the HUD shows how many
  // warnings there are and the latest (and the force plot marks their start: plotsMarkTheRobotWarnings). The window's
  // picture is written for a person to look at.
  void robotWarningsShowInTheHudAndTheLog() {
    const QString arm = dir_ + "/folding_arm.yaml";
    {
      std::string text = ductile::testing::IiwaGripperScene("    link_force_limit: 5\n");
      const std::string wrist = "iiwa_joint_6: {kp: 300, kd: 5, target: 0.8}";
      text.replace(text.find(wrist), wrist.size(), "iiwa_joint_6: {kp: 300, kd: 5, target: 2.09}");
      std::ofstream(arm.toStdString()) << text;
    }
    QVERIFY(OpenAndWait(*window_, arm));
    window_->SetPlaying(true);
    QTRY_VERIFY_WITH_TIMEOUT(window_->controller()->status().time > 0.5, 60000);
    window_->SetPlaying(false);
    QTRY_VERIFY_WITH_TIMEOUT(!window_->controller()->status().playing, 5000);
    QTest::qWait(200);
    window_->Poll();
    auto* log = window_->findChild<QPlainTextEdit*>();
    QVERIFY(log);
    const QString text = log->toPlainText();
    QCOMPARE(text.count("links iiwa_link_5 and iiwa_link_7 touch (self-contact)"), 1);
    QVERIFY2(text.contains(QRegularExpression("warning: t = [0-9.]+ s: robot 'arm': links iiwa_link_5")),
             qPrintable(text));
    bool hud = false;
    for (const std::string& line : window_->viewport()->hud_lines())
      hud = hud || line.rfind("ROBOT WARNING (3 this run, see the Log) t = ", 0) == 0;
    QVERIFY(hud);
    window_->viewport()->requestUpdate();
    QTest::qWait(300);
    QVERIFY(window_->GrabWindow().save(QString(DUCTILE_GUI_OUTPUT_DIR) + "/robot_warning.png"));
    QVERIFY(OpenAndWait(*window_, scene_));
  }

  // A stiff block dropped at Δt = 10 ms with one substep: under the weak scheme the explicit substep is over 30
  // times its CFL limit, the run diverges and the studio pauses with the message; switched to the strong scheme
  // (Simulation > Coupling, which edits simulation.coupling live and shows it in the inspector) and reset, the same
  // scene runs and the block lands on the table.
  void strongCouplingRunsWhereTheWeakSchemeDiverges() {
    const QString stiff =
        QString::fromStdString((std::filesystem::path(DUCTILE_TEST_DATA_DIR) / "scenes/stiff_drop.yaml").string());
    QVERIFY(OpenAndWait(*window_, stiff));
    window_->SetPlaying(true);
    QTRY_VERIFY_WITH_TIMEOUT(window_->findChild<QMessageBox*>("diverged") != nullptr, 30000);
    QMessageBox* box = window_->findChild<QMessageBox*>("diverged");
    QVERIFY2(box->text().contains("diverged"), qPrintable(box->text()));
    box->setObjectName("diverged_weak");
    box->accept();
    QLineEdit* e = window_->inspector()->field("simulation.coupling");
    QVERIFY(e);
    QCOMPARE(e->text(), QString("weak"));
    QAction* weak = window_->findChild<QAction*>("coupling_weak");
    QAction* strong = window_->findChild<QAction*>("coupling_strong");
    QVERIFY(weak && strong);
    QVERIFY(weak->isChecked() && !strong->isChecked());
    strong->trigger();  // Simulation > Coupling > Strong: the inspector's field shows it, the run takes it
    QCOMPARE(e->text(), QString("strong"));
    QTRY_VERIFY_WITH_TIMEOUT(strong->isChecked() && !weak->isChecked(), 10000);
    window_->controller()->Post(command::Reset{});
    QTRY_COMPARE_WITH_TIMEOUT(window_->controller()->status().step, std::int64_t{0}, 5000);
    window_->SetPlaying(true);
    QTRY_VERIFY_WITH_TIMEOUT(window_->controller()->status().time > 0.4, 60000);
    window_->Poll();
    QVERIFY2(window_->findChild<QMessageBox*>("diverged") == nullptr, "the strong scheme diverged");
    float lowest = 1;
    for (const auto& p : window_->controller()->snapshot().particles.position) lowest = std::min(lowest, p[2]);
    QVERIFY2(lowest > 0.09f && lowest < 0.12f, qPrintable(QString("lowest particle at %1 m").arg(lowest)));
    window_->viewport()->requestUpdate();
    QTest::qWait(300);
    QVERIFY(window_->GrabWindow().save(QString(DUCTILE_GUI_OUTPUT_DIR) + "/strong_coupling.png"));
    window_->SetPlaying(false);
    QVERIFY(OpenAndWait(*window_, scene_));
  }

  // Simulation > Backend: a live switch to the emulated backend (the CUDA backend's code on the CPU) while playing
  // carries the state over and the run goes on; CUDA without a device is refused with the reason and the menu
  // goes back to the backend in force; back to the CPU.
  void backendSwitchesLive() {
    window_->SetPlaying(true);
    QLineEdit* field = window_->inspector()->field("simulation.backend");
    QVERIFY(field);
    QAction* cpu = window_->findChild<QAction*>("backend_cpu");
    QAction* emulated = window_->findChild<QAction*>("backend_emulated");
    QAction* cuda = window_->findChild<QAction*>("backend_cuda");
    QVERIFY(cpu && emulated && cuda);
    QTRY_VERIFY_WITH_TIMEOUT(cpu->isChecked(), 5000);
    emulated->trigger();
    QCOMPARE(field->text(), QString("emulated"));
    QTRY_VERIFY_WITH_TIMEOUT(emulated->isChecked() && !cpu->isChecked(), 10000);
    const double t0 = window_->controller()->status().time;
    QTRY_VERIFY_WITH_TIMEOUT(window_->controller()->status().time > t0 + 0.05, 30000);
    window_->Poll();
    QVERIFY(!window_->controller()->snapshot().particles.position.empty());
    if (!backend::CudaAvailable()) {
      cuda->trigger();
      QTRY_VERIFY_WITH_TIMEOUT(emulated->isChecked() && !cuda->isChecked(), 10000);
    }
    cpu->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(cpu->isChecked(), 10000);
    const double t1 = window_->controller()->status().time;
    QTRY_VERIFY_WITH_TIMEOUT(window_->controller()->status().time > t1 + 0.05, 30000);
    window_->SetPlaying(false);
    QVERIFY(OpenAndWait(*window_, scene_));
  }

  void ctrlDragPullsTheBoxWithASpring() {
    window_->SetPlaying(true);
    window_->Poll();
    QPointF pixel;
    std::array<float, 3> box = window_->controller()->snapshot().bodies.at(0).position;
    QVERIFY(window_->viewport()->ProjectToPixel(box, pixel));
    const QPoint at = pixel.toPoint();
    // The cursor goes to where a point 12 cm above the box's centre is drawn, whatever the viewport's size (the
    // spring pulls the grabbed point, on the box's top, towards the cursor in the plane through it facing the camera).
    box[2] += 0.12f;
    QVERIFY(window_->viewport()->ProjectToPixel(box, pixel));
    const QPoint to = pixel.toPoint();
    QTest::mousePress(window_->viewport(), Qt::LeftButton, Qt::ControlModifier, at);
    QTest::mouseMove(window_->viewport(), to);
    QTRY_VERIFY_WITH_TIMEOUT(window_->controller()->snapshot().perturbing, 5000);
    // The box (4 cm high, resting at z = 0.04) rises towards the cursor.
    QTRY_VERIFY_WITH_TIMEOUT(window_->controller()->snapshot().bodies.at(0).position[2] > 0.07, 30000);
    window_->viewport()->requestUpdate();
    QTest::qWait(300);
    QVERIFY(window_->viewport()->GrabImage().save(QString(DUCTILE_GUI_OUTPUT_DIR) + "/mouse_spring.png"));
    QTest::mouseRelease(window_->viewport(), Qt::LeftButton, Qt::ControlModifier, to);
    QTRY_VERIFY_WITH_TIMEOUT(!window_->controller()->snapshot().perturbing, 5000);
  }

  void pauseStepAndReset() {
    window_->SetPlaying(false);
    QTRY_VERIFY_WITH_TIMEOUT(!window_->controller()->status().playing, 5000);
    const std::int64_t paused_at = window_->controller()->status().step;
    QTest::qWait(300);
    QCOMPARE(window_->controller()->status().step, paused_at);
    window_->controller()->Post(command::Step{});
    QTRY_COMPARE_WITH_TIMEOUT(window_->controller()->status().step, paused_at + 1, 5000);
    window_->controller()->Post(command::Reset{});
    QTRY_COMPARE_WITH_TIMEOUT(window_->controller()->status().step, std::int64_t{0}, 5000);
    QCOMPARE(window_->controller()->status().time, 0.0);
  }

  void malformedSceneShowsItsErrorInADialog() {
    const QString bad = dir_ + "/bad.yaml";
    std::ofstream(bad.toStdString()) << kBadScene;
    const std::uint64_t generation = window_->scene_generation();
    window_->OpenScene(bad);
    QMessageBox* box = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((box = window_->findChild<QMessageBox*>("scene_error")) && box->isVisible(), 5000);
    QVERIFY2(box->text().contains("bad.yaml:4:") && box->text().contains("densty"), qPrintable(box->text()));
    QVERIFY(window_->GrabWindow().save(QString(DUCTILE_GUI_OUTPUT_DIR) + "/scene_error.png"));
    box->accept();
    // The scene that was open stays open.
    QCOMPARE(window_->scene_path(), scene_);
    QCOMPARE(window_->scene_generation(), generation);
    QVERIFY(!window_->opening());
  }

  // Frame k at t0 + k / fps: after each step, the frames whose time it reached, all with that step's state. At 1250
  // frames/s and Δt = 2 ms a step covers two or three frame times (0.8 ms apart), so states repeat.
  void controllerTakesFramesAtFixedSimulatedTimes() {
    const auto model = std::make_shared<const Model>(CompileModel(LoadSceneFromString(kCubeAndBoxScene, "cube.yaml")));
    SimController controller(model, kCubeAndBoxScene, "cube.yaml");
    // One step at a time, each checked.
    const auto step_to = [&](std::int64_t step) {
      for (std::int64_t done = controller.status().step; done < step; ++done) {
        controller.Post(command::Step{});
        QTRY_COMPARE_WITH_TIMEOUT(controller.status().step, done + 1, 5000);
      }
    };
    step_to(2);  // start at t0 = 4 ms, not at 0
    const double t0 = controller.status().time;
    const double fps = 1250;
    auto sink = std::make_shared<ListSink>(fps);
    command::StartRecording start{sink};
    controller.Post(start);
    step_to(12);
    controller.Post(command::StopRecording{});
    QTRY_COMPARE_WITH_TIMEOUT(sink->finishes(), 1, 5000);
    const double t_end = controller.status().time;
    QCOMPARE(sink->end_time(), t_end);
    const auto calls = sink->calls();
    QCOMPARE(calls.size(), std::size_t{11});  // frame 0 and one call per step
    QCOMPARE(calls[0].first, t0);
    QCOMPARE(calls[0].second, std::int64_t{1});
    std::int64_t frames = 1;
    for (std::size_t i = 1; i < calls.size(); ++i) {
      // Every frame time in (previous boundary, this boundary] is due here.
      std::int64_t due = 0;
      while (t0 + static_cast<double>(frames + due) / fps <= calls[i].first + 1e-9) ++due;
      QCOMPARE(calls[i].second, due);
      QVERIFY(due == 2 || due == 3);
      frames += due;
    }
    QCOMPARE(frames, static_cast<std::int64_t>(std::floor((t_end - t0) * fps + 1e-6)) + 1);
    // A reset ends a recording (its frames would go back in time), and so does destroying the controller.
    auto reset_sink = std::make_shared<ListSink>(fps);
    start.sink = reset_sink;
    controller.Post(start);
    controller.Post(command::Reset{});
    QTRY_COMPARE_WITH_TIMEOUT(reset_sink->finishes(), 1, 5000);
    QCOMPARE(reset_sink->end_time(), t_end);
    auto last_sink = std::make_shared<ListSink>(fps);
    start.sink = last_sink;
    {
      SimController short_lived(model, kCubeAndBoxScene, "cube.yaml");
      short_lived.Post(start);
    }
    QCOMPARE(last_sink->finishes(), 1);
  }

  // Record > Export frames: a quarter second of simulated time into frames.h5 and frames.xmf at the scene's output
  // rate, both there whole after the stop, the XDMF index naming every frame; a video cannot start meanwhile; an
  // unwritable folder is refused with a message.
  void exportsFramesToHdf5() {
    window_->SetPlaying(false);
    QTRY_VERIFY_WITH_TIMEOUT(!window_->controller()->status().playing, 5000);
    const double t0 = window_->controller()->status().time;
    const QString dir = dir_ + "/export";
    QVERIFY(window_->StartExport(dir));
    QVERIFY(window_->exporter());
    RecordingSettings video;
    video.path = (dir_ + "/not_now.mp4").toStdString();
    QVERIFY(!window_->StartRecording(video));  // one recording or export at a time
    QMessageBox* box = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((box = VisibleBox(window_, "recording_error")), 5000);
    QVERIFY2(box->text().contains("an export is running"), qPrintable(box->text()));
    box->accept();
    window_->SetPlaying(true);
    QTRY_VERIFY_WITH_TIMEOUT(window_->controller()->status().time >= t0 + 0.25, 60000);
    window_->SetPlaying(false);
    QTRY_VERIFY_WITH_TIMEOUT(!window_->controller()->status().playing, 5000);
    const std::int64_t frames = window_->exporter()->frames();
    QVERIFY(frames >= 2);
    window_->StopExport();
    QTRY_VERIFY_WITH_TIMEOUT(!window_->exporter(), 10000);
    QVERIFY(LogHas(window_, "exported " + QString::number(frames) + " frames to "));
    QVERIFY(QFileInfo(dir + "/frames.h5").size() > 0);
    QFile index(dir + "/frames.xmf");
    QVERIFY(index.open(QIODevice::ReadOnly));
    const QString xmf = QString::fromUtf8(index.readAll());
    QCOMPARE(xmf.count("CollectionType=\"Spatial\""), static_cast<int>(frames));
    QVERIFY(xmf.contains("frames.h5:/frames/000001/position"));
    QVERIFY(!window_->StartExport("/proc/no_such_folder/export"));
    QTRY_VERIFY_WITH_TIMEOUT((box = VisibleBox(window_, "export_error")), 5000);
    QVERIFY2(box->text().contains("no_such_folder"), qPrintable(box->text()));
    box->accept();
    QVERIFY(!window_->exporter());
  }

  // A second of simulated time at 20 frames/s from the window, decoded back: frame count, size, every frame, and
  // the cube in the middle frame.
  void recordsOneSimulatedSecondOfVideo() {
    window_->SetPlaying(false);
    QTRY_VERIFY_WITH_TIMEOUT(!window_->controller()->status().playing, 5000);
    const double t0 = window_->controller()->status().time;
    RecordingSettings settings;
    settings.path = (dir_ + "/one_second.mp4").toStdString();
    settings.width = 320;
    settings.height = 240;
    settings.fps = 20;
    settings.overlay = true;
    QVERIFY(window_->StartRecording(settings));
    QVERIFY(window_->recorder());
    window_->SetPlaying(true);
    QLabel* rec = window_->findChild<QLabel*>("record_status");
    QVERIFY(rec);
    QTRY_VERIFY_WITH_TIMEOUT(
        rec->isVisible() && rec->text().startsWith("● REC 00:0") && rec->text().endsWith("frames)"), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(window_->controller()->status().time >= t0 + 0.5, 60000);
    QVERIFY(window_->GrabWindow().save(QString(DUCTILE_GUI_OUTPUT_DIR) + "/recording_window.png"));
    QVERIFY(window_->viewport()->GrabImage().save(QString(DUCTILE_GUI_OUTPUT_DIR) + "/recording_viewport.png"));
    QTRY_VERIFY_WITH_TIMEOUT(window_->controller()->status().time >= t0 + 1.0, 60000);
    window_->SetPlaying(false);
    QTRY_VERIFY_WITH_TIMEOUT(!window_->controller()->status().playing, 5000);
    const double t_end = window_->controller()->status().time;
    window_->StopRecording();
    QTRY_VERIFY_WITH_TIMEOUT(!window_->recorder(), 10000);
    QVERIFY(!rec->isVisible());
    QVERIFY(LogHas(window_, "recorded " + QString::fromStdString(settings.path.string()) + ": "));

    const double expected = (t_end - t0) * settings.fps;
    const int middle = static_cast<int>(expected / 2);
    const test::DecodedVideo video = test::DecodeVideo(settings.path, {middle});
    QVERIFY2(video.open_error.empty(), video.open_error.c_str());
    QVERIFY2(video.first_error.empty(), video.first_error.c_str());
    QCOMPARE(video.width, 320);
    QCOMPARE(video.height, 240);
    QVERIFY2(std::abs(video.frames - expected) <= 1.0,
             qPrintable(QString("%1 frames for %2 s at 20 fps").arg(video.frames).arg(t_end - t0)));
    QCOMPARE(video.frames_before_error, video.frames);
    const render::Image& frame = video.kept.at(middle);
    render::WritePng(std::string(DUCTILE_GUI_OUTPUT_DIR) + "/recorded_middle_frame.png", frame);
    // Not a flat colour: the red cube and the blue box are in the picture.
    int red = 0, blue = 0;
    for (std::size_t i = 0; i + 3 < frame.rgba.size(); i += 4) {
      const int r = frame.rgba[i], g = frame.rgba[i + 1], b = frame.rgba[i + 2];
      red += r > g + 40 && r > b + 40;
      blue += b > r + 40;
    }
    QVERIFY2(red > 100 && blue > 100, qPrintable(QString("%1 red and %2 blue pixels").arg(red).arg(blue)));
  }

  // Ctrl+Shift+R opens the dialog, which proposes a file named after the scene; accepting it records, and the
  // shortcut again stops.
  void shortcutAndDialogStartAndStop() {
    // Shortcuts go to the active window; Xvfb has no window manager to activate it on a click.
    QApplication::setActiveWindow(window_);
    QVERIFY(QTest::qWaitForWindowActive(window_));
    QTest::keyClick(window_, Qt::Key_R, Qt::ControlModifier | Qt::ShiftModifier);
    QDialog* dialog = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((dialog = window_->findChild<QDialog*>("recording_dialog")) && dialog->isVisible(), 5000);
    auto* path = dialog->findChild<QLineEdit*>("record_path");
    auto* size = dialog->findChild<QComboBox*>("record_size");
    auto* fps = dialog->findChild<QComboBox*>("record_fps");
    QVERIFY(path && size && fps);
    QVERIFY2(QFileInfo(path->text()).fileName().startsWith("cube_and_box_") && path->text().endsWith(".mp4"),
             qPrintable(path->text()));
    const QString file = dir_ + "/dialog.mp4";
    path->setText(file);
    size->setCurrentIndex(size->findText("640x360"));
    fps->setCurrentIndex(fps->findText("24"));
    dialog->accept();
    QTRY_VERIFY_WITH_TIMEOUT(window_->recorder(), 5000);
    window_->SetPlaying(true);
    QTRY_VERIFY_WITH_TIMEOUT(window_->recorder()->frames() >= 3, 30000);
    QTest::keyClick(window_, Qt::Key_R, Qt::ControlModifier | Qt::ShiftModifier);
    QTRY_VERIFY_WITH_TIMEOUT(!window_->recorder(), 10000);
    window_->SetPlaying(false);
    const test::DecodedVideo video = test::DecodeVideo(file.toStdString());
    QVERIFY2(video.open_error.empty() && video.first_error.empty(), video.open_error.c_str());
    QCOMPARE(video.width, 640);
    QCOMPARE(video.height, 360);
    QVERIFY(video.frames >= 3);
  }

  // Reset and opening a scene end the recording and finish its file.
  void resetAndReopeningFinishTheRecording() {
    RecordingSettings settings;
    settings.path = (dir_ + "/reset.mp4").toStdString();
    settings.width = 160;
    settings.height = 120;
    settings.fps = 60;
    QVERIFY(window_->StartRecording(settings));
    window_->controller()->Post(command::Step{});
    window_->controller()->Post(command::Reset{});
    QTRY_VERIFY_WITH_TIMEOUT(!window_->recorder(), 10000);
    QVERIFY(test::DecodeVideo(settings.path).frames >= 1);

    settings.path = (dir_ + "/reopen.mp4").toStdString();
    QVERIFY(window_->StartRecording(settings));
    window_->SetPlaying(true);
    QTRY_VERIFY_WITH_TIMEOUT(window_->recorder()->frames() >= 3, 30000);
    QVERIFY(OpenAndWait(*window_, scene_));
    QVERIFY(!window_->recorder());  // finished before the new scene opened
    QVERIFY(LogHas(window_, "recorded " + QString::fromStdString(settings.path.string()) + ": "));
    const test::DecodedVideo video = test::DecodeVideo(settings.path);
    QVERIFY2(video.first_error.empty() && video.frames >= 3, video.first_error.c_str());
  }

  // A folder that does not exist and an odd width are refused with the reason; no file, and the studio goes on.
  void refusedRecordingLeavesTheStudioRunning() {
    window_->SetPlaying(false);
    QTRY_VERIFY_WITH_TIMEOUT(!window_->controller()->status().playing, 5000);
    RecordingSettings settings;
    settings.path = (dir_ + "/no_such_folder/video.mp4").toStdString();
    settings.width = 320;
    settings.height = 240;
    QVERIFY(!window_->StartRecording(settings));
    QMessageBox* box = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((box = VisibleBox(window_, "recording_error")), 5000);
    QVERIFY2(box->text().contains("no_such_folder"), qPrintable(box->text()));
    QVERIFY(LogHas(window_, "cannot record: "));
    QVERIFY(window_->GrabWindow().save(QString(DUCTILE_GUI_OUTPUT_DIR) + "/recording_error.png"));
    box->accept();
    QVERIFY(!window_->recorder());
    QVERIFY(!std::filesystem::exists(settings.path.parent_path()));

    settings.path = (dir_ + "/odd.mp4").toStdString();
    settings.width = 321;
    QVERIFY(!window_->StartRecording(settings));
    QTRY_VERIFY_WITH_TIMEOUT((box = VisibleBox(window_, "recording_error")), 5000);
    QVERIFY2(box->text().contains("321"), qPrintable(box->text()));
    box->accept();
    QVERIFY(!std::filesystem::exists(settings.path));

    const std::int64_t step = window_->controller()->status().step;
    window_->controller()->Post(command::Step{});
    QTRY_COMPARE_WITH_TIMEOUT(window_->controller()->status().step, step + 1, 5000);
  }

  // A scene without robots leaves the dock disabled with a note; the arm scene lists the robot and its links, the
  // gripper's grasp point chosen, and the devices found.
  void teleopDockListsTheRobotAndItsLinks() {
    TeleopPanel* panel = window_->teleop();
    auto* robot = panel->findChild<QComboBox*>("teleop_robot");
    auto* link = panel->findChild<QComboBox*>("teleop_link");
    auto* enable = panel->findChild<QCheckBox*>("teleop_enable");
    auto* note = panel->findChild<QLabel*>("teleop_note");
    QVERIFY(robot && link && enable && note);
    QCOMPARE(robot->count(), 0);  // the cube and box
    QVERIFY(!enable->isEnabled());
    QVERIFY2(note->text().contains("no robot"), qPrintable(note->text()));
    QVERIFY(!panel->SetTeleopEnabled(true));

    QVERIFY(OpenAndWait(*window_, ArmScene()));
    QCOMPARE(robot->currentText(), QString("arm"));
    QCOMPARE(link->currentText(), QString("gripper_tcp"));
    QVERIFY(link->findText("iiwa_link_7") >= 0 && link->findText("gripper_finger_left") >= 0);
    QVERIFY(enable->isEnabled() && !enable->isChecked());
    const QString devices = panel->findChild<QLabel*>("teleop_devices")->text();
    QVERIFY2(devices.contains("keyboard") && devices.contains("gamepad") && devices.contains("SpaceMouse"),
             qPrintable(devices));
  }

  // Enable teleop (the dock's check box), hold D in the viewport: the target moves along +y at the dock's speed
  // whatever the frame rate, and the tool follows it.
  void keyboardDrivesTheToolAlongY() {
    TeleopPanel* panel = window_->teleop();
    window_->SetPlaying(true);
    QTRY_VERIFY_WITH_TIMEOUT(window_->controller()->status().time >= 0.3, 30000);  // the arm settles
    window_->Poll();
    std::array<double, 3> tool0{};
    QVERIFY(BodyPosition(window_->controller()->snapshot(), "arm/gripper_tcp", tool0));
    panel->findChild<QCheckBox*>("teleop_enable")->setChecked(true);
    QVERIFY(panel->teleop_enabled());
    const std::array<double, 3> start = panel->target().position;
    for (int a = 0; a < 3; ++a) QVERIFY(std::abs(start[a] - tool0[a]) < 2e-3);  // starts where the tool is

    const double speed = panel->findChild<QDoubleSpinBox*>("teleop_speed")->value();
    QElapsedTimer held;
    const double acted_before = panel->moved_seconds();
    QTest::keyPress(window_->viewport(), Qt::Key_D);
    held.start();
    QTest::qWait(1500);
    QTest::keyRelease(window_->viewport(), Qt::Key_D);
    const double seconds = 1e-3 * static_cast<double>(held.elapsed());
    const double acted = panel->moved_seconds() - acted_before;
    const std::array<double, 3> moved = panel->target().position;
    // The target moves at the dock's speed for the wall time between the first tick after the press and the last one
    // before the release: the time held within about a tick (16 ms at 60 Hz; ticks wait for frames drawn on the UI
    // thread, which take about 0.1 s with a CPU Vulkan driver, and more while the machine is busy).
    const double dy = moved[1] - start[1];
    QVERIFY2(std::abs(dy - speed * acted) < 1e-9 && ActedFor(acted, seconds),
             qPrintable(QString("target moved %1 m in %2 s of ticks (%3 s held) at %4 m/s")
                            .arg(dy)
                            .arg(acted)
                            .arg(seconds)
                            .arg(speed)));
    QCOMPARE(moved[0], start[0]);
    QCOMPARE(moved[2], start[2]);
    // The tool follows to within the issue's 5 mm on every axis once it has caught up (while it travels along y its
    // x and z swing by more: checked at the moment y first came within 5 mm, a busy machine failed this test).
    std::array<double, 3> tool{};
    const auto near = [&] {
      if (!BodyPosition(window_->controller()->snapshot(), "arm/gripper_tcp", tool)) return false;
      for (int a = 0; a < 3; ++a)
        if (std::abs(tool[a] - moved[a]) >= 5e-3) return false;
      return true;
    };
    QTRY_VERIFY2_WITH_TIMEOUT(near(),
                              qPrintable(QString("tool at (%1, %2, %3), target (%4, %5, %6)")
                                             .arg(tool[0])
                                             .arg(tool[1])
                                             .arg(tool[2])
                                             .arg(moved[0])
                                             .arg(moved[1])
                                             .arg(moved[2])),
                              60000);
    QVERIFY(tool[1] - tool0[1] > 0.8 * dy);
    QVERIFY(window_->teleop()->StatusLine().startsWith("teleop arm/gripper_tcp: IK "));
  }

  // Shift turns the target about the key's axis without moving it; Ctrl moves it at a fifth of the speed.
  void shiftTurnsAndCtrlSlowsTheTarget() {
    TeleopPanel* panel = window_->teleop();
    const TeleopTarget before = panel->target();
    const double turn_rate = panel->findChild<QDoubleSpinBox*>("teleop_turn_speed")->value();
    QElapsedTimer held;
    double acted_before = panel->moved_seconds();
    QTest::keyPress(window_->viewport(), Qt::Key_E, Qt::ShiftModifier);
    held.start();
    QTest::qWait(600);
    QTest::keyRelease(window_->viewport(), Qt::Key_E, Qt::ShiftModifier);
    double seconds = 1e-3 * static_cast<double>(held.elapsed());
    double acted = panel->moved_seconds() - acted_before;
    const TeleopTarget turned = panel->target();
    QCOMPARE(turned.position, before.position);
    // The turn about world z: q_after = Rz(angle) q_before, so q_after q_before⁻¹ = (cos angle/2, 0, 0, sin angle/2).
    const auto& a = turned.quaternion;
    const auto& b = before.quaternion;
    const double w = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    const double z = -a[0] * b[3] - a[1] * b[2] + a[2] * b[1] + a[3] * b[0];
    const double angle = 2 * std::atan2(z, w);
    QVERIFY2(std::abs(angle - turn_rate * acted) < 1e-6 && ActedFor(acted, seconds),
             qPrintable(QString("turned %1 rad in %2 s of ticks (%3 s held) at %4 rad/s")
                            .arg(angle)
                            .arg(acted)
                            .arg(seconds)
                            .arg(turn_rate)));

    const double speed = panel->findChild<QDoubleSpinBox*>("teleop_speed")->value();
    acted_before = panel->moved_seconds();
    QTest::keyPress(window_->viewport(), Qt::Key_W, Qt::ControlModifier);
    held.restart();
    QTest::qWait(1000);
    QTest::keyRelease(window_->viewport(), Qt::Key_W, Qt::ControlModifier);
    seconds = 1e-3 * static_cast<double>(held.elapsed());
    acted = panel->moved_seconds() - acted_before;
    const double dx = panel->target().position[0] - turned.position[0];
    QVERIFY2(std::abs(dx - 0.2 * speed * acted) < 1e-9 && ActedFor(acted, seconds),
             qPrintable(QString("moved %1 m in %2 s of ticks (%3 s held) at a fifth of %4 m/s")
                            .arg(dx)
                            .arg(acted)
                            .arg(seconds)
                            .arg(speed)));
  }

  // While teleoperating in the viewport, Space closes the gripper and does not pause the simulation (its studio
  // shortcut); H, not a teleop key, still toggles the HUD. With teleop off, Space is play/pause again.
  void teleopKeysDoNotTriggerStudioShortcuts() {
    QVERIFY(window_->teleop()->teleop_enabled());
    QVERIFY(window_->controller()->status().playing);
    QApplication::setActiveWindow(window_);
    const double gap = FingerGap(window_->controller()->snapshot());
    QVERIFY(gap > 0.04);  // the scene holds the fingers 3 cm out each
    QVERIFY(!window_->teleop()->gripper_closed());
    QTest::keyClick(window_->viewport(), Qt::Key_Space);
    QTRY_VERIFY_WITH_TIMEOUT(window_->teleop()->gripper_closed(), 5000);
    QTest::qWait(200);
    window_->Poll();
    QVERIFY2(window_->controller()->status().playing, "Space paused the simulation while teleoperating");
    QTRY_VERIFY_WITH_TIMEOUT(FingerGap(window_->controller()->snapshot()) < gap - 0.04, 30000);

    auto* hud = window_->findChild<QAction*>("hud_action");
    QVERIFY(hud && hud->isChecked());
    QTest::keyClick(window_->viewport(), Qt::Key_H);
    QTRY_VERIFY_WITH_TIMEOUT(!hud->isChecked(), 5000);
    QTest::keyClick(window_->viewport(), Qt::Key_H);
    QTRY_VERIFY_WITH_TIMEOUT(hud->isChecked(), 5000);

    window_->teleop()->SetTeleopEnabled(false);
    QTest::keyClick(window_->viewport(), Qt::Key_Space);
    QTRY_VERIFY_WITH_TIMEOUT(!window_->controller()->status().playing, 5000);
    QVERIFY(window_->teleop()->gripper_closed());  // the key went to the shortcut, not to the gripper
  }

  // Dragging the gizmo's y arrow moves the target along y only.
  void gizmoDragMovesTheTargetAlongAnAxis() {
    TeleopPanel* panel = window_->teleop();
    QVERIFY(panel->SetTeleopEnabled(true));
    window_->Poll();
    Viewport* viewport = window_->viewport();
    const std::array<double, 3> before = panel->target().position;
    const float length = viewport->GizmoLength();
    std::array<float, 3> base{}, tip{};
    for (int a = 0; a < 3; ++a) base[a] = tip[a] = static_cast<float>(before[a]);
    tip[1] += length;
    QPointF a, b;
    QVERIFY(viewport->ProjectToPixel(base, a) && viewport->ProjectToPixel(tip, b));
    const QPoint grab = (a + 0.7 * (b - a)).toPoint();
    QCOMPARE(viewport->GizmoAxisAt(grab), 1);
    viewport->requestUpdate();
    QTest::qWait(300);
    QVERIFY(viewport->GrabImage().save(QString(DUCTILE_GUI_OUTPUT_DIR) + "/teleop_gizmo.png"));
    QVERIFY(window_->GrabWindow().save(QString(DUCTILE_GUI_OUTPUT_DIR) + "/teleop_window.png"));
    QTest::mousePress(viewport, Qt::LeftButton, Qt::NoModifier, grab);
    QTest::mouseMove(viewport, (a + 1.2 * (b - a)).toPoint());
    QTest::mouseRelease(viewport, Qt::LeftButton, Qt::NoModifier, (a + 1.2 * (b - a)).toPoint());
    const std::array<double, 3> after = panel->target().position;
    // Half the arrow's screen length along it: half its length in the world, give or take the perspective.
    QVERIFY2(std::abs(after[1] - before[1] - 0.5 * length) < 0.15 * length,
             qPrintable(QString("moved %1 m for an arrow of %2 m").arg(after[1] - before[1]).arg(length)));
    QCOMPARE(after[0], before[0]);
    QCOMPARE(after[2], before[2]);
  }

  // Simulation > Save demo log writes the inputs since the scene opened; replayed on a fresh Simulator by
  // DemoPlayer it reaches the studio's final state hash. A path that cannot be written is refused.
  void savedDemoLogReplaysToTheStudiosFinalState() {
    window_->SetPlaying(false);
    QTRY_VERIFY_WITH_TIMEOUT(!window_->controller()->status().playing, 5000);
    const QString path = dir_ + "/teleop_demo.yaml";
    QVERIFY(window_->SaveDemoLog(path));
    QVERIFY(LogHas(window_, "saved demo log " + path));
    const DemoLog log = LoadDemoLog(path.toStdString());
    QCOMPARE(log.steps, window_->controller()->status().step);
    QVERIFY(log.final_state_hash.has_value());
    QCOMPARE(*log.final_state_hash, *window_->controller()->CaptureDemoLog().final_state_hash);
    int targets = 0, grips = 0, clears = 0;
    for (const DemoEvent& e : log.events) {
      targets += e.type == DemoEvent::Type::kTeleopTarget;
      grips += e.type == DemoEvent::Type::kGripper;
      clears += e.type == DemoEvent::Type::kTeleopClear;
    }
    QVERIFY2(targets > 10 && grips == 1 && clears >= 1,
             qPrintable(QString("%1 targets, %2 gripper commands, %3 clears").arg(targets).arg(grips).arg(clears)));
    Simulator sim(std::make_shared<const Model>(CompileModel(LoadScene(log.scene, log.overrides))));
    DemoPlayer player(log);
    for (std::int64_t i = 0; i < log.steps; ++i) {
      const std::string refused = player.ApplyDue(sim);
      QVERIFY2(refused.empty(), refused.c_str());
      sim.Step();
    }
    QCOMPARE(sim.StateHash(), *log.final_state_hash);

    QVERIFY(!window_->SaveDemoLog(dir_ + "/no_such_folder/demo.yaml"));
    QMessageBox* box = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((box = VisibleBox(window_, "demo_log_error")), 5000);
    QVERIFY2(box->text().contains("no_such_folder"), qPrintable(box->text()));
    box->accept();
    QVERIFY(LogHas(window_, "cannot save the demo log"));
  }

  // "Move all arms together" in the two-arm rolling pin scene: moving the target moves both tools by the same
  // displacement, so the pin they hold stays level; each arm's IK status is shown. Without linking (the arm
  // scene above) the dock has no such box.
  void linkedArmsFollowTheTargetTogether() {
    TeleopPanel* panel = window_->teleop();
    auto* link_arms = panel->findChild<QCheckBox*>("teleop_link_arms");
    QVERIFY(link_arms != nullptr);
    QVERIFY(OpenAndWait(*window_, ArmScene()));
    QVERIFY(!link_arms->isEnabled());
    QVERIFY(OpenAndWait(*window_, RollingPinScene()));
    QVERIFY(link_arms->isEnabled() && !link_arms->isChecked());
    QCOMPARE(panel->robot(), std::string("left_arm"));
    window_->SetPlaying(false);
    QTRY_VERIFY_WITH_TIMEOUT(!window_->controller()->status().playing, 5000);
    window_->Poll();
    std::array<double, 3> left0{}, right0{};
    QVERIFY(BodyPosition(window_->controller()->snapshot(), "left_arm/gripper_tcp", left0));
    QVERIFY(BodyPosition(window_->controller()->snapshot(), "right_arm/gripper_tcp", right0));
    link_arms->setChecked(true);
    QVERIFY(panel->SetTeleopEnabled(true));
    QCOMPARE(panel->follower_targets().size(), std::size_t{1});
    const TeleopTarget follower = panel->follower_targets()[0];
    QCOMPARE(follower.robot, std::string("right_arm"));
    QCOMPARE(follower.link, std::string("gripper_tcp"));
    // The target frame starts midway between the tools; each tool's target starts at the tool.
    for (int a = 0; a < 3; ++a) {
      QVERIFY(std::abs(panel->target().position[a] - 0.5 * (left0[a] + right0[a])) < 1e-9);
      QVERIFY(std::abs(follower.position[a] - right0[a]) < 1e-9);
      QVERIFY(std::abs(panel->tool_target().position[a] - left0[a]) < 1e-9);
    }
    // 6 cm along +x, played for one second of simulated time (the arms get there in about 0.3 s).
    std::array<double, 3> goal = panel->target().position;
    goal[0] += 0.06;
    panel->MoveTargetTo(goal);
    QVERIFY(std::abs(panel->follower_targets()[0].position[0] - right0[0] - 0.06) < 1e-9);
    QVERIFY(std::abs(panel->tool_target().position[0] - left0[0] - 0.06) < 1e-9);
    const double start = window_->controller()->status().time;
    window_->SetPlaying(true);
    QTRY_VERIFY_WITH_TIMEOUT(window_->controller()->status().time >= start + 1.0, 120000);
    window_->SetPlaying(false);
    QTRY_VERIFY_WITH_TIMEOUT(!window_->controller()->status().playing, 5000);
    QTest::qWait(300);
    window_->Poll();
    QVERIFY2(panel->StatusLine().contains("+ 1 linked"), qPrintable(panel->StatusLine()));
    QVERIFY2(panel->findChild<QLabel*>("teleop_status")->text().contains("right_arm: IK"),
             qPrintable(panel->findChild<QLabel*>("teleop_status")->text()));
    std::array<double, 3> left1{}, right1{};
    QVERIFY(BodyPosition(window_->controller()->snapshot(), "left_arm/gripper_tcp", left1));
    QVERIFY(BodyPosition(window_->controller()->snapshot(), "right_arm/gripper_tcp", right1));
    // Both tools moved the 6 cm along x, within 1 cm (what the arms' PD controllers leave against the pin's and
    // the dough's loads; the scene test tracks within a few mm), and stayed within 1 cm in y and z.
    const std::array<std::array<double, 3>, 2> moved = {
        {{left1[0] - left0[0], left1[1] - left0[1], left1[2] - left0[2]},
         {right1[0] - right0[0], right1[1] - right0[1], right1[2] - right0[2]}}};
    for (const auto& d : moved) {
      QVERIFY2(std::abs(d[0] - 0.06) < 0.01 && std::abs(d[1]) < 0.01 && std::abs(d[2]) < 0.01,
               qPrintable(QString("tool moved (%1, %2, %3) m").arg(d[0]).arg(d[1]).arg(d[2])));
    }
    QVERIFY(window_->viewport()->GrabImage().save(QString(DUCTILE_GUI_OUTPUT_DIR) + "/teleop_linked_arms.png"));
    QVERIFY(panel->SetTeleopEnabled(false));
    QVERIFY(panel->follower_targets().empty());
    // Unticking the box while teleoperating switches teleop off, as ticking it does (docs/studio.md).
    QVERIFY(panel->SetTeleopEnabled(true));
    link_arms->click();
    QVERIFY(!link_arms->isChecked());
    QVERIFY(!panel->teleop_enabled());
    QVERIFY(panel->SetTeleopEnabled(true));
    link_arms->click();
    QVERIFY(link_arms->isChecked());
    QVERIFY(!panel->teleop_enabled());
  }

  // Each preset of the Layout menu at 1600x1000 and at 1280x720 (the two-arm scene: a material and robots): the
  // docks it opens and the ones in front, and the viewport's share of the window. The default, Simulate, leaves the
  // viewport at least 70% of a 1600x1000 window (issue 45); Record all but the menu, tool and status bars. A
  // screenshot of each for a person to look at: layout_PRESET_WxH.png.
  void layoutPresetsOpenTheirDocks() {
    struct Expected {
      const char* preset;
      QStringList open;
      QStringList in_sight;
    };
    const Expected presets[] = {
        {"simulate", {"Scene", "Inspector"}, {"Scene"}},
        {"tune", {"Scene", "Inspector", "Plots"}, {"Inspector", "Plots"}},
        {"teleop", {"Plots", "Teleop"}, {"Teleop"}},
        {"record", {}, {}},
    };
    QVERIFY(OpenAndWait(*window_, RollingPinScene()));
    const QSize original = window_->size();
    for (const QSize size : {QSize(1600, 1000), QSize(1280, 720)}) {
      window_->resize(size);
      QTRY_COMPARE_WITH_TIMEOUT(window_->size(), size, 5000);
      for (const Expected& e : presets) {
        auto* action = window_->findChild<QAction*>(QString("layout_") + e.preset);
        QVERIFY(action);
        action->trigger();
        QVERIFY(action->isChecked());
        QCOMPARE(Remembered("layout/preset").toString(), QString(e.preset));
        QCOMPARE(OpenDocks(*window_), e.open);
        for (const QString& name : e.in_sight)
          QTRY_VERIFY2_WITH_TIMEOUT(DockInSight(*window_, name), qPrintable(name), 5000);
        for (const QString& name : e.open)
          if (!e.in_sight.contains(name)) QVERIFY2(!DockInSight(*window_, name), qPrintable(name + " is behind a tab"));
        // The viewport draws a frame of its new size for the screenshot.
        QWidget* container = window_->viewport_widget();
        window_->viewport()->requestUpdate();
        QTRY_COMPARE_WITH_TIMEOUT(window_->viewport()->GrabImage().size(),
                                  container->size() * window_->devicePixelRatio(), 10000);
        const double share = ViewportShare(*window_);
        qInfo("layout %s at %dx%d: viewport %dx%d, %.1f%% of the window", e.preset, size.width(), size.height(),
              container->width(), container->height(), 100 * share);
        const QString name = QString("/layout_%1_%2x%3.png").arg(e.preset).arg(size.width()).arg(size.height());
        QVERIFY(window_->GrabWindow().save(QString(DUCTILE_GUI_OUTPUT_DIR) + name));
        if (QString(e.preset) == "simulate" && size == QSize(1600, 1000)) QVERIFY(share >= 0.70);
        if (QString(e.preset) == "record") QVERIFY(share >= 0.85);
        if (QString(e.preset) == "teleop") {
          QVERIFY(TeleopDockReadable(*window_));
          QVERIFY(window_->GrabWindow().save(QString(DUCTILE_GUI_OUTPUT_DIR) + name.chopped(4) + "_on.png"));
          QVERIFY(window_->teleop()->SetTeleopEnabled(false));
        }
        if (QString(e.preset) == "simulate" || QString(e.preset) == "tune") {
          const QString problem = MaterialNotShownFromTheSceneTree(*window_);
          QVERIFY2(problem.isEmpty(), qPrintable(problem));
          QTest::qWait(200);  // the inspector drawn as it settled
          QVERIFY(window_->GrabWindow().save(QString(DUCTILE_GUI_OUTPUT_DIR) + name.chopped(4) + "_material.png"));
        }
      }
    }
    window_->resize(original);
    window_->ApplyLayout(LayoutPreset::kSimulate);
  }

  // The View menu reaches every dock. The history and the log open as tabs under the viewport, in a strip of its
  // height, from the View menu or the status bar's buttons; a problem logged while the log is closed shows on its
  // button until the log is opened. Reset layout closes them again.
  void historyAndLogOpenAsTabsUnderTheViewport() {
    QMenu* view = nullptr;
    for (QAction* a : window_->menuBar()->actions())
      if (a->text() == "&View") view = a->menu();
    QVERIFY(view);
    for (const QString& name : kDocks) {
      auto* dock = window_->findChild<QDockWidget*>(name);
      QVERIFY2(dock && view->actions().contains(dock->toggleViewAction()), qPrintable(name));
    }
    auto* history = window_->findChild<QDockWidget*>("History");
    auto* log = window_->findChild<QDockWidget*>("Log");
    auto* history_button = window_->findChild<QToolButton*>("history_button");
    auto* log_button = window_->findChild<QToolButton*>("log_button");
    QVERIFY(history_button && log_button && !history_button->isChecked() && !log_button->isChecked());
    window_->findChild<QAction*>("history_dock_action")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(DockInSight(*window_, "History"), 5000);
    QCOMPARE(window_->dockWidgetArea(history), Qt::BottomDockWidgetArea);
    QVERIFY(history_button->isChecked());
    QTRY_VERIFY2_WITH_TIMEOUT(history->height() <= 200, qPrintable(QString::number(history->height())), 5000);

    // The problems logged while the log is closed (the tests' before, a scene refused now) are counted; opening
    // the log clears the count.
    const QString bad = dir_ + "/bad_for_the_log.yaml";
    std::ofstream(bad.toStdString()) << kBadScene;
    QVERIFY(!OpenAndWait(*window_, bad));
    QVERIFY2(log_button->text().startsWith("Log ("), qPrintable(log_button->text()));
    log_button->click();
    QTRY_VERIFY_WITH_TIMEOUT(DockInSight(*window_, "Log"), 5000);
    QCOMPARE(log_button->text(), QString("Log"));
    log_button->click();
    QTRY_VERIFY_WITH_TIMEOUT(!DockOpen(*window_, "Log") && DockInSight(*window_, "History"), 5000);
    QVERIFY(!OpenAndWait(*window_, bad));
    QCOMPARE(log_button->text(), QString("Log (1)"));
    log_button->click();
    QTRY_VERIFY_WITH_TIMEOUT(DockInSight(*window_, "Log"), 5000);
    QVERIFY(window_->tabifiedDockWidgets(history).contains(log));
    QVERIFY(DockOpen(*window_, "History") && !DockInSight(*window_, "History"));  // behind the log's tab
    QCOMPARE(log_button->text(), QString("Log"));
    QVERIFY(log_button->isChecked());
    QVERIFY(LogHas(window_, "bad_for_the_log.yaml"));
    QVERIFY(window_->viewport_widget()->height() > window_->height() / 2);
    window_->viewport()->requestUpdate();
    QTest::qWait(300);
    QVERIFY(window_->GrabWindow().save(QString(DUCTILE_GUI_OUTPUT_DIR) + "/layout_history_and_log.png"));

    window_->findChild<QAction*>("reset_layout")->trigger();
    QCOMPARE(OpenDocks(*window_), QStringList({"Scene", "Inspector"}));
    QVERIFY(!history_button->isChecked() && !log_button->isChecked());
  }

  // The chosen preset and the docks as the user left them come back in the next session (a window without Vulkan
  // stands for it: the same docks and menus); Reset layout forgets the arrangement and keeps the preset.
  void layoutIsRememberedBetweenSessions() {
    QVERIFY2(QSettings("Ductile", "studio").fileName().startsWith(dir_), "the test keeps its settings apart");
    {
      MainWindow first(nullptr);
      first.resize(1280, 720);
      first.show();
      QVERIFY(QTest::qWaitForWindowExposed(&first));
      first.findChild<QAction*>("layout_teleop")->trigger();
      first.findChild<QToolButton*>("log_button")->click();
      QTRY_VERIFY_WITH_TIMEOUT(DockInSight(first, "Log"), 5000);
      QCOMPARE(OpenDocks(first), QStringList({"Plots", "Teleop", "Log"}));
      first.close();
    }
    QCOMPARE(Remembered("layout/preset").toString(), QString("teleop"));
    QVERIFY(!Remembered("layout/state").toByteArray().isEmpty());
    MainWindow second(nullptr);
    second.resize(1280, 720);
    second.show();
    QVERIFY(QTest::qWaitForWindowExposed(&second));
    QCOMPARE(second.layout_preset(), LayoutPreset::kTeleop);
    QVERIFY(second.findChild<QAction*>("layout_teleop")->isChecked());
    QCOMPARE(OpenDocks(second), QStringList({"Plots", "Teleop", "Log"}));
    QTRY_VERIFY_WITH_TIMEOUT(DockInSight(second, "Teleop") && DockInSight(second, "Log"), 5000);
    QCOMPARE(second.dockWidgetArea(second.findChild<QDockWidget*>("Log")), Qt::BottomDockWidgetArea);

    second.findChild<QAction*>("reset_layout")->trigger();
    QCOMPARE(OpenDocks(second), QStringList({"Plots", "Teleop"}));
    QVERIFY(!QSettings("Ductile", "studio").contains("layout/state"));
    QCOMPARE(Remembered("layout/preset").toString(), QString("teleop"));
    // A preset chosen in the last session is the next one's even without a saved arrangement.
    second.findChild<QAction*>("layout_tune")->trigger();
    MainWindow third(nullptr);
    QCOMPARE(third.layout_preset(), LayoutPreset::kTune);
    QCOMPARE(OpenDocks(third), QStringList({"Scene", "Inspector", "Plots"}));
  }

 private:
  StudioFixture fixture_;
  QString dir_;
  QString scene_;
  MainWindow* window_ = nullptr;
};

}  // namespace ductile::studio

QTEST_MAIN(ductile::studio::StudioGuiTest)
#include "studio_gui_test.moc"
