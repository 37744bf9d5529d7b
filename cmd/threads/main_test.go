package main

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that the package's tests, which run the command
// in-process, leave no goroutine behind. (The script tests, which run the
// built command, live in the scripttest module.)
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
