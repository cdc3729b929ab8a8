#include "harness/util/atomic_file.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using harness::util::read_file;
using harness::util::write_file_atomic;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "harness-util-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

} // namespace

TEST_CASE("write_file_atomic creates parent directories and writes the content") {
  TempDir dir;
  const auto file = dir.path / "a" / "b" / "state.json";
  REQUIRE(write_file_atomic(file, "{\"x\":1}\n"));
  REQUIRE(read_file(file).value() == "{\"x\":1}\n");
}

TEST_CASE("write_file_atomic replaces existing content and leaves no temporary file") {
  TempDir dir;
  const auto file = dir.path / "f.txt";
  REQUIRE(write_file_atomic(file, "old"));
  REQUIRE(write_file_atomic(file, "new content"));
  CHECK(read_file(file).value() == "new content");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path)) ++entries;
  CHECK(entries == 1);
}

TEST_CASE("write_file_atomic fails cleanly and keeps the old file when the target is a directory") {
  TempDir dir;
  const auto target = dir.path / "taken";
  fs::create_directory(target);
  std::ofstream(target / "keep") << "x";
  auto r = write_file_atomic(target, "data");
  REQUIRE_FALSE(r);
  // The file the caller named, not the temporary one, which is gone by now.
  CHECK(r.error() == target.string() + ": rename: Is a directory");
  CHECK(fs::is_directory(target));
  CHECK(fs::exists(target / "keep"));
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path)) ++entries;
  CHECK(entries == 1); // the temporary file was removed
}

TEST_CASE("read_file reports a missing file with its path") {
  auto r = read_file("/nonexistent/harness/file");
  REQUIRE_FALSE(r);
  CHECK(r.error().find("/nonexistent/harness/file") != std::string::npos);
}

TEST_CASE("read_file reports a read that fails after the open, instead of throwing", "[util]") {
  // A directory opens and then fails to read (EISDIR), as a /proc file of a process that just
  // ended fails with ESRCH: the stream-based version threw basic_filebuf::underflow.
  TempDir dir;
  auto r = read_file(dir.path);
  REQUIRE_FALSE(r);
  CHECK(r.error().find(dir.path.string()) != std::string::npos);
  CHECK(r.error().find("directory") != std::string::npos);
  // A whole file, larger than one read.
  const std::string big(200000, 'x');
  REQUIRE(write_file_atomic(dir.path / "big", big));
  CHECK(read_file(dir.path / "big").value_or("") == big);
}

TEST_CASE("stale temporary files of killed writers are removed, nothing else", "[util]") {
  TempDir dir;
  fs::create_directories(dir.path / "a/b");
  for (const char* f : {"a/.SUMMARY.md.tmp-Ab12Cd", "a/b/.STATUS.md.tmp-zzzzzz", "a/SUMMARY.md", "a/.keep",
                        "a/notes.tmp-123456", "a/.x.tmp-toolong1"})
    std::ofstream(dir.path / f) << "x";
  CHECK(harness::util::remove_stale_temp_files(dir.path) == 2);
  CHECK_FALSE(fs::exists(dir.path / "a/.SUMMARY.md.tmp-Ab12Cd"));
  CHECK_FALSE(fs::exists(dir.path / "a/b/.STATUS.md.tmp-zzzzzz"));
  for (const char* f : {"a/SUMMARY.md", "a/.keep", "a/notes.tmp-123456", "a/.x.tmp-toolong1"}) CHECK(fs::exists(dir.path / f));
}

