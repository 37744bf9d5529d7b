module github.com/threadsapi/threads-go/threadstest/aguischema

go 1.25.0

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2
	github.com/threadsapi/threads-go v0.0.0
)

require (
	github.com/go-json-experiment/json v0.0.0-20251027170946-4849db3c2f7e // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	github.com/tmaxmax/go-sse v0.11.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)

replace github.com/threadsapi/threads-go => ../..
