#include "harness/worker/prompt.hpp"

#include <fmt/format.h>

namespace harness::worker {

std::expected<std::string, std::string> render_template(std::string_view tmpl,
                                                        const std::map<std::string, std::string>& vars) {
  std::string out;
  out.reserve(tmpl.size() + 256);
  size_t i = 0;
  while (i < tmpl.size()) {
    const size_t open = tmpl.find("{{", i);
    if (open == std::string_view::npos) break;
    const size_t close = tmpl.find("}}", open + 2);
    if (close == std::string_view::npos) break;
    std::string_view name = tmpl.substr(open + 2, close - open - 2);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    auto it = vars.find(std::string(name));
    if (it == vars.end()) {
      int line = 1;
      for (size_t k = 0; k < open; ++k) line += tmpl[k] == '\n';
      return std::unexpected(fmt::format("line {}: no value for placeholder {{{{{}}}}}", line, name));
    }
    out.append(tmpl.substr(i, open - i));
    out += it->second;
    i = close + 2;
  }
  out.append(tmpl.substr(i));
  return out;
}

} // namespace harness::worker
