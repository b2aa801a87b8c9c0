// Work lists (logz estimate --forward/--reverse): io::read_numbers on the input written once as
// a text file (.txt: text, or .npy when it starts with the .npy magic) and once as a .npy file
// (always the .npy reader). Every number read must be finite, and there must be one at least.
#include <cmath>
#include <cstdint>
#include <vector>

#include "fuzz_common.hpp"
#include "logz/io/number_list.hpp"

namespace {

void read_as(const char* suffix, const std::uint8_t* data, std::size_t size) {
  using namespace logz;
  const fuzz::TempFile file("numbers", suffix, data, size);
  std::vector<double> v;
  if (fuzz::accepts([&] { v = io::read_numbers(file.path()); })) {
    fuzz::check(!v.empty(), "at least one number");
    for (double x : v) fuzz::check(std::isfinite(x), "finite numbers only");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  read_as(".txt", data, size);
  read_as(".npy", data, size);
  return 0;
}
