#!/usr/bin/env bash
# A stand-in for the `claude` binary (workers.claude.binary) whose API is rate-limited: it prints
# Claude Code's stream-json as the real CLI does when its retries of a 429 run out (init event,
# then an error result), so the claude adapter's own stream reader classifies it. Per plan, and
# per start (counted in $FAULT_DIR):
#   01-01 : rate-limited every time (the limit never lifts)
#   01-02 : rate-limited twice, then the limit lifts: `harness-cli script-worker` (the real script
#           adapter, path in $RL_HARNESS_CLI) does the work and a success result follows
# Its arguments (the prompt and flags of a real claude run) are ignored.
set -u
plan=${HARNESS_TASK_ID#execute:}
n=$(( $(cat "$FAULT_DIR/$plan" 2>/dev/null || echo 0) + 1 ))
echo $n >"$FAULT_DIR/$plan"
echo "$HARNESS_SESSION_ID" >>"$FAULT_DIR/$plan.sessions"
printf '{"type":"system","subtype":"init","session_id":"%s","tools":[],"mcp_servers":[]}\n' "$HARNESS_SESSION_ID"
if [[ $plan == 01-01 || $n -le 2 ]]; then
  printf '%s\n' '{"type":"result","subtype":"success","is_error":true,"num_turns":1,"total_cost_usd":0,"result":"API Error: 429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"This request would exceed the rate limit for your organization of 50 requests per minute.\"}}"}'
  exit 1
fi
"$RL_HARNESS_CLI" script-worker >/dev/null 2>&1 || exit $?
printf '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"total_cost_usd":0,"result":"done"}\n'
