package harness

import "testing"

// skipShort skips a test that starts a real component (etcd, kube-apiserver, moto) under
// go test -short, saying which; without -short such a test fails when the component is missing.
func skipShort(t *testing.T, component string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: this test starts %s; run go test without -short to include it", component)
	}
}
