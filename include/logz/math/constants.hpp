// Constants of the normalising constants of the base densities, to double precision.
#pragma once

namespace logz {

inline constexpr double kLog2 = 0.69314718055994530942;   // log 2
inline constexpr double kLog2Pi = 1.8378770664093454836;  // log(2 pi)

}  // namespace logz
