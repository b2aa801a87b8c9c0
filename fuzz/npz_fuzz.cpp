// .npz archives: io::read_npz on the input written to a temporary file, then io::read_npz_array
// for every key found (and for one that is not there), and for an accepted archive the round
// trip through io::write_npz: writing what was read and reading it back gives the same arrays.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "logz/io/npy.hpp"
#include "logz/io/npz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace logz;
  const fuzz::TempFile file("npz", ".npz", data, size);
  std::map<std::string, io::Array> arrays;
  if (!fuzz::accepts([&] { arrays = io::read_npz(file.path()); })) {
    // A member may still be readable on its own when another one is not.
    fuzz::accepts([&] { io::read_npz_array(file.path(), "x"); });
    return 0;
  }
  for (const auto& entry : arrays) {
    const std::string& key = entry.first;  // not a structured binding: clang 14 cannot capture one
    io::Array one;
    // Another member "key" (no .npy) is looked up after "key.npy": either may be found.
    if (fuzz::accepts([&] { one = io::read_npz_array(file.path(), key); })) {
      (void)io::encode_npy(one);
    }
  }
  fuzz::check(!fuzz::accepts([&] { io::read_npz_array(file.path(), "no such key\x01"); }),
              "a key that is not in the archive is an InputError");

  const std::string copy = file.path() + ".copy.npz";
  for (const bool compress : {false, true}) {
    if (!fuzz::accepts([&] { io::write_npz(copy, arrays, compress); }))
      continue;  // e.g. an empty key
    std::map<std::string, io::Array> back;
    const bool ok = fuzz::accepts([&] { back = io::read_npz(copy); });
    std::remove(copy.c_str());
    fuzz::check(ok, "read_npz reads what write_npz wrote");
    fuzz::check(back.size() == arrays.size(), "write_npz then read_npz keeps every array");
    for (const auto& [key, array] : arrays) {
      const auto it = back.find(key);
      fuzz::check(it != back.end() && io::encode_npy(it->second) == io::encode_npy(array),
                  "write_npz then read_npz keeps every array as it was");
    }
  }
  return 0;
}
