module github.com/threadsapi/threads-go

go 1.25.0

require (
	github.com/hashicorp/go-retryablehttp v0.7.8
	github.com/tmaxmax/go-sse v0.11.0
)

require github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
