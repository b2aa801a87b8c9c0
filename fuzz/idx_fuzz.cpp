// IDX images and labels, raw and gzipped. The input is split in two: a 4-byte little-endian
// length L, then L bytes of the images file and the rest as the labels file (an input too
// short for its L is all images, with no labels). io::parse_idx reads the two parts as
// they are; io::read_idx reads them as files through io::read_maybe_gzipped, which gunzips a
// gzip stream (fuzz/corpus/idx has gzipped seeds) and passes plain bytes through.
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "fuzz_common.hpp"
#include "logz/io/mnist.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace logz;
  std::span<const unsigned char> images(data, size), labels;
  if (size >= 4) {
    std::uint32_t length = 0;
    for (int i = 3; i >= 0; --i) length = (length << 8) | data[i];
    if (length <= size - 4) {
      images = std::span<const unsigned char>(data + 4, length);
      labels = std::span<const unsigned char>(data + 4 + length, size - 4 - length);
    }
  }
  io::Dataset d;
  if (fuzz::accepts([&] { d = io::parse_idx(images, "images.idx", labels, "labels.idx"); })) {
    fuzz::check(d.pixels.size() == d.num_images * d.rows * d.cols, "one byte per pixel");
    fuzz::check(d.labels.empty() || d.labels.size() == d.num_images, "one label per image");
    if (d.pixels.size() <= 4096) (void)d.grey_levels();
  }

  const fuzz::TempFile image_file("idx-images", ".idx", images.data(), images.size());
  const fuzz::TempFile label_file("idx-labels", ".idx", labels.data(), labels.size());
  fuzz::accepts([&] { io::read_maybe_gzipped(image_file.path()); });
  io::Dataset r;
  if (fuzz::accepts(
          [&] { r = io::read_idx(image_file.path(), labels.empty() ? "" : label_file.path()); })) {
    fuzz::check(r.pixels.size() == r.num_images * r.rows * r.cols, "one byte per pixel (read_idx)");
    fuzz::check(r.labels.empty() || r.labels.size() == r.num_images,
                "one label per image (read_idx)");
  }
  return 0;
}
