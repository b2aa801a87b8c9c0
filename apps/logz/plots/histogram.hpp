// The binning of work values into a histogram of densities, for the work histogram plot.
#pragma once

#include <cstddef>
#include <vector>

namespace logz::plots {

struct Histogram {
  double lo = 0.0, width = 1.0;  // bin i spans [lo + i width, lo + (i + 1) width)
  std::vector<double> density;   // count / (n * width): two directions compare as densities
  std::size_t n = 0;             // finite values binned
};

// Bin width from the Freedman-Diaconis rule (2 IQR / n^(1/3)), with 6 to 60 bins over the
// range of the finite values of `x` (the rest are dropped). Each direction gets its own bins,
// since forward and reverse works may lie far apart and differ in spread.
Histogram make_histogram(std::vector<double> x);

}  // namespace logz::plots
