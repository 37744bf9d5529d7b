module github.com/threadsapi/threads-go/cmd/threads/scripttest

go 1.25.0

require (
	github.com/rogpeppe/go-internal v1.16.0
	github.com/threadsapi/threads-go v0.0.0
	go.uber.org/goleak v1.3.0
)

require (
	github.com/go-json-experiment/json v0.0.0-20251027170946-4849db3c2f7e // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	github.com/tmaxmax/go-sse v0.11.0 // indirect
	golang.org/x/sys v0.26.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)

replace github.com/threadsapi/threads-go => ../../..
