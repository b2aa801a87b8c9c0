#pragma once
// Included first by every source dispatched with Highway's foreach_target (src/random/
// box_muller.cpp, src/math/*.cpp), before its HWY_TARGET_INCLUDE and Highway's headers.
// Highway 1.0.3 (Debian 12) leaves AVX3_DL out of the dispatched targets even when the build's
// own flags have it (-march=native on a processor with it), and then refuses to compile.
#ifndef HWY_WANT_AVX3_DL
#define HWY_WANT_AVX3_DL
#endif
