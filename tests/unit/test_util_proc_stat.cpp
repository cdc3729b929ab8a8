// /proc/PID/stat read one way for every module: state, process group, start time.
#include "harness/util/proc_stat.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

using namespace harness::util;

TEST_CASE("parse_proc_stat reads the fields after a command name with blanks and parentheses", "[util]") {
  const auto s = parse_proc_stat("4242 (my (odd) cmd) Z 1 777 777 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 98765 0 0");
  REQUIRE(s);
  CHECK(s->state == 'Z');
  CHECK(s->exited());
  CHECK(s->ppid == 1);
  CHECK(s->pgrp == 777);
  CHECK(s->start_ticks == 98765);
  CHECK_FALSE(parse_proc_stat("4242 (cmd) S 1 777"));   // cut short
  CHECK_FALSE(parse_proc_stat("no parenthesis at all"));
}

TEST_CASE("read_proc_stat reads this process and nothing for a pid that does not exist", "[util]") {
  const auto self = read_proc_stat(::getpid());
  REQUIRE(self);
  CHECK_FALSE(self->exited());
  CHECK(self->pgrp == ::getpgrp());
  CHECK(self->start_ticks > 0);
  CHECK_FALSE(read_proc_stat(0x3ffffff0)); // above pid_max
  CHECK_FALSE(read_proc_stat(0));
}
