package runs

// HeldBytes reports what a tool stream holds against its one budget: the
// bytes its Result keeps of the finished runs plus what the current run's
// assembly has reserved. For tests of that budget only.
func HeldBytes(ts *ToolStream) (held, budget int64) {
	return ts.kept + ts.st.acc.retained - ts.st.acc.base, maxRetained
}
