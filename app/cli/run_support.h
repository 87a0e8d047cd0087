// What `ductile-cli run` and `ductile-cli bench` share: loading a scene into a model, a progress line on the
// terminal, JSON string quoting, numbers in messages.
#pragma once

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ductile/model.h"
#include "ductile/scene.h"

namespace ductile::cli {

/// A number in a message: `digits` significant digits, no trailing zeros ("0.05", "1e-12", "4e+09").
inline std::string FormatNumber(double value, int digits = 6) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.*g", digits, value);
  return buf;
}

inline std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// A one-line progress report on a terminal's stderr, refreshed at most twice a second.
class Progress {
 public:
  /// A run from simulated time `start_time` to `end_time` [s]; `label` prefixes the line (e.g. the scene's name
  /// when several run in turn).
  Progress(double end_time, bool enabled, std::string label = "", double start_time = 0)
      : end_time_(end_time),
        start_time_(start_time),
        enabled_(enabled),
        label_(std::move(label)),
        start_(std::chrono::steady_clock::now()),
        last_(start_) {}

  void Update(double sim_time, double fraction) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(500)) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double remaining = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0;
    std::fprintf(stderr, "\r  %st = %.3f / %.3f s  (%3.0f%%)  %.4fx real time, about %.0f s left   ", label_.c_str(),
                 sim_time, end_time_, 100 * fraction, elapsed > 0 ? (sim_time - start_time_) / elapsed : 0.0,
                 remaining);
    shown_ = true;
  }

  void Finish() {
    if (shown_) std::fprintf(stderr, "\r%*s\r", 100, "");
  }

 private:
  double end_time_;
  double start_time_;
  bool enabled_;
  std::string label_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
};

inline std::shared_ptr<const Model> LoadModel(const std::string& scene, const std::vector<Override>& overrides) {
  return std::make_shared<const Model>(CompileModel(LoadScene(scene, overrides)));
}

}  // namespace ductile::cli
