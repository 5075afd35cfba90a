#!/bin/sh
# A light ACP agent for the concurrency benchmark: POSIX sh builtins only (no fork per
# message), a few hundred KiB of memory, so 500 of them fit on a small machine. It knows
# exactly the messages a4aa sends: initialize, session/new, session/prompt (answered with
# one message chunk and end_turn, under the prompt's session id: one process may hold many
# sessions); notifications are ignored. stdin EOF ends it.
n=0
while IFS= read -r line; do
  case "$line" in
    *'"method":"session/cancel"'*) continue ;;
    *'"method":'*) ;;
    *) continue ;;
  esac
  rest=${line#*\"id\":}
  id=${rest%%,*}
  method=${line#*\"method\":\"}
  method=${method%%\"*}
  case "$method" in
    initialize)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1,"agentCapabilities":{},"agentInfo":{"name":"bench-light-agent","version":"1.0.0"},"authMethods":[]}}\n' "$id" ;;
    session/new)
      n=$((n + 1))
      printf '{"jsonrpc":"2.0","id":%s,"result":{"sessionId":"light-%s-%s"}}\n' "$id" "$$" "$n" ;;
    session/prompt)
      sid=${line#*\"sessionId\":\"}
      sid=${sid%%\"*}
      printf '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"%s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"pong"}}}}\n' "$sid"
      printf '{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn"}}\n' "$id" ;;
    *)
      printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\n' "$id" ;;
  esac
done
