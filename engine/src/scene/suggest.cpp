#include "scene/suggest.h"

#include <algorithm>

namespace ductile::scene {

int EditDistance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  // d[i][j]: distance between the first i characters of a and the first j of b.
  std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1, 0));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = static_cast<int>(i);
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const int substitution = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates) {
  constexpr int kMaxEdits = 2;
  std::string best;
  int best_distance = kMaxEdits + 1;
  for (const std::string& candidate : candidates) {
    const int distance = EditDistance(word, candidate);
    if (distance < best_distance && distance < static_cast<int>(candidate.size())) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string match = ClosestMatch(word, candidates);
  return match.empty() ? std::string() : "; did you mean '" + match + "'?";
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string joined;
  for (const std::string& name : names) joined += (joined.empty() ? "" : ", ") + name;
  return joined;
}

}  // namespace ductile::scene
