#include "plots.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMessageBox>
#include <QPushButton>
#include <QScatterSeries>
#include <QTextStream>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

namespace ductile::studio {
namespace {

// Points drawn per series at most. A longer history is split into kMaxPoints / 2 runs of consecutive samples, each
// drawn as its lowest and its highest value (in time order): spikes stay visible, and the charts (a few hundred
// pixels wide, where Qt's antialiased strokes cost in proportion to the points, on the UI thread) stay cheap.
constexpr std::size_t kMaxPoints = 800;

// The points of one series: `value` of every sample, or of the lowest and highest of each run (see kMaxPoints).
template <class Value>
QList<QPointF> SeriesPoints(const std::vector<TelemetrySample>& samples, Value value) {
  QList<QPointF> points;
  const std::size_t n = samples.size();
  points.reserve(static_cast<qsizetype>(std::min(n, kMaxPoints)));
  if (n <= kMaxPoints) {
    for (const TelemetrySample& s : samples) points.append({s.time, value(s)});
    return points;
  }
  const std::size_t runs = kMaxPoints / 2;
  for (std::size_t r = 0; r < runs; ++r) {
    const std::size_t begin = r * n / runs, end = (r + 1) * n / runs;
    std::size_t low = begin, high = begin;
    double low_value = value(samples[begin]), high_value = low_value;
    for (std::size_t i = begin + 1; i < end; ++i) {
      const double v = value(samples[i]);
      if (v < low_value) low_value = v, low = i;
      if (v > high_value) high_value = v, high = i;
    }
    const std::size_t first = std::min(low, high), second = std::max(low, high);
    points.append({samples[first].time, value(samples[first])});
    if (second != first) points.append({samples[second].time, value(samples[second])});
  }
  return points;
}

QChartView* MakeView(QChart* chart) {
  chart->legend()->setAlignment(Qt::AlignRight);
  chart->setMargins(QMargins(4, 4, 4, 4));
  auto* view = new QChartView(chart);
  view->setRenderHint(QPainter::Antialiasing);
  view->setRubberBand(QChartView::RectangleRubberBand);  // drag to zoom; right click zooms out
  view->setMinimumHeight(150);
  return view;
}

QLineSeries* AddSeries(QChart* chart, const QString& name) {
  auto* s = new QLineSeries;
  s->setName(name);
  chart->addSeries(s);
  return s;
}

void Axes(QChart* chart, const QString& x_title, const QString& y_title, const QList<QXYSeries*>& series) {
  auto* x = new QValueAxis;
  x->setTitleText(x_title);
  auto* y = new QValueAxis;
  y->setTitleText(y_title);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  for (QXYSeries* s : series) {
    s->attachAxis(x);
    s->attachAxis(y);
  }
}

QValueAxis* VerticalAxis(QChart* chart) {
  return static_cast<QValueAxis*>(chart->axes(Qt::Vertical).front());
}

// Fits both axes of a chart to its series' points but those of `marks`, the vertical one to PlotRange.
// (QValueAxis::applyNiceNumbers was tried for round ticks: with a range of [0, 1] it left the labels elided to "...".)
void Fit(QChart* chart, const QAbstractSeries* marks = nullptr) {
  double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
  for (QAbstractSeries* a : chart->series()) {
    if (a == marks) continue;
    for (const QPointF& p : static_cast<QXYSeries*>(a)->points()) {
      x0 = std::min(x0, p.x());
      x1 = std::max(x1, p.x());
      y0 = std::min(y0, p.y());
      y1 = std::max(y1, p.y());
    }
  }
  if (x0 > x1) return;
  if (x1 - x0 < 1e-9) x1 = x0 + 1e-3;
  chart->axes(Qt::Horizontal).front()->setRange(x0, x1);
  const auto [lo, hi] = PlotRange(y0, y1);
  QValueAxis* y = VerticalAxis(chart);
  y->setRange(lo, hi);
  // Set only when it changes: a new format lays the axis out again.
  if (const QString format = PlotLabelFormat(lo, hi, y->tickCount()); format != y->labelFormat())
    y->setLabelFormat(format);
}

}  // namespace

std::pair<double, double> PlotRange(double lo, double hi) {
  if (!(lo <= hi) || !std::isfinite(lo) || !std::isfinite(hi)) return {0.0, 1.0};
  const double size = std::max(std::abs(lo), std::abs(hi));
  double pad = 0.05 * (hi - lo);
  if (hi - lo <= 1e-6 * size) pad = size > 0 ? 0.1 * size : 1.0;  // a constant series (size 0 included)
  return {lo >= 0 ? std::max(0.0, lo - pad) : lo - pad, hi + pad};
}

QString PlotLabelFormat(double lo, double hi, int ticks) {
  const double spacing = (hi - lo) / std::max(ticks - 1, 1);
  const double size = std::max(std::abs(lo), std::abs(hi));
  if (!(spacing > 0) || !std::isfinite(spacing) || size >= 1e6) return "%.3g";
  const int decimals = static_cast<int>(std::ceil(-std::log10(spacing / 10)));
  if (decimals > 6) return "%.3g";
  return QString("%.%1f").arg(std::max(decimals, 0));
}

std::pair<double, double> Plots::vertical_range(int chart) const {
  QChart* const charts[] = {force_chart_, solver_chart_, timing_chart_, ipc_chart_, pd_chart_};
  const QValueAxis* y = VerticalAxis(charts[std::clamp(chart, 0, 4)]);
  return {y->min(), y->max()};
}

Plots::Plots(QWidget* parent) : QWidget(parent) {
  redraw_timer_ = new QTimer(this);
  redraw_timer_->setSingleShot(true);
  connect(redraw_timer_, &QTimer::timeout, this, [this] {
    if (!paused_) Redraw();
  });
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  body_ = new QComboBox;
  body_->setToolTip("Rigid body whose contact force is plotted");
  pause_ = new QPushButton("Pause plots");
  pause_->setObjectName("pause_plots");
  pause_->setCheckable(true);
  auto* export_csv = new QPushButton("Export CSV…");
  bar->addWidget(body_, 1);
  bar->addWidget(pause_);
  bar->addWidget(export_csv);
  layout->addLayout(bar);

  force_chart_ = new QChart;
  force_chart_->setTitle("Contact force on the body [N]");
  force_[0] = AddSeries(force_chart_, "fx");
  force_[1] = AddSeries(force_chart_, "fy");
  force_[2] = AddSeries(force_chart_, "fz");
  warnings_ = new QScatterSeries;
  warnings_->setName("robot warning");
  warnings_->setColor(Qt::red);
  warnings_->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
  warnings_->setMarkerSize(12);
  force_chart_->addSeries(warnings_);
  Axes(force_chart_, "t [s]", "N", {force_[0], force_[1], force_[2], warnings_});
  solver_chart_ = new QChart;
  solver_chart_->setTitle("MPM contact solver");
  Axes(solver_chart_, "t [s]", "",
       {AddChannel(solver_chart_, "mpm_contact_iterations", 1, ""),
        AddChannel(solver_chart_, "mpm_contact_residual", 1e3, "×1e3")});
  timing_chart_ = new QChart;
  timing_chart_->setTitle("Speed");
  step_ms_ = AddSeries(timing_chart_, "ms / step");
  rtf_ = AddSeries(timing_chart_, "% of real time");
  Axes(timing_chart_, "t [s]", "", {step_ms_, rtf_});
  ipc_chart_ = new QChart;
  ipc_chart_->setTitle("Soft bodies: IPC solve");
  Axes(ipc_chart_, "t [s]", "",
       {AddChannel(ipc_chart_, "ipc_newton_iterations", 1, ""),
        AddChannel(ipc_chart_, "ipc_min_distance", 1e6, "[µm]")});
  ipc_channel_ = FindTelemetryChannel("ipc_newton_iterations");
  pd_chart_ = new QChart;
  pd_chart_->setTitle("Soft bodies: projective dynamics");
  Axes(pd_chart_, "t [s]", "",
       {AddChannel(pd_chart_, "pd_iterations", 1, ""), AddChannel(pd_chart_, "pd_contact_force", 1, "[N]")});
  pd_channel_ = FindTelemetryChannel("pd_iterations");
  layout->addWidget(MakeView(force_chart_), 1);
  layout->addWidget(MakeView(solver_chart_), 1);
  layout->addWidget(MakeView(timing_chart_), 1);
  ipc_view_ = MakeView(ipc_chart_);
  ipc_view_->setVisible(false);
  layout->addWidget(ipc_view_, 1);
  pd_view_ = MakeView(pd_chart_);
  pd_view_->setVisible(false);
  layout->addWidget(pd_view_, 1);

  connect(body_, &QComboBox::currentIndexChanged, this, [this] { Redraw(); });
  connect(body_, &QComboBox::activated, this, [this] { body_chosen_ = true; });
  connect(pause_, &QPushButton::toggled, this, [this](bool on) {
    paused_ = on;
    pause_->setText(on ? "Resume plots" : "Pause plots");
    if (!on) Redraw();
  });
  connect(export_csv, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, "Export plots", "telemetry.csv", "CSV (*.csv)");
    if (path.isEmpty()) return;
    QString error;
    if (!ExportCsv(path, &error)) QMessageBox::warning(this, "Export failed", error);
  });
}

