#include "histogram.hpp"

#include <algorithm>
#include <cmath>

namespace logz::plots {

Histogram make_histogram(std::vector<double> x) {
  x.erase(std::remove_if(x.begin(), x.end(), [](double v) { return !std::isfinite(v); }), x.end());
  std::sort(x.begin(), x.end());
  Histogram h;
  h.n = x.size();
  if (x.empty()) return h;
  // Differences are taken between halves: hi - lo overflows for values near +-1.8e308, and an
  // infinite range made a NaN bin count.
  const auto half_difference = [](double a, double b) { return a / 2 - b / 2; };
  const double lo = x.front(), hi = x.back(), half_range = half_difference(hi, lo);
  if (!(half_range > 0.5e-12 * std::max(1.0, std::abs(lo)))) {
    h.width = std::max(1e-3, 1e-3 * std::abs(lo));
    h.lo = lo - h.width / 2;
    h.density = {1.0 / h.width};
    return h;
  }
  auto quantile = [&](double q) {
    const double pos = q * static_cast<double>(x.size() - 1);
    const auto i = static_cast<std::size_t>(pos);
    const double frac = pos - static_cast<double>(i);
    return i + 1 < x.size() ? x[i] * (1 - frac) + x[i + 1] * frac : x[i];
  };
  const double half_iqr = half_difference(quantile(0.75), quantile(0.25));
  const double n = static_cast<double>(x.size());
  double bins = half_iqr > 0 ? std::ceil(half_range / (2 * half_iqr / std::cbrt(n)))
                             : std::ceil(std::sqrt(n));
  bins = std::isfinite(bins) ? std::clamp(bins, 6.0, 60.0) : 60.0;
  const auto num_bins = static_cast<std::size_t>(bins);
  h.lo = lo;
  const double half_width = half_range / bins;
  h.width = 2 * half_width;
  std::vector<std::size_t> counts(num_bins, 0);
  for (double v : x) {
    const double bin = std::floor(half_difference(v, lo) / half_width);
    counts[static_cast<std::size_t>(std::clamp(bin, 0.0, bins - 1))]++;
  }
  // Divided one at a time: n * width overflows for bins as wide as 1e307.
  for (auto c : counts) h.density.push_back(static_cast<double>(c) / n / h.width);
  return h;
}

}  // namespace logz::plots
