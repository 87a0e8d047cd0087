// A 3Dconnexion SpaceMouse (or any 6-dof device spacenavd serves) as a teleoperation device, through libspnav's
// socket to the spacenavd daemon. Optional: without the daemon the connection fails, the dock says so, and the
// connection is tried again every few seconds, so starting spacenavd later is enough. No Qt here (spnav.h pulls in
// Xlib, whose macros clash with Qt's names).
//
// The cap moves the target as seen in the viewport: pushing it right, up or towards you moves the target along
// the camera's right, up and backwards directions, and twisting it turns the target about the same axes
// (MotionFrame::kCamera). Full deflection (about 350 device units) is full speed. Button 0 toggles the gripper.
#pragma once

#include <chrono>
#include <string>

#include "teleop_motion.h"

namespace ductile::studio {

class SpaceMouse {
 public:
  /// Connects to spacenavd when it runs. libspnav has one connection per process: one instance at a time. UI thread.
  SpaceMouse();
  ~SpaceMouse();
  SpaceMouse(const SpaceMouse&) = delete;
  SpaceMouse& operator=(const SpaceMouse&) = delete;

  /// Drains the device's events and returns the latest deflection as a motion (none when the last motion event is
  /// older than a quarter second: the device stopped reporting a cap at rest).
  TeleopMotion Poll();
  bool connected() const { return connected_; }
  /// "SpaceMouse (spacenavd)" or "no SpaceMouse (spacenavd not running)".
  std::string Describe() const;

 private:
  using Clock = std::chrono::steady_clock;
  void TryConnect();

  bool connected_ = false;
  Clock::time_point last_try_{};
  TeleopMotion last_;                // the latest deflection
  Clock::time_point last_motion_{};  // when it came
};

}  // namespace ductile::studio
