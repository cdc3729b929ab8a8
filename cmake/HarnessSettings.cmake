# Settings and warnings as INTERFACE targets, linked PRIVATE by every harness target.
set(CMAKE_CXX_STANDARD 23)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)

add_library(harness_settings INTERFACE)
target_compile_features(harness_settings INTERFACE cxx_std_23)
target_compile_definitions(harness_settings INTERFACE
  $<$<CONFIG:Debug>:_GLIBCXX_ASSERTIONS>
  BOOST_ASIO_NO_DEPRECATED)
target_link_libraries(harness_settings INTERFACE Threads::Threads)

add_library(harness_warnings INTERFACE)
target_compile_options(harness_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align -Woverloaded-virtual
  -Wnull-dereference -Wimplicit-fallthrough
  # Optimized builds inline Boost.Asio and libstdc++ into our code, where GCC 12 reports null
  # dereferences and overlapping copies that cannot happen (over a hundred lines in a user's
  # first build). The -Werror builds (Debug, sanitizers) keep both warnings.
  $<$<AND:$<CXX_COMPILER_ID:GNU>,$<NOT:$<CONFIG:Debug>>>:-Wno-null-dereference -Wno-restrict>
  $<$<BOOL:${HARNESS_WERROR}>:-Werror>)

if(HARNESS_SANITIZE)
  string(REPLACE ";" "," _harness_san "${HARNESS_SANITIZE}")
  target_compile_options(harness_settings INTERFACE -fsanitize=${_harness_san} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(harness_settings INTERFACE -fsanitize=${_harness_san})
endif()
