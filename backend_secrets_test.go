package threads_test

// addBackendValues adds a value of each type of the storage, audio, key
// and registry calls to FuzzFormatSecrets' set.
func addBackendValues(out map[string]any, key, tok string) {
}
