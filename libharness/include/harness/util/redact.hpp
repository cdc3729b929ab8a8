#pragma once
// What harness writes into files that get committed (STATUS.md's blocked reasons, VERIFICATION.md)
// may quote a command's output: a test that prints its environment would put a password into the
// repository's history (review QQ F1). The values of this process's environment variables whose
// names say they are secrets are masked there, as CI systems mask theirs.

#include <string>
#include <string_view>

namespace harness::util {

/// Whether an environment variable of this name holds a secret by its name: it contains TOKEN,
/// SECRET, PASSWORD, PASSWD, CREDENTIAL, AUTH or KEY (any case), as API_KEY and GH_TOKEN do.
bool secret_name(std::string_view name);

/// `text` with every value of at least 6 bytes that a secret_name variable of this process's
/// environment holds replaced by `[$NAME]`.
std::string redact_environment_secrets(std::string text);

} // namespace harness::util
