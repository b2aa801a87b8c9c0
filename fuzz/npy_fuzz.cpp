// .npy files: io::parse_npy on the bytes, io::read_npy on the same bytes as a file (its
// streaming path, sized by fstat), and, for an accepted file, the round trip through
// io::encode_npy: re-encoding what was read must give the same image again.
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "fuzz_common.hpp"
#include "logz/io/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace logz;
  const std::span<const unsigned char> bytes(data, size);
  io::Array parsed;
  const bool ok = fuzz::accepts([&] { parsed = io::parse_npy(bytes, "fuzz.npy"); });

  const fuzz::TempFile file("npy", ".npy", data, size);
  io::Array read;
  const bool read_ok = fuzz::accepts([&] { read = io::read_npy(file.path()); });
  fuzz::check(ok == read_ok, "parse_npy and read_npy agree on accepting a file");
  if (!ok) return 0;
  fuzz::check(parsed.shape == read.shape && parsed.dtype() == read.dtype(),
              "parse_npy and read_npy read the same shape and dtype");

  const std::vector<unsigned char> image = io::encode_npy(parsed);
  fuzz::check(io::encode_npy(read) == image, "parse_npy and read_npy read the same data");
  const io::Array again = io::parse_npy(image, "round-trip.npy");  // must not throw
  fuzz::check(io::encode_npy(again) == image,
              "encode_npy(parse_npy(encode_npy(a))) == encode_npy(a)");
  (void)parsed.to_doubles();
  return 0;
}
