// The "Start recording" dialog: the video file (with a Browse button), a resolution (presets and the viewport's
// size), the frame rate of simulated time and whether the HUD goes into the frames. It only collects the settings;
// MainWindow::StartRecording checks them and starts.
#pragma once

#include <QDialog>
#include <QSize>
#include <QString>

#include "recorder.h"

class QCheckBox;
class QComboBox;
class QLineEdit;

namespace ductile::studio {

class RecordingDialog : public QDialog {
  Q_OBJECT

 public:
  /// Proposes the file `path`; offers `viewport_size` [pixels] (rounded down to even sides) besides the presets
  /// when it is at least 16 pixels on a side.
  RecordingDialog(const QString& path, QSize viewport_size, QWidget* parent = nullptr);

  /// What the dialog shows now.
  RecordingSettings settings() const;

  /// The file proposed for a recording of `scene_path`: in ~/Videos when that folder exists, else beside the
  /// scene; named after the scene with the date and time, e.g. dough_rolling_2025-01-31_14-05-09.mp4.
  static QString DefaultPath(const QString& scene_path);

 private:
  QLineEdit* path_ = nullptr;
  QComboBox* size_ = nullptr;
  QComboBox* fps_ = nullptr;
  QCheckBox* overlay_ = nullptr;
};

}  // namespace ductile::studio