void Plots::Reset(const std::vector<std::string>& body_names, std::uint64_t run) {
  samples_.clear();
  run_ = run;
  body_chosen_ = false;
  body_names_ = body_names;
  body_->blockSignals(true);
  body_->clear();
  for (std::size_t b = 0; b < body_names.size() && b < static_cast<std::size_t>(kMaxPlotBodies); ++b)
    body_->addItem(QString::fromStdString(body_names[b]));
  body_->setEnabled(body_->count() > 0);
  body_->blockSignals(false);
  Redraw();
}

void Plots::SetRun(std::uint64_t run, double from) {
  if (run <= run_) return;
  run_ = run;
  // The samples after `from` belong to a run that was discarded (or, from −infinity, to an earlier one).
  const auto later =
      std::find_if(samples_.begin(), samples_.end(), [from](const TelemetrySample& s) { return !(s.time <= from); });
  if (later == samples_.end()) return;
  samples_.erase(later, samples_.end());
  if (!paused_) RequestRedraw();
}

void Plots::Append(const std::vector<TelemetrySample>& samples) {
  std::size_t appended = 0;
  for (const TelemetrySample& s : samples) {
    if (s.run < run_) continue;  // posted before the run changed
    SetRun(s.run, s.run_from);
    samples_.push_back(s);
    ++appended;
  }
  if (appended == 0) return;
  // Until the user picks one, plot the first body that something pushes (a kinematic carrier feels nothing).
  const auto pushed = [&](int b) {
    for (const TelemetrySample& s : samples)
      if (b < s.num_bodies && std::abs(s.force[b][0]) + std::abs(s.force[b][1]) + std::abs(s.force[b][2]) > 1e-6f)
        return true;
    return false;
  };
  if (!body_chosen_ && body_->count() > 1 && !pushed(body_->currentIndex())) {
    for (int b = 0; b < body_->count(); ++b)
      if (pushed(b)) {
        body_->setCurrentIndex(b);
        break;
      }
  }
  if (!paused_) RequestRedraw();
}

