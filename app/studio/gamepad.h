// A game controller as a teleoperation device, through SDL2's GameController API (any pad SDL knows: Xbox,
// PlayStation, Switch Pro, ...). Optional and detected at run time: a pad plugged in while the studio runs is
// opened at the next poll, one pulled out is closed; with none, Poll returns no motion. No Qt here.
//
// Mapping (world axes):  left stick up/down: ±x, right/left: ±y;  right trigger: +z, left trigger: −z;
// right stick: rotation about x (left/right) and y (up/down);  right/left shoulder: rotation about ±z;
// A (cross): toggle the gripper. Sticks have a 15% dead zone.
#pragma once

#include <string>

#include "teleop_motion.h"

struct _SDL_GameController;

namespace ductile::studio {

class Gamepad {
 public:
  /// Initialises SDL's game-controller subsystem (SDL's signal handlers left out); a failure is kept in
  /// Describe(). Several instances may exist (SDL counts its initialisations). UI thread.
  Gamepad();
  ~Gamepad();
  Gamepad(const Gamepad&) = delete;
  Gamepad& operator=(const Gamepad&) = delete;

  /// Handles plugging and unplugging, then returns the open pad's sticks, triggers and buttons as a motion.
  TeleopMotion Poll();
  bool connected() const { return pad_ != nullptr; }
  /// "gamepad: NAME", "no gamepad", or why SDL could not start.
  std::string Describe() const;

 private:
  void OpenFirst();

  bool initialised_ = false;
  std::string error_;
  _SDL_GameController* pad_ = nullptr;
  int pad_id_ = -1;           // SDL joystick instance id of pad_
  bool toggle_held_ = false;  // the A button, for press edges
};

}  // namespace ductile::studio