TEST_CASE("write_file_atomic writes through a symbolic link and keeps a file's permissions") {
  TempDir dir;
  fs::create_directories(dir.path / "shared");
  const auto target = dir.path / "shared" / "ROADMAP.md";
  REQUIRE(write_file_atomic(target, "old"));
  fs::create_directories(dir.path / "spec");
  const auto link = dir.path / "spec" / "ROADMAP.md";
  fs::create_symlink("../shared/ROADMAP.md", link);
  REQUIRE(write_file_atomic(link, "new"));
  CHECK(fs::is_symlink(link));
  CHECK(fs::read_symlink(link) == "../shared/ROADMAP.md");
  CHECK(read_file(target).value() == "new");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path / "spec")) ++entries;
  CHECK(entries == 1); // no temporary file left beside the link
  const auto script = dir.path / "run.sh";
  REQUIRE(write_file_atomic(script, "#!/bin/sh\n"));
  fs::permissions(script, fs::perms(0750));
  REQUIRE(write_file_atomic(script, "#!/bin/sh\necho hi\n"));
  struct stat st {};
  REQUIRE(::stat(script.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0750);
}

TEST_CASE("write_file_atomic gives a new file 0666 less the umask", "[util]") {
  // Review II F10: every new document was 0644, also under umask 077.
  TempDir dir;
  auto mode_of = [](const fs::path& p) {
    struct stat st {};
    REQUIRE(::stat(p.c_str(), &st) == 0);
    return st.st_mode & 07777;
  };
  const mode_t before = ::umask(077);
  const bool written = write_file_atomic(dir.path / "private.md", "x").has_value();
  ::umask(022);
  const bool written_usual = write_file_atomic(dir.path / "usual.md", "x").has_value();
  ::umask(before);
  REQUIRE(written);
  REQUIRE(written_usual);
  CHECK(mode_of(dir.path / "private.md") == 0600);
  CHECK(mode_of(dir.path / "usual.md") == 0644);
}

TEST_CASE("write_file_atomic refuses a link in a repository that leads out of it, and writes nothing", "[util]") {
  TempDir dir;
  fs::create_directories(dir.path / "project" / ".git");
  fs::create_directories(dir.path / "project" / "spec" / "phases");
  REQUIRE(write_file_atomic(dir.path / "project" / "spec" / "SPEC.md", "# a spec\n"));
  fs::create_directories(dir.path / "outside" / "dir");
  const auto victim = dir.path / "outside" / "bashrc";
  REQUIRE(write_file_atomic(victim, "mine\n"));
  // The file itself a link (STATUS.md -> ~/.bashrc), and a directory on the way (phases/01 -> ~).
  const auto status = dir.path / "project" / "spec" / "STATUS.md";
  fs::create_symlink(victim, status);
  auto refused = write_file_atomic(status, "run: complete\n");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().find("STATUS.md: not written: a symbolic link leads this spec document to " + victim.string() +
                             ", outside the repository") != std::string::npos);
  fs::create_directory_symlink(dir.path / "outside" / "dir", dir.path / "project" / "spec" / "phases" / "01");
  CHECK_FALSE(write_file_atomic(dir.path / "project" / "spec" / "phases" / "01" / "01-01-SUMMARY.md", "x"));
  CHECK(read_file(victim).value() == "mine\n");
  CHECK(fs::is_empty(dir.path / "outside" / "dir"));
  // A link within the repository is followed, and outside any repository links are yours.
  const auto inside = dir.path / "project" / "shared.md";
  REQUIRE(write_file_atomic(inside, "a"));
  fs::create_symlink("../shared.md", dir.path / "project" / "spec" / "ROADMAP.md");
  CHECK(write_file_atomic(dir.path / "project" / "spec" / "ROADMAP.md", "b"));
  CHECK(read_file(inside).value() == "b");
  fs::create_symlink(victim, dir.path / "loose-link");
  CHECK(write_file_atomic(dir.path / "loose-link", "yours\n"));
  // Outside a spec directory a link of the repository is the user's (a dotfile-managed
  // .claude/, .orchestration/ kept outside the checkout): followed.
  fs::create_directory_symlink(dir.path / "outside" / "dir", dir.path / "project" / ".claude");
  CHECK(write_file_atomic(dir.path / "project" / ".claude" / "settings.json", "{}"));
  CHECK(read_file(dir.path / "outside" / "dir" / "settings.json").value() == "{}");
}
