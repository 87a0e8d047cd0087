// "Did you mean" suggestions for misspelt keys, names and values in scene files and overrides.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ductile::scene {

/// The optimal string alignment distance between a and b: the number of insertions, deletions, substitutions
/// and transpositions of adjacent characters that turn one into the other. Case-sensitive. O(|a|·|b|).
int EditDistance(std::string_view a, std::string_view b);

/// The candidate closest to `word` when it is within 2 edits and fewer edits than its own length (so a short
/// word is not suggested for an unrelated one); the first of equally close ones; empty when none is close.
std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates);

/// "; did you mean 'x'?" for the closest candidate, or an empty string.
std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates);

/// The candidates joined with ", ", e.g. "box, sphere, cylinder".
std::string JoinNames(const std::vector<std::string>& names);

}  // namespace ductile::scene
