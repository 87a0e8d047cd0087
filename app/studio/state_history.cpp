#include "state_history.h"

#include <unistd.h>

#include <algorithm>
#include <utility>

namespace ductile::studio {

std::size_t DefaultHistoryBytes() {
  constexpr std::size_t kDefault = std::size_t{512} << 20;
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return kDefault;
  return std::min(kDefault, static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_size) / 4);
}

void StateHistory::SetLimit(std::size_t bytes, int interval) {
  limit_ = std::max<std::size_t>(bytes, 1);
  requested_interval_ = std::max(interval, 0);
  while (!entries_.empty() && bytes_ > limit_) DropOldest();
  spare_.reset();  // a smaller bound frees what it drops
  ChooseInterval();
}

void StateHistory::Clear() {
  entries_.clear();
  spare_.reset();
  bytes_ = 0;
  next_serial_ = 1;
}

bool StateHistory::Due(std::int64_t step) const {
  return entries_.empty() || step - entries_.back().state.step_count() >= interval_;
}

std::optional<std::uint64_t> StateHistory::Keep(const State& state, std::shared_ptr<const Model> model,
                                                const std::vector<Override>& overrides, std::size_t demo_events,
                                                const std::vector<Override>& live_edits) {
  const std::size_t needed = state.MemoryBytes();
  if (needed > limit_) return std::nullopt;
  while (!entries_.empty() && bytes_ + needed > limit_) DropOldest();
  // The copy goes into a dropped entry's State where there is one: its vectors keep their storage, so a full history
  // copies without allocating.
  HistoryEntry entry = spare_ ? std::move(*spare_) : HistoryEntry{};
  spare_.reset();
  entry.serial = next_serial_++;
  entry.state = state;
  entry.model = std::move(model);
  entry.overrides = overrides;
  entry.live_edits = live_edits;
  entry.demo_events = demo_events;
  entry.bytes = entry.state.MemoryBytes();
  bytes_ += entry.bytes;
  entries_.push_back(std::move(entry));
  // A reused State may hold more than the copy needed: the oldest make room for the difference.
  while (entries_.size() > 1 && bytes_ > limit_) DropOldest();
  ChooseInterval();
  return entries_.back().serial;
}

const HistoryEntry* StateHistory::Nearest(std::uint64_t serial) const {
  if (entries_.empty()) return nullptr;
  const std::uint64_t clamped = std::clamp(serial, first_serial(), last_serial());
  return &entries_[static_cast<std::size_t>(clamped - first_serial())];
}

void StateHistory::DiscardAfter(std::uint64_t serial) {
  while (!entries_.empty() && entries_.back().serial > serial) {
    bytes_ -= entries_.back().bytes;
    spare_ = std::move(entries_.back());
    entries_.pop_back();
  }
  next_serial_ = entries_.empty() ? 1 : entries_.back().serial + 1;
}

void StateHistory::DropOldest() {
  bytes_ -= entries_.front().bytes;
  spare_ = std::move(entries_.front());
  entries_.pop_front();
}

void StateHistory::ChooseInterval() {
  if (requested_interval_ > 0 || entries_.empty()) {
    interval_ = std::max(requested_interval_, 1);
    return;
  }
  // The fewest steps apart, in steps of 1, 2, 5 times a power of ten, that let the bound hold the span.
  const HistoryEntry& e = entries_.back();
  const std::size_t whole_states = limit_ / std::max<std::size_t>(e.bytes, 1);
  const auto states = static_cast<double>(whole_states);
  const double dt = e.model ? e.model->dt : 0;
  for (int scale = 1; scale <= 100000; scale *= 10) {
    for (int m : {1, 2, 5}) {
      interval_ = m * scale;
      if (states * interval_ * dt >= kAutomaticHistorySpan) return;
    }
  }
}

}  // namespace ductile::studio
