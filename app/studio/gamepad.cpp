#include "gamepad.h"

#include <SDL.h>

namespace ductile::studio {
namespace {

// Stick deflections below this fraction of the range are noise of a pad at rest.
constexpr double kDeadZone = 0.15;

double Axis(SDL_GameController* pad, SDL_GameControllerAxis axis) {
  return ApplyDeadZone(static_cast<double>(SDL_GameControllerGetAxis(pad, axis)) / 32767.0, kDeadZone);
}

}  // namespace

Gamepad::Gamepad() {
  SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");  // Ctrl+C stays Qt's
  // The studio's window, not an SDL one, has the focus: take the pad's input anyway.
  SDL_SetHint(SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS, "1");
  if (SDL_InitSubSystem(SDL_INIT_GAMECONTROLLER) != 0) {
    error_ = SDL_GetError();
    return;
  }
  initialised_ = true;
  OpenFirst();
}

Gamepad::~Gamepad() {
  if (pad_) SDL_GameControllerClose(pad_);
  if (initialised_) SDL_QuitSubSystem(SDL_INIT_GAMECONTROLLER);
}

void Gamepad::OpenFirst() {
  for (int i = 0; i < SDL_NumJoysticks() && !pad_; ++i) {
    if (!SDL_IsGameController(i)) continue;
    pad_ = SDL_GameControllerOpen(i);
    if (pad_) pad_id_ = SDL_JoystickInstanceID(SDL_GameControllerGetJoystick(pad_));
  }
  toggle_held_ = false;
}

TeleopMotion Gamepad::Poll() {
  TeleopMotion m;
  if (!initialised_) return m;
  SDL_Event event;
  while (SDL_PollEvent(&event)) {
    if (event.type == SDL_CONTROLLERDEVICEREMOVED && pad_ && event.cdevice.which == pad_id_) {
      SDL_GameControllerClose(pad_);
      pad_ = nullptr;
      pad_id_ = -1;
    }
    if (event.type == SDL_CONTROLLERDEVICEADDED && !pad_) OpenFirst();
  }
  if (!pad_) return m;
  // Stick y is +32767 pushed down.
  m.linear = {-Axis(pad_, SDL_CONTROLLER_AXIS_LEFTY), Axis(pad_, SDL_CONTROLLER_AXIS_LEFTX),
              Axis(pad_, SDL_CONTROLLER_AXIS_TRIGGERRIGHT) - Axis(pad_, SDL_CONTROLLER_AXIS_TRIGGERLEFT)};
  const double shoulders = SDL_GameControllerGetButton(pad_, SDL_CONTROLLER_BUTTON_RIGHTSHOULDER) -
                           SDL_GameControllerGetButton(pad_, SDL_CONTROLLER_BUTTON_LEFTSHOULDER);
  m.angular = {Axis(pad_, SDL_CONTROLLER_AXIS_RIGHTX), -Axis(pad_, SDL_CONTROLLER_AXIS_RIGHTY), shoulders};
  const bool toggle = SDL_GameControllerGetButton(pad_, SDL_CONTROLLER_BUTTON_A) != 0;
  m.gripper_toggles = toggle && !toggle_held_;
  toggle_held_ = toggle;
  return m;
}

std::string Gamepad::Describe() const {
  if (!initialised_) return "no gamepad (SDL: " + error_ + ")";
  if (!pad_) return "no gamepad";
  const char* name = SDL_GameControllerName(pad_);
  return std::string("gamepad: ") + (name ? name : "unnamed controller");
}

}  // namespace ductile::studio
