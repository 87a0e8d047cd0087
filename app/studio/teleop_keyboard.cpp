#include "teleop_keyboard.h"

#include <QKeyEvent>

namespace ductile::studio {
namespace {

// The axis (0 x, 1 y, 2 z) and direction (±1) of a teleop key; axis −1 for none.
struct KeyAxis {
  int axis = -1;
  double sign = 0;
};

KeyAxis AxisOf(int key) {
  switch (key) {
    case Qt::Key_W:
    case Qt::Key_Up:
      return {0, 1};
    case Qt::Key_S:
    case Qt::Key_Down:
      return {0, -1};
    case Qt::Key_D:
    case Qt::Key_Right:
      return {1, 1};
    case Qt::Key_A:
    case Qt::Key_Left:
      return {1, -1};
    case Qt::Key_E:
    case Qt::Key_PageUp:
      return {2, 1};
    case Qt::Key_Q:
    case Qt::Key_PageDown:
      return {2, -1};
    default:
      return {};
  }
}

// Speed factors of the modifiers.
constexpr double kSlow = 0.2;
constexpr double kFast = 3.0;

}  // namespace

TeleopKeyboard::TeleopKeyboard(QObject* target, QObject* parent) : QObject(parent) {
  target->installEventFilter(this);
}

void TeleopKeyboard::SetActive(bool active) {
  active_ = active;
  held_.clear();
  toggles_ = 0;
}

bool TeleopKeyboard::IsTeleopKey(int key) {
  return key == Qt::Key_Space || AxisOf(key).axis >= 0;
}

TeleopMotion TeleopKeyboard::Poll() {
  TeleopMotion m;
  for (int key : held_) {
    const KeyAxis k = AxisOf(key);
    if (k.axis < 0) continue;
    (shift_ ? m.angular : m.linear)[k.axis] += k.sign;
  }
  for (int a = 0; a < 3; ++a) {  // opposite keys held together cancel; two keys of one direction count once
    m.linear[a] = std::clamp(m.linear[a], -1.0, 1.0);
    m.angular[a] = std::clamp(m.angular[a], -1.0, 1.0);
  }
  m.scale = control_ ? kSlow : alt_ ? kFast : 1.0;
  m.gripper_toggles = toggles_;
  toggles_ = 0;
  return m;
}

bool TeleopKeyboard::eventFilter(QObject* watched, QEvent* event) {
  switch (event->type()) {
    case QEvent::FocusOut:
    case QEvent::Hide:
      held_.clear();  // a release that goes to another window must not leave a key held
      shift_ = control_ = alt_ = false;
      break;
    case QEvent::ShortcutOverride: {
      auto* key = static_cast<QKeyEvent*>(event);
      if (active_ && IsTeleopKey(key->key())) {
        key->accept();  // the key comes as a KeyPress to the viewport instead of triggering a shortcut
        return true;
      }
      break;
    }
    case QEvent::KeyPress:
    case QEvent::KeyRelease: {
      auto* key = static_cast<QKeyEvent*>(event);
      const bool press = event->type() == QEvent::KeyPress;
      // The modifier keys' own events may or may not carry their modifier (it differs between platforms).
      const Qt::KeyboardModifiers mods = key->modifiers();
      shift_ = key->key() == Qt::Key_Shift ? press : bool(mods & Qt::ShiftModifier);
      control_ = key->key() == Qt::Key_Control ? press : bool(mods & Qt::ControlModifier);
      alt_ = key->key() == Qt::Key_Alt ? press : bool(mods & Qt::AltModifier);
      if (!active_ || !IsTeleopKey(key->key())) break;
      if (!key->isAutoRepeat()) {
        if (key->key() == Qt::Key_Space) {
          toggles_ += press;
        } else if (press) {
          held_.insert(key->key());
        } else {
          held_.erase(key->key());
        }
      }
      key->accept();
      return true;
    }
    default:
      break;
  }
  return QObject::eventFilter(watched, event);
}

}  // namespace ductile::studio
