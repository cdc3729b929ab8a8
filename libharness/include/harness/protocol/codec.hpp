#pragma once
// Boost.JSON codecs for the protocol. Decoding is strict: unknown types, unknown version,
// missing fields and wrong JSON types are errors whose text names the field, e.g.
// `payload.options[1]: expected string`. Unknown extra fields are ignored (forward compatible).

#include "harness/protocol/message.hpp"

#include <boost/json.hpp>

#include <expected>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace harness::protocol {

/// `{"v","id","session_id","type","payload","created_at"}`.
boost::json::value to_json(const Envelope& envelope);
/// The payload object alone.
boost::json::value payload_to_json(const Payload& payload);
/// Compact JSON text of an envelope.
std::string serialize(const Envelope& envelope);

/// Decodes an envelope; the error names the offending field.
std::expected<Envelope, std::string> envelope_from_json(const boost::json::value& json);
/// Decodes a payload of a known type; errors are prefixed with `payload`.
std::expected<Payload, std::string> payload_from_json(MessageType type, const boost::json::value& json);
/// Decodes a payload given its wire type name (unknown names are an error naming `type`).
std::expected<Payload, std::string> payload_from_json(std::string_view type, const boost::json::value& json);
/// Parses JSON text and decodes an envelope.
std::expected<Envelope, std::string> parse_envelope(std::string_view text);

/// `o[key]` as text, for reading free-form payloads and answers: a string as it is, any other
/// value as its JSON (`false`, `3`, `{...}`), empty when the key is absent.
std::string field_text(const boost::json::object& o, std::string_view key);

/// `o[key]` when it is a string; empty when it is absent or of another type (the lenient read of
/// the files workers and runs leave behind, where a missing field is no error).
std::string string_field(const boost::json::object& o, std::string_view key);

/// The JSON object a file holds; nullopt when it is missing, unreadable, not JSON or not an object.
std::optional<boost::json::object> read_json_object(const std::filesystem::path& path);

}  // namespace harness::protocol
