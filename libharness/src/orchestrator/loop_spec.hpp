#pragma once
// The run loop's spec and the one read-only copy of it that the verifications on the pool share
// (a copy each cost the loop about 2-4 ms per plan of a 1,000-plan spec).

#include "harness/spec/spec.hpp"

#include <memory>
#include <utility>

namespace harness::orchestrator {

/// The spec the loop works from. It changes only through replace() and edit(), and both drop the
/// shared copy: a verification never reads an older spec than the loop had when it started, and
/// a new change cannot forget to drop it (it was reset by hand at four places once).
class LoopSpec {
public:
  /// The spec now; what the loop reads.
  const spec::Spec& get() const { return m_spec; }

  /// A new reading of the spec (the run's first, a reload) in place of this one.
  void replace(spec::Spec spec) {
    m_spec = std::move(spec);
    m_shared.reset();
  }

  /// Changes the spec in place: `change(spec::Spec&)`.
  template <class Change> void edit(Change&& change) {
    std::forward<Change>(change)(m_spec);
    m_shared.reset();
  }

  /// The read-only copy for the pool: the one made before when the spec has not changed since,
  /// else a copy of it now.
  std::shared_ptr<const spec::Spec> shared() {
    if (!m_shared) m_shared = std::make_shared<const spec::Spec>(m_spec);
    return m_shared;
  }

private:
  spec::Spec m_spec;
  std::shared_ptr<const spec::Spec> m_shared;
};

} // namespace harness::orchestrator
