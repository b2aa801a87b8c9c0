// The names of enumerations come from their spelling (LOGZ_NAMED_ENUM): they round-trip, and a
// wrong name is an InvalidArgument that lists the right ones.
#include "logz/core/enum_names.hpp"

#include <gtest/gtest.h>

#include "logz/kernels/site_order.hpp"
#include "logz/models/linear_generative.hpp"
#include "logz/samplers/hmc_sampler.hpp"

namespace logz {

// The macro specialises logz::EnumNames, so it stands at namespace logz scope.
LOGZ_NAMED_ENUM(EnumNamesTestSpaced, first, second, third_one);

namespace {

using Spaced = EnumNamesTestSpaced;

TEST(EnumNames, NamesAreTheEnumeratorsSpelling) {
  EXPECT_EQ(to_string(SiteOrder::checkerboard), "checkerboard");
  EXPECT_EQ(to_string(AdaptPhase::burn_in), "burn_in");
  EXPECT_EQ(to_string(PriorType::laplace), "laplace");
  EXPECT_EQ(EnumNames<AdaptPhase>::names.size(), 3u);
}

TEST(EnumNames, SpacesAroundNamesAreDropped) {
  EXPECT_EQ(to_string(Spaced::first), "first");
  EXPECT_EQ(to_string(Spaced::second), "second");
  EXPECT_EQ(to_string(Spaced::third_one), "third_one");
}

TEST(EnumNames, ParseRoundTrips) {
  for (AdaptPhase p : {AdaptPhase::burn_in, AdaptPhase::always, AdaptPhase::never})
    EXPECT_EQ(parse_enum<AdaptPhase>(to_string(p)), p);
  EXPECT_EQ(parse_enum<Spaced>("third_one"), Spaced::third_one);
}

TEST(EnumNames, UnknownNameListsTheNames) {
  try {
    parse_enum<AdaptPhase>("sometimes");
    FAIL() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(R"("burn_in", "always" or "never", got "sometimes")"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(parse_enum<SiteOrder>(""), InvalidArgument);
  EXPECT_THROW(parse_enum<SiteOrder>("Random"), InvalidArgument);
}

}  // namespace
}  // namespace logz
