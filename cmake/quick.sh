#!/usr/bin/env bash
# The README's two quick-start commands:
#   cmake/quick.sh demo   install what is missing, build (Release), run harness on the example spec
#   cmake/quick.sh test   install what is missing, build (Debug, ASan+UBSan, -Werror), run every test
# and two more for developers:
#   cmake/quick.sh tsan   the concurrent parts under ThreadSanitizer
#   cmake/quick.sh bench  Release build of tests/bench/, then every benchmark
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=${1:-demo}
jobs=${HARNESS_JOBS:-$(nproc)}

# A full disk shows up as a linker's "No space left on device" deep in a build: say it first.
warn_low_disk() { # MB needed
  local free_mb
  free_mb=$(df -Pm "$root" 2>/dev/null | awk 'NR == 2 {print $4}')
  if [[ -n "$free_mb" && "$free_mb" -lt "$1" ]]; then
    echo "quick.sh: warning: $free_mb MB free under $root; this build and its tests need about $1 MB" >&2
  fi
}

configure_build() { # dir, cmake args...
  local dir=$1; shift
  cmake -S "$root" -B "$root/$dir" -G Ninja "$@" >/dev/null
  cmake --build "$root/$dir" -j "$jobs"
}

case "$mode" in
  demo)
    warn_low_disk 1000
    "$root/cmake/install-deps.sh"
    configure_build build/release -DCMAKE_BUILD_TYPE=Release -DHARNESS_BUILD_TESTS=OFF -DHARNESS_BUILD_BENCH=OFF
    exec "$root/cmake/demo.sh" "$root/build/release/bin"
    ;;
  test)
    warn_low_disk 4000
    "$root/cmake/install-deps.sh" --test
    "$root/tests/setup.sh"
    configure_build build/asan -DCMAKE_BUILD_TYPE=Debug "-DHARNESS_SANITIZE=address;undefined" \
      -DHARNESS_WERROR=ON -DHARNESS_BUILD_BENCH=OFF
    cd "$root/build/asan"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      ctest --output-on-failure -j "$jobs" --timeout 900
    ;;
  tsan)
    "$root/cmake/install-deps.sh" --test
    "$root/tests/setup.sh"
    configure_build build/tsan -DCMAKE_BUILD_TYPE=Debug -DHARNESS_SANITIZE=thread -DHARNESS_BUILD_BENCH=OFF
    cd "$root/build/tsan"
    TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -j "$jobs" -L tsan --timeout 900
    ;;
  bench)
    "$root/cmake/install-deps.sh" --test
    configure_build build/release -DCMAKE_BUILD_TYPE=Release -DHARNESS_BUILD_TESTS=OFF -DHARNESS_BUILD_BENCH=ON
    for b in "$root"/build/release/bench/bench_*; do echo "== $(basename "$b")"; "$b"; done
    echo "== bench_history_start.sh"
    "$root/tests/bench/bench_history_start.sh" "$root/build/release/bin/harness-cli"
    echo "== bench_status_state.sh"
    "$root/tests/bench/bench_status_state.sh" "$root/build/release/bin/harness-cli"
    ;;
  *)
    echo "usage: cmake/quick.sh demo|test|tsan|bench" >&2
    exit 2
    ;;
esac
