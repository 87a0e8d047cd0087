// The keyboard as a teleoperation device: an event filter on the viewport that, while teleoperation is on and the
// viewport has the keyboard focus, keeps the held teleop keys and reports them as a TeleopMotion. It accepts their
// ShortcutOverride events, so that a teleop key never triggers a studio shortcut (Space: play/pause, Ctrl+Q: quit,
// Alt+S: the Simulation menu) while teleoperating; other keys go on to the studio as usual.
//
// Keys (world axes):          translate          Shift + key: rotate about the axis
//   W / S, Up / Down          +x / −x
//   D / A, Right / Left       +y / −y
//   E / Q, PageUp / PageDown  +z / −z
//   Ctrl: slow (×0.2), Alt: fast (×3); Space: toggle the gripper.
#pragma once

#include <QObject>
#include <set>

#include "teleop_motion.h"

namespace ductile::studio {

class TeleopKeyboard : public QObject {
  Q_OBJECT

 public:
  /// Watches `target`'s key events (the viewport window); `target` must outlive this.
  explicit TeleopKeyboard(QObject* target, QObject* parent = nullptr);
  /// Whether the teleop keys act (teleoperation on); when off, every key goes to the studio and nothing is held.
  void SetActive(bool active);
  bool active() const { return active_; }
  /// The held keys as a motion, and the gripper toggles since the last call.
  TeleopMotion Poll();
  /// Whether `key` is one of the teleop keys above.
  static bool IsTeleopKey(int key);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  bool active_ = false;
  std::set<int> held_;  // Qt::Key values of held teleop keys
  bool shift_ = false, control_ = false, alt_ = false;
  int toggles_ = 0;
};

}  // namespace ductile::studio
