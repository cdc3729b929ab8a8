// Reads a request's id from a line that does not parse as a whole, so that its error reply can
// carry the id the caller waits for instead of null.
#include "harness/mcp/jsonrpc.hpp"

#include "harness/util/text.hpp"

#include <boost/json/basic_parser_impl.hpp>

#include <cctype>

namespace harness::mcp {
namespace json = boost::json;

namespace {

/// SAX handler that notes the top-level "id" (string or integer) and whether the message has a
/// top-level "result" or "error" (a response, whose id is ours, not the caller's).
struct IdCatcher {
  static constexpr std::size_t max_array_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_object_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_string_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_key_size = static_cast<std::size_t>(-1);

  int depth = 0;
  bool next_is_id = false;
  bool is_response = false;
  std::optional<json::value> id;
  std::string text;  // the parts of the string or key being read

  /// A value at depth 1 is the id if "id" was its key; null stands for a value no id can be.
  void value(json::value v) {
    if (depth == 1 && next_is_id && !id) id = std::move(v);
    if (depth == 1) next_is_id = false;
  }

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  // An object or array after "id" is not an id: noted as null, which means none.
  bool on_array_begin(json::error_code&) {
    value(nullptr);
    ++depth;
    return true;
  }
  bool on_array_end(std::size_t, json::error_code&) {
    --depth;
    return true;
  }
  bool on_object_begin(json::error_code&) {
    value(nullptr);
    ++depth;
    return true;
  }
  bool on_object_end(std::size_t, json::error_code&) {
    --depth;
    return true;
  }
  bool on_string_part(json::string_view s, std::size_t, json::error_code&) {
    if (depth == 1 && next_is_id) text.append(s.data(), s.size());
    return true;
  }
  bool on_string(json::string_view s, std::size_t, json::error_code&) {
    if (depth == 1 && next_is_id) {
      text.append(s.data(), s.size());
      value(json::string(text));
    }
    text.clear();
    return true;
  }
  bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
    if (depth == 1) text.append(s.data(), s.size());
    return true;
  }
  bool on_key(json::string_view s, std::size_t, json::error_code&) {
    if (depth == 1) {
      text.append(s.data(), s.size());
      next_is_id = text == "id";
      if (text == "result" || text == "error") is_response = true;
    }
    text.clear();
    return true;
  }
  bool on_number_part(json::string_view, json::error_code&) { return true; }
  bool on_int64(std::int64_t i, json::string_view, json::error_code&) {
    value(i);
    return true;
  }
  bool on_uint64(std::uint64_t u, json::string_view, json::error_code&) {
    value(u);
    return true;
  }
  bool on_double(double, json::string_view, json::error_code&) {
    value(nullptr);
    return true;
  }
  bool on_bool(bool, json::error_code&) {
    value(nullptr);
    return true;
  }
  bool on_null(json::error_code&) {
    value(nullptr);
    return true;
  }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }
};

/// True for `\\uD800`..`\\uDFFF` at `i` (the backslash), which Boost.JSON 1.81 refuses when
/// unpaired, whatever the options.
bool surrogate_escape_at(std::string_view s, std::size_t i) {
  return i + 6 <= s.size() && s[i + 1] == 'u' && (s[i + 2] == 'd' || s[i + 2] == 'D') &&
         std::string_view("89abcdefABCDEF").find(s[i + 3]) != std::string_view::npos &&
         std::isxdigit(static_cast<unsigned char>(s[i + 4])) && std::isxdigit(static_cast<unsigned char>(s[i + 5]));
}

/// `text` with every surrogate escape turned into `\\uFFFD`, so the parse gets past a lone one
/// to an id written after it (a client may well write it last).
std::string without_surrogate_escapes(std::string_view text) {
  std::string out(text);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] != '\\') continue;
    if (surrogate_escape_at(out, i)) out.replace(i + 2, 4, "FFFD");
    ++i;  // the escaped character: `\\udc80` is a backslash and text, not an escape
  }
  return out;
}

}  // namespace

std::optional<json::value> request_id_of(std::string_view text) {
  const std::string readable = without_surrogate_escapes(text);
  // Invalid UTF-8 is let through here: the point is to get past it to the id, not to judge it.
  json::parse_options options;
  options.allow_invalid_utf8 = true;
  json::basic_parser<IdCatcher> parser(options);
  json::error_code ec;
  // `more` is true: a prefix of a longer line is fine, the parse just stops where the text does.
  parser.write_some(true, readable.data(), readable.size(), ec);
  IdCatcher& seen = parser.handler();
  if (seen.is_response || !seen.id || seen.id->is_null()) return std::nullopt;
  if (seen.id->is_string() && !util::valid_utf8(seen.id->as_string())) return std::nullopt;
  return seen.id;
}

}  // namespace harness::mcp