int Plots::drawn_points() const {
  return static_cast<int>(step_ms_->count());
}

QList<QPointF> Plots::drawn_step_ms() const {
  return step_ms_->points();
}

QList<double> Plots::drawn_warning_times() const {
  QList<double> times;
  for (const QPointF& p : warnings_->points()) times.append(p.x());
  return times;
}

void Plots::RequestRedraw() {
  constexpr qint64 kIntervalMs = 100;
  const qint64 elapsed = since_redraw_.isValid() ? since_redraw_.elapsed() : kIntervalMs;
  if (elapsed >= kIntervalMs) {
    Redraw();
  } else if (!redraw_timer_->isActive()) {
    redraw_timer_->start(static_cast<int>(kIntervalMs - elapsed));
  }
}

QLineSeries* Plots::AddChannel(QChart* chart, const char* key, double scale, const char* suffix) {
  const int c = FindTelemetryChannel(key);
  const TelemetryChannel& channel = TelemetryChannels().at(static_cast<std::size_t>(c));
  QString name = channel.label;
  if (*suffix != 0) name += QString(" ") + suffix;
  QLineSeries* series = AddSeries(chart, name);
  channel_series_.push_back({series, c, scale});
  return series;
}

void Plots::Redraw() {
  since_redraw_.restart();
  redraw_timer_->stop();
  const int body = body_->currentIndex();
  const bool has_body = body >= 0 && !samples_.empty() && body < samples_.back().num_bodies;
  for (int a = 0; a < 3; ++a) {
    force_[a]->replace(has_body ? SeriesPoints(samples_,
                                               [body, a](const TelemetrySample& s) {
                                                 return body < s.num_bodies ? static_cast<double>(s.force[body][a])
                                                                            : 0.0;
                                               })
                                : QList<QPointF>());
  }
  for (const ChannelSeries& cs : channel_series_) {
    const bool drawn = !samples_.empty() && samples_.back().Has(cs.channel);
    cs.series->replace(drawn ? SeriesPoints(samples_,
                                            [cs](const TelemetrySample& s) {
                                              return cs.scale * s.channels[static_cast<std::size_t>(cs.channel)];
                                            })
                             : QList<QPointF>());
  }
  step_ms_->replace(SeriesPoints(samples_, [](const TelemetrySample& s) { return s.step_ms; }));
  rtf_->replace(SeriesPoints(samples_, [](const TelemetrySample& s) { return 100 * s.realtime_factor; }));
  ipc_view_->setVisible(!samples_.empty() && samples_.back().Has(ipc_channel_));
  pd_view_->setVisible(!samples_.empty() && samples_.back().Has(pd_channel_));
  Fit(force_chart_, warnings_);
  // The robot warnings at the top of the force chart (over the chosen body's curve, whichever link they concern).
  QList<QPointF> marks;
  const double top = VerticalAxis(force_chart_)->max();
  for (const TelemetrySample& s : samples_)
    if (s.robot_warning) marks.append({s.time, top});
  warnings_->replace(marks);
  Fit(solver_chart_);
  Fit(timing_chart_);
  Fit(ipc_chart_);
  Fit(pd_chart_);
}

