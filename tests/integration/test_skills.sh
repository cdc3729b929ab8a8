#!/usr/bin/env bash
# skills/: every command and agent file is well formed and names only tools harness-mcp serves
# and templates/references that exist; every template, filled in, is a spec harness-cli validate
# accepts; install-skills (twice, beside a user's own .mcp.json) and init work as a user runs them.
set -euo pipefail
cli=${HARNESS_CLI:?}
mcp=${HARNESS_MCP:?}
src=${HARNESS_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The tools harness-mcp serves, orchestrator side and worker side.
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}'
list='{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
(cd "$tmp" && printf '%s\n%s\n' "$init" "$list" | "$mcp" >"$tmp/tools.jsonl" && printf '%s\n%s\n' "$init" "$list" | "$mcp" --worker >>"$tmp/tools.jsonl")

python3 - "$src/skills" "$tmp/tools.jsonl" <<'PY'
import json, pathlib, re, sys, yaml
skills, tools_file = pathlib.Path(sys.argv[1]), sys.argv[2]
served = set()
for line in open(tools_file):
    r = json.loads(line).get("result", {})
    served |= {t["name"] for t in r.get("tools", [])}
assert "harness_worker_report" in served and "harness_get_pending" in served, served
problems = []
tool_item = re.compile(r"^(mcp__harness__harness_\w+|mcp__\w+|[A-Z][A-Za-z]+(\([^()]*\))?)$")

def frontmatter(path):
    text = path.read_text()
    if not text.startswith("---\n"):
        problems.append(f"{path}: no frontmatter"); return {}, text
    end = text.index("\n---\n", 4)
    try:
        fm = yaml.safe_load(text[4:end])
    except yaml.YAMLError as e:
        problems.append(f"{path}: frontmatter is not YAML: {e}"); return {}, text
    return fm or {}, text

def check_names(path, text):
    for t in set(re.findall(r"\bharness_\w+", text)):
        if t not in served: problems.append(f"{path}: names {t}, which harness-mcp does not serve")
    for kind, name in set(re.findall(r"\.claude/harness/(templates|references)/([\w.-]+\.md)", text)):
        if not (skills / kind / name).exists(): problems.append(f"{path}: names {kind}/{name}, which does not exist")
    for name in set(re.findall(r"`(harness-[a-z-]+)` agent", text)):
        if not (skills / "agents" / f"{name}.md").exists(): problems.append(f"{path}: names agent {name}, which does not exist")

commands = sorted((skills / "commands" / "harness").glob("*.md"))
expected = {"plan-spec", "research-spec", "define-requirements", "create-roadmap", "discuss-phase", "research-phase",
            "plan-phase", "add-phase", "status", "map-codebase", "execute-phase", "execute-plan", "verify-work", "orchestrate"}
if {c.stem for c in commands} != expected: problems.append(f"commands: {sorted({c.stem for c in commands} ^ expected)}")
for c in commands:
    fm, text = frontmatter(c)
    for key in ("description", "argument-hint", "allowed-tools"):
        if not isinstance(fm.get(key), str) or not fm.get(key).strip(): problems.append(f"{c}: '{key}' missing or empty")
    for item in [i.strip() for i in str(fm.get("allowed-tools", "")).split(",")]:
        if not tool_item.match(item): problems.append(f"{c}: allowed-tools item '{item}' is malformed")
    check_names(c, text)
agents = sorted((skills / "agents").glob("*.md"))
if {a.stem for a in agents} != {"harness-planner", "harness-researcher", "harness-plan-checker", "harness-executor", "harness-verifier"}:
    problems.append(f"agents: {[a.stem for a in agents]}")
for a in agents:
    fm, text = frontmatter(a)
    if fm.get("name") != a.stem: problems.append(f"{a}: name '{fm.get('name')}' is not the file name")
    if not isinstance(fm.get("description"), str): problems.append(f"{a}: no description")
    for item in [i.strip() for i in str(fm.get("tools", "")).split(",")]:
        if not tool_item.match(item): problems.append(f"{a}: tools item '{item}' is malformed")
    check_names(a, text)
for r in sorted((skills / "references").glob("*.md")) + sorted((skills / "templates").glob("*.md")):
    check_names(r, r.read_text())
# Agents say where they are used: each command named there starts that agent.
for a in agents:
    fm, _ = frontmatter(a)
    used = re.search(r"Use from (.*)", str(fm.get("description", "")))
    for cmd in re.findall(r"/harness:([a-z-]+)", used.group(1) if used else ""):
        f = skills / "commands" / "harness" / f"{cmd}.md"
        if not f.exists() or a.stem not in f.read_text(): problems.append(f"{a}: used from /harness:{cmd}, which does not start {a.stem}")
# A command that points to a phase command passes the spec directory first, as its argument-hint says.
for c in commands:
    for m in re.findall(r"/harness:(?:plan|discuss|research)-phase (\S+)", c.read_text()):
        if re.fullmatch(r"\d+|N|X", m): problems.append(f"{c}: /harness:...-phase {m} lacks the spec directory")
