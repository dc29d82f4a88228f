#!/usr/bin/env bash
# toolgate with nothing but curl: list the tools in Anthropic's shape, run the model's tool calls.
#   TOOLGATE_KEY=tg_... bash examples/curl.sh
# Env: TOOLGATE_URL (default http://localhost:8787), TOOLGATE_KEY.
set -euo pipefail
URL="${TOOLGATE_URL:-http://localhost:8787}"
AUTH="authorization: Bearer ${TOOLGATE_KEY:?Set TOOLGATE_KEY (see the top of this file).}"

# --fail-with-body: a refused request stops the script, with the gateway's error printed.
curl -sS --fail-with-body "$URL/v1/tools?format=anthropic" -H "$AUTH"
echo
# An OpenAI tool call and an Anthropic tool_use block in one batch; each result's message is ready to append.
curl -sS --fail-with-body "$URL/v1/tool-calls" -H "$AUTH" -H 'content-type: application/json' -d '{
  "tool_calls": [
    {"id": "call_1", "type": "function", "function": {"name": "echo", "arguments": "{\"text\":\"hello\",\"times\":\"2\"}"}},
    {"type": "tool_use", "id": "toolu_1", "name": "current_time", "input": {}}]}'
echo
