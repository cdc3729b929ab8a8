#pragma once
// A process started with its standard input, output or error closed (`harness-cli ... >&-`) gives
// the next file it opens that number: the run's event loop took descriptor 1, and every line of
// output went into it (review II F7). Each closed one is held by /dev/null opened for reading, so
// that the descriptor stays taken and a write to it still fails with EBADF, as it would closed.

namespace harness::util {

/// Opens /dev/null read-only on each of descriptors 0, 1 and 2 that is closed. Call first in main.
void hold_closed_standard_fds();

} // namespace harness::util
