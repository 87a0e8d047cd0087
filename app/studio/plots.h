// The plots dock: contact force components of a chosen rigid body, contact-solver iterations and residual, and
// ms per step with the real-time factor, against simulated time (Qt Charts). Pausable (the samples keep being
// recorded), zoomable (rubber band; right click zooms out) and exportable to CSV.
#pragma once

#include <QWidget>
#include <vector>

#include "sim_controller.h"

class QChart;
class QChartView;
class QComboBox;
class QLineSeries;
class QPushButton;
class QValueAxis;

namespace ductile::studio {

class Plots : public QWidget {
  Q_OBJECT

 public:
  explicit Plots(QWidget* parent = nullptr);
  /// Forgets every sample and names the bodies of a newly opened scene.
  void Reset(const std::vector<std::string>& body_names);
  /// Appends samples (from SimController::DrainTelemetry); redraws unless paused.
  void Append(const std::vector<TelemetrySample>& samples);
  /// Writes every recorded sample as CSV; returns false with `error` set when the file cannot be written.
  bool ExportCsv(const QString& path, QString* error) const;
  const std::vector<TelemetrySample>& samples() const { return samples_; }

 private:
  void Redraw();

  std::vector<TelemetrySample> samples_;
  std::vector<std::string> body_names_;
  bool paused_ = false;
  bool body_chosen_ = false;  // the user picked the plotted body; until then the first one with a force is shown
  QComboBox* body_ = nullptr;
  QPushButton* pause_ = nullptr;
  QChart* force_chart_ = nullptr;
  QChart* solver_chart_ = nullptr;
  QChart* timing_chart_ = nullptr;
  QLineSeries* force_[3] = {};
  QLineSeries* iterations_ = nullptr;
  QLineSeries* residual_ = nullptr;
  QLineSeries* step_ms_ = nullptr;
  QLineSeries* rtf_ = nullptr;
};

}  // namespace ductile::studio
