#include "scene/suggest.h"

#include <gtest/gtest.h>

namespace ductile::scene {
namespace {

TEST(Suggest, EditDistanceCountsTranspositionsAsOneEdit) {
  EXPECT_EQ(EditDistance("dt", "dt"), 0);
  EXPECT_EQ(EditDistance("youngs_modulu", "youngs_modulus"), 1);
  EXPECT_EQ(EditDistance("desnity", "density"), 1);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3);
  EXPECT_EQ(EditDistance("", "abc"), 3);
}

TEST(Suggest, ClosestMatchWithinTwoEdits) {
  const std::vector<std::string> keys{"h", "domain", "boundary"};
  EXPECT_EQ(ClosestMatch("domian", keys), "domain");
  EXPECT_EQ(ClosestMatch("boundry", keys), "boundary");
  EXPECT_EQ(ClosestMatch("resolution", keys), "");
  // "x" is one edit from "h", but replacing the whole key is not a suggestion.
  EXPECT_EQ(ClosestMatch("x", keys), "");
  EXPECT_EQ(DidYouMean("domian", keys), "; did you mean 'domain'?");
  EXPECT_EQ(DidYouMean("zzz", keys), "");
  EXPECT_EQ(JoinNames(keys), "h, domain, boundary");
}

}  // namespace
}  // namespace ductile::scene
