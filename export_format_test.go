package threads

// Hook for format_secrets_test.go: a ToolRoundsError as RunStream makes it,
// holding the call's key.
func NewToolRoundsError(max int, call ToolCall, secret string) *ToolRoundsError {
	return &ToolRoundsError{Max: max, Call: call, secret: secret}
}
