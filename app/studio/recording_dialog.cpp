#include "recording_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>

namespace ductile::studio {

RecordingDialog::RecordingDialog(const QString& path, QSize viewport_size, QWidget* parent) : QDialog(parent) {
  setWindowTitle("Start recording");
  path_ = new QLineEdit(path);
  path_->setObjectName("record_path");
  path_->setMinimumWidth(420);
  auto* browse = new QPushButton("Browse…");
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString chosen = QFileDialog::getSaveFileName(this, "Record to", path_->text(), "MP4 video (*.mp4)");
    if (!chosen.isEmpty()) path_->setText(chosen);
  });
  auto* file_row = new QHBoxLayout;
  file_row->addWidget(path_, 1);
  file_row->addWidget(browse);

  size_ = new QComboBox;
  size_->setObjectName("record_size");
  for (const QSize s : {QSize(1280, 720), QSize(1920, 1080), QSize(854, 480), QSize(640, 360)})
    size_->addItem(QString("%1x%2").arg(s.width()).arg(s.height()), s);
  const QSize even(viewport_size.width() & ~1, viewport_size.height() & ~1);
  if (even.width() >= record::kMinSide && even.height() >= record::kMinSide)
    size_->addItem(QString("%1x%2 (the viewport)").arg(even.width()).arg(even.height()), even);
  fps_ = new QComboBox;
  fps_->setObjectName("record_fps");
  for (int fps : {24, 30, 60}) fps_->addItem(QString::number(fps), fps);
  fps_->setCurrentIndex(1);
  fps_->setToolTip("Frames per second of simulated time: the video plays in real time");
  overlay_ = new QCheckBox("with overlays (the HUD: scene, simulated time, step, particles, contacts)");
  overlay_->setObjectName("record_overlay");

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons->button(QDialogButtonBox::Ok)->setText("Start recording");
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* form = new QFormLayout(this);
  form->addRow("File", file_row);
  form->addRow("Resolution", size_);
  form->addRow("Frame rate", fps_);
  form->addRow(overlay_);
  form->addRow(buttons);
}

RecordingSettings RecordingDialog::settings() const {
  RecordingSettings s;
  s.path = path_->text().trimmed().toStdString();
  const QSize size = size_->currentData().toSize();
  s.width = size.width();
  s.height = size.height();
  s.fps = fps_->currentData().toInt();
  s.overlay = overlay_->isChecked();
  return s;
}

QString RecordingDialog::DefaultPath(const QString& scene_path) {
  const QFileInfo scene(scene_path);
  const QDir videos(QDir::home().filePath("Videos"));
  const QString folder = videos.exists() ? videos.absolutePath() : scene.absolutePath();
  const QString stamp = QDateTime::currentDateTime().toString("yyyy-MM-dd_hh-mm-ss");
  const QString name = scene_path.isEmpty() ? QString("ductile") : scene.completeBaseName();
  return QDir(folder).filePath(name + "_" + stamp + ".mp4");
}

}  // namespace ductile::studio
