// Emscripten 3.1.6 (Debian 12's emscripten) ships a libc++ without C++20's
// std::bit_cast. The WebAssembly build force-includes this header
// (CMakeLists.txt) so that occam's sources compile unchanged; it adds
// nothing where the standard library has it.
#pragma once

#include <bit>
#include <version>

#if defined(_LIBCPP_VERSION) && !defined(__cpp_lib_bit_cast)
namespace std {
template <class To, class From>
constexpr To bit_cast(const From& from) noexcept {
  return __builtin_bit_cast(To, from);
}
}  // namespace std
#endif
