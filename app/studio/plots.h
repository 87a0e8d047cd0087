// The plots dock: contact force components of a chosen rigid body, with a mark at the start of each robot warning
// (TelemetrySample::robot_warning), contact-solver iterations and residual, and ms per step with the real-time factor,
// against simulated time (Qt Charts). Pausable (the samples keep being
// recorded), zoomable (rubber band; right click zooms out) and exportable to CSV.
#pragma once

#include <QElapsedTimer>
#include <QWidget>
#include <utility>
#include <vector>

#include "sim_controller.h"

class QChart;
class QChartView;
class QComboBox;
class QLineSeries;
class QScatterSeries;
class QPushButton;
class QTimer;
class QValueAxis;

namespace ductile::studio {

/// The vertical range a chart shows for values from `lo` to `hi`: 5% margins; a constant series (its spread under a
/// millionth of its size) gets room around its value, [−1, 1] around 0 and ±10% otherwise, so that the axis labels
/// stay readable instead of dividing a spread of zero; values that are all ≥ 0 never get a negative range.
std::pair<double, double> PlotRange(double lo, double hi);

/// The printf format of a vertical axis from `lo` to `hi` with `ticks` labels: fixed decimals enough to tell the
/// ticks apart to a tenth of their spacing ("%.2f" for [0, 1] in quarters, "%.0f" for [0, 230]), and "%.3g" where
/// that would take more than 6 decimals or the values reach a million.
QString PlotLabelFormat(double lo, double hi, int ticks);

class Plots : public QWidget {
  Q_OBJECT

 public:
  explicit Plots(QWidget* parent = nullptr);
  /// Forgets every sample and names the bodies of a newly opened scene, whose first run is `run`
  /// (OpenedScene::run).
  void Reset(const std::vector<std::string>& body_names, std::uint64_t run = 0);
  /// A later run of the simulation (ControllerStatus::run and ::run_from) drops the samples after `from` [s]: all of
  /// them for a new run (reset, loaded state), those after the state a resumed run continued from (the history).
  /// Nothing for the run shown or an earlier one.
  void SetRun(std::uint64_t run, double from);
  /// Appends samples (from SimController::DrainTelemetry): a sample of a later run first starts it (SetRun), samples
  /// of an earlier run are left out. Redraws unless paused, at most ten times a second (drawing the charts costs the
  /// UI thread several ms, which would otherwise be spent on every 60 Hz poll): a redraw due sooner is postponed, and
  /// the postponed one shows every sample appended until it runs.
  void Append(const std::vector<TelemetrySample>& samples);
  /// Writes every recorded sample as CSV; returns false with `error` set when the file cannot be written.
  bool ExportCsv(const QString& path, QString* error) const;
  const std::vector<TelemetrySample>& samples() const { return samples_; }
  /// Points the ms-per-step chart shows now (for tests: what the last redraw drew).
  int drawn_points() const;
  /// The ms-per-step chart's points as last drawn (time [s], ms): every sample's, or at most 800 for a longer
  /// history, the lowest and highest of each of 400 runs of consecutive samples.
  QList<QPointF> drawn_step_ms() const;
  /// The times [s] of the robot warnings the force chart marks, as last drawn (for tests).
  QList<double> drawn_warning_times() const;
  /// The vertical axis ranges as last drawn (for tests): chart 0 the force, 1 the solver, 2 the speed, 3 the IPC
  /// solve (shown only while the samples come from a scene with soft or affine bodies), 4 the projective-dynamics
  /// solve (likewise with pd bodies).
  std::pair<double, double> vertical_range(int chart) const;

 private:
  void Redraw();
  void RequestRedraw();

  std::vector<TelemetrySample> samples_;
  std::uint64_t run_ = 0;           // the run the samples belong to (SetRun)
  QElapsedTimer since_redraw_;      // wall time since the last redraw (invalid before the first)
  QTimer* redraw_timer_ = nullptr;  // single shot: a postponed redraw
  std::vector<std::string> body_names_;
  bool paused_ = false;
  bool body_chosen_ = false;  // the user picked the plotted body; until then the first one with a force is shown
  QComboBox* body_ = nullptr;
  QPushButton* pause_ = nullptr;
  QChart* force_chart_ = nullptr;
  QChart* solver_chart_ = nullptr;
  QChart* timing_chart_ = nullptr;
  QChart* ipc_chart_ = nullptr;
  QWidget* ipc_view_ = nullptr;
  QChart* pd_chart_ = nullptr;
  QWidget* pd_view_ = nullptr;
  QLineSeries* force_[3] = {};
  QScatterSeries* warnings_ = nullptr;  // at the top of the force chart, at each robot warning's time
  QLineSeries* step_ms_ = nullptr;
  QLineSeries* rtf_ = nullptr;
  /// A series that draws a telemetry channel (TelemetrySample::channels) times a scale.
  struct ChannelSeries {
    QLineSeries* series = nullptr;
    int channel = -1;
    double scale = 1;
  };
  std::vector<ChannelSeries> channel_series_;  // the solver, IPC and PD charts' series
  int ipc_channel_ = -1;                       // its presence shows the IPC chart
  int pd_channel_ = -1;                        // its presence shows the projective-dynamics chart
  /// Adds to `chart` the series of the channel `key` times `scale`, named by the channel's label and `suffix` (the
  /// unit or scale shown: "[µm]").
  QLineSeries* AddChannel(QChart* chart, const char* key, double scale, const char* suffix);
};

}  // namespace ductile::studio
