#include "harness/util/glob.hpp"

#include <catch2/catch.hpp>

using namespace harness::util;

TEST_CASE("glob_match handles stars within a segment and double stars across segments") {
  CHECK(glob_match("src/auth/login.ts", "src/auth/login.ts"));
  CHECK(glob_match("src/*.ts", "src/a.ts"));
  CHECK_FALSE(glob_match("src/*.ts", "src/auth/a.ts"));
  CHECK(glob_match("src/**", "src/auth/a.ts"));
  CHECK(glob_match("src/**", "src"));
  CHECK(glob_match("src/**/*.ts", "src/a.ts"));
  CHECK(glob_match("src/**/*.ts", "src/x/y/a.ts"));
  CHECK_FALSE(glob_match("src/**/*.ts", "lib/a.ts"));
  CHECK(glob_match("**/test_*.py", "tests/app/test_core.py"));
  CHECK(glob_match("a?c", "abc"));
  CHECK(glob_match("file[0-9].txt", "file7.txt"));
  CHECK_FALSE(glob_match("file[!0-9].txt", "file7.txt"));
  CHECK(glob_match("a//b", "a/b"));
}

TEST_CASE("a pattern covers what lies below the directory it names, as a git pathspec does") {
  CHECK(glob_match("app/tasks", "app/tasks/model.py"));
  CHECK(glob_match("app/tasks", "app/tasks"));
  CHECK(glob_match("app/*", "app/tasks/model.py"));
  CHECK_FALSE(glob_match("app/tasks", "app/tasks2/model.py"));
  CHECK_FALSE(glob_match("app/tasks/model.py", "app/tasks/other.py"));
  CHECK(globs_overlap("app/tasks", "app/tasks/model.py"));
  CHECK(globs_overlap("app/tasks/model.py", "app/tasks"));
  CHECK_FALSE(globs_overlap("app/tasks", "app/tasks2"));
  CHECK_FALSE(globs_overlap("src/a.ts", "src/b.ts"));
}

TEST_CASE("globs_overlap is exact for literals and the common wildcard shapes") {
  CHECK(globs_overlap("src/auth/**", "src/auth/login.ts"));
  CHECK(globs_overlap("src/auth/login.ts", "src/auth/**"));
  CHECK_FALSE(globs_overlap("src/auth/**", "src/profile/page.ts"));
  CHECK_FALSE(globs_overlap("src/*.ts", "src/*.js"));
  CHECK(globs_overlap("src/*.ts", "src/a*"));
  CHECK(globs_overlap("**/*.ts", "src/x/y.ts"));
  CHECK(globs_overlap("**", "anything/at/all"));
  CHECK_FALSE(globs_overlap("a/b.txt", "a/c.txt"));
  CHECK(globs_overlap("a/b.txt", "a/b.txt"));
  CHECK_FALSE(globs_overlap("docs/*.md", "src/**"));
}

TEST_CASE("glob_error rejects empty patterns, unclosed classes and glued double stars") {
  CHECK_FALSE(glob_error("src/**/*.ts"));
  CHECK_FALSE(glob_error("a[]]b"));
  CHECK(glob_error("").value() == "empty pattern");
  CHECK(glob_error("src/[abc").value() == "unclosed '[' at column 5");
  CHECK(glob_error("src/a**/b").value().find("whole path segment") != std::string::npos);
}

TEST_CASE("a path spelled exactly like the pattern matches it, brackets included, as a git pathspec does") {
  // Next.js dynamic routes: the directory is literally named `[id]`.
  CHECK(glob_match("app/posts/[id]/page.tsx", "app/posts/[id]/page.tsx"));
  CHECK(glob_match("app/posts/[id]", "app/posts/[id]/page.tsx"));
  CHECK(glob_match("app/[...slug]/page.tsx", "app/[...slug]/page.tsx"));
  CHECK(glob_match("app/posts/[id]/page.tsx", "app/posts/i/page.tsx")); // still a class too, as in git
  CHECK_FALSE(glob_match("app/posts/[id]/page.tsx", "app/posts/[id]/layout.tsx"));
  CHECK_FALSE(glob_match("app/posts/[id]/page.tsx", "app/posts/[id]x/page.tsx"));
  CHECK_FALSE(glob_match("app/posts/[id]", "app/posts/[id]x"));
}

TEST_CASE("globs_overlap stays exact for bracketed names") {
  CHECK(globs_overlap("app/posts/[id]/page.tsx", "app/posts/[id]/page.tsx"));
  CHECK(globs_overlap("app/posts/[id]/page.tsx", "app/posts/*/page.tsx"));
  CHECK(globs_overlap("app/posts/[id]/page.tsx", "app/**"));
  CHECK(globs_overlap("app/posts/[id]", "app/posts/[id]/page.tsx"));
  CHECK(globs_overlap("app/posts/[id]/page.tsx", "app/posts/i/page.tsx"));
  CHECK_FALSE(globs_overlap("app/posts/[id]/page.tsx", "app/posts/[id]/layout.tsx"));
  CHECK_FALSE(globs_overlap("app/posts/[id]/page.tsx", "app/posts/new/page.tsx"));
  CHECK_FALSE(globs_overlap("app/posts/[id]/page.tsx", "app/posts/[slug]/page.tsx"));
  CHECK_FALSE(globs_overlap("app/[id]/page.tsx", "app/[...slug]/page.tsx"));
  CHECK(globs_overlap("app/[locale]/page.tsx", "app/[...slug]/page.tsx")); // both accept `l`
  CHECK(globs_overlap("file[0-9].txt", "file[5-7].txt"));
  CHECK_FALSE(globs_overlap("file[0-4].txt", "file[5-7].txt"));
  CHECK(globs_overlap("a?c", "[ab]bc"));
}
