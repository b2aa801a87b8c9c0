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
  const double lo = x.front(), hi = x.back(), range = hi - lo;
  if (!(range > 1e-12 * std::max(1.0, std::abs(lo)))) {
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
  const double iqr = quantile(0.75) - quantile(0.25);
  const double n = static_cast<double>(x.size());
  double bins = iqr > 0 ? std::ceil(range / (2 * iqr / std::cbrt(n))) : std::ceil(std::sqrt(n));
  bins = std::clamp(bins, 6.0, 60.0);
  const auto num_bins = static_cast<std::size_t>(bins);
  h.lo = lo;
  h.width = range / bins;
  std::vector<std::size_t> counts(num_bins, 0);
  for (double v : x) counts[std::min(num_bins - 1, static_cast<std::size_t>((v - lo) / h.width))]++;
  for (auto c : counts) h.density.push_back(static_cast<double>(c) / (n * h.width));
  return h;
}

}  // namespace logz::plots
