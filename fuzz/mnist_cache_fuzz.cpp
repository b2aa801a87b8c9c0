// The .npz cache of the MNIST digits (io::read_mnist_cache, docs/data.md): the input written
// to a temporary file and read as the cache; an accepted cache must be a consistent Dataset.
#include <cstdint>

#include "fuzz_common.hpp"
#include "logz/io/mnist.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace logz;
  const fuzz::TempFile file("mnist-cache", ".npz", data, size);
  io::Dataset d;
  if (fuzz::accepts([&] { d = io::read_mnist_cache(file.path()); })) {
    fuzz::check(d.pixels.size() == d.num_images * d.rows * d.cols, "one byte per pixel");
    fuzz::check(d.labels.empty() || d.labels.size() == d.num_images, "one label per image");
    if (d.pixels.size() <= 4096) (void)d.grey_levels();
  }
  return 0;
}