bool Plots::ExportCsv(const QString& path, QString* error) const {
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) {
    if (error) *error = "cannot write '" + path + "': " + file.errorString();
    return false;
  }
  QTextStream out(&file);
  // The studio's own columns, then every telemetry channel (ductile/telemetry.h; empty where a step lacks it).
  out << "time,step_ms,realtime_factor";
  const std::vector<TelemetryChannel>& channels = TelemetryChannels();
  const int num_channels = std::min(static_cast<int>(channels.size()), kMaxSampleChannels);
  for (int c = 0; c < num_channels; ++c) out << ',' << channels[static_cast<std::size_t>(c)].key;
  for (std::size_t b = 0; b < body_names_.size() && b < static_cast<std::size_t>(kMaxPlotBodies); ++b)
    for (const char* c : {"fx", "fy", "fz"}) out << ',' << QString::fromStdString(body_names_[b]) << '.' << c;
  out << '\n';
  out.setRealNumberPrecision(9);
  for (const TelemetrySample& s : samples_) {
    out << s.time << ',' << s.step_ms << ',' << s.realtime_factor;
    for (int c = 0; c < num_channels; ++c) {
      out << ',';
      if (s.Has(c)) out << s.channels[static_cast<std::size_t>(c)];
    }
    for (int b = 0; b < s.num_bodies; ++b)
      for (int a = 0; a < 3; ++a) out << ',' << s.force[b][a];
    out << '\n';
  }
  file.close();
  if (file.error() != QFileDevice::NoError) {
    if (error) *error = "cannot write '" + path + "': " + file.errorString();
    return false;
  }
  return true;
}

}  // namespace ductile::studio