# The plan template passes the plan-checker's rules: no check that cannot fail, and its test files
# in files_modified; the verification template has the fields harness writes.
plan_t = (skills / "templates" / "plan.md").read_text()
if re.search(r"command: '?true'?\s*$", plan_t, re.M): problems.append("templates/plan.md: a command check that always passes")
if "{{test_file}}" not in plan_t.split("---")[1]: problems.append("templates/plan.md: files_modified lacks Task 2's test file")
ver_fm = yaml.safe_load((skills / "templates" / "verification.md").read_text().split("---")[1].replace("{{", "x").replace("}}", "x"))
for key in ("status", "level", "score", "verified_at", "plans"):
    if key not in ver_fm: problems.append(f"templates/verification.md: no `{key}`, which harness writes")
# The answer a worker's verification_needed gets is documented where the worker reads about asking.
for doc in (skills / "templates" / "worker-prompt.md", skills / "references" / "checkpoints.md"):
    if '"verdict"' not in doc.read_text() or '"feedback"' not in doc.read_text(): problems.append(f"{doc}: the verification answer's shape")
if problems:
    print("\n".join(problems)); sys.exit(1)
print(f"{len(commands)} commands, {len(agents)} agents, {len(served)} tools checked")
PY

# Every template filled in with sample values is a spec harness-cli validate accepts.
p=$tmp/project
s=$p/docs/specs/SPC-007-sample
mkdir -p "$s/planning/research" "$s/planning/plans/01-core" "$s/planning/plans/02-api" "$s/execution/phases/01-core"
fill() { # template, destination, extra sed expressions...
  local t=$1 d=$2; shift 2
  sed "$@" -e 's/{{number}}/SPC-007/g; s/{{title}}/Sample/g; s/{{project_name}}/sample/g; s/{{spec_name}}/SPC-007-sample/g' \
      -e 's/{{phase_1_name}}/Core/g; s/{{phase_2_name}}/API/g; s/{{date}}/2026-11-23T00:00:00Z/g' \
      -e 's/{{[a-z_0-9]*}}/sample/g' "$src/skills/templates/$t" >"$d"
}
fill spec.md "$s/SPEC.md" -e 's/x/x/'
fill roadmap.md "$s/ROADMAP.md" -e 's/- \[ \] 02-01: first plan/- [ ] 02-01: first plan/'
fill status.md "$s/STATUS.md" -e 's/x/x/'
fill project.md "$s/planning/PROJECT.md" -e 's/x/x/'
fill requirements.md "$s/planning/REQUIREMENTS.md" -e 's/x/x/'
fill research.md "$s/planning/research/phase-01-research.md" -e 's/{{phase}}/01/g'
for f in stack features architecture pitfalls; do fill "research-$f.md" "$s/planning/research/${f^^}.md" -e 's/x/x/'; done
fill plan.md "$s/planning/plans/01-core/01-01-PLAN.md" -e 's/{{plan_id}}/01-01/g; s/{{phase}}/1/; s/{{plan}}/1/; s#{{file_modified}}#src/core.py#g' \
  -e 's#{{test_file}}#tests/test_core.py#g; s#{{test_command}}#python3 -m pytest tests/test_core.py#'
fill plan.md "$s/planning/plans/02-api/02-01-PLAN.md" -e "s/{{plan_id}}/02-01/g; s/{{phase}}/2/; s/{{plan}}/1/; s#{{file_modified}}#src/api.py#g; s/^depends_on: \[\]/depends_on: ['01-01']/" \
  -e 's#{{test_file}}#tests/test_api.py#g; s#{{test_command}}#python3 -m pytest tests/test_api.py#'
fill summary.md "$s/execution/phases/01-core/01-01-SUMMARY.md" -e 's/{{plan_id}}/01-01/g; s#{{file_modified}}#src/core.py#g'
fill verification.md "$s/execution/phases/01-core/VERIFICATION.md" -e "s/{{phase}}/01/g; s/{{plans}}/'01-01'/"
out=$("$cli" validate "$s" 2>&1) || fail "templates do not validate: $out"
[[ "$out" == *"2 plans in 2 phases, 0 errors, 0 warnings"* ]] || fail "validate: $out"
[[ "$("$cli" status "$s")" == *"1/2 plans verified"* ]] || fail "status of the filled-in templates: $("$cli" status "$s")"
# The SUMMARY template of a GSD project (GSD's keys beside harness's) in GSD's layout.
g=$tmp/gsd
mkdir -p "$g/.planning/phases/01-core"
(cd "$g" && git init -q)
printf '# Roadmap\n\n## Phase 1: Core\n' >"$g/.planning/ROADMAP.md"
printf -- '---\ndepends_on: []\nfiles_modified: [src/core.py]\n---\n# 01-01\n\n### Task 1: t\n' >"$g/.planning/phases/01-core/01-01-PLAN.md"
fill summary-gsd.md "$g/.planning/phases/01-core/01-01-SUMMARY.md" \
  -e 's/{{plan_id}}/01-01/g; s#{{file_modified}}#src/core.py#g; s/{{phase_slug}}/01-core/; s/{{plan}}/01/; s/{{minutes}}/5/'
