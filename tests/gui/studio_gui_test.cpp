// The studio under a display (Xvfb with Mesa's lavapipe in CI): open a scene, run two simulated seconds and check
// the viewport's pixels against where the Snapshot says the particles and the rigid body are; edit a parameter in
// the inspector and find it in the next Snapshot; pause, step and reset; a malformed scene shows its error in a
// dialog. Screenshots are written to DUCTILE_GUI_OUTPUT_DIR for a person to look at.
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QVulkanInstance>
#include <QtTest>
#include <cmath>
#include <fstream>

#include "inspector.h"
#include "main_window.h"

namespace ductile::studio {

namespace {

// A red elastic cube dropped on the ground beside a blue rigid box.
constexpr const char* kScene = R"(
simulation: {dt: 2.0e-3, substeps: 8, gravity: [0, 0, -9.81]}
grid: {h: 0.02, domain: {min: [-0.3, -0.3, 0.0], max: [0.3, 0.3, 0.4]}}
materials:
  rubber: {model: fixed_corotated, density: 500, youngs_modulus: 3.0e4, poisson_ratio: 0.3}
objects:
  cube: {material: rubber, shape: {type: box, size: [0.1, 0.1, 0.1]}, pose: {position: [-0.08, 0, 0.12]}}
rigid_bodies:
  ground: {type: static, shape: {type: plane}}
  box: {shape: {type: box, size: [0.08, 0.08, 0.08]}, mass: 0.5, pose: {position: [0.12, 0, 0.04]},
        color: [0.15, 0.3, 0.9, 1]}
)";

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

}  // namespace

class StudioGuiTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    vulkan_.setApiVersion(QVersionNumber(1, 3));
    if (!vulkan_.create()) QSKIP("no Vulkan implementation: the viewport cannot be tested here");
    dir_ = QDir::temp().filePath("ductile_gui_test_" + QString::number(QCoreApplication::applicationPid()));
    QDir().mkpath(dir_);
    QDir().mkpath(DUCTILE_GUI_OUTPUT_DIR);
    scene_ = dir_ + "/cube_and_box.yaml";
    std::ofstream(scene_.toStdString()) << kScene;
    window_ = std::make_unique<MainWindow>(&vulkan_);
    window_->resize(1400, 900);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    QVERIFY(window_->OpenScene(scene_, true));
  }

  void cleanupTestCase() {
    window_.reset();
    QDir(dir_).removeRecursively();
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
    QVERIFY(window_->grab().save(QString(DUCTILE_GUI_OUTPUT_DIR) + "/main_window.png"));

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
  }

  void ctrlDragPullsTheBoxWithASpring() {
    window_->SetPlaying(true);
    window_->Poll();
    QPointF pixel;
    QVERIFY(window_->viewport()->ProjectToPixel(window_->controller()->snapshot().bodies.at(0).position, pixel));
    const QPoint at = pixel.toPoint();
    QTest::mousePress(window_->viewport(), Qt::LeftButton, Qt::ControlModifier, at);
    QTest::mouseMove(window_->viewport(), at - QPoint(0, 150));
    QTRY_VERIFY_WITH_TIMEOUT(window_->controller()->snapshot().perturbing, 5000);
    // The box (4 cm high, resting at z = 0.04) rises towards the cursor.
    QTRY_VERIFY_WITH_TIMEOUT(window_->controller()->snapshot().bodies.at(0).position[2] > 0.07, 30000);
    window_->viewport()->requestUpdate();
    QTest::qWait(300);
    QVERIFY(window_->viewport()->GrabImage().save(QString(DUCTILE_GUI_OUTPUT_DIR) + "/mouse_spring.png"));
    QTest::mouseRelease(window_->viewport(), Qt::LeftButton, Qt::ControlModifier, at - QPoint(0, 150));
    QTRY_VERIFY_WITH_TIMEOUT(!window_->controller()->snapshot().perturbing, 5000);
  }

  void pauseStepAndReset() {
    window_->SetPlaying(false);
    QTRY_VERIFY_WITH_TIMEOUT(!window_->controller()->status().playing, 5000);
    const std::int64_t paused_at = window_->controller()->status().step;
    QTest::qWait(300);
    QCOMPARE(window_->controller()->status().step, paused_at);
    window_->controller()->Post(Command::Of(Command::Type::kStep));
    QTRY_COMPARE_WITH_TIMEOUT(window_->controller()->status().step, paused_at + 1, 5000);
    window_->controller()->Post(Command::Of(Command::Type::kReset));
    QTRY_COMPARE_WITH_TIMEOUT(window_->controller()->status().step, std::int64_t{0}, 5000);
    QCOMPARE(window_->controller()->status().time, 0.0);
  }

  void malformedSceneShowsItsErrorInADialog() {
    const QString bad = dir_ + "/bad.yaml";
    std::ofstream(bad.toStdString()) << kBadScene;
    QVERIFY(!window_->OpenScene(bad));
    QMessageBox* box = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((box = window_->findChild<QMessageBox*>("scene_error")) && box->isVisible(), 5000);
    QVERIFY2(box->text().contains("bad.yaml:4:") && box->text().contains("densty"), qPrintable(box->text()));
    QVERIFY(window_->grab().save(QString(DUCTILE_GUI_OUTPUT_DIR) + "/scene_error.png"));
    box->accept();
    // The scene that was open stays open.
    QCOMPARE(window_->scene_path(), scene_);
    QVERIFY(window_->controller());
  }

 private:
  QVulkanInstance vulkan_;
  QString dir_;
  QString scene_;
  std::unique_ptr<MainWindow> window_;
};

}  // namespace ductile::studio

QTEST_MAIN(ductile::studio::StudioGuiTest)
#include "studio_gui_test.moc"
