#pragma once
// JSON codecs for the scheduler's inputs and outputs, so a run is a replayable log:
// {"workload": ..., "config": ..., "events": [...]} fed to a fresh Scheduler gives the same state.

#include "harness/sched/types.hpp"

#include <boost/json/value.hpp>

#include <expected>
#include <string>

namespace harness::sched {

boost::json::value to_json(const WorkPlan& p);
boost::json::value to_json(const WorkPhase& p);
boost::json::value to_json(const Workload& w);
boost::json::value to_json(const Config& c);
boost::json::value to_json(const Event& e);
boost::json::value to_json(const Action& a);

/// Each parser rejects a missing required field or an unknown enum name with a message naming it.
std::expected<WorkPlan, std::string> work_plan_from_json(const boost::json::value& v);
std::expected<WorkPhase, std::string> work_phase_from_json(const boost::json::value& v);
std::expected<Workload, std::string> workload_from_json(const boost::json::value& v);
std::expected<Config, std::string> config_from_json(const boost::json::value& v);
std::expected<Event, std::string> event_from_json(const boost::json::value& v);
std::expected<Action, std::string> action_from_json(const boost::json::value& v);

} // namespace harness::sched
