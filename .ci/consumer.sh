#!/usr/bin/env bash
# A module outside the repository requires the SDK, vendors it and builds
# with -mod=vendor; the generator must not appear in its build list, nor
# go-internal (the script tests') in its module graph.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/go.mod" <<MOD
module example.com/consumer

go 1.25.0

require github.com/threadsapi/threads-go v0.0.0

replace github.com/threadsapi/threads-go => $repo
MOD
cat >"$tmp/main.go" <<'GO'
package main

import (
	"fmt"

	threads "github.com/threadsapi/threads-go"
	_ "github.com/threadsapi/threads-go/proxy"
)

func main() {
	_, err := threads.NewClient(threads.WithoutEnvironmentDefaults())
	fmt.Println(err)
}
GO
cd "$tmp"
go mod tidy
go mod vendor
go build -mod=vendor -o /dev/null .
if grep -q 'oapi-codegen' go.sum vendor/modules.txt; then
  echo "oapi-codegen reached the consumer's build list"; exit 1
fi
# The command line's script tests (testscript) live in their own module:
# go-internal must not come back into the SDK's go.mod, where every
# consumer's module graph would carry it (with x/tools).
mods=$(go list -mod=mod -m all)
if grep -q 'rogpeppe/go-internal' <<<"$mods"; then
  echo "go-internal reached the consumer's module graph (the script tests belong in cmd/threads/scripttest)"; exit 1
fi
# The check of the fake's events against AG-UI's schema lives in its own
# module (threadstest/aguischema): its validator must not reach a consumer.
if grep -q 'santhosh-tekuri/jsonschema\|threads-go/threadstest/aguischema' <<<"$mods"; then
  echo "the JSON Schema validator reached the consumer's module graph (it belongs in threadstest/aguischema)"; exit 1
fi
# The MCP support (github.com/threadsapi/threads-go/mcp) is a module of
# its own: a consumer of package threads alone has no MCP module (neither
# it nor the MCP Go SDK) in its module graph.
if grep -q 'modelcontextprotocol\|threads-go/mcp' <<<"$mods"; then
  echo "an MCP module reached the consumer's module graph (MCP belongs in the mcp module):"
  grep 'modelcontextprotocol\|threads-go/mcp' <<<"$mods"; exit 1
fi
# The Redis store (github.com/threadsapi/threads-go/proxy/redisstore) is a
# module of its own: a consumer of the SDK (and of package proxy) has no
# Redis client in its module graph.
if grep -q 'redis' <<<"$mods"; then
  echo "Redis reached the consumer's module graph (the Redis store belongs in proxy/redisstore):"
  grep 'redis' <<<"$mods"; exit 1
fi
echo "consumer build with -mod=vendor: ok"
