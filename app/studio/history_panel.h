// The History dock (docs/studio.md, "History"): a scrubber over the recent states the simulation thread keeps
// (StateHistory), with step back and forward buttons and a readout of what the history holds and what it costs
// ("history: 3.20 s, 180 MB of 512 MB"). An observer of ControllerStatus::history: moving the scrubber emits a
// command::Scrub for the window to post, and the simulation thread pauses and shows that state; the scrubber follows
// the thread's status again once the thread has applied the newest scrub, so that a held key or a drag never waits
// for the simulation and never jumps back to a position older than the one asked for.
#pragma once

#include <QString>
#include <QWidget>
#include <cstdint>

#include "commands.h"
#include "sim_controller.h"

class QLabel;
class QSlider;
class QToolButton;

namespace ductile::studio {

/// "180 MB" for a byte count (1 MB = 2^20 bytes), "1.5 GB" from 1024 MB on.
QString FormatBytes(std::size_t bytes);

class HistoryPanel : public QWidget {
  Q_OBJECT

 public:
  explicit HistoryPanel(QWidget* parent = nullptr);
  /// With each UI poll: the history and whether the simulation plays.
  void Update(const ControllerStatus& status);
  /// Moves the scrubber `delta` kept states from where it is (−1: one back, +1: one forward); while playing, pauses
  /// at the newest state and moves back from there.
  void StepBy(int delta);
  /// Moves the scrubber to the kept state `serial` (HistoryStatus), pausing.
  void ScrubTo(std::uint64_t serial);
  /// The readout ("history: 3.20 s, 180 MB of 512 MB, every 2 steps") and the position line, for tests.
  QString readout() const;
  QString position() const;
  QSlider* slider() const { return slider_; }
  /// The serial the scrubber shows: the one last asked for until the thread applied it, then the thread's.
  std::uint64_t shown_serial() const;

 signals:
  /// A scrub for the simulation thread (the window posts it).
  void scrub(const ductile::studio::command::Scrub& request);

 private:
  void Request(command::Scrub request);
  void ShowSlider();
  void ShowReadout();

  QSlider* slider_ = nullptr;
  QToolButton* back_ = nullptr;
  QToolButton* forward_ = nullptr;
  QLabel* readout_ = nullptr;
  QLabel* position_ = nullptr;
  HistoryStatus history_;
  bool playing_ = false;
  std::uint64_t requests_ = 0;        // scrubs asked for so far (command::Scrub::request)
  std::uint64_t pending_serial_ = 0;  // where the newest scrub not yet applied goes; 0 when none or unknown
  std::uint64_t pending_back_ = 0;    // with a scrub from the newest not yet applied: how far back it goes
};

}  // namespace ductile::studio
