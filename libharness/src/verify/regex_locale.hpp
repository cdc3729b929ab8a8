#pragma once
// Internal: make std::regex safe to build on several threads at once.
//
// libstdc++'s ctype<char>::narrow(char, char) fills a per-facet cache lazily, one character at a
// time, and std::regex's scanner narrows every pattern character through the global locale's
// facet: two threads building a regex for the first time write the same cache unsynchronized
// (GCC bug 77704; ThreadSanitizer reports it). Filling the whole cache once, before the first
// regex, leaves nothing for narrow() to write.

namespace harness::verify::detail {

/// Fills the global locale's ctype<char> narrow cache; call before building any std::regex.
/// Cheap after the first call, and safe from any thread (a function-local static).
void prepare_regex_locale();

} // namespace harness::verify::detail
