// Schema history. Each step migrates version N to N+1 and never edits an earlier step: a database
// written by any earlier build migrates forward through every step in order.
#include "harness/store/schema.hpp"

#include "harness/store/store.hpp"
#include "schema_internal.hpp"

#include <fmt/format.h>

namespace harness::store {
namespace {

// v0 -> v1: the seeds' tables as written (seed 002 sessions and execution_state, seed 000
// worker_messages).
constexpr const char* v1 = R"sql(
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  slot INTEGER NOT NULL,
  status TEXT NOT NULL,
  working_dir TEXT NOT NULL,
  current_command TEXT,
  started_at TEXT,
  ended_at TEXT,
  pid INTEGER,
  exit_code INTEGER
);
CREATE TABLE worker_messages (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  message_type TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT DEFAULT 'pending',
  created_at TEXT,
  responded_at TEXT,
  response TEXT,
  FOREIGN KEY (session_id) REFERENCES sessions(id)
);
CREATE TABLE execution_state (
  project_path TEXT PRIMARY KEY,
  highest_executed_phase INTEGER DEFAULT 0,
  highest_verified_phase INTEGER DEFAULT 0,
  pending_verify_phase INTEGER,
  highest_executing_phase INTEGER,
  highest_executing_plan INTEGER,
  updated_at TEXT
);
)sql";

// v1 -> v2: what the harness needs to launch, trust and recover workers; tasks, attempts,
// scheduler events, free key/value state.
constexpr const char* v2 = R"sql(
ALTER TABLE sessions ADD COLUMN task_id TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1;
ALTER TABLE sessions ADD COLUMN token TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN adapter TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN pgid INTEGER;
ALTER TABLE sessions ADD COLUMN pid_start_time INTEGER;
ALTER TABLE sessions ADD COLUMN log_path TEXT;
ALTER TABLE sessions ADD COLUMN updated_at TEXT NOT NULL DEFAULT '';
CREATE TABLE tasks (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  status TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT '{}',
  updated_at TEXT NOT NULL
);
CREATE TABLE attempts (
  task_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  session_id TEXT NOT NULL,
  status TEXT NOT NULL,
  started_at TEXT NOT NULL,
  ended_at TEXT,
  error TEXT,
  PRIMARY KEY (task_id, attempt)
);
CREATE TABLE events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  created_at TEXT NOT NULL,
  kind TEXT NOT NULL,
  body TEXT NOT NULL
);
CREATE TABLE kv_state (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
)sql";

// v2 -> v3: worker_messages gets a stable arrival order (`seq`; a rowid may be renumbered by
// VACUUM) and an index for pending look-ups; execution_state stores phases as TEXT so decimal
// phases ("02.1") are not coerced to numbers. Rows are copied in their original order.
constexpr const char* v3 = R"sql(
CREATE TABLE worker_messages_v3 (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  session_id TEXT NOT NULL REFERENCES sessions(id),
  message_type TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',
  created_at TEXT,
  responded_at TEXT,
  response TEXT
);
INSERT INTO worker_messages_v3 (id, session_id, message_type, payload, status, created_at, responded_at, response)
  SELECT id, session_id, message_type, payload, COALESCE(status, 'pending'), created_at, responded_at, response
  FROM worker_messages ORDER BY rowid;
DROP TABLE worker_messages;
ALTER TABLE worker_messages_v3 RENAME TO worker_messages;
CREATE INDEX worker_messages_pending ON worker_messages (status, session_id, seq);
CREATE TABLE execution_state_v3 (
  project_path TEXT PRIMARY KEY,
  highest_executed_phase TEXT NOT NULL DEFAULT '0',
  highest_verified_phase TEXT NOT NULL DEFAULT '0',
  pending_verify_phase TEXT,
  highest_executing_phase TEXT,
  highest_executing_plan TEXT,
  updated_at TEXT
);
INSERT INTO execution_state_v3
  SELECT project_path, CAST(COALESCE(highest_executed_phase, 0) AS TEXT), CAST(COALESCE(highest_verified_phase, 0) AS TEXT),
         CAST(pending_verify_phase AS TEXT), CAST(highest_executing_phase AS TEXT), CAST(highest_executing_plan AS TEXT),
         updated_at
  FROM execution_state;
DROP TABLE execution_state;
ALTER TABLE execution_state_v3 RENAME TO execution_state;
)sql";

