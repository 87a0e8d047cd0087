#include "command_queue.h"

#include <string>
#include <type_traits>
#include <utility>

namespace ductile::studio {
namespace {

template <typename T>
bool Is(const Command& c) {
  return std::holds_alternative<T>(c);
}

// Settings that act on nothing but themselves: they may move across any command.
bool IsSetting(const Command& c) {
  return Is<command::SetSpeed>(c) || Is<command::SetHistoryLimit>(c);
}

// Commands that fix a point of the run: nothing moves across them.
bool FixesAPointOfTheRun(const Command& c) {
  return Is<command::Play>(c) || Is<command::Pause>(c) || Is<command::Step>(c) || Is<command::Reset>(c) ||
         Is<command::Scrub>(c) || Is<command::SaveState>(c) || Is<command::LoadState>(c) || Is<command::OpenScene>(c) ||
         Is<command::CaptureDemoLog>(c) || Is<command::StartRecording>(c) || Is<command::StopRecording>(c);
}

// What an input acts on ("" for commands that are not inputs): inputs on the same subject keep their order.
std::string Subject(const Command& c) {
  if (Is<command::Perturb>(c)) return "perturb";
  if (const auto* t = std::get_if<command::Teleop>(&c)) return "robot " + t->target.robot;
  if (const auto* t = std::get_if<command::TeleopClear>(&c)) return "robot " + t->robot;
  return {};
}

// Whether `newer` makes the queued `older` pointless (see command_queue.h).
bool Replaces(const Command& newer, const Command& older) {
  if (newer.index() != older.index()) return false;
  if (IsSetting(newer) || Is<command::Scrub>(newer)) return true;
  if (const auto* n = std::get_if<command::Perturb>(&newer)) {
    const Perturbation& a = n->perturbation;
    const Perturbation& b = std::get<command::Perturb>(older).perturbation;
    return a.kind != Perturbation::Kind::kNone && a.kind == b.kind && a.index == b.index && a.anchor == b.anchor;
  }
  if (const auto* n = std::get_if<command::Teleop>(&newer)) {
    const TeleopTarget& o = std::get<command::Teleop>(older).target;
    return n->target.robot == o.robot && n->target.link == o.link;
  }
  return false;
}

}  // namespace

QueuedCommand Compare(const Command& newer, const Command& older) {
  if (Replaces(newer, older)) return QueuedCommand::kReplace;
  if (IsSetting(newer) || IsSetting(older)) return QueuedCommand::kPass;
  if (FixesAPointOfTheRun(older) || Is<command::Scrub>(newer)) return QueuedCommand::kStop;
  const std::string subject = Subject(newer);
  if (!subject.empty() && subject == Subject(older)) return QueuedCommand::kStop;
  return QueuedCommand::kPass;
}

void CommandQueue::Push(Command command) {
  for (auto older = commands_.rbegin(); older != commands_.rend(); ++older) {
    const QueuedCommand rule = Compare(command, *older);
    if (rule == QueuedCommand::kStop) break;
    if (rule == QueuedCommand::kReplace) {
      *older = std::move(command);
      return;
    }
  }
  commands_.push_back(std::move(command));
}

void CommandQueue::TakeAll(std::deque<Command>& out) {
  out.clear();
  out.swap(commands_);
}

}  // namespace ductile::studio
