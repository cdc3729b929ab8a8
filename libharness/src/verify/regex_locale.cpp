#include "regex_locale.hpp"

#include <locale>

namespace harness::verify::detail {

void prepare_regex_locale() {
  // The range form of narrow() runs ctype's _M_narrow_init, which writes the whole table; the
  // static's guard orders that write before every later reader on every thread.
  static const bool prepared = [] {
    const char in[1] = {'a'};
    char out[1];
    std::use_facet<std::ctype<char>>(std::locale()).narrow(in, in + 1, '\0', out);
    return true;
  }();
  (void)prepared;
}

} // namespace harness::verify::detail
