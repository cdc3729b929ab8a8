#include "harness/setup/install.hpp"

#include "harness/spec/spec_identity.hpp"

#include "harness/util/atomic_file.hpp"
#include "harness/util/text.hpp"

#include <boost/json.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <iterator>
#include <map>
#include <vector>

namespace harness::setup {
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

SetupError invalid(std::string message) { return {std::move(message), true}; }
SetupError failed(std::string message) { return {std::move(message), false}; }

/// A stable fingerprint of a file's content (FNV-1a, 64 bits): enough to tell whether a file is
/// still what an install wrote, and the same in every build.
std::string fingerprint(std::string_view text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return fmt::format("{:016x}", h);
}

/// What earlier installs wrote, by project-relative path: `.claude/harness/installed.json`.
using Installed = std::map<std::string, std::string>;

fs::path installed_file(const fs::path& project) { return project / ".claude" / "harness" / "installed.json"; }

Installed read_installed(const fs::path& project) {
  Installed out;
  auto text = util::read_file(installed_file(project));
  if (!text) return out;
  boost::system::error_code ec;
  auto v = json::parse(*text, ec);
  if (ec || !v.is_object()) return out; // unreadable: as if nothing were recorded (old files get a backup)
  if (const auto* files = v.as_object().if_contains("files"); files && files->is_object())
    for (const auto& [k, h] : files->as_object())
      if (h.is_string()) out[std::string(k)] = std::string(h.as_string());
  return out;
}

/// Writes `content` to `dest` unless it already holds exactly that. A file that changed since an
/// install wrote it is a user's edit: it stays, the new version goes beside it. A differing file
/// no install recorded is saved beside before it is replaced.
std::expected<void, std::string> put(const fs::path& dest, const std::string& content, const fs::path& project,
                                     Installed& installed, InstallReport& report) {
  std::error_code ec;
  const auto rel = fs::relative(dest, project, ec).generic_string();
  auto old = util::read_file(dest);
  if (old && *old == content) {
    installed[rel] = fingerprint(content);
    report.unchanged.push_back(rel);
    return {};
  }
  if (old) {
    const auto recorded = installed.find(rel);
    if (recorded != installed.end() && recorded->second != fingerprint(*old)) {
      if (auto w = util::write_file_atomic(dest.string() + ".harness-new", content); !w) return std::unexpected(w.error());
      report.kept.push_back(rel);
      return {};
    }
    if (recorded == installed.end()) {
      if (auto w = util::write_file_atomic(dest.string() + ".harness-old", *old); !w) return std::unexpected(w.error());
      report.backed_up.push_back(rel);
    }
  }
  if (auto w = util::write_file_atomic(dest, content); !w) return std::unexpected(w.error());
  installed[rel] = fingerprint(content);
  report.written.push_back(rel);
  return {};
}

/// Every regular *.md file directly in `dir`, sorted.
std::vector<fs::path> markdown_in(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (std::error_code entry_ec; e.is_regular_file(entry_ec) && e.path().extension() == ".md") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

fs::path find_skills_dir(const fs::path& exe_dir, const fs::path& source_dir) {
  std::error_code ec;
  for (const auto& p : {exe_dir / ".." / "share" / "harness" / "skills", source_dir / "skills"})
    if (fs::is_directory(p / "commands" / "harness", ec)) return fs::weakly_canonical(p, ec);
  return {};
}

std::expected<std::string, std::string> merge_mcp_json(std::string_view existing, const fs::path& harness_mcp) {
  json::object root;
  if (existing.find_first_not_of(" \t\r\n") != std::string_view::npos) {
    boost::system::error_code ec;
    auto v = json::parse(existing, ec);
    if (ec) return std::unexpected("is not valid JSON: " + ec.message());
    if (!v.is_object()) return std::unexpected("is not a JSON object");
    root = std::move(v.as_object());
  }
  auto& servers = root["mcpServers"];
  if (servers.is_null()) servers = json::object{};
  if (!servers.is_object()) return std::unexpected("has an mcpServers that is not an object");
  servers.as_object()["harness"] = json::object{{"type", "stdio"}, {"command", harness_mcp.string()}, {"args", json::array{}}};
  // Pretty enough for people who edit the file by hand: one server per line.
  std::string out = "{\n";
  bool first = true;
  for (const auto& [k, v] : root) {
    out += fmt::format("{}  {}: ", first ? "" : ",\n", json::serialize(json::string(k)));
    first = false;
    if (k == "mcpServers" && v.is_object()) {
      out += "{\n";
      bool first_server = true;
      for (const auto& [name, server] : v.as_object()) {
        out += fmt::format("{}    {}: {}", first_server ? "" : ",\n", json::serialize(json::string(name)), json::serialize(server));
        first_server = false;
      }
      out += "\n  }";
    } else {
      out += json::serialize(v);
    }
  }
  return out + "\n}\n";
}

std::expected<InstallReport, SetupError> install_skills(const fs::path& skills_dir, const fs::path& project,
                                                        const fs::path& harness_mcp) {
  InstallReport report;
  std::error_code ec;
  if (!fs::is_directory(skills_dir / "commands" / "harness", ec))
    return std::unexpected(failed(fmt::format("{} holds no commands/harness/: not a harness skills directory", skills_dir.string())));
  if (!fs::is_directory(project, ec)) return std::unexpected(invalid(fmt::format("{} is not a directory", project.string())));
  // Check .mcp.json first: a file we cannot merge stops everything, before anything is written.
  const auto mcp_file = project / ".mcp.json";
  const auto existing = fs::exists(mcp_file, ec) ? util::read_file(mcp_file) : std::expected<std::string, std::string>("");
  if (!existing) return std::unexpected(failed(existing.error()));
  auto merged = merge_mcp_json(*existing, harness_mcp);
  if (!merged) return std::unexpected(invalid(fmt::format("{} {}; fix or remove it, nothing was changed", mcp_file.string(), merged.error())));

  const std::pair<fs::path, fs::path> copies[] = {
      {skills_dir / "commands" / "harness", project / ".claude" / "commands" / "harness"},
      {skills_dir / "agents", project / ".claude" / "agents"},
      {skills_dir / "templates", project / ".claude" / "harness" / "templates"},
      {skills_dir / "references", project / ".claude" / "harness" / "references"},
  };
  Installed installed = read_installed(project);
  for (const auto& [from, to] : copies)
    for (const auto& f : markdown_in(from)) {
      auto text = util::read_file(f);
      if (!text) return std::unexpected(failed(text.error()));
      if (auto r = put(to / f.filename(), *text, project, installed, report); !r) return std::unexpected(failed(r.error()));
    }
  // .mcp.json is merged, not owned: its other servers and keys are the user's and stay.
  if (*existing == *merged) report.unchanged.push_back(".mcp.json");
  else if (auto w = util::write_file_atomic(mcp_file, *merged); !w) return std::unexpected(failed(w.error()));
  else report.written.push_back(".mcp.json");
  json::object files;
  for (const auto& [k, h] : installed) files[k] = h;
  const std::string record = json::serialize(json::object{{"files", std::move(files)}}) + "\n";
  if (auto old = util::read_file(installed_file(project)); !old || *old != record)
    if (auto w = util::write_file_atomic(installed_file(project), record); !w) return std::unexpected(failed(w.error()));
  return report;
}

namespace {

/// The ASCII letters a Latin letter with a diacritic is written with in a slug (é → "e", ß →
/// "ss", Æ → "ae"), for U+00C0..U+017F (Latin-1 Supplement and Latin Extended-A); empty for a
/// code point outside them and for × and ÷.
std::string_view ascii_of_latin(char32_t cp) {
  static constexpr std::string_view table[] = {
      // U+00C0
      "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
      "d", "n", "o", "o", "o", "o", "o", "", "o", "u", "u", "u", "u", "y", "th", "ss",
      "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
      "d", "n", "o", "o", "o", "o", "o", "", "o", "u", "u", "u", "u", "y", "th", "y",
      // U+0100
      "a", "a", "a", "a", "a", "a", "c", "c", "c", "c", "c", "c", "c", "c", "d", "d",
      "d", "d", "e", "e", "e", "e", "e", "e", "e", "e", "e", "e", "g", "g", "g", "g",
      "g", "g", "g", "g", "h", "h", "h", "h", "i", "i", "i", "i", "i", "i", "i", "i",
      "i", "i", "ij", "ij", "j", "j", "k", "k", "k", "l", "l", "l", "l", "l", "l", "l",
      "l", "l", "l", "n", "n", "n", "n", "n", "n", "n", "n", "n", "o", "o", "o", "o",
      "o", "o", "oe", "oe", "r", "r", "r", "r", "r", "r", "s", "s", "s", "s", "s", "s",
      "s", "s", "t", "t", "t", "t", "t", "t", "u", "u", "u", "u", "u", "u", "u", "u",
      "u", "u", "u", "u", "w", "w", "y", "y", "y", "z", "z", "z", "z", "z", "z", "s"};
  static_assert(std::size(table) == 0x180 - 0xC0);
  return cp >= 0xC0 && cp < 0x180 ? table[cp - 0xC0] : std::string_view();
}

} // namespace

std::string slug(std::string_view name) {
  std::string out;
  auto separate = [&out] {
    if (!out.empty() && out.back() != '-') out += '-';
  };
  for (size_t i = 0; i < name.size();) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c < 0x80) {
      if (std::isalnum(c)) out += static_cast<char>(std::tolower(c));
      else separate();
      ++i;
      continue;
    }
    // Every code point of the table is two bytes long in UTF-8; others (CJK, emoji, invalid
    // bytes) are separators, as an ASCII punctuation mark is.
    const size_t n = util::utf8_length(name, i);
    std::string_view letters;
    if (n == 2) letters = ascii_of_latin(static_cast<char32_t>(((c & 0x1Fu) << 6) | (static_cast<unsigned char>(name[i + 1]) & 0x3Fu)));
    if (letters.empty()) separate();
    else out += letters;
    i += n == 0 ? 1 : n;
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::expected<fs::path, SetupError> init_spec(const fs::path& project, std::string_view name, const fs::path& skills_dir,
                                              SameName same_name) {
  const auto s = slug(name);
  if (s.empty()) return std::unexpected(invalid(fmt::format("'{}' gives no usable directory name: it needs a letter or digit of the Latin alphabet", name)));
  // A file name has at most 255 bytes, and the directory's name goes into every path below it
  // and into commit trailers: a short name is asked for, rather than "File name too long" later.
  if (s.size() > max_slug_length)
    return std::unexpected(invalid(fmt::format("the spec's name is too long: its directory name would have {} characters after "
                                               "SPC-NNN-; give a name of at most {} (a few words: the SPEC.md says the rest)",
                                               s.size(), max_slug_length)));
  std::error_code ec;
  // A mistyped --project must not become a new directory tree with a spec in it.
  if (!fs::is_directory(project, ec)) return std::unexpected(invalid(fmt::format("{} is not a directory", project.string())));
  auto tmpl = util::read_file(skills_dir / "templates" / "spec.md");
  if (!tmpl) return std::unexpected(failed(tmpl.error()));
  const fs::path specs = project / "docs" / "specs";
  long highest = 0;
  std::vector<std::string> same; // sorted below: directory order is the file system's
  for (const auto& e : fs::directory_iterator(specs, ec)) {
    const auto dir = e.path().filename().string();
    // spec_number counts up to nine digits: a longer number is not one this command made, and
    // does not set the next.
    const auto n = spec::spec_number(dir);
    if (std::error_code entry_ec; !e.is_directory(entry_ec) || !n) continue;
    // "SPC-<digits>-<s>" exactly: SPC-007-a-b is not a spec named b.
    if (dir.ends_with("-" + s) && dir.find('-', 4) == dir.size() - s.size() - 1) same.push_back(dir);
    highest = std::max(highest, *n);
  }
  if (!same.empty() && same_name == SameName::refuse) {
    std::sort(same.begin(), same.end());
    return std::unexpected(invalid(fmt::format("a spec named '{}' exists: {}; work on it, pick another name, or pass "
                                               "--allow-same-name to number a second one",
                                               s, (fs::path("docs") / "specs" / same.front()).string())));
  }
  const auto number = fmt::format("SPC-{:03}", highest + 1);
  const fs::path dir = specs / fmt::format("{}-{}", number, s);
  if (fs::exists(dir, ec)) return std::unexpected(invalid(fmt::format("{} already exists", dir.string())));
  std::string text = *tmpl;
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"{{number}}", number}, {"{{title}}", std::string(name)}})
    // Searching on after each replacement: a value that contains its key is not replaced again.
    for (size_t at = 0; (at = text.find(key, at)) != std::string::npos; at += value.size()) text.replace(at, key.size(), value);
  if (auto w = util::write_file_atomic(dir / "SPEC.md", text); !w) return std::unexpected(failed(w.error()));
  return dir;
}

} // namespace harness::setup