out=$(cd "$g" && "$cli" validate . 2>&1) || fail "the GSD SUMMARY template does not validate: $out"
[[ "$out" == *"1 plan in 1 phase, 0 errors, 0 warnings"* ]] || fail "validate of the GSD SUMMARY template: $out"
[[ "$(cd "$g" && "$cli" status .)" == *"1 executed"* ]] || fail "the GSD SUMMARY template is not read as executed: $(cd "$g" && "$cli" status .)"
# The plan template's frontmatter as the parser reads it: estimate, depends_on, files_modified
# (a second plan writing the same file must show as a conflict).
fill plan.md "$s/planning/plans/01-core/01-02-PLAN.md" -e 's/{{plan_id}}/01-02/g; s/{{phase}}/1/; s/{{plan}}/2/; s#{{file_modified}}#src/core.py#g' \
  -e 's#{{test_file}}#tests/test_core2.py#g; s#{{test_command}}#true#'
"$cli" graph "$s" --format json | python3 -c '
import json, sys
g = json.load(sys.stdin)
plans = {p["id"]: p for p in g["plans"]}
assert plans["01-01"]["weight"] == 30, plans
assert {"from": "01-01", "to": "02-01"} in g["edges"], g["edges"]
assert ["01-01", "01-02"] in g["conflicts"], g["conflicts"]
' || fail "the plan template does not round-trip through the parser: $("$cli" graph "$s" --format json)"
rm "$s/planning/plans/01-core/01-02-PLAN.md"

# install-skills twice into a project that already has an MCP server of its own.
u=$tmp/user
mkdir -p "$u"
echo '{"mcpServers": {"db": {"command": "db-mcp"}}, "note": "mine"}' >"$u/.mcp.json"
"$cli" install-skills --project "$u" >"$tmp/install1.txt" || fail "install-skills exited $?"
[[ -f "$u/.claude/commands/harness/status.md" && -f "$u/.claude/agents/harness-executor.md" ]] || fail "files not installed"
[[ -f "$u/.claude/harness/templates/plan.md" && -f "$u/.claude/harness/references/checkpoints.md" ]] || fail "templates not installed"
python3 - "$u/.mcp.json" "$mcp" <<'PY' || fail ".mcp.json not merged"
import json, os, sys
j = json.load(open(sys.argv[1]))
assert j["note"] == "mine" and j["mcpServers"]["db"]["command"] == "db-mcp", j
assert os.path.basename(j["mcpServers"]["harness"]["command"]) == "harness-mcp", j
PY
"$cli" install-skills --project "$u" >"$tmp/install2.txt"
grep -q "^0 file(s) written" "$tmp/install2.txt" || fail "second install changed files: $(cat "$tmp/install2.txt")"
# The skills call a bare `harness-cli`: install-skills warns when PATH does not find this one.
bin=$(cd "$(dirname "$cli")" && pwd)
PATH=/usr/bin:/bin "$cli" install-skills --project "$u" >/dev/null 2>"$tmp/warn.txt" || fail "install-skills without PATH"
grep -qF "warning: \`harness-cli\` is not on PATH" "$tmp/warn.txt" && grep -qF "export PATH=\"$bin:\$PATH\"" "$tmp/warn.txt" \
  || fail "no warning that harness-cli is not on PATH: $(cat "$tmp/warn.txt")"
PATH="$bin:/usr/bin:/bin" "$cli" install-skills --project "$u" >/dev/null 2>"$tmp/warn.txt"
[[ ! -s "$tmp/warn.txt" ]] || fail "a warning although PATH finds this harness-cli: $(cat "$tmp/warn.txt")"
echo "{ broken" >"$u/.mcp.json"
set +e
"$cli" install-skills --project "$u" 2>"$tmp/err.txt"; rc=$?
set -e
[[ $rc -eq 2 ]] && grep -q ".mcp.json" "$tmp/err.txt" || fail "a broken .mcp.json must stop install-skills with exit 2"

# init: a numbered spec directory that validates (with a warning: no plans yet).
[[ "$(cd "$u" && "$cli" init --spec "Dark mode")" == *"docs/specs/SPC-001-dark-mode/SPEC.md"* ]] || fail "init"
(cd "$u" && "$cli" init --spec "Export") >/dev/null
[[ -f "$u/docs/specs/SPC-002-export/SPEC.md" ]] || fail "second init"
# A mistyped --project is bad input (exit 2) and creates nothing; a name may hold a template key.
rc=0; (cd "$u" && "$cli" init --spec "Typo" --project "$u/typo") 2>/dev/null || rc=$?
[[ $rc -eq 2 && ! -e "$u/typo" ]] || fail "init --project typo: exit $rc, want 2 and no directory"
(cd "$u" && timeout 10 "$cli" init --spec "{{title}} page") >/dev/null || fail "init with {{title}} in the name"
head -1 "$u/docs/specs/SPC-003-title-page/SPEC.md" | grep -F "# SPC-003: {{title}} page" >/dev/null || fail "init title"
echo "skills: all checks passed"