// v3 -> v4: requests to the running orchestrator (harness_start_session, harness_end_session),
// written by harness-mcp and answered by the orchestrator's loop; `seq` keeps their order. An
// index on sessions.task_id: "has this task ever had a session?" is asked at every launch.
constexpr const char* v4 = R"sql(
CREATE TABLE requests (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  target TEXT NOT NULL,
  body TEXT NOT NULL DEFAULT '{}',
  status TEXT NOT NULL DEFAULT 'pending',
  result TEXT,
  created_at TEXT NOT NULL,
  handled_at TEXT
);
CREATE INDEX requests_pending ON requests (status, seq);
CREATE INDEX sessions_task ON sessions (task_id);
)sql";

// v4 -> v5: reports that need no answer (progress_update, task_started, ...) were stored as
// 'pending' and listed by harness_get_pending; they are 'received' now, only questions wait.
constexpr const char* v5 = R"sql(
UPDATE worker_messages SET status='received'
 WHERE status='pending' AND message_type NOT IN ('verification_needed','decision_needed','action_needed');
)sql";

// v5 -> v6: a session records the spec its task belongs to: every spec numbers its plans from
// 01-01, so "has this task had a session before?" must be asked of (spec, task). Rows written
// before keep '' (spec unknown), which has_session_for_task counts for every spec.
constexpr const char* v6 = R"sql(
ALTER TABLE sessions ADD COLUMN spec TEXT NOT NULL DEFAULT '';
)sql";

// v6 -> v7: a session the harness ended on purpose (a drain, end-session, HEAD moved) is `ended`,
// not `failed`, and says why in `end_reason`; NULL in every other row.
constexpr const char* v7 = R"sql(
ALTER TABLE sessions ADD COLUMN end_reason TEXT;
)sql";

constexpr const char* steps[] = {v1, v2, v3, v4, v5, v6, v7};
static_assert(std::size(steps) == schema_version);

}  // namespace

const char* migration_sql(int from) {
  return from >= 0 && from < schema_version ? steps[from] : nullptr;
}

namespace detail {

Result<int> read_user_version(const Db& db) {
  auto st = Stmt::prepare(db, "PRAGMA user_version");
  if (!st) return std::unexpected(st.error());
  auto row = st->step("read user_version");
  if (!row) return std::unexpected(row.error());
  return static_cast<int>(st->int64(0));
}

Result<void> migrate(const Db& db, int target) {
  // Nearly every open finds the schema current: that is read without the write lock a migration
  // takes, for which `status` or a harness-mcp would wait while a running orchestrator writes.
  if (auto current = read_user_version(db); current && *current == target)
    return db.exec("PRAGMA foreign_keys=ON", "enable foreign keys");
  // Foreign keys off while tables are rebuilt (a no-op inside a transaction, so set before BEGIN).
  if (auto r = db.exec("PRAGMA foreign_keys=OFF", "disable foreign keys"); !r) return r;
  auto txn = Txn::begin(db, Txn::Mode::write);
  if (!txn) return std::unexpected(txn.error());
  auto version = read_user_version(db);
  if (!version) return std::unexpected(version.error());
  if (*version > schema_version)
    return std::unexpected(DbError{SQLITE_ERROR, fmt::format("database schema version {} is newer than this build "
                                                             "understands ({}); use a newer harness", *version, schema_version)});
  for (int v = *version; v < target; ++v) {
    if (auto r = db.exec(steps[v], fmt::format("migrate schema {} -> {}", v, v + 1).c_str()); !r) return r;
  }
  if (*version < target) {
    if (auto r = db.exec(fmt::format("PRAGMA user_version={}", target).c_str(), "set user_version"); !r) return r;
  }
  // A database an older build wrote (not a new one, version 0) says so; the first migration's
  // version is kept, a later one's does not replace it.
  if (*version > 0 && *version < target) {
    const auto sql = fmt::format("INSERT OR IGNORE INTO kv_state (key, value, updated_at) "
                                 "VALUES ('{}', '{}', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                                 upgraded_from_key, *version);
    if (auto r = db.exec(sql.c_str(), "record the upgrade"); !r) return r;
  }
  if (auto r = txn->commit(); !r) return r;
  return db.exec("PRAGMA foreign_keys=ON", "enable foreign keys");
}

}  // namespace detail

std::expected<void, std::string> create_schema_at(const std::filesystem::path& path, int version) {
  if (version < 1 || version > schema_version) return std::unexpected(fmt::format("no schema version {}", version));
  auto db = detail::Db::open(path, true);
  if (!db) return std::unexpected(db.error().message);
  if (auto r = db->exec("PRAGMA journal_mode=WAL", "set WAL"); !r) return std::unexpected(r.error().message);
  if (auto r = detail::migrate(*db, version); !r) return std::unexpected(r.error().message);
  return {};
}

}  // namespace harness::store
