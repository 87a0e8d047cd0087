// The studio's history of recent states, state files and scene opening under a display (Xvfb with Mesa's lavapipe
// in CI): the History dock's readout and its memory bound from the menu; stepping 30 times, scrubbing back with
// Ctrl+Left and the slider shows exactly the state of that step (the viewport's snapshot time and the state hash),
// and stepping or playing on from there repeats the original run bit for bit while the later states and plot samples
// are discarded; File > Save state and Load state through files (the functions the menu calls, without dialogs),
// with unusable files refused in a dialog and the running state untouched, and the demo log unavailable after a
// load until a reset; a large scene compiles on the simulation thread while the UI keeps running and says
// "opening…". Screenshots are written to DUCTILE_GUI_OUTPUT_DIR for a person to look at.
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QLabel>
#include <QSettings>
#include <QSlider>
#include <QStandardPaths>
#include <QVulkanInstance>
#include <QtTest>
#include <filesystem>
#include <fstream>
#include <map>

#include "ductile/model.h"
#include "ductile/scene.h"
#include "history_panel.h"
#include "main_window.h"
#include "plots.h"
#include "studio_test_helpers.h"

namespace ductile::studio {
namespace {

using gui_test::kCubeAndBoxScene;
using gui_test::LogHas;
using gui_test::OpenAndWait;
using gui_test::StudioFixture;
using gui_test::VisibleBox;

// About 730,000 particles (a 0.36 m cube of 8 mm cells at 8 per cell): a second or more of sampling and sorting.
constexpr const char* kLargeScene = R"(
simulation: {dt: 1.0e-3, substeps: 4, gravity: [0, 0, -9.81]}
grid: {h: 0.008, domain: {min: [-0.25, -0.25, 0.0], max: [0.25, 0.25, 0.45]}}
materials:
  rubber: {model: fixed_corotated, density: 500, youngs_modulus: 3.0e4, poisson_ratio: 0.3}
objects:
  cube: {material: rubber, shape: {type: box, size: [0.36, 0.36, 0.36]}, pose: {position: [0, 0, 0.19]},
         particles_per_cell: 8}
)";

// What the status said after a step.
struct Recorded {
  double time = 0;
  std::uint64_t hash = 0;
  std::uint64_t serial = 0;
};

}  // namespace

class HistoryGuiTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    // The UI thread at its normal priority: the opening test counts the event loop's turns, which a UI thread at nice
    // 19 (the placement beside lavapipe) would owe to any other process on its core.
    const StudioFixture::Started started = fixture_.Start("ductile_history_test", false);
    if (started == StudioFixture::Started::kNoVulkan)
      QSKIP("no Vulkan implementation: the viewport cannot be tested here");
    QVERIFY(started == StudioFixture::Started::kOk);
    window_ = fixture_.window();
    dir_ = fixture_.dir();
    scene_ = fixture_.scene();
    QDir().mkpath(DUCTILE_GUI_OUTPUT_DIR);
  }

  void cleanupTestCase() { fixture_.Stop(); }

  // The readout names the span, the memory used and the bound; the menu's bound reaches the simulation thread.
  void readoutShowsTheHistorysSpanAndMemoryBound() {
    HistoryPanel* history = window_->history();
    QTRY_VERIFY_WITH_TIMEOUT(history->readout().contains("of " + FormatBytes(DefaultHistoryBytes())), 5000);
    QVERIFY2(history->readout().startsWith("history: 0.00 s, "), qPrintable(history->readout()));
    Trigger("history_limit_128");
    QTRY_COMPARE_WITH_TIMEOUT(window_->controller()->status().history.limit, std::size_t{128} << 20, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(history->readout().contains("of 128 MB"), 5000);
    QCOMPARE(QSettings("Ductile", "studio").value("history_limit_mb").toDouble(), 128.0);
    Trigger("history_limit_0");
    QTRY_COMPARE_WITH_TIMEOUT(window_->controller()->status().history.limit, DefaultHistoryBytes(), 5000);
  }

  // 30 single steps, each kept; Ctrl+Left five times goes back to step 25 and the slider to step 10, each showing
  // that step's snapshot and state hash; ten steps from step 10 give the hashes the first run had; playing from step
  // 5 continues from t(5) with the first run's hashes, the later states and plot samples discarded.
  void scrubbingBackShowsThatStepAndTheRunResumesFromIt() {
    Trigger("history_interval_1");
    Reset();
    std::map<std::int64_t, Recorded> run;
    run[0] = Now();
    for (std::int64_t step = 1; step <= 30; ++step) {
      window_->controller()->Post(command::Step{});
      QTRY_COMPARE_WITH_TIMEOUT(window_->controller()->status().step, step, 5000);
      run[step] = Now();
    }
    QTRY_COMPARE_WITH_TIMEOUT(window_->history()->slider()->maximum(), static_cast<int>(run[30].serial), 5000);
    QVERIFY(window_->history()->readout().contains("0.06 s"));  // 30 steps of 2 ms

    // Ctrl+Left, as a user presses it, five times without waiting: the scrubber keeps count.
    // Shortcuts go to the active window; Xvfb has no window manager to activate it.
    QApplication::setActiveWindow(window_);
    QVERIFY(QTest::qWaitForWindowActive(window_));
    for (int i = 0; i < 5; ++i) QTest::keyClick(window_, Qt::Key_Left, Qt::ControlModifier);
    ExpectShown(25, run[25]);
    QVERIFY2(window_->history()->position().contains("5 before the newest"),
             qPrintable(window_->history()->position()));
    QVERIFY(window_->GrabWindow().save(QString(DUCTILE_GUI_OUTPUT_DIR) + "/history_scrubbed.png"));

    // The slider, as a drag leaves it.
    window_->history()->slider()->setValue(static_cast<int>(run[10].serial));
    ExpectShown(10, run[10]);
    QCOMPARE(window_->history()->slider()->value(), static_cast<int>(run[10].serial));

    // Steps from the restored state repeat the first run bit for bit.
    for (std::int64_t step = 11; step <= 20; ++step) {
      window_->controller()->Post(command::Step{});
      QTRY_COMPARE_WITH_TIMEOUT(window_->controller()->status().step, step, 5000);
      const Recorded now = Now();
      QCOMPARE(now.time, run[step].time);
      QCOMPARE(now.hash, run[step].hash);
    }
    QTRY_COMPARE_WITH_TIMEOUT(window_->history()->slider()->maximum(), static_cast<int>(run[20].serial), 5000);

    // Play from step 5 at 5% of real time (a step every 40 ms) for a moment.
    window_->history()->ScrubTo(run[5].serial);
    ExpectShown(5, run[5]);
    SetSpeed("5%");
    window_->SetPlaying(true);
    QTRY_VERIFY_WITH_TIMEOUT(window_->controller()->status().step >= 8, 10000);
    window_->SetPlaying(false);
    QTRY_VERIFY_WITH_TIMEOUT(!window_->controller()->status().playing, 5000);
    SetSpeed("100%");
    const ControllerStatus st = window_->controller()->status();
    QVERIFY2(st.step > 5 && st.step < 30, qPrintable(QString::number(st.step)));
    QCOMPARE(st.time, run[st.step].time);
    QCOMPARE(*st.state_hash, run[st.step].hash);
    QCOMPARE(st.history.last, run[st.step].serial);  // steps 6 to 20 of the earlier branch are gone
    // The plots hold one sample per step of this run: steps 1 to 5 and the new ones, in time order.
    window_->Poll();
    const std::vector<TelemetrySample>& samples = window_->plots()->samples();
    QVERIFY2(samples.size() == static_cast<std::size_t>(st.step), qPrintable(QString::number(samples.size())));
    for (std::size_t i = 1; i < samples.size(); ++i) QVERIFY(samples[i].time > samples[i - 1].time);
    QCOMPARE(samples.back().time, st.time);
  }

  // Save at step 15, run on, load: the studio is paused at step 15 with its state hash, the viewport shows it, and
  // the demo log cannot be saved until a reset. Unusable files are refused in a dialog and change nothing.
  void saveAndLoadStateRoundTripThroughFiles() {
    Reset();
    for (std::int64_t step = 1; step <= 15; ++step) {
      window_->controller()->Post(command::Step{});
      QTRY_COMPARE_WITH_TIMEOUT(window_->controller()->status().step, step, 5000);
    }
    const Recorded saved = Now();
    const QString file = dir_ + "/step15.state";
    window_->SaveState(file);
    QTRY_VERIFY_WITH_TIMEOUT(LogHas(window_, "saved the state at t = 0.0300 s (step 15) to " + file), 5000);
    QVERIFY(QFileInfo::exists(file));
    window_->SetPlaying(true);
    QTRY_VERIFY_WITH_TIMEOUT(window_->controller()->status().step >= 40, 30000);

    window_->LoadState(file);
    QTRY_COMPARE_WITH_TIMEOUT(window_->controller()->status().step, std::int64_t{15}, 10000);
    const ControllerStatus st = window_->controller()->status();
    QVERIFY(!st.playing);
    QCOMPARE(st.time, saved.time);
    QCOMPARE(*st.state_hash, saved.hash);
    QTRY_VERIFY_WITH_TIMEOUT(window_->viewport()->snapshot() && window_->viewport()->snapshot()->step == 15, 5000);
    QCOMPARE(window_->viewport()->snapshot()->time, saved.time);
    QVERIFY(LogHas(window_, "loaded the state of " + file));
    QVERIFY2(window_->history()->readout().startsWith("history: 0.00 s, "), qPrintable(window_->history()->readout()));
    // The demo log replays from t = 0, which cannot reach a loaded state.
    QAction* save_log = window_->findChild<QAction*>("save_demo_log_action");
    QTRY_VERIFY_WITH_TIMEOUT(!save_log->isEnabled(), 5000);
    QVERIFY(!window_->SaveDemoLog(dir_ + "/demo.yaml"));
    QMessageBox* box = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((box = VisibleBox(window_, "demo_log_error")), 5000);
    QVERIFY2(box->text().contains("a state was loaded"), qPrintable(box->text()));
    box->accept();
    QVERIFY(!QFileInfo::exists(dir_ + "/demo.yaml"));

    // Unusable files: a dialog naming the file and the reason; the state shown stays.
    std::ofstream((dir_ + "/text.state").toStdString()) << "not a state\n";
    {
      // One particle per cell instead of eight: another scene.
      const SceneDesc coarse =
          LoadSceneFromString(kCubeAndBoxScene, "other.yaml", {ParseOverride("objects.cube.particles_per_cell=1")});
      Simulator other(std::make_shared<const Model>(CompileModel(coarse)));
      other.SaveStateFile((dir_ + "/other.state").toStdString());
    }
    const std::vector<std::pair<QString, QString>> refused = {{dir_ + "/text.state", "not a Ductile state file"},
                                                              {dir_ + "/other.state", "another scene"},
                                                              {dir_ + "/missing.state", "missing.state"}};
    for (const auto& [path, reason] : refused) {
      window_->LoadState(path);
      QTRY_VERIFY_WITH_TIMEOUT((box = VisibleBox(window_, "state_error")), 5000);
      QVERIFY2(box->text().contains(reason) && box->text().contains(QFileInfo(path).fileName()),
               qPrintable(box->text()));
      if (path.endsWith("other.state"))
        QVERIFY(window_->GrabWindow().save(QString(DUCTILE_GUI_OUTPUT_DIR) + "/state_error.png"));
      box->accept();
      QCOMPARE(*window_->controller()->status().state_hash, saved.hash);
    }
    window_->SaveState(dir_ + "/no_such_folder/a.state");
    QTRY_VERIFY_WITH_TIMEOUT((box = VisibleBox(window_, "state_error")), 5000);
    QVERIFY2(box->text().contains("no_such_folder/a.state"), qPrintable(box->text()));
    box->accept();
    QVERIFY(LogHas(window_, "error: t = 0.0300 s: cannot save the state: "));

    Reset();
    QTRY_VERIFY_WITH_TIMEOUT(save_log->isEnabled(), 5000);
    QVERIFY(window_->SaveDemoLog(dir_ + "/demo.yaml"));
  }

  // The posting returns at once, the event loop keeps running while the simulation thread compiles, and the status
  // bar says what is being opened.
  void aLargeSceneOpensWithoutFreezingTheWindow() {
    const QString large = dir_ + "/large.yaml";
    std::ofstream(large.toStdString()) << kLargeScene;
    const std::uint64_t generation = window_->scene_generation();
    QElapsedTimer clock;
    clock.start();
    window_->OpenScene(large, true);
    const qint64 posted = clock.elapsed();
    QVERIFY(window_->opening());
    const QLabel* opening = window_->findChild<QLabel*>("opening_status");
    QVERIFY(opening);
    bool said_opening = false, grabbed = false;
    int turns = 0;  // of the event loop while the scene opened
    qint64 last = clock.elapsed(), worst_gap = 0;
    while (window_->scene_generation() == generation && clock.elapsed() < 120000) {
      QTest::qWait(5);
      if (window_->scene_generation() != generation) break;  // the last turn showed the scene: not a wait
      ++turns;
      worst_gap = std::max(worst_gap, clock.elapsed() - last);
      last = clock.elapsed();
      if (!said_opening && opening->isVisible()) said_opening = opening->text() == "opening large.yaml…";
      // The picture for a person to look at, once the loop has shown it turns: a grab draws the window (on a
      // loaded machine it took 230 ms, and taken on the first turn it left no time for more turns).
      if (!grabbed && turns >= 5 && opening->isVisible()) {
        grabbed = true;
        QVERIFY(window_->GrabWindow().save(QString(DUCTILE_GUI_OUTPUT_DIR) + "/opening.png"));
        last = clock.elapsed();
      }
    }
    const qint64 took = clock.elapsed();
    QVERIFY(window_->scene_generation() != generation);
    QVERIFY(!window_->opening());
    QVERIFY(said_opening);
    QTRY_VERIFY_WITH_TIMEOUT(!opening->isVisible(), 5000);
    // Compiled on the UI thread, the scene would have opened within OpenScene, before the event loop turned once. The
    // times depend on the machine's load (on 2 busy cores, gaps of 0.2-0.5 s while the compile's threads and the X
    // server compete; 262 ms in all on a quiet one), so only that the opening took long enough to tell (150 ms), that
    // OpenScene returned long before the scene opened and that the loop kept turning.
    std::printf(
        "large scene: OpenScene returned in %lld ms, opened in %lld ms; %d turns of the event loop "
        "meanwhile, the longest gap %lld ms\n",
        static_cast<long long>(posted), static_cast<long long>(took), turns, static_cast<long long>(worst_gap));
    QVERIFY2(took > 150 && posted < took / 3 && turns >= 5,
             qPrintable(QString("posted in %1 ms, opened in %2 ms, %3 turns").arg(posted).arg(took).arg(turns)));
    QVERIFY(OpenAndWait(*window_, scene_));
  }

 private:
  void Trigger(const char* action) {
    QAction* a = window_->findChild<QAction*>(action);
    QVERIFY2(a, action);
    a->trigger();
  }

  void SetSpeed(const QString& text) {
    auto* speed = window_->findChild<QComboBox*>("speed");
    QVERIFY(speed);
    speed->setCurrentIndex(speed->findText(text));
  }

  void Reset() {
    window_->SetPlaying(false);
    window_->controller()->Post(command::Reset{});
    QTRY_VERIFY_WITH_TIMEOUT(window_->controller()->status().step == 0 && !window_->controller()->status().playing,
                             5000);
  }

  Recorded Now() const {
    const ControllerStatus st = window_->controller()->status();
    return {st.time, st.state_hash.value_or(0), st.history.shown};
  }

  // The studio shows step `step`: the status, the state hash and the viewport's snapshot are those recorded then.
  void ExpectShown(std::int64_t step, const Recorded& recorded) {
    QTRY_COMPARE_WITH_TIMEOUT(window_->controller()->status().step, step, 5000);
    const ControllerStatus st = window_->controller()->status();
    QVERIFY(!st.playing);
    QCOMPARE(st.time, recorded.time);
    QCOMPARE(st.state_hash.value_or(0), recorded.hash);
    QCOMPARE(st.history.shown, recorded.serial);
    QTRY_VERIFY_WITH_TIMEOUT(window_->viewport()->snapshot() && window_->viewport()->snapshot()->step == step, 5000);
    QCOMPARE(window_->viewport()->snapshot()->time, recorded.time);
  }

  StudioFixture fixture_;
  QString dir_;
  QString scene_;
  MainWindow* window_ = nullptr;
};

}  // namespace ductile::studio

QTEST_MAIN(ductile::studio::HistoryGuiTest)
#include "history_gui_test.moc"
