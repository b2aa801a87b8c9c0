// The dot product of two float arrays accumulated in double (each float product is exact in
// double), vectorised with Highway and dispatched at run time. The terms go into eight
// accumulator lanes (element i into lane i mod 8) whatever the vector width, summed at the end in
// one fixed order, so that every target with fused multiply-add gives the same bits.
#pragma once

#include <cstddef>

namespace logz {

double dot_in_double(const float* x, const float* y, std::size_t n);

}  // namespace logz
