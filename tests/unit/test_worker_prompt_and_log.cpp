#include "harness/worker/output_log.hpp"
#include "harness/worker/prompt.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

#include <filesystem>
#include <unistd.h>

using namespace harness::worker;
namespace fs = std::filesystem;

TEST_CASE("render_template fills every placeholder and tolerates inner blanks") {
  auto r = render_template("Session {{session_id}} runs {{ task_id }}.\n{{task_json}}",
                           {{"session_id", "s1"}, {"task_id", "execute:01-01"}, {"task_json", "{}"}});
  REQUIRE(r);
  CHECK(*r == "Session s1 runs execute:01-01.\n{}");
}

TEST_CASE("render_template refuses a placeholder without a value and names its line") {
  auto r = render_template("a\nb {{missing}}", {});
  REQUIRE_FALSE(r);
  CHECK(r.error() == "line 2: no value for placeholder {{missing}}");
}

TEST_CASE("OutputLog writes everything to its file and keeps a bounded tail in memory") {
  std::string tmpl = (fs::temp_directory_path() / "harness-log-XXXXXX").string();
  fs::path dir = ::mkdtemp(tmpl.data());
  {
    OutputLog log(dir / "s" / "output.log", 64);
    for (int i = 0; i < 100; ++i) log.append("line " + std::to_string(i) + "\n");
    log.append("partial");
    CHECK(log.file_ok());
    CHECK(log.tail(2) == "line 99\npartial");
    CHECK(log.total_bytes() > 64);
  }
  CHECK(tail_file(dir / "s" / "output.log", 3) == "line 98\nline 99\npartial");
  CHECK(tail_file(dir / "s" / "output.log", 1000).starts_with("line 0\n"));
  CHECK(tail_file(dir / "absent.log", 3).empty());
  fs::remove_all(dir);
}

TEST_CASE("OutputLog says why its file misses output, and keeps the tail in memory") {
  // /dev/full takes the open and refuses every write, as a full disk does (review II F9).
  OutputLog full("/dev/full");
  REQUIRE(full.file_ok());
  CHECK(full.write_error().empty());
  full.append("mkdir: cannot create directory 'out': No space left on device\n");
  CHECK(full.write_error() == "No space left on device");
  CHECK(full.tail(5).find("No space left on device") != std::string::npos);
  // A chunk larger than the stream's buffer fails in the write itself (review LL F4).
  OutputLog big("/dev/full");
  big.append(std::string(256 * 1024, 'x'));
  CHECK(big.write_error() == "No space left on device");
  OutputLog missing("/proc/no-such-dir/output.log");
  CHECK_FALSE(missing.file_ok());
  CHECK_FALSE(missing.write_error().empty());
}

TEST_CASE("OutputLog stops writing its file at the cap, and ends it with the output's last part") {
  std::string tmpl = (fs::temp_directory_path() / "harness-log-XXXXXX").string();
  fs::path dir = ::mkdtemp(tmpl.data());
  {
    OutputLog log(dir / "output.log", 32, 100);
    int i = 0;
    for (; log.total_bytes() <= 100; ++i) log.append("line " + std::to_string(i) + "\n");
    {
      // Read while the worker runs (harness_get_output): the end so far is below the note already.
      std::ifstream now(dir / "output.log");
      const std::string so_far((std::istreambuf_iterator<char>(now)), std::istreambuf_iterator<char>());
      CHECK(so_far.ends_with("line " + std::to_string(i - 1) + "\n"));
    }
    for (; i < 1000; ++i) log.append("line " + std::to_string(i) + "\n");
    CHECK(log.total_bytes() > 5000);
    CHECK(log.tail(1) == "line 999\n");
  }
  std::ifstream in(dir / "output.log");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.starts_with("line 0\nline 1\n"));
  CHECK(text.find("[harness: output.log keeps the output's first 100 bytes and, below this line, its last part") !=
        std::string::npos);
  CHECK(text.find("line 500\n") == std::string::npos); // the middle is left out
  CHECK(text.ends_with("line 999\n"));
  CHECK(text.size() < 400);
  const std::string below = text.substr(text.find("rewritten as the worker goes on]\n") + 33);
  CHECK(below.starts_with("line ")); // whole lines below the note
  fs::remove_all(dir);
}
