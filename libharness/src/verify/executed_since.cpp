#include "harness/verify/executed_since.hpp"

#include "harness/spec/document_parsers.hpp"
#include "harness/spec/frontmatter_writer.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace harness::verify {

std::expected<std::optional<std::string>, std::string> with_executed_since(std::string_view text, const std::string& display_path,
                                                                           const std::string& plan) {
  std::vector<spec::Diagnostic> ignored;
  const auto v = spec::parse_verification(text, display_path, ignored);
  if (!v.status) return std::nullopt; // no verdict (a file without frontmatter): it vouches for nothing
  if (v.plans && std::ranges::find(*v.plans, plan) == v.plans->end()) return std::nullopt; // not its work
  if (std::ranges::find(v.executed_since, plan) != v.executed_since.end()) return std::nullopt;
  auto ids = v.executed_since;
  ids.push_back(plan);
  std::string list;
  for (const auto& id : ids) list += fmt::format("{}'{}'", list.empty() ? "" : ", ", id); // plan ids hold no quote
  auto updated = spec::update_frontmatter(text, {{"executed_since", "[" + list + "]"}});
  if (!updated) return std::unexpected(display_path + ": " + updated.error());
  // The writer replaces a one-line value: a list a person wrote as a block would be left half
  // replaced. What it wrote must read back as meant, or nothing is written.
  const auto back = spec::parse_verification(*updated, display_path, ignored);
  if (back.executed_since != ids || back.status != v.status)
    return std::unexpected(fmt::format("{}: cannot add {} to its executed_since list in place (write it as [...] on one line)",
                                       display_path, plan));
  return std::optional<std::string>(std::move(*updated));
}

} // namespace harness::verify
