//go:build !(faultinject && linux)

package vault

// fault is a point where a test build (-tags faultinject) may kill the
// process; in every other build it does nothing and costs nothing.
func fault(string) {}

// faultNoRenameat2 lets a test build take the fallback path of moves.
func faultNoRenameat2() bool { return false }
