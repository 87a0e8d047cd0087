#include "history_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>

namespace ductile::studio {
namespace {

// QSlider positions are ints: serials beyond them (a history kept for weeks) are shown clamped.
int SliderValue(std::uint64_t serial) {
  return static_cast<int>(std::min<std::uint64_t>(serial, std::numeric_limits<int>::max()));
}

}  // namespace

QString FormatBytes(std::size_t bytes) {
  const double mb = static_cast<double>(bytes) / (1 << 20);
  if (mb >= 1024) return QString("%1 GB").arg(mb / 1024, 0, 'f', 1);
  return QString("%1 MB").arg(mb, 0, 'f', mb < 10 ? 1 : 0);
}

HistoryPanel::HistoryPanel(QWidget* parent) : QWidget(parent) {
  back_ = new QToolButton;
  back_->setObjectName("history_back");
  back_->setArrowType(Qt::LeftArrow);
  back_->setToolTip("Step back to the previous kept state (Ctrl+Left); pauses");
  forward_ = new QToolButton;
  forward_->setObjectName("history_forward");
  forward_->setArrowType(Qt::RightArrow);
  forward_->setToolTip("Step forward to the next kept state (Ctrl+Right)");
  slider_ = new QSlider(Qt::Horizontal);
  slider_->setObjectName("history_slider");
  slider_->setToolTip(
      "Recent states: drag to go back in time (pauses). Play or Step continues from the state shown and discards the "
      "states after it");
  slider_->setEnabled(false);
  readout_ = new QLabel;
  readout_->setObjectName("history_readout");
  position_ = new QLabel;
  position_->setObjectName("history_position");
  // Two lines of their natural height: the scrubber, then what the history holds and where the simulation is.
  auto* row = new QHBoxLayout;
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(back_);
  row->addWidget(slider_, 1);
  row->addWidget(forward_);
  auto* text = new QHBoxLayout;
  text->setContentsMargins(4, 0, 4, 0);
  text->setSpacing(12);
  text->addWidget(readout_);
  text->addWidget(position_);
  text->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  layout->setSpacing(2);
  layout->addLayout(row);
  layout->addLayout(text);
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  connect(back_, &QToolButton::clicked, this, [this] { StepBy(-1); });
  connect(forward_, &QToolButton::clicked, this, [this] { StepBy(1); });
  connect(slider_, &QSlider::valueChanged, this, [this](int value) { ScrubTo(static_cast<std::uint64_t>(value)); });
  ShowReadout();
}

void HistoryPanel::Update(const ControllerStatus& status) {
  history_ = status.history;
  const bool pending = history_.scrub_request < requests_;
  if (!pending) pending_serial_ = 0;      // the thread applied the newest scrub
  playing_ = status.playing && !pending;  // a scrub on its way pauses
  ShowSlider();
  ShowReadout();
}

std::uint64_t HistoryPanel::shown_serial() const {
  if (pending_serial_ != 0) return pending_serial_;
  if (playing_ || history_.shown == 0) return history_.last;
  return history_.shown;
}

void HistoryPanel::StepBy(int delta) {
  if (history_.states == 0) return;
  const bool from_newest_pending = history_.scrub_request < requests_ && pending_serial_ == 0;
  if (pending_serial_ == 0 && (playing_ || history_.shown == 0 || from_newest_pending)) {
    // The state on screen is newer than every kept one (it plays, or an input or edit changed it): the scrub keeps
    // it as the newest first, so count back from there.
    const std::int64_t back = (from_newest_pending ? pending_back_ : 0) - delta;
    pending_back_ = static_cast<std::uint64_t>(std::max<std::int64_t>(back, 0));
    Request({pending_back_, true, 0});
    return;
  }
  const std::uint64_t from = shown_serial();
  const std::uint64_t to = delta < 0 ? from - std::min<std::uint64_t>(from - history_.first, -delta)
                                     : std::min(from + static_cast<std::uint64_t>(delta), history_.last);
  ScrubTo(to);
}

void HistoryPanel::ScrubTo(std::uint64_t serial) {
  if (history_.states == 0) return;
  serial = std::clamp(serial, history_.first, history_.last);
  const bool pending = history_.scrub_request < requests_;
  if (!playing_ && !pending && history_.shown == serial) return;  // there already
  Request({serial, false, 0});
}

void HistoryPanel::Request(command::Scrub request) {
  request.request = ++requests_;
  pending_serial_ = request.from_newest ? 0 : request.serial;
  playing_ = false;  // the thread pauses first
  ShowSlider();
  emit scrub(request);
}

void HistoryPanel::ShowSlider() {
  const QSignalBlocker quiet(slider_);  // positions set here are the thread's, not the user's requests
  slider_->setEnabled(history_.states > 0);
  slider_->setRange(SliderValue(history_.first), SliderValue(history_.last));
  // While the user drags, the handle stays where the mouse put it.
  if (!slider_->isSliderDown()) slider_->setValue(SliderValue(shown_serial()));
  back_->setEnabled(history_.states > 0 && (playing_ || shown_serial() > history_.first));
  forward_->setEnabled(history_.states > 0 && !playing_ && shown_serial() < history_.last);
}

void HistoryPanel::ShowReadout() {
  const HistoryStatus& h = history_;
  QString text = QString("history: %1 s, %2 of %3")
                     .arg(h.newest_time - h.oldest_time, 0, 'f', 2)
                     .arg(FormatBytes(h.bytes))
                     .arg(FormatBytes(h.limit));
  text += h.interval == 1 ? QString(", every step") : QString(", every %1 steps").arg(h.interval);
  if (h.automatic) text += " (automatic)";
  readout_->setText(text);
  readout_->setToolTip(QString("%1 states kept, from t = %2 s to %3 s")
                           .arg(h.states)
                           .arg(h.oldest_time, 0, 'f', 3)
                           .arg(h.newest_time, 0, 'f', 3));
  QString where;
  if (playing_)
    where = "playing";
  else if (h.shown != 0 && h.shown < h.last)
    where = QString("at a past state, %1 before the newest").arg(h.last - h.shown);
  else if (h.shown != 0)
    where = "at the newest state";
  position_->setText(where);
}

QString HistoryPanel::readout() const {
  return readout_->text();
}

QString HistoryPanel::position() const {
  return position_->text();
}

}  // namespace ductile::studio
