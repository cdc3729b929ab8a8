"""A worker's side of the harness protocol for `--worker command` test agents: harness-mcp
--worker started in the worker's environment, one JSON-RPC request at a time over its stdio."""
import json
import os
import re
import subprocess


def task_input(prompt_file):
    """The task's assign_task input, as the rendered worker prompt carries it (one JSON line)."""
    prompt = open(prompt_file).read()
    return json.loads(re.search(r"^Task input \(JSON\): (.*)$", prompt, re.M).group(1))


class McpWorker:
    def __init__(self, harness_mcp, worker=True):
        """worker=False: the orchestrator's tools (harness_respond, ...), as anyone may start them."""
        role = ["--worker"] if worker else []
        self.proc = subprocess.Popen([harness_mcp, *role, "--project", os.environ["HARNESS_PROJECT"]],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "test-worker", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        for line in self.proc.stdout:
            m = json.loads(line)
            if m.get("id") == self.next_id:
                return m["result"]
        raise RuntimeError("harness-mcp closed its output")

    def tool(self, name, arguments):
        """A tool's structured result."""
        return self.request("tools/call", {"name": name, "arguments": arguments})["structuredContent"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()
