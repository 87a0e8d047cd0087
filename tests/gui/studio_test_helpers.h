// What the studio's GUI tests share: a small scene, waiting for a scene to open, finding dialogs and log lines.
#pragma once

#include <QCoreApplication>
#include <QDir>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QString>
#include <QTest>
#include <QVulkanInstance>
#include <cstdint>
#include <fstream>
#include <memory>

#include "main_window.h"

namespace ductile::studio::gui_test {

// A red elastic cube dropped on the ground beside a blue rigid box.
inline constexpr const char* kCubeAndBoxScene = R"(
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

// Opens `path` (MainWindow::OpenScene, on the simulation thread) and waits until the window shows it; false when it
// was refused or did not open within two minutes.
inline bool OpenAndWait(MainWindow& window, const QString& path, bool quiet = true) {
  const std::uint64_t generation = window.scene_generation();
  window.OpenScene(path, quiet);
  const bool answered = QTest::qWaitFor(
      [&] { return window.scene_generation() != generation || !window.last_error().isEmpty(); }, 120000);
  return answered && window.scene_generation() != generation;
}

// What a GUI test program starts from: a folder of this process's files with the cube-and-box scene in it, the
// studio's remembered choices (menus, layout) kept in that folder, apart from the user's and from other test
// programs', and a 1400x900 studio window showing that scene.
class StudioFixture {
 public:
  enum class Started { kOk, kNoVulkan, kFailed };
  /// `name` names the folder; `thread_placement`: MainWindow::SetThreadPlacement.
  Started Start(const QString& name, bool thread_placement = true) {
    QStandardPaths::setTestModeEnabled(true);
    dir_ = QDir::temp().filePath(name + "_" + QString::number(QCoreApplication::applicationPid()));
    QDir().mkpath(dir_);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir_ + "/settings");
    QSettings("Ductile", "studio").clear();
    vulkan_.setApiVersion(QVersionNumber(1, 3));
    if (!vulkan_.create()) return Started::kNoVulkan;
    scene_ = dir_ + "/cube_and_box.yaml";
    std::ofstream(scene_.toStdString()) << kCubeAndBoxScene;
    window_ = std::make_unique<MainWindow>(&vulkan_);
    window_->SetThreadPlacement(thread_placement);
    window_->resize(1400, 900);
    window_->show();
    if (!QTest::qWaitForWindowExposed(window_.get())) return Started::kFailed;
    return OpenAndWait(*window_, scene_) ? Started::kOk : Started::kFailed;
  }
  /// Closes the window and removes the folder.
  void Stop() {
    window_.reset();
    QDir(dir_).removeRecursively();
  }
  MainWindow* window() const { return window_.get(); }
  const QString& dir() const { return dir_; }
  const QString& scene() const { return scene_; }

 private:
  QVulkanInstance vulkan_;
  QString dir_;
  QString scene_;
  std::unique_ptr<MainWindow> window_;
};

// The visible message box called `name`, or null.
inline QMessageBox* VisibleBox(QWidget* window, const char* name) {
  for (QMessageBox* box : window->findChildren<QMessageBox*>(name))
    if (box->isVisible()) return box;
  return nullptr;
}

// Whether the studio's log dock has a line containing `text`.
inline bool LogHas(QWidget* window, const QString& text) {
  const QPlainTextEdit* log = window->findChild<QPlainTextEdit*>();
  return log && log->toPlainText().contains(text);
}

}  // namespace ductile::studio::gui_test
