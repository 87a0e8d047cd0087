// Per-run sums of the simulator's step telemetry: what `ductile-cli run --stats` and `ductile-cli bench` report.
// Every channel of the telemetry table (ductile/telemetry.h) is summed up here; stats_json.cpp writes each
// channel's summaries under their JSON keys.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "ductile/telemetry.h"

namespace ductile::cli {

struct StepStatistics {
  /// One channel's figures over the steps that had it.
  struct Channel {
    std::int64_t steps = 0;  ///< Steps that had the channel.
    double sum = 0;
    double max = -std::numeric_limits<double>::infinity();
    double min = std::numeric_limits<double>::infinity();
    std::int64_t steps_false = 0;  ///< Steps whose value was 0.
  };

  std::vector<double> step_ms;  ///< Wall time of every step [ms] (for the median).
  std::vector<Channel> channels = std::vector<Channel>(TelemetryChannels().size());  ///< Per TelemetryChannels().

  void Add(const StepTelemetry& t) {
    step_ms.push_back(t.wall_ms);
    const std::vector<TelemetryChannel>& table = TelemetryChannels();
    for (std::size_t c = 0; c < table.size(); ++c) {
      if (!table[c].In(t)) continue;
      const double x = table[c].read(t);
      Channel& s = channels[c];
      ++s.steps;
      s.sum += x;
      s.max = std::max(s.max, x);
      s.min = std::min(s.min, x);
      if (x == 0) ++s.steps_false;
    }
  }

  std::size_t steps() const { return step_ms.size(); }
  /// The mean wall time of a step [ms] (the `wall_ms` channel's mean); 0 before the first step.
  double MeanStepMs() const { return Summary("wall_ms", ChannelStat::kMean); }
  /// `stat` of the channel `c` over the steps that had it (0 when none did); `substeps` for kMeanPerSubstep.
  double Summary(std::size_t c, ChannelStat stat, int substeps) const {
    const Channel& s = channels[c];
    if (s.steps == 0) return 0;
    switch (stat) {
      case ChannelStat::kMean:
        return s.sum / static_cast<double>(s.steps);
      case ChannelStat::kMeanPerSubstep:
        return s.sum / static_cast<double>(s.steps) / substeps;
      case ChannelStat::kMax:
        return s.max;
      case ChannelStat::kMin:
        return s.min;
      case ChannelStat::kStepsWhereFalse:
        return static_cast<double>(s.steps_false);
    }
    return 0;
  }
  /// The same for the channel `key`; throws std::logic_error when the table has none (a programming error).
  double Summary(const std::string& key, ChannelStat stat, int substeps = 1) const {
    const int c = FindTelemetryChannel(key);
    if (c < 0) throw std::logic_error("no telemetry channel '" + key + "'");
    return Summary(static_cast<std::size_t>(c), stat, substeps);
  }
};

}  // namespace ductile::cli
